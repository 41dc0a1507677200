// vaulttool secret-service: the few C pieces Swift cannot write itself. sd-bus's vtables are C
// macros, so the object tables live here and send every call to the Swift callbacks below; the
// Secret Service's DH session needs big-number arithmetic and AES-CBC, which libsodium lacks, so
// those come from libgcrypt, which libsystemd already loads (Spec/secret-service.md §4).
#ifndef CSECRETSERVICE_H
#define CSECRETSERVICE_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/// The Swift side of every object. Each returns what sd-bus expects of the callback it serves:
/// a negative errno (with `error` set) on failure, else 0 or 1.
struct vss_callbacks {
    /// A method call on any object; `m` is the call. The callee replies itself (returns 1).
    int (*method)(sd_bus_message *m, sd_bus_error *error);
    /// A property read: appends the value to `reply`.
    int (*get)(const char *path, const char *interface, const char *property, sd_bus_message *reply,
               sd_bus_error *error);
    /// A property write: reads the value from `value`.
    int (*set)(const char *path, const char *interface, const char *property, sd_bus_message *value,
               sd_bus_error *error);
    /// Whether an object with `interface` exists at `path` (1) or not (0).
    int (*find)(const char *path, const char *interface);
    /// The object paths below the root, a NULL-terminated array of malloc'd strings (sd-bus frees it).
    int (*enumerate)(const char *prefix, char ***nodes);
};

/// Registers the Service object and the fallback tables of collections, aliases, items, sessions
/// and prompts on `bus`, all answered by `callbacks`. Returns 0 or a negative errno.
int vss_register_objects(sd_bus *bus, const struct vss_callbacks *callbacks);

/// Requests `name` without queueing; `replace` asks to take it over. 0, -EEXIST when owned, or
/// another negative errno.
int vss_request_name(sd_bus *bus, const char *name, int replace);

/// A signalfd for SIGINT, SIGTERM and SIGHUP (blocked for the process), or -1 with errno.
int vss_signal_fd(void);

/// Reads one signal from `fd`; returns its number or -1.
int vss_read_signal(int fd);

/// Starts `program` (looked up on PATH when it has no `/`) with the one argument `prompt`,
/// standard input `/dev/null`, standard output a pipe whose non-blocking, close-on-exec read end
/// is stored in `*out_fd`, the default signal mask and dispositions (the provider blocks SIGTERM
/// for its signalfd; the child must not inherit that), in a process group of its own (whose ID is
/// the pid). Returns the pid, or -1 with errno.
int vss_askpass_spawn(const char *program, const char *prompt, int *out_fd);

/// Whether child `pid` has exited, without reaping it (so that its process group ID cannot be
/// reused before the group is killed): 1, 0 while it runs, -1 with errno.
int vss_child_exited(pid_t pid);

/// The SHA-256 of everything `fd` reads from its current offset to the end (R-SS-28). Returns 0,
/// or -1 with errno when a read fails.
int vss_sha256_fd(int fd, uint8_t digest[32]);

/// Loads libsystemd and starts libgcrypt (Lazy.c): `NULL`, or why they cannot be loaded. The provider
/// calls it first; a vaulttool run that never serves the bus never loads them.
const char *vss_load_libraries(void);

// MARK: DH session crypto (dh-ietf1024-sha256_aes128_cbc_pkcs7)

/// Makes a key pair in the second Oakley group: `private_key` 128 random bytes, `public_key`
/// 2^x mod p as 128 big-endian bytes. Returns 0, or -1.
int vss_dh_keypair(uint8_t private_key[128], uint8_t public_key[128]);

/// `public_key` = 2^x mod p for a given `private_key` (vectors). Returns 0, or -1.
int vss_dh_public(const uint8_t private_key[128], uint8_t public_key[128]);

/// The 16-byte session key from our private key and the peer's public value (big-endian, any
/// length up to 256 bytes with leading zeros): Z = Y^x mod p left-padded to 128 bytes, then
/// HKDF-SHA256 with no salt and no info. Returns 0, or -1 when Y is not in (1, p-1).
int vss_dh_session_key(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length,
                       uint8_t key[16]);

/// The shared secret alone (vectors): Z left-padded to 128 bytes. Returns 0 or -1.
int vss_dh_shared(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length,
                  uint8_t shared[128]);

/// AES-128-CBC with PKCS#7 padding. `out` must hold `length + 16` bytes. Returns the output
/// length, or -1.
long vss_aes_encrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length,
                     uint8_t *out);

/// The inverse; `out` must hold `length + 16` bytes. Returns the plaintext length, or -1 for a length
/// that is not a positive multiple of 16 or bad padding.
long vss_aes_decrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length,
                     uint8_t *out);

/// Fills `out` with random bytes from libsodium's generator (the kernel's). Returns 0.
int vss_random(uint8_t *out, size_t length);

#endif
