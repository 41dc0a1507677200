// vault: sealing a short secret with this machine's TPM 2.0 (Spec/tpm2.md §2), through the TSS2
// ESAPI. The tss2 libraries are loaded with dlopen on first use, so a machine without them only
// fails when a TPM is actually asked for.
#ifndef CVAULTTPM_H
#define CVAULTTPM_H

#include <stddef.h>
#include <stdint.h>

/// What every function returns.
enum {
    /// Done; `*rc` is 0.
    VTPM_OK = 0,
    /// A tss2 library or symbol could not be loaded; `why` holds the dlerror text.
    VTPM_LIBRARY_MISSING = 1,
    /// The TCTI could not be initialised or reached: no such device, swtpm not running, unknown
    /// TCTI name (the TSS2_RC in `*rc`).
    VTPM_TCTI_FAILED = 2,
    /// The TPM or the ESAPI refused a command (the response code in `*rc`, the command in `why`).
    VTPM_TPM_ERROR = 3,
    /// A sealed blob that does not unmarshal, has bytes left over, or is not a sealed-data object.
    VTPM_MALFORMED = 4,
    /// An argument out of range: secret 1 to 128 bytes, auth 0 to 32, PCR mask bits 0 to 23, a
    /// NULL pointer where one is needed, a blob length above VTPM_BLOB_CAPACITY, or a `secret`
    /// buffer too small for what the TPM unsealed.
    VTPM_INVALID = 5,
};

/// The room for each marshaled blob (a sealed object's are about 80 and 160 bytes).
enum { VTPM_BLOB_CAPACITY = 1024 };

/// A sealed object as `TPM2_Create` returns it, in the TPM's own (big-endian) marshaling.
typedef struct {
    /// TPM2B_PUBLIC, TPM-marshaled (what `tpm2_create -u` writes).
    uint8_t public_area[VTPM_BLOB_CAPACITY];
    size_t public_length;
    /// TPM2B_PRIVATE, TPM-marshaled (what `tpm2_create -r` writes).
    uint8_t private_area[VTPM_BLOB_CAPACITY];
    size_t private_length;
} vtpm_sealed;

// Common parameters:
//   tcti: a TCTI configuration string as Tss2_TctiLdr_Initialize takes it ("device:/dev/tpmrm0",
//         "swtpm:path=/tmp/s"); NULL (or "") means "device:/dev/tpmrm0".
//   rc:   receives the TSS2_RC of the failing call, 0 otherwise.
//   why:  receives a short English phrase naming the failing step ("Esys_Load",
//         "Tss2_TctiLdr_Initialize"), or the dlerror text; "" on success. Never secret data.
//         Truncated to `why_capacity` bytes including the terminating NUL; may be NULL when
//         `why_capacity` is 0.
// Each call opens the TCTI, creates the parent key, and flushes and closes everything before
// it returns. Calls from several threads are safe; each uses its own TCTI connection.

/// Seals `secret` (1 to 128 bytes) under the parent of Spec/tpm2.md §2. `auth` (0 to 32 bytes,
/// may be NULL when `auth_length` is 0) becomes the object's authValue, required through
/// PolicyAuthValue and counted by the TPM's dictionary-attack protection; without it the object
/// is noDA. A non-zero `pcr_mask` (bit i: SHA-256 PCR i, bits 0 to 23) binds the object to those
/// PCRs' current values with PolicyPCR. On VTPM_OK `*out` holds the two blobs; otherwise its
/// lengths are 0.
int vtpm_seal(const char *tcti, const uint8_t *secret, size_t secret_length, const uint8_t *auth, size_t auth_length,
              uint32_t pcr_mask, vtpm_sealed *out, uint32_t *rc, char *why, size_t why_capacity);

/// Loads `in` under the parent and unseals it into `secret`. `auth` and `pcr_mask` must be those
/// given to vtpm_seal: they decide which policy is repeated (PolicyPCR over the mask's current
/// values, then PolicyAuthValue with `auth`). On VTPM_OK `*secret_length` is the number of bytes
/// written; when `secret_capacity` is too small the result is VTPM_INVALID, nothing is written
/// and `*secret_length` is the size needed; on any other failure it is 0.
int vtpm_unseal(const char *tcti, const vtpm_sealed *in, const uint8_t *auth, size_t auth_length, uint32_t pcr_mask,
                uint8_t *secret, size_t secret_capacity, size_t *secret_length, uint32_t *rc, char *why, size_t why_capacity);

/// Creates the parent and loads `in` under it, without unsealing: whether this TPM can use the
/// object at all, checked before a PIN is asked for. Loading needs no authorization and costs the
/// dictionary-attack counter nothing.
int vtpm_check_loadable(const char *tcti, const vtpm_sealed *in, uint32_t *rc, char *why, size_t why_capacity);

/// The dictionary-attack state (TPM_PT_LOCKOUT_COUNTER, TPM_PT_MAX_AUTH_FAIL, TPM_PT_LOCKOUT_INTERVAL in seconds).
/// A property the TPM does not report is 0.
int vtpm_lockout_state(const char *tcti, uint32_t *counter, uint32_t *max_tries, uint32_t *interval, uint32_t *rc, char *why, size_t why_capacity);

#endif
