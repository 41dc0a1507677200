// vault: TPM2 sealing through the TSS2 ESAPI (Spec/tpm2.md §2).
//
// The tss2 libraries are opened with dlopen on first use, not linked: most machines that run vault
// never use a TPM, and those without libtss2 installed must still start. The headers are included
// for types and prototypes only; every call goes through the `tss` table below.
//
// Each public function is one short conversation with the TPM: open the TCTI and an ESAPI
// context, create the parent key, do the work, then flush every handle and close everything,
// whatever happened. Nothing stays in the TPM or in this process between calls.
#include "CVaultTPM.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

// MARK: - Loading the libraries

enum { LIB_ESYS, LIB_TCTILDR, LIB_MU, LIB_COUNT };

static const char *const library_names[LIB_COUNT] = {
    [LIB_ESYS] = "libtss2-esys.so.0",
    [LIB_TCTILDR] = "libtss2-tctildr.so.0",
    [LIB_MU] = "libtss2-mu.so.0",
};

// Every tss2 function used, with the library that defines it.
#define TSS_FUNCTIONS(X)                          \
    X(LIB_TCTILDR, Tss2_TctiLdr_Initialize)       \
    X(LIB_TCTILDR, Tss2_TctiLdr_Finalize)         \
    X(LIB_ESYS, Esys_Initialize)                  \
    X(LIB_ESYS, Esys_Finalize)                    \
    X(LIB_ESYS, Esys_Free)                        \
    X(LIB_ESYS, Esys_FlushContext)                \
    X(LIB_ESYS, Esys_CreatePrimary)               \
    X(LIB_ESYS, Esys_StartAuthSession)            \
    X(LIB_ESYS, Esys_TRSess_SetAttributes)        \
    X(LIB_ESYS, Esys_TR_SetAuth)                  \
    X(LIB_ESYS, Esys_PolicyPCR)                   \
    X(LIB_ESYS, Esys_PolicyAuthValue)             \
    X(LIB_ESYS, Esys_PolicyGetDigest)             \
    X(LIB_ESYS, Esys_Create)                      \
    X(LIB_ESYS, Esys_Load)                        \
    X(LIB_ESYS, Esys_Unseal)                      \
    X(LIB_ESYS, Esys_GetCapability)               \
    X(LIB_MU, Tss2_MU_TPM2B_PUBLIC_Marshal)       \
    X(LIB_MU, Tss2_MU_TPM2B_PUBLIC_Unmarshal)     \
    X(LIB_MU, Tss2_MU_TPM2B_PRIVATE_Marshal)      \
    X(LIB_MU, Tss2_MU_TPM2B_PRIVATE_Unmarshal)

// The members have the functions' own names, so that a call reads `tss.Esys_Load(...)`, and their
// types come from the prototypes, so that a wrong argument is a compile error.
static struct {
#define DECLARE(library, name) __typeof__(name) *name;
    TSS_FUNCTIONS(DECLARE)
#undef DECLARE
} tss;

static void *library_handles[LIB_COUNT];
static bool loaded;
// Loading is attempted again after a failure (libtss2 may be installed while a long-lived agent
// runs), so it is guarded by a mutex rather than done once.
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void copy_text(char *buffer, size_t capacity, const char *text) {
    if (buffer && capacity > 0) snprintf(buffer, capacity, "%s", text);
}

static void unload(void) {
    for (int i = 0; i < LIB_COUNT; i++) {
        if (library_handles[i]) dlclose(library_handles[i]);
        library_handles[i] = NULL;
    }
    memset(&tss, 0, sizeof tss);
}

// Opens the three libraries and resolves every function, or leaves nothing open and copies the
// dlerror text into `why`.
static bool load_locked(char *why, size_t why_capacity) {
    // The ESAPI logs errors to stderr unless told otherwise, and a refused PIN is an expected
    // outcome here, not something to print over the caller's terminal. Always, even when the
    // user set it: at its debug and trace levels the ESAPI prints the unsealed key file and the
    // PIN's authValue (Spec/tpm2.md §7.4), and TPM logs end up in bug reports and CI output.
    // Before the first call, since each library reads it once.
    setenv("TSS2_LOG", "all+NONE", 1);
    for (int i = 0; i < LIB_COUNT; i++) {
        library_handles[i] = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library_handles[i]) {
            copy_text(why, why_capacity, dlerror());
            unload();
            return false;
        }
    }
    // memcpy, not a cast: ISO C defines no conversion from void * to a function pointer, while
    // POSIX guarantees that dlsym's result has the function's representation.
    void *p;
#define RESOLVE(library, name)                                   \
    p = dlsym(library_handles[library], #name);                  \
    if (!p) {                                                    \
        copy_text(why, why_capacity, dlerror());                 \
        unload();                                                \
        return false;                                            \
    }                                                            \
    memcpy(&tss.name, &p, sizeof p);
    TSS_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return true;
}

static bool load(char *why, size_t why_capacity) {
    pthread_mutex_lock(&load_lock);
    if (!loaded) loaded = load_locked(why, why_capacity);
    bool ok = loaded;
    pthread_mutex_unlock(&load_lock);
    return ok;
}

// MARK: - One conversation with the TPM

typedef struct {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
    // Transient handles, flushed by finish() when not ESYS_TR_NONE.
    ESYS_TR object;
    ESYS_TR session;
    ESYS_TR trial;
    ESYS_TR primary;
    uint32_t *rc;
    char *why;
    size_t why_capacity;
} call;

static call begin(uint32_t *rc, char *why, size_t why_capacity) {
    if (rc) *rc = 0;
    copy_text(why, why_capacity, "");
    return (call){
        .object = ESYS_TR_NONE,
        .session = ESYS_TR_NONE,
        .trial = ESYS_TR_NONE,
        .primary = ESYS_TR_NONE,
        .rc = rc,
        .why = why,
        .why_capacity = why_capacity,
    };
}

static int fail(call *c, int status, TSS2_RC rc, const char *step) {
    if (c->rc) *c->rc = rc;
    copy_text(c->why, c->why_capacity, step);
    return status;
}

// A failing tss2 call. An error from the TCTI layer means the TPM could not be reached (the
// connection dropped, the device or the "cmd:" child failed), whatever command reported it.
static int tss_fail(call *c, TSS2_RC rc, const char *step) {
    bool tcti_layer = (rc & TSS2_RC_LAYER_MASK) == TSS2_TCTI_RC_LAYER;
    return fail(c, tcti_layer ? VTPM_TCTI_FAILED : VTPM_TPM_ERROR, rc, step);
}

static int open_tpm(call *c, const char *tcti) {
    const char *conf = tcti && *tcti ? tcti : "device:/dev/tpmrm0";
    TSS2_RC r = tss.Tss2_TctiLdr_Initialize(conf, &c->tcti);
    if (r != TSS2_RC_SUCCESS) {
        c->tcti = NULL;
        return fail(c, VTPM_TCTI_FAILED, r, "Tss2_TctiLdr_Initialize");
    }
    r = tss.Esys_Initialize(&c->esys, c->tcti, NULL);
    if (r != TSS2_RC_SUCCESS) {
        c->esys = NULL;
        return tss_fail(c, r, "Esys_Initialize");
    }
    return VTPM_OK;
}

static void flush(call *c, ESYS_TR *handle) {
    // A failure here (the TPM already dropped the handle) changes nothing for the caller, and
    // Esys_Finalize frees the ESAPI's record of the handle either way.
    if (*handle != ESYS_TR_NONE) tss.Esys_FlushContext(c->esys, *handle);
    *handle = ESYS_TR_NONE;
}

// Flushes every handle and closes the ESAPI context and the TCTI; safe after any failure.
static int finish(call *c, int status) {
    if (c->esys) {
        flush(c, &c->object);
        flush(c, &c->session);
        flush(c, &c->trial);
        flush(c, &c->primary);
        tss.Esys_Finalize(&c->esys);
    }
    if (c->tcti) tss.Tss2_TctiLdr_Finalize(&c->tcti);
    return status;
}

// MARK: - The TPM objects (Spec/tpm2.md §2)

// AES-128-CFB, the parent's symmetric algorithm and the sessions' parameter encryption.
static const TPMT_SYM_DEF aes_128_cfb = {
    .algorithm = TPM2_ALG_AES,
    .keyBits = {.aes = 128},
    .mode = {.aes = TPM2_ALG_CFB},
};

// The parent: the TCG "SRK" template for ECC. The TPM derives it from the owner seed, so every
// call on one TPM gets the same key back until the TPM is cleared.
static int create_primary(call *c) {
    TPM2B_PUBLIC in_public = {
        .publicArea = {
            .type = TPM2_ALG_ECC,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                                TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED |
                                TPMA_OBJECT_DECRYPT,
            .parameters.eccDetail = {
                .symmetric = {.algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}},
                .scheme = {.scheme = TPM2_ALG_NULL},
                .curveID = TPM2_ECC_NIST_P256,
                .kdf = {.scheme = TPM2_ALG_NULL},
            },
            // 32 zero bytes each, as the template says (not empty): the unique field takes part in
            // deriving the key, so another size would be another key.
            .unique.ecc = {.x = {.size = 32}, .y = {.size = 32}},
        },
    };
    TPM2B_SENSITIVE_CREATE no_sensitive = {0};
    TPM2B_DATA no_outside_info = {0};
    TPML_PCR_SELECTION no_creation_pcr = {0};
    // Nothing secret goes with CreatePrimary, so the empty owner password needs no session.
    TSS2_RC r = tss.Esys_CreatePrimary(c->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                                       &no_sensitive, &in_public, &no_outside_info, &no_creation_pcr, &c->primary,
                                       NULL, NULL, NULL, NULL);
    if (r != TSS2_RC_SUCCESS) {
        c->primary = ESYS_TR_NONE;
        return tss_fail(c, r, "Esys_CreatePrimary");
    }
    return VTPM_OK;
}

// A session salted with the parent (the salt travels encrypted to it), with AES-128-CFB parameter
// encryption both ways: the secret and the auth value never cross the bus in the clear, and the
// session key is not derived from the auth value alone.
static int start_salted_session(call *c, TPM2_SE type) {
    TSS2_RC r = tss.Esys_StartAuthSession(c->esys, c->primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                          ESYS_TR_NONE, NULL, type, &aes_128_cfb, TPM2_ALG_SHA256, &c->session);
    if (r != TSS2_RC_SUCCESS) {
        c->session = ESYS_TR_NONE;
        return tss_fail(c, r, "Esys_StartAuthSession");
    }
    TPMA_SESSION attributes = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT;
    r = tss.Esys_TRSess_SetAttributes(c->esys, c->session, attributes, 0xff);
    if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_TRSess_SetAttributes");
    return VTPM_OK;
}

// The SHA-256 bank with the PCRs of `mask` (bit i: PCR i) selected.
static TPML_PCR_SELECTION pcr_selection(uint32_t mask) {
    return (TPML_PCR_SELECTION){
        .count = 1,
        .pcrSelections[0] = {
            .hash = TPM2_ALG_SHA256,
            .sizeofSelect = 3,
            .pcrSelect = {mask & 0xff, (mask >> 8) & 0xff, (mask >> 16) & 0xff},
        },
    };
}

// The policy commands, in the order the spec gives; the same in the trial session that computes
// the digest at sealing and in the policy session that satisfies it at unsealing. An empty PCR
// digest makes the TPM use the PCRs' current values in both cases.
static int run_policy(call *c, ESYS_TR session, uint32_t pcr_mask, bool with_auth) {
    if (pcr_mask != 0) {
        TPM2B_DIGEST current = {0};
        TPML_PCR_SELECTION pcrs = pcr_selection(pcr_mask);
        TSS2_RC r = tss.Esys_PolicyPCR(c->esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &current, &pcrs);
        if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_PolicyPCR");
    }
    if (with_auth) {
        TSS2_RC r = tss.Esys_PolicyAuthValue(c->esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
        if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_PolicyAuthValue");
    }
    return VTPM_OK;
}

// The digest the policy leaves in a trial session; the TPM checks nothing in a trial session, it
// only computes.
static int policy_digest(call *c, uint32_t pcr_mask, bool with_auth, TPM2B_DIGEST *digest) {
    TPMT_SYM_DEF no_encryption = {.algorithm = TPM2_ALG_NULL};
    TSS2_RC r = tss.Esys_StartAuthSession(c->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                          ESYS_TR_NONE, NULL, TPM2_SE_TRIAL, &no_encryption, TPM2_ALG_SHA256,
                                          &c->trial);
    if (r != TSS2_RC_SUCCESS) {
        c->trial = ESYS_TR_NONE;
        return tss_fail(c, r, "Esys_StartAuthSession (trial)");
    }
    int status = run_policy(c, c->trial, pcr_mask, with_auth);
    if (status != VTPM_OK) return status;
    TPM2B_DIGEST *result = NULL;
    r = tss.Esys_PolicyGetDigest(c->esys, c->trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &result);
    if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_PolicyGetDigest");
    *digest = *result;
    tss.Esys_Free(result);
    flush(c, &c->trial);
    return VTPM_OK;
}

// MARK: - Sealing

static int seal(call *c, const char *tcti, TPM2B_SENSITIVE_CREATE *sensitive, uint32_t pcr_mask, vtpm_sealed *out) {
    int status = open_tpm(c, tcti);
    if (status == VTPM_OK) status = create_primary(c);
    if (status != VTPM_OK) return status;

    bool with_auth = sensitive->sensitive.userAuth.size > 0;
    bool with_policy = pcr_mask != 0 || with_auth;
    TPM2B_PUBLIC in_public = {
        .publicArea = {
            .type = TPM2_ALG_KEYEDHASH,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT,
            .parameters.keyedHashDetail.scheme = {.scheme = TPM2_ALG_NULL},
        },
    };
    // Without a PIN there is nothing to guess, so failures need not count against the TPM's
    // dictionary-attack budget; with one, every wrong PIN must.
    if (!with_auth) in_public.publicArea.objectAttributes |= TPMA_OBJECT_NODA;
    if (with_policy) {
        // Only the policy authorizes: with userWithAuth the auth value alone would unseal,
        // bypassing the PCRs.
        status = policy_digest(c, pcr_mask, with_auth, &in_public.publicArea.authPolicy);
        if (status != VTPM_OK) return status;
    } else {
        in_public.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
    }

    status = start_salted_session(c, TPM2_SE_HMAC);
    if (status != VTPM_OK) return status;
    TPM2B_DATA no_outside_info = {0};
    TPML_PCR_SELECTION no_creation_pcr = {0};
    TPM2B_PRIVATE *private_area = NULL;
    TPM2B_PUBLIC *public_area = NULL;
    TSS2_RC r = tss.Esys_Create(c->esys, c->primary, c->session, ESYS_TR_NONE, ESYS_TR_NONE, sensitive, &in_public,
                                &no_outside_info, &no_creation_pcr, &private_area, &public_area, NULL, NULL, NULL);
    if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_Create");

    size_t public_length = 0, private_length = 0;
    r = tss.Tss2_MU_TPM2B_PUBLIC_Marshal(public_area, out->public_area, sizeof out->public_area, &public_length);
    if (r != TSS2_RC_SUCCESS) {
        status = fail(c, VTPM_TPM_ERROR, r, "Tss2_MU_TPM2B_PUBLIC_Marshal");
    } else {
        r = tss.Tss2_MU_TPM2B_PRIVATE_Marshal(private_area, out->private_area, sizeof out->private_area,
                                              &private_length);
        if (r != TSS2_RC_SUCCESS) status = fail(c, VTPM_TPM_ERROR, r, "Tss2_MU_TPM2B_PRIVATE_Marshal");
    }
    tss.Esys_Free(private_area);
    tss.Esys_Free(public_area);
    if (status == VTPM_OK) {
        out->public_length = public_length;
        out->private_length = private_length;
    }
    return status;
}

int vtpm_seal(const char *tcti, const uint8_t *secret, size_t secret_length, const uint8_t *auth, size_t auth_length,
              uint32_t pcr_mask, vtpm_sealed *out, uint32_t *rc, char *why, size_t why_capacity) {
    call c = begin(rc, why, why_capacity);
    if (!out) return fail(&c, VTPM_INVALID, 0, "no output");
    out->public_length = 0;
    out->private_length = 0;
    if (!secret || secret_length < 1 || secret_length > 128) return fail(&c, VTPM_INVALID, 0, "secret length");
    if ((!auth && auth_length > 0) || auth_length > 32) return fail(&c, VTPM_INVALID, 0, "auth length");
    if (pcr_mask & 0xff000000u) return fail(&c, VTPM_INVALID, 0, "PCR mask");
    if (!load(why, why_capacity)) return VTPM_LIBRARY_MISSING;

    TPM2B_SENSITIVE_CREATE sensitive = {0};
    sensitive.sensitive.data.size = (UINT16)secret_length;
    memcpy(sensitive.sensitive.data.buffer, secret, secret_length);
    sensitive.sensitive.userAuth.size = (UINT16)auth_length;
    if (auth_length > 0) memcpy(sensitive.sensitive.userAuth.buffer, auth, auth_length);

    // Esys_Create keeps a copy of `sensitive` in the ESAPI context (to resend the command), which
    // Esys_Finalize frees without wiping; its API offers no way to clear it.
    int status = finish(&c, seal(&c, tcti, &sensitive, pcr_mask, out));
    explicit_bzero(&sensitive, sizeof sensitive);
    return status;
}

// MARK: - Unsealing

// The caller's blobs as the ESAPI takes them: each must unmarshal exactly, and the public area
// must be a sealed-data (keyed-hash) object.
static int unmarshal(call *c, const vtpm_sealed *in, TPM2B_PUBLIC *public_area, TPM2B_PRIVATE *private_area) {
    size_t offset = 0;
    TSS2_RC r = tss.Tss2_MU_TPM2B_PUBLIC_Unmarshal(in->public_area, in->public_length, &offset, public_area);
    if (r != TSS2_RC_SUCCESS) return fail(c, VTPM_MALFORMED, r, "Tss2_MU_TPM2B_PUBLIC_Unmarshal");
    if (offset != in->public_length) return fail(c, VTPM_MALFORMED, 0, "bytes left over after TPM2B_PUBLIC");
    if (public_area->publicArea.type != TPM2_ALG_KEYEDHASH)
        return fail(c, VTPM_MALFORMED, 0, "public area is not a sealed-data object");
    offset = 0;
    r = tss.Tss2_MU_TPM2B_PRIVATE_Unmarshal(in->private_area, in->private_length, &offset, private_area);
    if (r != TSS2_RC_SUCCESS) return fail(c, VTPM_MALFORMED, r, "Tss2_MU_TPM2B_PRIVATE_Unmarshal");
    if (offset != in->private_length) return fail(c, VTPM_MALFORMED, 0, "bytes left over after TPM2B_PRIVATE");
    return VTPM_OK;
}

// Creates the parent and loads `in` under it into c->object.
static int load_object(call *c, const char *tcti, const vtpm_sealed *in) {
    TPM2B_PUBLIC public_area = {0};
    TPM2B_PRIVATE private_area = {0};
    int status = unmarshal(c, in, &public_area, &private_area);
    if (status == VTPM_OK) status = open_tpm(c, tcti);
    if (status == VTPM_OK) status = create_primary(c);
    if (status != VTPM_OK) return status;

    // Load carries only the private blob, which the TPM encrypted under the parent, so the
    // parent's empty password needs no session.
    TSS2_RC r = tss.Esys_Load(c->esys, c->primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private_area,
                              &public_area, &c->object);
    if (r != TSS2_RC_SUCCESS) {
        c->object = ESYS_TR_NONE;
        return tss_fail(c, r, "Esys_Load");
    }
    return VTPM_OK;
}

static int unseal(call *c, const char *tcti, const vtpm_sealed *in, const TPM2B_AUTH *auth, uint32_t pcr_mask,
                  uint8_t *secret, size_t secret_capacity, size_t *secret_length) {
    int status = load_object(c, tcti, in);
    if (status != VTPM_OK) return status;
    TSS2_RC r = tss.Esys_TR_SetAuth(c->esys, c->object, auth);
    if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_TR_SetAuth");

    bool with_auth = auth->size > 0;
    if (pcr_mask != 0 || with_auth) {
        status = start_salted_session(c, TPM2_SE_POLICY);
        if (status == VTPM_OK) status = run_policy(c, c->session, pcr_mask, with_auth);
    } else {
        status = start_salted_session(c, TPM2_SE_HMAC);
    }
    if (status != VTPM_OK) return status;

    TPM2B_SENSITIVE_DATA *data = NULL;
    r = tss.Esys_Unseal(c->esys, c->object, c->session, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    if (r != TSS2_RC_SUCCESS) return tss_fail(c, r, "Esys_Unseal");
    if (data->size > secret_capacity) {
        *secret_length = data->size;
        status = fail(c, VTPM_INVALID, 0, "secret buffer too small");
    } else {
        memcpy(secret, data->buffer, data->size);
        *secret_length = data->size;
    }
    explicit_bzero(data, sizeof *data);
    tss.Esys_Free(data);
    return status;
}

int vtpm_unseal(const char *tcti, const vtpm_sealed *in, const uint8_t *auth, size_t auth_length, uint32_t pcr_mask,
                uint8_t *secret, size_t secret_capacity, size_t *secret_length, uint32_t *rc, char *why,
                size_t why_capacity) {
    call c = begin(rc, why, why_capacity);
    if (!secret_length) return fail(&c, VTPM_INVALID, 0, "no output");
    *secret_length = 0;
    if (!in || !secret) return fail(&c, VTPM_INVALID, 0, "no sealed object or secret buffer");
    if (in->public_length > VTPM_BLOB_CAPACITY || in->private_length > VTPM_BLOB_CAPACITY)
        return fail(&c, VTPM_INVALID, 0, "blob length");
    if ((!auth && auth_length > 0) || auth_length > 32) return fail(&c, VTPM_INVALID, 0, "auth length");
    if (pcr_mask & 0xff000000u) return fail(&c, VTPM_INVALID, 0, "PCR mask");
    if (!load(why, why_capacity)) return VTPM_LIBRARY_MISSING;

    TPM2B_AUTH auth_value = {.size = (UINT16)auth_length};
    if (auth_length > 0) memcpy(auth_value.buffer, auth, auth_length);
    int status = unseal(&c, tcti, in, &auth_value, pcr_mask, secret, secret_capacity, secret_length);
    // VTPM_INVALID here can only be a buffer too small, whose needed size stays in *secret_length.
    if (status != VTPM_OK && status != VTPM_INVALID) *secret_length = 0;
    // The ESAPI keeps a copy of the object's auth value until the handle is flushed, and frees it
    // without wiping: overwrite it with zeros first. (The copies in the ESAPI's session record and
    // command buffer are out of reach of its API.)
    TPM2B_AUTH no_auth = {0};
    if (c.object != ESYS_TR_NONE) tss.Esys_TR_SetAuth(c.esys, c.object, &no_auth);
    status = finish(&c, status);
    explicit_bzero(&auth_value, sizeof auth_value);
    return status;
}

int vtpm_check_loadable(const char *tcti, const vtpm_sealed *in, uint32_t *rc, char *why, size_t why_capacity) {
    call c = begin(rc, why, why_capacity);
    if (!in) return fail(&c, VTPM_INVALID, 0, "no sealed object");
    if (in->public_length > VTPM_BLOB_CAPACITY || in->private_length > VTPM_BLOB_CAPACITY)
        return fail(&c, VTPM_INVALID, 0, "blob length");
    if (!load(why, why_capacity)) return VTPM_LIBRARY_MISSING;
    return finish(&c, load_object(&c, tcti, in));
}

// MARK: - Dictionary-attack state

int vtpm_lockout_state(const char *tcti, uint32_t *counter, uint32_t *max_tries, uint32_t *interval, uint32_t *rc,
                       char *why, size_t why_capacity) {
    call c = begin(rc, why, why_capacity);
    if (!counter || !max_tries || !interval) return fail(&c, VTPM_INVALID, 0, "no output");
    *counter = *max_tries = *interval = 0;
    if (!load(why, why_capacity)) return VTPM_LIBRARY_MISSING;
    int status = open_tpm(&c, tcti);
    if (status != VTPM_OK) return finish(&c, status);

    TPMI_YES_NO more = TPM2_NO;
    TPMS_CAPABILITY_DATA *data = NULL;
    TSS2_RC r = tss.Esys_GetCapability(c.esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_TPM_PROPERTIES,
                                       TPM2_PT_LOCKOUT_COUNTER, 3, &more, &data);
    if (r != TSS2_RC_SUCCESS) return finish(&c, tss_fail(&c, r, "Esys_GetCapability"));
    // The TPM returns properties from the first one asked for onwards, and may skip any it does
    // not implement, so each is matched by its tag rather than its position.
    const TPML_TAGGED_TPM_PROPERTY *list = &data->data.tpmProperties;
    for (UINT32 i = 0; i < list->count && i < TPM2_MAX_TPM_PROPERTIES; i++) {
        const TPMS_TAGGED_PROPERTY *p = &list->tpmProperty[i];
        if (p->property == TPM2_PT_LOCKOUT_COUNTER) *counter = p->value;
        if (p->property == TPM2_PT_MAX_AUTH_FAIL) *max_tries = p->value;
        if (p->property == TPM2_PT_LOCKOUT_INTERVAL) *interval = p->value;
    }
    tss.Esys_Free(data);
    return finish(&c, VTPM_OK);
}
