// vaulttool secret-service: sd-bus object tables, signals and the askpass child (see the header).
#include "CSecretService.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static struct vss_callbacks swift;

static int on_method(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    return swift.method(m, error);
}

static int on_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus, (void)userdata;
    return swift.get(path, interface, property, reply, error);
}

static int on_set(sd_bus *bus, const char *path, const char *interface, const char *property,
                  sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)userdata;
    return swift.set(path, interface, property, value, error);
}

static int on_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                   sd_bus_error *error) {
    (void)bus, (void)error;
    int exists = swift.find(path, interface);
    if (exists > 0) *found = userdata;
    return exists;
}

static int on_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***nodes, sd_bus_error *error) {
    (void)bus, (void)userdata, (void)error;
    return swift.enumerate(prefix, nodes);
}

#define U SD_BUS_VTABLE_UNPRIVILEGED
#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable service_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("OpenSession", "sv", "vo", on_method, U),
    SD_BUS_METHOD("CreateCollection", "a{sv}s", "oo", on_method, U),
    SD_BUS_METHOD("SearchItems", "a{ss}", "aoao", on_method, U),
    SD_BUS_METHOD("Unlock", "ao", "aoo", on_method, U),
    SD_BUS_METHOD("Lock", "ao", "aoo", on_method, U),
    SD_BUS_METHOD("GetSecrets", "aoo", "a{o(oayays)}", on_method, U),
    SD_BUS_METHOD("ReadAlias", "s", "o", on_method, U),
    SD_BUS_METHOD("SetAlias", "so", "", on_method, U),
    SD_BUS_PROPERTY("Collections", "ao", on_get, 0, CHANGES),
    SD_BUS_SIGNAL("CollectionCreated", "o", 0),
    SD_BUS_SIGNAL("CollectionDeleted", "o", 0),
    SD_BUS_SIGNAL("CollectionChanged", "o", 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable collection_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Delete", "", "o", on_method, U),
    SD_BUS_METHOD("SearchItems", "a{ss}", "ao", on_method, U),
    SD_BUS_METHOD("CreateItem", "a{sv}(oayays)b", "oo", on_method, U),
    SD_BUS_PROPERTY("Items", "ao", on_get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Label", "s", on_get, on_set, 0, CHANGES),
    SD_BUS_PROPERTY("Locked", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("Created", "t", on_get, 0, 0),
    SD_BUS_PROPERTY("Modified", "t", on_get, 0, CHANGES),
    SD_BUS_SIGNAL("ItemCreated", "o", 0),
    SD_BUS_SIGNAL("ItemDeleted", "o", 0),
    SD_BUS_SIGNAL("ItemChanged", "o", 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable item_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Delete", "", "o", on_method, U),
    SD_BUS_METHOD("GetSecret", "o", "(oayays)", on_method, U),
    SD_BUS_METHOD("SetSecret", "(oayays)", "", on_method, U),
    SD_BUS_PROPERTY("Locked", "b", on_get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Attributes", "a{ss}", on_get, on_set, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Label", "s", on_get, on_set, 0, CHANGES),
    SD_BUS_PROPERTY("Created", "t", on_get, 0, 0),
    SD_BUS_PROPERTY("Modified", "t", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("Type", "s", on_get, 0, CHANGES),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable session_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Close", "", "", on_method, U),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable prompt_table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Prompt", "s", "", on_method, U),
    SD_BUS_METHOD("Dismiss", "", "", on_method, U),
    SD_BUS_SIGNAL("Completed", "bv", 0),
    SD_BUS_VTABLE_END,
};

int vss_register_objects(sd_bus *bus, const struct vss_callbacks *callbacks) {
    swift = *callbacks;
    static const char *root = "/org/freedesktop/secrets";
    int r = sd_bus_add_object_vtable(bus, NULL, root, "org.freedesktop.Secret.Service", service_table, NULL);
    if (r < 0) return r;
    static const struct {
        const char *prefix, *interface;
        const sd_bus_vtable *table;
    } fallbacks[] = {
        {"/org/freedesktop/secrets/collection", "org.freedesktop.Secret.Collection", collection_table},
        {"/org/freedesktop/secrets/collection", "org.freedesktop.Secret.Item", item_table},
        {"/org/freedesktop/secrets/aliases", "org.freedesktop.Secret.Collection", collection_table},
        {"/org/freedesktop/secrets/session", "org.freedesktop.Secret.Session", session_table},
        {"/org/freedesktop/secrets/prompt", "org.freedesktop.Secret.Prompt", prompt_table},
    };
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++) {
        r = sd_bus_add_fallback_vtable(bus, NULL, fallbacks[i].prefix, fallbacks[i].interface, fallbacks[i].table,
                                       on_find, NULL);
        if (r < 0) return r;
    }
    return sd_bus_add_node_enumerator(bus, NULL, root, on_enumerate, NULL);
}

int vss_request_name(sd_bus *bus, const char *name, int replace) {
    uint64_t flags = SD_BUS_NAME_ALLOW_REPLACEMENT | (replace ? SD_BUS_NAME_REPLACE_EXISTING : 0);
    return sd_bus_request_name(bus, name, flags);
}

int vss_signal_fd(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int vss_read_signal(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}

// MARK: Askpass

extern char **environ;

int vss_askpass_spawn(const char *program, const char *prompt, int *out_fd) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    // Its own process group, so that what it starts is ended with it.
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    char *argv[] = {(char *)program, (char *)prompt, NULL};
    pid_t pid = -1;
    int r = posix_spawnp(&pid, program, &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(pipe_fds[1]);
    if (r != 0) {
        close(pipe_fds[0]);
        errno = r;
        return -1;
    }
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
    *out_fd = pipe_fds[0];
    return pid;
}

int vss_child_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}
