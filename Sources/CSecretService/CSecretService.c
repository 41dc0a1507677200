// vaulttool secret-service: sd-bus object tables and the DH session's arithmetic (see the header).
#include "CSecretService.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

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

int vss_sha256_fd(int fd, uint8_t digest[32]) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t buffer[65536];
    unsigned int length = 0;
    int r = -1;
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) goto done;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) goto done;
        if (n == 0) break;
        if (EVP_DigestUpdate(ctx, buffer, (size_t)n) != 1) goto done;
    }
    if (EVP_DigestFinal_ex(ctx, digest, &length) != 1 || length != 32) goto done;
    r = 0;
done:
    EVP_MD_CTX_free(ctx);
    return r;
}

int vss_child_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}

// MARK: DH

// RFC 2409 §6.2, the second Oakley group: 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 pi) + 129093).
static const char oakley2_hex[] =
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF";

/// y = base^x mod p, written as 128 big-endian bytes; checks 1 < base < p-1 when `check` is set.
static int mod_exp(const uint8_t x_bytes[128], const BIGNUM *base, int check, uint8_t out[128]) {
    int ok = -1;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *p = NULL, *x = BN_secure_new(), *y = BN_secure_new(), *limit = BN_new();
    if (!ctx || !x || !y || !limit || !BN_hex2bn(&p, oakley2_hex)) goto done;
    if (check) {
        if (!BN_copy(limit, p) || !BN_sub_word(limit, 1)) goto done;
        if (BN_cmp(base, BN_value_one()) <= 0 || BN_cmp(base, limit) >= 0) goto done;
    }
    BN_set_flags(x, BN_FLG_CONSTTIME);
    if (!BN_bin2bn(x_bytes, 128, x)) goto done;
    if (!BN_mod_exp_mont_consttime(y, base, x, p, ctx, NULL)) goto done;
    // Left-padded to the size of p: a shared secret with leading zero bytes keeps them.
    if (BN_bn2binpad(y, out, 128) != 128) goto done;
    ok = 0;
done:
    BN_clear_free(x);
    BN_clear_free(y);
    BN_free(p);
    BN_free(limit);
    BN_CTX_free(ctx);
    return ok;
}

int vss_dh_public(const uint8_t private_key[128], uint8_t public_key[128]) {
    BIGNUM *two = BN_new();
    int r = two && BN_set_word(two, 2) ? mod_exp(private_key, two, 0, public_key) : -1;
    BN_free(two);
    return r;
}

int vss_dh_keypair(uint8_t private_key[128], uint8_t public_key[128]) {
    if (RAND_priv_bytes(private_key, 128) != 1) return -1;
    return vss_dh_public(private_key, public_key);
}

int vss_dh_shared(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length, uint8_t shared[128]) {
    if (peer_length == 0 || peer_length > 256) return -1;
    BIGNUM *y = BN_bin2bn(peer, (int)peer_length, NULL);
    int r = y ? mod_exp(private_key, y, 1, shared) : -1;
    BN_free(y);
    return r;
}

int vss_dh_session_key(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length, uint8_t key[16]) {
    uint8_t shared[128], prk[32], okm[32];
    unsigned int length = 0;
    static const uint8_t zero_salt[32] = {0};
    static const uint8_t counter = 1;
    int r = -1;
    if (vss_dh_shared(private_key, peer, peer_length, shared) != 0) goto done;
    // HKDF-SHA256 (RFC 5869): extract with the all-zero salt, expand one block with empty info.
    if (!HMAC(EVP_sha256(), zero_salt, sizeof zero_salt, shared, sizeof shared, prk, &length) || length != 32)
        goto done;
    if (!HMAC(EVP_sha256(), prk, sizeof prk, &counter, 1, okm, &length) || length != 32) goto done;
    memcpy(key, okm, 16);
    r = 0;
done:
    OPENSSL_cleanse(shared, sizeof shared);
    OPENSSL_cleanse(prk, sizeof prk);
    OPENSSL_cleanse(okm, sizeof okm);
    return r;
}

static long aes(int encrypt, const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length,
                uint8_t *out) {
    if (length > (1u << 30)) return -1;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int first = 0, last = 0;
    long r = -1;
    if (!ctx || EVP_CipherInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv, encrypt) != 1) goto done;
    if (EVP_CipherUpdate(ctx, out, &first, in, (int)length) != 1) goto done;
    if (EVP_CipherFinal_ex(ctx, out + first, &last) != 1) goto done;
    r = (long)first + last;
done:
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

long vss_aes_encrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length, uint8_t *out) {
    return aes(1, key, iv, in, length, out);
}

long vss_aes_decrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length, uint8_t *out) {
    if (length == 0 || length % 16 != 0) return -1;
    return aes(0, key, iv, in, length, out);
}

int vss_random(uint8_t *out, size_t length) { return RAND_bytes(out, (int)length) == 1 ? 0 : -1; }
