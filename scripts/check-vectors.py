#!/usr/bin/python3
"""Checks the test vectors written in Spec/ with implementations that are not ours.

Every value is read from the spec text itself, so a vector edited in Spec/ is checked as
written. Vault's own code uses libsodium (X25519, XChaCha20-Poly1305, BLAKE2b) and libargon2
(Argon2id). Here:

- BLAKE2b and Derive: CPython's hashlib.blake2b (its own copy of the reference code);
- X25519: PyNaCl (libsodium) and python3-cryptography (OpenSSL), each result compared;
- XChaCha20-Poly1305: PyNaCl (libsodium), and OpenSSL's ChaCha20-Poly1305 behind an
  HChaCha20 written below in Python (draft-irtf-cfrg-xchacha), each result compared;
- Argon2id: argon2-cffi (libargon2, the library vault links) and libsodium's own Argon2id
  through PyNaCl (crypto_pwhash_alg; one lane only, which the sealed-identity vector uses);
- the DH session key of Spec/secret-service.md: Python integers and hmac (HKDF-SHA256).

Needs /usr/bin/python3 with python3-nacl, python3-argon2 and python3-cryptography (Debian);
scripts/check-vectors.sh installs them. Exits 1 and names each vector that does not match.
"""

import base64
import hashlib
import hmac
import pathlib
import re
import struct
import sys
import unicodedata

import argon2.low_level
import cryptography.exceptions
import nacl.bindings as sodium
import nacl.exceptions
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ROOT = pathlib.Path(__file__).resolve().parent.parent
failures = []
checked = 0


def spec(name):
    return (ROOT / "Spec" / name).read_text(encoding="utf-8")


def check(what, got, want):
    global checked
    checked += 1
    if got != want:
        failures.append(f"{what}: computed {shown(got)}, the spec says {shown(want)}")


def shown(value):
    return value.hex() if isinstance(value, (bytes, bytearray)) else repr(value)


def labelled(text, label, where):
    """The hex value on the line that starts with `label` (after `= ... =` if any), joined with
    the continuation lines of hex that follow it."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*" + re.escape(label) + r"\s*=", line):
            value = line.rsplit("=", 1)[1].strip()
            if not re.fullmatch(r"[0-9a-f]{2,}.*", value) and i + 1 < len(lines):
                # The value on a line of its own: `label = formula` then `      = value`.
                i += 1
                value = lines[i].rsplit("=", 1)[1].strip()
            for more in lines[i + 1:]:
                if re.fullmatch(r"\s*[0-9a-f]{2,}\s*", more):
                    value += more.strip()
                else:
                    break
            value = value.split()[0]
            if re.fullmatch(r"([0-9a-f]{2})+", value):
                return bytes.fromhex(value)
    raise SystemExit(f"check-vectors: no hex value labelled {label!r} in {where}")


def section(text, start, end):
    begin = text.index(start)
    return text[begin:text.index(end, begin + len(start))]


# MARK: - Primitives from other implementations


def blake2b(n, key, message):
    return hashlib.blake2b(message, digest_size=n, key=key).digest()


def derive(key, ident, context):
    """Derive(K, id, ctx) of Spec/format-v1.md §1.1, with hashlib's salt and personalization."""
    return hashlib.blake2b(
        b"",
        digest_size=32,
        key=key,
        salt=struct.pack("<Q", ident) + bytes(8),
        person=context.encode() + bytes(8),
    ).digest()


def x25519_base(secret):
    a = sodium.crypto_scalarmult_base(secret)
    b = X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    check("X25519 base point: libsodium and OpenSSL agree", a, b)
    return a


def x25519(secret, public):
    a = sodium.crypto_scalarmult(secret, public)
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

    b = X25519PrivateKey.from_private_bytes(secret).exchange(X25519PublicKey.from_public_bytes(public))
    check("X25519: libsodium and OpenSSL agree", a, b)
    return a


def rotl32(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def hchacha20(key, nonce16):
    """HChaCha20 (draft-irtf-cfrg-xchacha §2.2), in Python."""
    state = list(struct.unpack("<4I", b"expand 32-byte k")) + list(struct.unpack("<8I", key))
    state += list(struct.unpack("<4I", nonce16))

    def quarter(a, b, c, d):
        state[a] = (state[a] + state[b]) & 0xFFFFFFFF
        state[d] = rotl32(state[d] ^ state[a], 16)
        state[c] = (state[c] + state[d]) & 0xFFFFFFFF
        state[b] = rotl32(state[b] ^ state[c], 12)
        state[a] = (state[a] + state[b]) & 0xFFFFFFFF
        state[d] = rotl32(state[d] ^ state[a], 8)
        state[c] = (state[c] + state[d]) & 0xFFFFFFFF
        state[b] = rotl32(state[b] ^ state[c], 7)

    for _ in range(10):
        quarter(0, 4, 8, 12)
        quarter(1, 5, 9, 13)
        quarter(2, 6, 10, 14)
        quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15)
        quarter(1, 6, 11, 12)
        quarter(2, 7, 8, 13)
        quarter(3, 4, 9, 14)
    return struct.pack("<8I", *(state[0:4] + state[12:16]))


def seal(key, nonce, message, associated):
    """Seal of Spec/format-v1.md §1.1: XChaCha20-Poly1305, ciphertext || tag."""
    a = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(message, associated, nonce, key)
    b = ChaCha20Poly1305(hchacha20(key, nonce[:16])).encrypt(bytes(4) + nonce[16:], message, associated)
    check("XChaCha20-Poly1305: libsodium and OpenSSL with HChaCha20 agree", a, b)
    return a


def open_sealed(key, nonce, sealed, associated):
    """Open of Spec/format-v1.md §1.1, or None when the tag does not verify."""
    try:
        a = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(sealed, associated, nonce, key)
    except nacl.exceptions.CryptoError:
        a = None
    try:
        b = ChaCha20Poly1305(hchacha20(key, nonce[:16])).decrypt(bytes(4) + nonce[16:], sealed, associated)
    except cryptography.exceptions.InvalidTag:
        b = None
    check("XChaCha20-Poly1305 open: libsodium and OpenSSL with HChaCha20 agree", a, b)
    return a


def argon2id(password, salt, memory_kib, passes, lanes):
    a = argon2.low_level.hash_secret_raw(
        password, salt, time_cost=passes, memory_cost=memory_kib, parallelism=lanes, hash_len=32,
        type=argon2.low_level.Type.ID, version=19,
    )
    if lanes == 1:
        b = sodium.crypto_pwhash_alg(32, password, salt, passes, memory_kib * 1024, sodium.crypto_pwhash_ALG_ARGON2ID13)
        check("Argon2id: libargon2 and libsodium agree", a, b)
    return a


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def seq(first, last):
    return bytes(range(first, last + 1))


MK = seq(0x00, 0x1F)
DS = seq(0x20, 0x3F)
VAULT_ID = seq(0x40, 0x4F)

# MARK: - format-v1.md §14.1: key derivation, device marker, lookup tag

v1 = section(spec("format-v1.md"), "### 14.1 Key derivation", "### 14.2")
BK = derive(MK, 1, "VLTbase_")
HK, IK, LK = derive(BK, 1, "VLTheadr"), derive(BK, 2, "VLTindex"), derive(BK, 3, "VLTlookp")
CK0 = derive(MK, 16, "VLTclass")
CK3p = derive(MK, 19, "VLTclass")
DMK = blake2b(32, DS, b"VLT1dvmk" + VAULT_ID)
for label, value in [
    ("BK", BK), ("HK", HK), ("IK", IK), ("LK", LK), ("CK(0)", CK0),
    ("AK(0)", derive(CK0, 1, "VLTattrs")), ("SK(0)", derive(CK0, 2, "VLTsecrt")),
    ("CK(2)", derive(BK, 18, "VLTclass")), ("CK'(3)", CK3p),
    ("CK(3)", blake2b(32, CK3p, b"VLT1devc" + DS)), ("DMK", DMK),
]:
    check(f"format-v1 §14.1 {label}", value, labelled(v1, label, "format-v1.md §14.1"))
nonce = labelled(v1, "nonce", "format-v1.md §14.1")
check("format-v1 §14.1 nonce", nonce, seq(0x50, 0x67))
check("format-v1 §14.1 marker", blake2b(16, DMK, b"VLT1mark" + nonce), labelled(v1, "marker", "§14.1"))


def s(text):
    data = text.encode()
    return struct.pack("<H", len(data)) + data


primary_key = b"\x00" + s("example.com") + s("alice") + s("") + b"\x00"
check("format-v1 §14.1 primaryKey", primary_key, labelled(v1, "primaryKey", "§14.1"))
check("format-v1 §14.1 tag", blake2b(8, LK, primary_key), labelled(v1, "tag", "§14.1"))

# MARK: - cli.md R-GD-3: the git-diff fingerprint

gd = section(spec("cli.md"), "- **R-GD-3", "- **R-GD-4")
SK0 = derive(CK0, 2, "VLTsecrt")
FK0 = derive(SK0, 1, "VLTfprnt")
check("cli R-GD-3 FK(0)", FK0, bytes.fromhex(re.search(r"`FK\(0\) =\s*([0-9a-f]{64})`", gd).group(1)))
fingerprint = blake2b(8, FK0, b"VLT1sfpr" + VAULT_ID + seq(0x70, 0x7F) + b"hunter2")
check("cli R-GD-3 fingerprint", fingerprint, bytes.fromhex(re.search(r"fingerprint `([0-9a-f]{16})`", gd).group(1)))

# MARK: - format-v1.2.md §8: a recipient stanza and the text forms

v12 = spec("format-v1.2.md")
v12v = section(v12, "## 8. Test vectors", "These values were computed")
r, e = seq(0x80, 0x9F), seq(0x60, 0x7F)
stanza_nonce, info_nonce = seq(0xA0, 0xB7), seq(0xC0, 0xD7)
R, E = x25519_base(r), x25519_base(e)
shared = x25519(e, R)
check("format-v1.2 §8 shared = X25519(r, E) too", x25519(r, E), shared)
KEK = blake2b(32, shared, b"VLT12rcp" + E + R)
prefix = b"\x01\x00" + E
wrapped = seal(KEK, stanza_nonce, MK, b"VLT12rcp" + VAULT_ID + prefix)
RIK = derive(MK, 2, "VLTrcpnt")
name = b"alice@laptop"
info_plain = R + bytes([len(name)]) + name + bytes(64 - len(name))
info = seal(RIK, info_nonce, info_plain, b"VLT12inf" + VAULT_ID + prefix)
for label, value in [("R", R), ("E", E), ("shared", shared), ("KEK", KEK), ("wrapped", wrapped), ("RIK", RIK),
                     ("info", info)]:
    check(f"format-v1.2 §8 {label}", value, labelled(v12v, label, "format-v1.2.md §8"))
check("format-v1.2 §8 wrapped opens", open_sealed(KEK, stanza_nonce, wrapped, b"VLT12rcp" + VAULT_ID + prefix), MK)
recipient = "VAULT-RECIPIENT-1:" + b64url(R + blake2b(4, b"", b"VLT12rck" + R))
identity = "VAULT-IDENTITY-1:" + b64url(r + blake2b(4, b"", b"VLT12ick" + r))
check("format-v1.2 §8 recipient", recipient, re.search(r"recipient = (VAULT-RECIPIENT-1:\S+)", v12v).group(1))
check("format-v1.2 §8 identity", identity, re.search(r"identity  = (VAULT-IDENTITY-1:\S+)", v12v).group(1))

# MARK: - format-v1.2.md R12-TXT-3: an identity sealed under a passphrase

txt3 = section(v12, "- **R12-TXT-3**", "## 5. Migration")
line = re.search(r"(VAULT-IDENTITY-SEALED-1:[A-Za-z0-9_-]+)", txt3).group(1)
payload = unb64url(line.split(":", 1)[1])
check("R12-TXT-3 payload length", len(payload), 101)
alg, memory, passes, lanes = payload[0], *struct.unpack("<3I", payload[1:13])
salt, sealed_nonce, sealed = payload[13:29], payload[29:53], payload[53:]
check("R12-TXT-3 header (alg, memory KiB, passes, lanes)", (alg, memory, passes, lanes), (1, 19456, 2, 1))
check("R12-TXT-3 salt", salt, seq(0x40, 0x4F))
check("R12-TXT-3 nonce", sealed_nonce, seq(0x50, 0x67))
passphrase = unicodedata.normalize("NFC", "correct horse battery staple").encode()
check("R12-TXT-3 passphrase named in the spec", "correct horse\n  battery staple" in txt3, True)
identity_kek = argon2id(passphrase, salt, memory, passes, lanes)
opened = open_sealed(identity_kek, sealed_nonce, sealed, b"VLTidsl1" + payload[:53])
check("R12-TXT-3 opens to r = 0x01 ... 0x20", opened, seq(0x01, 0x20))
resealed = "VAULT-IDENTITY-SEALED-1:" + b64url(
    payload[:53] + seal(identity_kek, sealed_nonce, seq(0x01, 0x20), b"VLTidsl1" + payload[:53])
)
check("R12-TXT-3 sealed line, made again", resealed, line)

# MARK: - format-v2.md §9: group keys and a limited stanza

v2 = section(spec("format-v2.md"), "## 9. Test vectors", "## 10.")
D1 = derive(MK, 257, "VLTgroup")
GK1 = blake2b(32, D1, b"VLT2gkey" + b"billing")
CK10 = derive(GK1, 16, "VLTgrpcl")
for label, value in [
    ("D(1)", D1), ("GK(1)", GK1), ('GK(1, "deploy")', blake2b(32, D1, b"VLT2gkey" + b"deploy")),
    ("GNK", derive(MK, 3, "VLTgrpnm")), ("CK(1, 0)", CK10), ("SK(1, 0)", derive(CK10, 2, "VLTsecrt")),
    ("CK(1, 2)", derive(GK1, 18, "VLTgrpcl")),
]:
    check(f"format-v2 §9 {label}", value, labelled(v2, label, "format-v2.md §9"))
limited_prefix = b"\x01\x02\x01" + E
limited_wrapped = seal(KEK, stanza_nonce, HK + IK + LK + GK1, b"VLT12rcp" + VAULT_ID + limited_prefix)
check("format-v2 §9 wrapped", limited_wrapped, labelled(v2, "wrapped", "format-v2.md §9"))
limited_info = seal(RIK, info_nonce, info_plain, b"VLT12inf" + VAULT_ID + limited_prefix)
limited = limited_prefix + stanza_nonce + limited_wrapped + info_nonce + limited_info
check("format-v2 §9 stanza length", len(limited), 340)
check("format-v2 §9 BLAKE2b of the stanza", blake2b(32, b"", limited), labelled(v2, 'BLAKE2b(32, "", stanza)', "§9"))

# MARK: - format-v3.md §19: the self-contained format, its restated vectors and format 3's own

v3 = spec("format-v3.md")
v3k = section(v3, "### 19.1 Key derivation", "### 19.2")
for label, value in [
    ("BK", BK), ("HK", HK), ("IK", IK), ("LK", LK), ("CK(0)", CK0),
    ("AK(0)", derive(CK0, 1, "VLTattrs")), ("SK(0)", derive(CK0, 2, "VLTsecrt")),
    ("CK(2)", derive(BK, 18, "VLTclass")), ("CK'(3)", CK3p),
    ("CK(3)", blake2b(32, CK3p, b"VLT1devc" + DS)), ("DMK", DMK),
    ("nonce", seq(0x50, 0x67)), ("marker", blake2b(16, DMK, b"VLT1mark" + seq(0x50, 0x67))),
    ("taggedID", seq(0x50, 0x57) + blake2b(8, DMK, b"VLT1dvid" + seq(0x50, 0x57))),
    ("primaryKey", primary_key), ("tag", blake2b(8, LK, primary_key)),
]:
    check(f"format-v3 §19.1 {label}", value, labelled(v3k, label, "format-v3.md §19.1"))

v3g = section(v3, "### 19.2 Access groups", "### 19.3")
GNK = derive(MK, 3, "VLTgrpnm")
for label, value in [
    ("D(1)", D1), ("GK(1)", GK1), ('GK(1, "deploy")', blake2b(32, D1, b"VLT2gkey" + b"deploy")),
    ("GNK", GNK), ("CK(1, 0)", CK10), ("SK(1, 0)", derive(CK10, 2, "VLTsecrt")),
    ("CK(1, 2)", derive(GK1, 18, "VLTgrpcl")),
]:
    check(f"format-v3 §19.2 {label}", value, labelled(v3g, label, "format-v3.md §19.2"))
group_nonce = seq(0xE0, 0xF7)
group_name = b"billing"
group_plain = bytes([len(group_name)]) + group_name + bytes(64 - len(group_name))
group_ad = b"VLT2grp_" + VAULT_ID + b"\x01"  # d is one byte in the associated data
group_field = b"\x01" + group_nonce + seal(GNK, group_nonce, group_plain, group_ad)
check("format-v3 §19.2 field length", len(group_field), 106)
check("format-v3 §19.2 field opens", open_sealed(GNK, group_nonce, group_field[25:], group_ad), group_plain)
check("format-v3 §19.2 BLAKE2b of the field", blake2b(32, b"", group_field),
      labelled(v3g, 'BLAKE2b(32, "", field)', "format-v3.md §19.2"))

v3r = section(v3, "### 19.3 Recipient stanzas", "### 19.4")
v3full = section(v3r, "### 19.3", "The same recipient limited")
for label, value in [("R", R), ("E", E), ("shared", shared), ("KEK", KEK), ("wrapped", wrapped), ("RIK", RIK),
                     ("info", info)]:
    check(f"format-v3 §19.3 {label}", value, labelled(v3full, label, "format-v3.md §19.3"))
check("format-v3 §19.3 recipient", recipient, re.search(r"recipient = (VAULT-RECIPIENT-1:\S+)", v3full).group(1))
check("format-v3 §19.3 identity", identity, re.search(r"identity  = (VAULT-IDENTITY-1:\S+)", v3full).group(1))
v3limited = section(v3r, "The same recipient limited", "A sealed identity")
check("format-v3 §19.3 limited wrapped", limited_wrapped, labelled(v3limited, "wrapped", "format-v3.md §19.3"))
check("format-v3 §19.3 BLAKE2b of the limited stanza", blake2b(32, b"", limited),
      labelled(v3limited, 'BLAKE2b(32, "", stanza)', "format-v3.md §19.3"))
check("format-v3 §19.3 sealed identity", re.search(r"(VAULT-IDENTITY-SEALED-1:[A-Za-z0-9_-]+)", v3r).group(1),
      resealed)

v3s = section(v3, "### 19.4 Scope keys and tags", "### 19.5")
SAK0, SAK1, SAK21 = derive(MK, 8, "VLT3scop"), derive(BK, 8, "VLT3scop"), derive(GK1, 8, "VLT3scop")
groups_none = blake2b(32, b"", b"")
groups_billing = blake2b(32, b"", b"\x01" + blake2b(32, b"", group_field))
counter, tree_hash = 1_700_000_000_000, seq(0x80, 0x9F)


def scope_tag(key, kind, domain, extra):
    message = (b"VLT3scop" + VAULT_ID + bytes([kind, domain]) + struct.pack("<Q", counter) + tree_hash
               + struct.pack("<I", 2) + struct.pack("<I", 1) + extra)
    return blake2b(32, key, message)


for label, value in [
    ("SAK(0, 0)", SAK0), ("SAK(1, 0)", SAK1), ("SAK(2, 1)", SAK21),
    ("groupsHash(none)", groups_none), ("groupsHash(billing)", groups_billing),
    ("tag(0, 0)", scope_tag(SAK0, 0, 0, groups_billing)), ("tag(1, 0)", scope_tag(SAK1, 1, 0, b"")),
    ("tag(2, 1)", scope_tag(SAK21, 2, 1, b"")),
]:
    check(f"format-v3 §19.4 {label}", value, labelled(v3s, label, "format-v3.md §19.4"))
le64_text = re.search(r"`LE64` = `([0-9a-f ]+)`", re.sub(r"\s+", " ", v3s)).group(1)
check("format-v3 §19.4 LE64 of the counter", struct.pack("<Q", counter).hex(" "), le64_text)

v3e = section(v3, "### 19.5 Events", "### 19.6")


def absorb(kept, other):
    """R3-EV-3's merged history (the kept entry takes in the other's), from format-v3.md §8."""
    if all(e in kept for e in other):
        return list(kept)
    out = [kept[0]] + ([other[0]] if other[0] not in kept else []) + list(kept[1:])
    out += [e for e in other[1:] if e not in out]
    return out[:16]


history_a = [bytes.fromhex(x) for x in ("f0e0d0c0b0a09080", "1111111111111111", "2222222222222222")]
history_b = [bytes.fromhex(x) for x in ("0102030405060708", "1111111111111111", "3333333333333333")]
merged = absorb(history_a, history_b)
check("format-v3 §19.5 absorbing again changes nothing", absorb(merged, history_b), merged)
merged_text = re.search(r"absorb\(A, B\)\s*=\s*((?:[0-9a-f]{16}\s*)+)", v3e).group(1).split()
check("format-v3 §19.5 merged history", [e.hex() for e in merged], merged_text)
check("format-v3 §19.5 migrated version 7", struct.pack("<Q", 7), labelled(v3e, "migratedVersion7", "§19.5"))
migrated_deletion = blake2b(8, b"", b"VLT3mdel" + seq(0x50, 0x5F) + struct.pack("<q", 1_700_000_000_000))
check("format-v3 §19.5 migrated deletion", migrated_deletion, labelled(v3e, "migratedDeletion", "§19.5"))

v3c = section(v3, "### 19.6 A commit slot", "### 19.7")
MAGIC = bytes([0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A])


def reference(offset, length, digest):
    return struct.pack("<QI", offset, length) + digest


slot = (MAGIC + struct.pack("<HHI", 3, 0, 512) + struct.pack("<QQQ", 1, 1937, 1937) + blake2b(32, b"", b"")
        + reference(1024, 300, seq(0xA0, 0xBF)) + reference(1700, 237, seq(0xC0, 0xDF)) + b"\x00")
check("format-v3 §19.6 slotIndex at offset 160", len(slot), 161)
slot += bytes(448 - len(slot))
checksum = blake2b(32, b"", slot)
check("format-v3 §19.6 commitHash", blake2b(32, b"", b""), labelled(v3c, "commitHash", "format-v3.md §19.6"))
check("format-v3 §19.6 checksum", checksum, labelled(v3c, "checksum", "format-v3.md §19.6"))
check("format-v3 §19.6 mac", blake2b(32, HK, slot + checksum), labelled(v3c, "mac", "format-v3.md §19.6"))

# The NFC table of §5.2 (R11-PW-1) and the padding table of §12.4.
nfc_rows = re.findall(r"\| `((?:[0-9a-f]{2} ?)+)` \| `((?:[0-9a-f]{2} ?)+)` \|",
                      section(v3, "- **R11-PW-1**", "- **R-KF-1**"))
check("format-v3 §5.2 NFC rows found", len(nfc_rows), 5)
for typed, expected in nfc_rows:
    raw = bytes.fromhex(typed.replace(" ", ""))
    try:
        normal = unicodedata.normalize("NFC", raw.decode("utf-8")).encode()
    except UnicodeDecodeError:
        normal = raw
    check(f"format-v3 §5.2 NFC of {typed}", normal.hex(), expected.replace(" ", ""))


def pad(length):
    if length <= 4096:
        return 32 * -(-max(length, 1) // 32)
    e = length.bit_length() - 1
    z = e - e.bit_length()
    return -(-length // 2**z) * 2**z


pad_rows = re.findall(r"^\| ([0-9,]+) \|[^|]*\|[^|]*\|[^|]*\| ([0-9,]+) \|$", section(v3, "### 12.4", "### 12.5"), re.M)
check("format-v3 §12.4 padding rows found", len(pad_rows), 12)
for length, padded in pad_rows:
    check(f"format-v3 §12.4 pad({length})", pad(int(length.replace(",", ""))), int(padded.replace(",", "")))

# MARK: - secret-service.md R-SS-12: the DH session key

ss = spec("secret-service.md")
ss_vector = section(ss, "Test vector (Tests/VaultSecretServiceTests)", "## 5.")
P = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF",
    16,
)
check("RFC 2409 §6.2 prime: 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 pi) + 129093), top and bottom bits",
      (P >> 960, P & (2**64 - 1)), (2**64 - 1, 2**64 - 1))
Y = int(labelled(ss_vector, "Y", "secret-service.md").hex(), 16)
Z = pow(Y, int.from_bytes(seq(0x01, 0x80), "big"), P).to_bytes(128, "big")
z_start = re.search(r"\(`([0-9a-f]+)…`\)", ss_vector).group(1)
check("secret-service shared secret starts", Z[: len(z_start) // 2].hex(), z_start)
prk = hmac.new(bytes(32), Z, hashlib.sha256).digest()
session_key = hmac.new(prk, b"\x01", hashlib.sha256).digest()[:16]
check("secret-service session key", session_key.hex(), re.search(r"session key\s+`([0-9a-f]{32})`", ss_vector).group(1))

if failures:
    for failure in failures:
        print("MISMATCH " + failure)
    print(f"check-vectors: {len(failures)} of {checked} checks failed")
    sys.exit(1)
print(f"check-vectors: {checked} checks passed (format-v1 §14.1, cli R-GD-3, format-v1.2 §8 and R12-TXT-3, "
      "format-v2 §9, format-v3 §5.2, §12.4 and §19, secret-service R-SS-12)")
