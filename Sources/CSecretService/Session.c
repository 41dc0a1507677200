// vaulttool secret-service: the DH session's crypto (Spec/secret-service.md R-SS-12) and the
// executable digests of the allow list (R-SS-28).
//
// libgcrypt does the group arithmetic and AES, as it does for libsecret and gnome-keyring; it is
// already mapped with libsystemd, so it costs the provider far less memory than OpenSSL's
// libcrypto did (BENCHMARKS.md). libsodium, linked into every vaulttool, does SHA-256, the HKDF's
// HMAC, the random bytes and the wiping.
#include "CSecretService.h"

#include <errno.h>
#include <gcrypt.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

int vss_sha256_fd(int fd, uint8_t digest[32]) {
    crypto_hash_sha256_state state;
    uint8_t buffer[65536];
    crypto_hash_sha256_init(&state);
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break;
        crypto_hash_sha256_update(&state, buffer, (unsigned long long)n);
    }
    crypto_hash_sha256_final(&state, digest);
    return 0;
}

int vss_random(uint8_t *out, size_t length) {
    randombytes_buf(out, length);
    return 0;
}

// MARK: DH

// RFC 2409 §6.2, the second Oakley group: 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 pi) + 129093).
static const char oakley2_hex[] =
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF";

/// A secure MPI (locked, wiped when released) of the big-endian `bytes`: they pass through secure
/// memory, and libgcrypt gives a value scanned from there the same protection.
static gcry_mpi_t secure_mpi(const uint8_t *bytes, size_t length) {
    uint8_t *buffer = gcry_malloc_secure(length);
    if (!buffer) return NULL;
    memcpy(buffer, bytes, length);
    gcry_mpi_t value = NULL;
    if (gcry_mpi_scan(&value, GCRYMPI_FMT_USG, buffer, length, NULL) != 0) value = NULL;
    gcry_free(buffer);  // secure memory is wiped when it is freed
    return value;
}

/// y = base^x mod p, written as 128 big-endian bytes; checks 1 < base < p-1 when `check` is set.
///
/// The exponent is blinded: x + r(p-1) with a fresh 64-bit r gives the same power for every base
/// coprime to p (Fermat), and a different exponent for every computation. Debian 12's libgcrypt
/// (1.10) selects the precomputed powers in constant time, but the order of its window steps
/// follows the exponent's bits; blinding keeps the two exponentiations of one session key from
/// showing one pattern.
static int mod_exp(const uint8_t x_bytes[128], gcry_mpi_t base, int check, uint8_t out[128]) {
    int ok = -1;
    uint8_t r_bytes[8];
    randombytes_buf(r_bytes, sizeof r_bytes);
    gcry_mpi_t p = NULL, x = secure_mpi(x_bytes, 128), r = secure_mpi(r_bytes, sizeof r_bytes);
    gcry_mpi_t p_minus_1 = gcry_mpi_new(1024), blinded = gcry_mpi_snew(1088), y = gcry_mpi_snew(1024);
    sodium_memzero(r_bytes, sizeof r_bytes);
    if (!x || !r || gcry_mpi_scan(&p, GCRYMPI_FMT_HEX, oakley2_hex, 0, NULL) != 0) goto done;
    gcry_mpi_sub_ui(p_minus_1, p, 1);
    if (check && (gcry_mpi_cmp_ui(base, 1) <= 0 || gcry_mpi_cmp(base, p_minus_1) >= 0)) goto done;
    gcry_mpi_mul(blinded, r, p_minus_1);
    gcry_mpi_add(blinded, blinded, x);
    gcry_mpi_powm(y, base, blinded, p);
    // Left-padded to the size of p: a shared secret with leading zero bytes keeps them.
    size_t length = 0;
    if (gcry_mpi_print(GCRYMPI_FMT_USG, NULL, 0, &length, y) != 0 || length == 0 || length > 128) goto done;
    memset(out, 0, 128 - length);
    if (gcry_mpi_print(GCRYMPI_FMT_USG, out + 128 - length, length, &length, y) != 0) goto done;
    ok = 0;
done:
    gcry_mpi_release(x);
    gcry_mpi_release(r);
    gcry_mpi_release(blinded);
    gcry_mpi_release(y);
    gcry_mpi_release(p);
    gcry_mpi_release(p_minus_1);
    return ok;
}

int vss_dh_public(const uint8_t private_key[128], uint8_t public_key[128]) {
    gcry_mpi_t two = gcry_mpi_set_ui(NULL, 2);
    int r = two ? mod_exp(private_key, two, 0, public_key) : -1;
    gcry_mpi_release(two);
    return r;
}

int vss_dh_keypair(uint8_t private_key[128], uint8_t public_key[128]) {
    randombytes_buf(private_key, 128);
    return vss_dh_public(private_key, public_key);
}

int vss_dh_shared(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length, uint8_t shared[128]) {
    if (peer_length == 0 || peer_length > 256) return -1;
    gcry_mpi_t y = NULL;
    if (gcry_mpi_scan(&y, GCRYMPI_FMT_USG, peer, peer_length, NULL) != 0) return -1;
    int r = mod_exp(private_key, y, 1, shared);
    gcry_mpi_release(y);
    return r;
}

int vss_dh_session_key(const uint8_t private_key[128], const uint8_t *peer, size_t peer_length, uint8_t key[16]) {
    uint8_t shared[128], prk[32], okm[32];
    static const uint8_t zero_salt[32] = {0};
    static const uint8_t counter = 1;
    crypto_auth_hmacsha256_state state;
    int r = -1;
    if (vss_dh_shared(private_key, peer, peer_length, shared) != 0) goto done;
    // HKDF-SHA256 (RFC 5869): extract with the all-zero salt, expand one block with empty info.
    crypto_auth_hmacsha256_init(&state, zero_salt, sizeof zero_salt);
    crypto_auth_hmacsha256_update(&state, shared, sizeof shared);
    crypto_auth_hmacsha256_final(&state, prk);
    crypto_auth_hmacsha256_init(&state, prk, sizeof prk);
    crypto_auth_hmacsha256_update(&state, &counter, 1);
    crypto_auth_hmacsha256_final(&state, okm);
    memcpy(key, okm, 16);
    r = 0;
done:
    sodium_memzero(&state, sizeof state);
    sodium_memzero(shared, sizeof shared);
    sodium_memzero(prk, sizeof prk);
    sodium_memzero(okm, sizeof okm);
    return r;
}

// MARK: AES-128-CBC with PKCS#7

/// Runs AES-128-CBC over `length` bytes (a multiple of 16) from `in` to `out`. Returns 0 or -1.
static int cbc(int encrypt, const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length,
               uint8_t *out) {
    gcry_cipher_hd_t cipher = NULL;
    int r = -1;
    if (gcry_cipher_open(&cipher, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, GCRY_CIPHER_SECURE) != 0) return -1;
    if (gcry_cipher_setkey(cipher, key, 16) != 0 || gcry_cipher_setiv(cipher, iv, 16) != 0) goto done;
    // In place when `in` is `out`: libgcrypt takes that as no input buffer.
    const uint8_t *source = in == out ? NULL : in;
    size_t source_length = in == out ? 0 : length;
    gcry_error_t e = encrypt ? gcry_cipher_encrypt(cipher, out, length, source, source_length)
                             : gcry_cipher_decrypt(cipher, out, length, source, source_length);
    r = e == 0 ? 0 : -1;
done:
    gcry_cipher_close(cipher);
    return r;
}

long vss_aes_encrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length, uint8_t *out) {
    if (length > (1u << 30)) return -1;
    size_t pad = 16 - length % 16;  // 1 to 16 (RFC 5652 §6.3)
    if (length) memcpy(out, in, length);
    memset(out + length, (int)pad, pad);
    if (cbc(1, key, iv, out, length + pad, out) != 0) {
        sodium_memzero(out, length + pad);
        return -1;
    }
    return (long)(length + pad);
}

long vss_aes_decrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t length, uint8_t *out) {
    if (length == 0 || length % 16 != 0 || length > (1u << 30) + 16) return -1;
    if (cbc(0, key, iv, in, length, out) != 0) return -1;
    // The padding is checked over the whole last block, without a branch on its bytes.
    uint8_t pad = out[length - 1];
    unsigned bad = (unsigned)(pad == 0) | (unsigned)(pad > 16);
    for (size_t i = 0; i < 16; i++) {
        unsigned inside = (unsigned)(i < pad);
        bad |= inside & (unsigned)(out[length - 1 - i] != pad);
    }
    if (bad) {
        sodium_memzero(out, length);
        return -1;
    }
    return (long)(length - pad);
}
