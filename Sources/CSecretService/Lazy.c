// vaulttool secret-service: libsystemd and libcrypto loaded when the provider starts, not at
// every vaulttool start. Each function the provider calls is defined here under its own name
// (the headers check each signature) and forwards to the library's, found with dlsym on first use.
// Loading both libraries at process start cost about 2 ms of every vaulttool run (BENCHMARKS.md).
#include "CSecretService.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>

#if OPENSSL_VERSION_MAJOR == 3
#define VSS_LIBCRYPTO "libcrypto.so.3"
#else
#error "the lazy libcrypto binding expects OpenSSL 3"
#endif
#define VSS_LIBSYSTEMD "libsystemd.so.0"

/// The vtable format this code is compiled for (sd-bus-vtable.h's macros point at it; sd-bus
/// reads the element size and features from the table itself).
__attribute__((visibility("hidden"))) const unsigned sd_bus_object_vtable_format = 242;

static void *library(const char *name, void **handle) {
    if (!*handle) *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    return *handle;
}

static void *systemd_handle, *crypto_handle;

const char *vss_load_libraries(void) {
    static char why[512];
    if (!library(VSS_LIBSYSTEMD, &systemd_handle) || !library(VSS_LIBCRYPTO, &crypto_handle)) {
        snprintf(why, sizeof why, "%s", dlerror());
        return why;
    }
    return NULL;
}

/// The library's `name`; a library or symbol that is missing ends the process with a sentence,
/// as the dynamic loader would have at start (vss_load_libraries reports it first).
static void *symbol(const char *lib, void **handle, const char *name) {
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
#define SSL(ret, name, params, args) FORWARD(VSS_LIBCRYPTO, crypto_handle, ret, name, params, args)
#define SSL_VOID(name, params, args) FORWARD_VOID(VSS_LIBCRYPTO, crypto_handle, name, params, args)

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

// MARK: libcrypto

SSL(BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret), (s, len, ret))
SSL(int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen), (a, to, tolen))
SSL_VOID(BN_clear_free, (BIGNUM *a), (a))
SSL(int, BN_cmp, (const BIGNUM *a, const BIGNUM *b), (a, b))
SSL(BIGNUM *, BN_copy, (BIGNUM *a, const BIGNUM *b), (a, b))
SSL_VOID(BN_free, (BIGNUM *a), (a))
SSL(int, BN_hex2bn, (BIGNUM **a, const char *str), (a, str))
SSL(int, BN_mod_exp_mont_consttime,
    (BIGNUM *rr, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, BN_CTX *ctx, BN_MONT_CTX *in_mont),
    (rr, a, p, m, ctx, in_mont))
SSL(BIGNUM *, BN_new, (void), ())
SSL(BIGNUM *, BN_secure_new, (void), ())
SSL_VOID(BN_set_flags, (BIGNUM *b, int n), (b, n))
SSL(int, BN_set_word, (BIGNUM *a, BN_ULONG w), (a, w))
SSL(int, BN_sub_word, (BIGNUM *a, BN_ULONG w), (a, w))
SSL(const BIGNUM *, BN_value_one, (void), ())
SSL(BN_CTX *, BN_CTX_new, (void), ())
SSL_VOID(BN_CTX_free, (BN_CTX *c), (c))
SSL(EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, (void), ())
SSL_VOID(EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX *c), (c))
SSL(int, EVP_CipherInit_ex,
    (EVP_CIPHER_CTX *ctx, const EVP_CIPHER *type, ENGINE *impl, const unsigned char *key, const unsigned char *iv,
     int enc),
    (ctx, type, impl, key, iv, enc))
SSL(int, EVP_CipherUpdate, (EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl),
    (ctx, out, outl, in, inl))
SSL(int, EVP_CipherFinal_ex, (EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl), (ctx, outm, outl))
SSL(const EVP_CIPHER *, EVP_aes_128_cbc, (void), ())
SSL(EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
SSL_VOID(EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
SSL(int, EVP_DigestInit_ex, (EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl), (ctx, type, impl))
SSL(int, EVP_DigestUpdate, (EVP_MD_CTX *ctx, const void *d, size_t cnt), (ctx, d, cnt))
SSL(int, EVP_DigestFinal_ex, (EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s), (ctx, md, s))
SSL(const EVP_MD *, EVP_sha256, (void), ())
SSL(unsigned char *, HMAC,
    (const EVP_MD *evp_md, const void *key, int key_len, const unsigned char *data, size_t data_len,
     unsigned char *md, unsigned int *md_len),
    (evp_md, key, key_len, data, data_len, md, md_len))
SSL(int, RAND_bytes, (unsigned char *buf, int num), (buf, num))
SSL(int, RAND_priv_bytes, (unsigned char *buf, int num), (buf, num))
SSL_VOID(OPENSSL_cleanse, (void *ptr, size_t len), (ptr, len))
