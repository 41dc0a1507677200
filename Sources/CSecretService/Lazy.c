// vaulttool secret-service: libsystemd and libgcrypt loaded when the provider starts, not at
// every vaulttool start. Each function the provider calls is defined here under its own name
// (the headers check each signature) and forwards to the library's, found with dlsym on first use.
// Loading both libraries at process start cost about 2 ms of every vaulttool run (BENCHMARKS.md).
#include "CSecretService.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gcrypt.h>
#include <sodium.h>

#define VSS_LIBGCRYPT "libgcrypt.so.20"
#define VSS_LIBSYSTEMD "libsystemd.so.0"

/// The vtable format this code is compiled for (sd-bus-vtable.h's macros point at it; sd-bus
/// reads the element size and features from the table itself).
__attribute__((visibility("hidden"))) const unsigned sd_bus_object_vtable_format = 242;

static void *library(const char *name, void **handle) {
    if (!*handle) *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    return *handle;
}

static void *systemd_handle, *gcrypt_handle;

static char gcrypt_failure[512];

/// libgcrypt's start, which its manual asks of a program before any other call: the version check
/// initialises it, then a pool of locked memory for the DH exponents (R-SS-12). Run once
/// (pthread_once: tests call the session crypto from several threads); sets `gcrypt_failure`.
static void start_once(void) {
    const char *failure = NULL;
    if (!library(VSS_LIBGCRYPT, &gcrypt_handle)) {
        failure = dlerror();
    } else {
        const char *(*check_version)(const char *) =
            (const char *(*)(const char *))dlsym(gcrypt_handle, "gcry_check_version");
        gcry_error_t (*control)(enum gcry_ctl_cmds, ...) =
            (gcry_error_t(*)(enum gcry_ctl_cmds, ...))dlsym(gcrypt_handle, "gcry_control");
        if (!check_version || !control) {
            failure = "libgcrypt lacks gcry_check_version or gcry_control";
        } else if (!check_version("1.8.0")) {
            failure = "libgcrypt is older than 1.8.0";
        } else {
            control(GCRYCTL_SUSPEND_SECMEM_WARN);
            control(GCRYCTL_INIT_SECMEM, 32768, 0);
            control(GCRYCTL_RESUME_SECMEM_WARN);
            control(GCRYCTL_INITIALIZATION_FINISHED, 0);
            if (sodium_init() < 0) failure = "libsodium cannot start";
        }
    }
    if (failure) snprintf(gcrypt_failure, sizeof gcrypt_failure, "%s", failure);
}

/// `NULL` once libgcrypt has started, or why it cannot.
static const char *start_libgcrypt(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_once);
    return gcrypt_failure[0] ? gcrypt_failure : NULL;
}

const char *vss_load_libraries(void) {
    static char why[512];
    if (!library(VSS_LIBSYSTEMD, &systemd_handle)) {
        snprintf(why, sizeof why, "%s", dlerror());
        return why;
    }
    return start_libgcrypt();
}

/// The library's `name`; a library or symbol that is missing ends the process with a sentence,
/// as the dynamic loader would have at start (vss_load_libraries reports it first).
static void *symbol(const char *lib, void **handle, const char *name) {
    // libgcrypt is started before its first call, whoever makes it (the provider, or a test).
    if (handle == &gcrypt_handle && start_libgcrypt()) {
        dprintf(2, "vaulttool: cannot start %s: %s\n", lib, start_libgcrypt());
        _exit(127);
    }
    void *h = library(lib, handle);
    void *p = h ? dlsym(h, name) : NULL;
    if (!p) {
        const char *why = dlerror();
        dprintf(2, "vaulttool: cannot use %s from %s: %s\n", name, lib, why ? why : "not found");
        _exit(127);
    }
    return p;
}

// Hidden: only this program's calls reach the stubs; the libraries' own calls stay inside them, and
// a library loaded later cannot bind to a stub built for another version.
#define FORWARD(lib, handle, ret, name, params, args)                                                     \
    __attribute__((visibility("hidden"))) ret name params {                                                                                   \
        static ret(*forward) params;                                                                    \
        if (!forward) forward = (ret(*) params)symbol(lib, &handle, #name);                             \
        return forward args;                                                                            \
    }
#define FORWARD_VOID(lib, handle, name, params, args)                                                     \
    __attribute__((visibility("hidden"))) void name params {                                                                                  \
        static void(*forward) params;                                                                   \
        if (!forward) forward = (void(*) params)symbol(lib, &handle, #name);                            \
        forward args;                                                                                   \
    }
#define SD(ret, name, params, args) FORWARD(VSS_LIBSYSTEMD, systemd_handle, ret, name, params, args)
#define GCRY(ret, name, params, args) FORWARD(VSS_LIBGCRYPT, gcrypt_handle, ret, name, params, args)
#define GCRY_VOID(name, params, args) FORWARD_VOID(VSS_LIBGCRYPT, gcrypt_handle, name, params, args)

// MARK: sd-bus

SD(int, sd_bus_default_user, (sd_bus **ret), (ret))
SD(int, sd_bus_open_user, (sd_bus **ret), (ret))
SD(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus))
SD(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie))
SD(int, sd_bus_get_fd, (sd_bus *bus), (bus))
SD(int, sd_bus_get_events, (sd_bus *bus), (bus))
SD(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r))
SD(sd_bus_message *, sd_bus_get_current_message, (sd_bus *bus), (bus))
SD(int, sd_bus_add_object_vtable,
   (sd_bus *bus, sd_bus_slot **slot, const char *path, const char *interface, const sd_bus_vtable *vtable,
    void *userdata),
   (bus, slot, path, interface, vtable, userdata))
SD(int, sd_bus_add_fallback_vtable,
   (sd_bus *bus, sd_bus_slot **slot, const char *prefix, const char *interface, const sd_bus_vtable *vtable,
    sd_bus_object_find_t find, void *userdata),
   (bus, slot, prefix, interface, vtable, find, userdata))
SD(int, sd_bus_add_node_enumerator,
   (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_node_enumerator_t callback, void *userdata),
   (bus, slot, path, callback, userdata))
SD(int, sd_bus_message_new_signal,
   (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),
   (bus, m, path, interface, member))
SD(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m))
SD(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m))
SD(const char *, sd_bus_message_get_path, (sd_bus_message *m), (m))
SD(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m))
SD(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m))
SD(const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m))
SD(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *value), (m, type, value))
SD(int, sd_bus_message_append_array, (sd_bus_message *m, char type, const void *ptr, size_t size),
   (m, type, ptr, size))
SD(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
SD(int, sd_bus_message_close_container, (sd_bus_message *m), (m))
SD(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *value), (m, type, value))
SD(int, sd_bus_message_read_array, (sd_bus_message *m, char type, const void **ptr, size_t *size),
   (m, type, ptr, size))
SD(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types))
SD(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
SD(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))
SD(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents))
SD(int, sd_bus_message_at_end, (sd_bus_message *m, int complete), (m, complete))
SD(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique))
SD(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags))
SD(int, sd_bus_get_name_creds, (sd_bus *bus, const char *name, uint64_t mask, sd_bus_creds **creds),
   (bus, name, mask, creds))
SD(int, sd_bus_emit_properties_changed_strv, (sd_bus *bus, const char *path, const char *interface, char **names),
   (bus, path, interface, names))
SD(int, sd_bus_query_sender_creds, (sd_bus_message *m, uint64_t mask, sd_bus_creds **creds), (m, mask, creds))
SD(int, sd_bus_match_signal,
   (sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface, const char *member,
    sd_bus_message_handler_t callback, void *userdata),
   (bus, ret, sender, path, interface, member, callback, userdata))
SD(sd_bus_creds *, sd_bus_creds_unref, (sd_bus_creds *c), (c))
SD(int, sd_bus_creds_get_pid, (sd_bus_creds *c, pid_t *pid), (c, pid))
SD(int, sd_bus_creds_get_euid, (sd_bus_creds *c, uid_t *euid), (c, euid))
SD(int, sd_bus_creds_get_exe, (sd_bus_creds *c, const char **exe), (c, exe))
SD(int, sd_bus_creds_get_unique_name, (sd_bus_creds *c, const char **name), (c, name))
SD(int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message))

// MARK: libgcrypt

GCRY(void *, gcry_malloc_secure, (size_t n), (n))
GCRY_VOID(gcry_free, (void *a), (a))
GCRY(gcry_mpi_t, gcry_mpi_new, (unsigned int nbits), (nbits))
GCRY(gcry_mpi_t, gcry_mpi_snew, (unsigned int nbits), (nbits))
GCRY_VOID(gcry_mpi_release, (gcry_mpi_t a), (a))
GCRY(gcry_mpi_t, gcry_mpi_set_ui, (gcry_mpi_t w, unsigned long u), (w, u))
GCRY(gcry_error_t, gcry_mpi_scan,
     (gcry_mpi_t * ret_mpi, enum gcry_mpi_format format, const void *buffer, size_t buflen, size_t *nscanned),
     (ret_mpi, format, buffer, buflen, nscanned))
GCRY(gcry_error_t, gcry_mpi_print,
     (enum gcry_mpi_format format, unsigned char *buffer, size_t buflen, size_t *nwritten, const gcry_mpi_t a),
     (format, buffer, buflen, nwritten, a))
GCRY(int, gcry_mpi_cmp, (const gcry_mpi_t u, const gcry_mpi_t v), (u, v))
GCRY(int, gcry_mpi_cmp_ui, (const gcry_mpi_t u, unsigned long v), (u, v))
GCRY_VOID(gcry_mpi_sub_ui, (gcry_mpi_t w, gcry_mpi_t u, unsigned long v), (w, u, v))
GCRY_VOID(gcry_mpi_add, (gcry_mpi_t w, gcry_mpi_t u, gcry_mpi_t v), (w, u, v))
GCRY_VOID(gcry_mpi_mul, (gcry_mpi_t w, gcry_mpi_t u, gcry_mpi_t v), (w, u, v))
GCRY_VOID(gcry_mpi_powm, (gcry_mpi_t w, const gcry_mpi_t b, const gcry_mpi_t e, const gcry_mpi_t m), (w, b, e, m))
GCRY(gcry_error_t, gcry_cipher_open, (gcry_cipher_hd_t * handle, int algo, int mode, unsigned int flags),
     (handle, algo, mode, flags))
GCRY_VOID(gcry_cipher_close, (gcry_cipher_hd_t h), (h))
GCRY(gcry_error_t, gcry_cipher_setkey, (gcry_cipher_hd_t hd, const void *key, size_t keylen), (hd, key, keylen))
GCRY(gcry_error_t, gcry_cipher_setiv, (gcry_cipher_hd_t hd, const void *iv, size_t ivlen), (hd, iv, ivlen))
GCRY(gcry_error_t, gcry_cipher_encrypt, (gcry_cipher_hd_t h, void *out, size_t outsize, const void *in, size_t inlen),
     (h, out, outsize, in, inlen))
GCRY(gcry_error_t, gcry_cipher_decrypt, (gcry_cipher_hd_t h, void *out, size_t outsize, const void *in, size_t inlen),
     (h, out, outsize, in, inlen))
