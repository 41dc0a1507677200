#!/usr/bin/python3
"""Reads every case of Fixtures/v3 with a format-3 reader written here from Spec/format-v3.md,
and checks the merge cases' expected results with a merge written here from Spec/merge.md
R-MRG-18.

Nothing of vault's code is used. The primitives come from other implementations:

- BLAKE2b and Derive: CPython's hashlib.blake2b;
- XChaCha20-Poly1305: OpenSSL's ChaCha20-Poly1305 (python3-cryptography) behind an HChaCha20
  written below in Python (draft-irtf-cfrg-xchacha), not libsodium, which vault uses;
- Argon2id: argon2-cffi (libargon2; libsodium's crypto_pwhash, which check-vectors.py compares with
  it, takes 16-byte salts only, and keyslots have 32);
- X25519: OpenSSL (python3-cryptography).

For every success case the reader opens the file with the case's credentials (slots, header
chunk, keyslots or stanzas, the slot MAC, the root, the scope tags, every node and entry, every
record, the full verification of §10 step 8) and compares the items (attributes, secret digest,
history), the unavailable count, the generation read, the note, the uncommitted tail and the
deletion entries. For every failure case it must fail with the listed error kind. For every merge
case of format-3 replicas it merges them in every listed order and compares the items, histories
and deletion entries (the case with a 1.1 replica is left to the Swift tests: reading 1.1 is not
format 3).

Needs /usr/bin/python3 with python3-nacl, python3-argon2 and python3-cryptography (Debian);
scripts/check-vectors.sh installs them. Exits 1 and names each case that does not match.
"""

import base64
import hashlib
import json
import pathlib
import struct
import sys
import unicodedata

import argon2.low_level
import cryptography.exceptions
import nacl.bindings as sodium
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDER = ROOT / "Fixtures" / "v3"
MAGIC = bytes([0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A])

# MARK: - Primitives


def blake2b(n, key, message):
    return hashlib.blake2b(message, digest_size=n, key=key).digest()


def derive(key, ident, context):
    return hashlib.blake2b(b"", digest_size=32, key=key, salt=struct.pack("<Q", ident) + bytes(8),
                           person=context.encode() + bytes(8)).digest()


def rotl32(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def hchacha20(key, nonce16):
    s = list(struct.unpack("<4I", b"expand 32-byte k")) + list(struct.unpack("<8I", key))
    s += list(struct.unpack("<4I", nonce16))

    def quarter(a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = rotl32(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = rotl32(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = rotl32(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = rotl32(s[b] ^ s[c], 7)

    for _ in range(10):
        quarter(0, 4, 8, 12)
        quarter(1, 5, 9, 13)
        quarter(2, 6, 10, 14)
        quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15)
        quarter(1, 6, 11, 12)
        quarter(2, 7, 8, 13)
        quarter(3, 4, 9, 14)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def aead_open(key, nonce, sealed, associated):
    """Open of §1.1 (XChaCha20-Poly1305), or None."""
    if len(sealed) < 16:
        return None
    try:
        return ChaCha20Poly1305(hchacha20(key, nonce[:16])).decrypt(bytes(4) + nonce[16:], sealed, associated)
    except cryptography.exceptions.InvalidTag:
        return None


def argon2id(password, salt, memory_kib, passes, lanes):
    a = argon2.low_level.hash_secret_raw(password, salt, time_cost=passes, memory_cost=memory_kib,
                                         parallelism=lanes, hash_len=32, type=argon2.low_level.Type.ID, version=19)
    if lanes == 1 and len(salt) == 16:  # libsodium's crypto_pwhash takes one lane and 16-byte salts only
        b = sodium.crypto_pwhash_alg(32, password, salt, passes, memory_kib * 1024, sodium.crypto_pwhash_ALG_ARGON2ID13)
        if a != b:
            raise SystemExit("check-fixtures-v3: libargon2 and libsodium disagree on Argon2id")
    return a


def x25519(secret, public):
    return X25519PrivateKey.from_private_bytes(secret).exchange(X25519PublicKey.from_public_bytes(public))


def x25519_base(secret):
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def u(data, offset, size):
    return int.from_bytes(data[offset:offset + size], "little")


def pad(length):
    if length <= 4096:
        return 32 * -(-max(length, 1) // 32)
    e = length.bit_length() - 1
    z = e - e.bit_length()
    return -(-length // 2**z) * 2**z


class Fail(Exception):
    def __init__(self, code, reason):
        super().__init__(f"{code}: {reason}")
        self.code = code


# MARK: - Slots (§4)


def reference(data, offset):
    return (u(data, offset, 8), u(data, offset + 8, 4), bytes(data[offset + 12:offset + 44]))


def read_slot(raw, position):
    """R3-SLT-2: ("empty" | "damaged" | "ok", slot fields)."""
    if raw == bytes(512):
        return "empty", None
    if blake2b(32, b"", raw[:448]) != raw[448:480]:
        return "damaged", "checksum"
    major, minor, length = struct.unpack_from("<HHI", raw, 8)
    generation, start, end = struct.unpack_from("<QQQ", raw, 16)
    if raw[:8] != MAGIC or major != 3 or length != 512 or raw[160] != position:
        return "damaged", "fields"
    if minor == 0 and any(raw[161:448]):
        return "damaged", "reserved bytes"
    if generation < 1 or not 1024 <= start <= end:
        return "damaged", "generation or commit range"
    return "ok", {"minor": minor, "generation": generation, "start": start, "end": end, "hash": raw[40:72],
                  "header": reference(raw, 72), "root": reference(raw, 116), "bytes": raw}


def marked(prefix, at):
    slot = prefix[at:at + 16]
    return (slot[:8] == MAGIC and slot[8:10] == b"\x03\x00"
            and (len(slot[12:16]) < 4 or slot[12:16] == struct.pack("<I", 512)))


def choose_slot(file):
    """R3-SLT-1 to R3-SLT-4: the current slot and whether the other is noted."""
    n = len(file)
    prefix = file[:1024]
    if n >= 10 and prefix[:8] == MAGIC:
        if not marked(prefix, 0):
            raise Fail("unsupportedVersion", "slot 0 is not a format-3 slot")
    elif not marked(prefix, 512):
        head = prefix[:min(n, 8)]
        if n == 0 or head != MAGIC[:len(head)]:
            raise Fail("notAVault", "no magic")
        raise Fail("truncated", "a prefix of the magic")
    if n < 1024:
        raise Fail("truncated", "shorter than the slots")
    states = [read_slot(file[0:512], 0), read_slot(file[512:1024], 1)]
    if states[0][0] == "empty":
        states[0] = ("damaged", "slot 0 empty")
    complete, cut = [], False
    for index, (state, slot) in enumerate(states):
        if state != "ok":
            continue
        if slot["end"] <= n and blake2b(32, b"", file[slot["start"]:slot["end"]]) == slot["hash"]:
            complete.append((index, slot))
        elif slot["end"] > n:
            cut = True
    if not complete:
        raise Fail("truncated" if cut else "headerCorrupt", "no complete slot")
    if len(complete) == 2 and complete[0][1]["generation"] == complete[1][1]["generation"]:
        raise Fail("structure", "two complete slots of one generation")
    index, slot = max(complete, key=lambda pair: pair[1]["generation"])
    other_state, other = states[1 - index]
    in_place = slot["start"] < slot["end"]
    whole = any(i == 1 - index for i, _ in complete)
    note = (other_state == "damaged" or (other_state == "empty" and in_place)
            or (other_state == "ok" and ((other["generation"] > slot["generation"] and not whole)
                                         or (in_place and not (other["end"] == slot["start"]
                                                               and other["generation"] < slot["generation"])))))
    # The slot an in-place commit was built on: its MAC is checked once HK is known.
    slot["predecessor"] = other["bytes"] if in_place and not note else None
    return slot, note


def chunk(file, ref, end, hash_error):
    """R3-FILE-1."""
    offset, length, digest = ref
    if offset < 1024 or length < 1 or offset + length > end:
        raise Fail("structure", "a chunk outside the committed heap")
    data = file[offset:offset + length]
    if blake2b(32, b"", data) != digest:
        raise Fail(hash_error, "a chunk does not match its hash")
    return data


# MARK: - The header chunk (§5)


def parse_keyslot(v):
    """R-KS-1."""
    if not v or v[0] not in (1, 2, 3, 4):
        raise Fail("structure", "keyslot kind")
    if len(v) < 2 or v[1] not in (0, 1):
        raise Fail("structure", "keyslot scope")
    kind, scope = v[0], v[1]
    if kind in (2, 4):
        if len(v) != 106:
            raise Fail("structure", "keyslot length")
        return {"kind": kind, "scope": scope, "salt": v[2:34], "nonce": v[34:58], "wrapped": v[58:106], "ad": v[:34]}
    if len(v) < 3 or v[2] != 1:
        raise Fail("kdfRejected", "kdf")
    if len(v) < 15:
        raise Fail("structure", "keyslot parameters")
    memory, passes, lanes = struct.unpack_from("<III", v, 3)
    if len(v) < 16:
        raise Fail("structure", "salt length")
    n = v[15]
    if not 16 <= n <= 64:
        raise Fail("kdfRejected", "salt length")
    if len(v) != 88 + n:
        raise Fail("structure", "keyslot length")
    return {"kind": kind, "scope": scope, "memory": memory, "passes": passes, "lanes": lanes, "salt": v[16:16 + n],
            "nonce": v[16 + n:40 + n], "wrapped": v[40 + n:88 + n], "ad": v[:16 + n]}


def parse_header(data):
    if len(data) > 1048576:
        raise Fail("structure", "header chunk over 1 MiB")
    header = {"keyslots": [], "stanzas": [], "groups": [], "vaultID": None, "created": None}
    old_fields, at = False, 0
    while at < len(data):
        if at + 6 > len(data):
            raise Fail("structure", "fields do not tile")
        kind, length = struct.unpack_from("<HI", data, at)
        if at + 6 + length > len(data):
            raise Fail("structure", "fields do not tile")
        value = data[at + 6:at + 6 + length]
        at += 6 + length
        if kind == 0x8004:
            if len(header["keyslots"]) == 32:
                raise Fail("limit", "33 keyslots")
            header["keyslots"].append(parse_keyslot(value))
        elif kind == 0x0001:
            if len(header["stanzas"]) == 32:
                raise Fail("limit", "33 stanzas")
            limited = len(value) > 1 and value[1] == 2
            if len(value) != (340 if limited else 243) or value[0] != 1 or value[1] not in (0, 2):
                raise Fail("structure", "stanza")
            if limited and not 1 <= value[2] <= 32:
                raise Fail("structure", "stanza domain")
            header["stanzas"].append(value)
        elif kind == 0x8006:
            if len(header["groups"]) == 32:
                raise Fail("limit", "33 access groups")
            if len(value) != 106 or not 1 <= value[0] <= 32:
                raise Fail("structure", "access-group field")
            if header["groups"] and value[0] <= header["groups"][-1][0]:
                raise Fail("structure", "domains not ascending")
            header["groups"].append(value)
        elif kind in (0x8001, 0x8002):
            name, size = ("vaultID", 16) if kind == 0x8001 else ("created", 8)
            if len(value) != size or header[name] is not None:
                raise Fail("structure", name)
            header[name] = value
        elif kind in (0x8003, 0x8005):
            old_fields = True
        elif kind & 0x8000:
            raise Fail("unsupportedFeature", f"critical field {kind:#06x}")
    if old_fields:
        raise Fail("structure", "a generation or index field")
    if header["vaultID"] is None or header["created"] is None or not (header["keyslots"] or header["stanzas"]):
        raise Fail("structure", "a required field is missing")
    domains = {g[0] for g in header["groups"]}
    if any(s[1] == 2 and s[2] not in domains for s in header["stanzas"]):
        raise Fail("structure", "a limited stanza without its group")
    return header


# MARK: - Credentials (§5.2, §5.3)


def unlock(header, credentials):
    """The keys the credentials reach: {"MK"} or {"BK"} or a limited {"HK","IK","LK","GK","domain"}."""
    vault_id = header["vaultID"]
    slots = header["keyslots"]
    total = 0
    for slot in slots:
        if slot["kind"] in (1, 3):
            m, t, p = slot["memory"], slot["passes"], slot["lanes"]
            if not (1 <= p <= 8 and 1 <= t <= 16 and 8 * p <= m <= 1048576 and m * t <= 4194304):
                raise Fail("kdfRejected", "Argon2id limits")
            total += m * t
    if total > 8388608:
        raise Fail("kdfRejected", "Argon2id total")
    identity = credentials.get("identity")
    if identity is not None:
        line = next(x.strip() for x in identity.splitlines() if x.strip().startswith("VAULT-IDENTITY-1:"))
        r = base64.urlsafe_b64decode(line.split(":", 1)[1] + "==")[:32]
        R = x25519_base(r)
        for stanza in header["stanzas"]:
            limited = stanza[1] == 2
            p = 35 if limited else 34
            E = stanza[p - 32:p]
            shared = x25519(r, E)
            if shared == bytes(32):
                continue
            kek = blake2b(32, shared, b"VLT12rcp" + E + R)
            wrapped = stanza[p + 24:p + 24 + (144 if limited else 48)]
            opened = aead_open(kek, stanza[p:p + 24], wrapped, b"VLT12rcp" + vault_id + stanza[:p])
            if opened is None:
                continue
            if limited:
                return {"HK": opened[0:32], "IK": opened[32:64], "LK": opened[64:96], "GK": opened[96:128],
                        "domain": stanza[2]}
            return {"MK": opened}
    password = credentials.get("password")
    if password is not None:
        password = unicodedata.normalize("NFC", password).encode()
    keyfile, device = credentials.get("keyFile"), credentials.get("deviceSecret")
    digest = blake2b(64, b"", keyfile) if keyfile is not None else None
    order = sorted(range(len(slots)), key=lambda i: (slots[i]["scope"], slots[i]["kind"] in (1, 3), i))
    for i in order:
        slot = slots[i]
        kind = slot["kind"]
        if kind == 1 and password is not None:
            kek = argon2id(password, slot["salt"], slot["memory"], slot["passes"], slot["lanes"])
        elif kind == 2 and digest is not None:
            kek = blake2b(32, slot["salt"], b"VLT1keyf" + digest)
        elif kind == 3 and password is not None and digest is not None:
            stretched = argon2id(password, slot["salt"], slot["memory"], slot["passes"], slot["lanes"])
            kek = blake2b(32, stretched, b"VLT1pwkf" + digest)
        elif kind == 4 and device is not None:
            kek = blake2b(32, device, b"VLT1devk" + slot["salt"])
        else:
            continue
        opened = aead_open(kek, slot["nonce"], slot["wrapped"], b"VLT1slot" + vault_id + slot["ad"])
        if opened is not None:
            return {"MK": opened} if slot["scope"] == 0 else {"BK": opened}
    raise Fail("wrongCredential", "nothing opens")


def group_names(header, mk):
    """R2-GRP-2."""
    gnk = derive(mk, 3, "VLTgrpnm")
    names = {}
    for field in header["groups"]:
        plain = aead_open(gnk, field[1:25], field[25:], b"VLT2grp_" + header["vaultID"] + field[:1])
        if plain is None:
            raise Fail("headerAuthentication", "a group name does not open")
        n = plain[0]
        if not 1 <= n <= 64 or any(plain[1 + n:]):
            raise Fail("structure", "a malformed group name")
        name = plain[1:1 + n]
        try:
            name.decode("utf-8")
        except UnicodeDecodeError:
            raise Fail("structure", "a group name that is not UTF-8")
        if name in names.values():
            raise Fail("structure", "two groups of one name")
        names[field[0]] = name
    return names


def scope_keys(header, opened, device):
    """Every key §2.3 gives the holder, by what it is used for."""
    keys = {"device": device, "names": {}, "groupKeys": {}, "sak": {}, "mk": opened.get("MK")}
    if "MK" in opened or "BK" in opened:
        mk = opened.get("MK")
        bk = opened.get("BK") or derive(mk, 1, "VLTbase_")
        keys.update(HK=derive(bk, 1, "VLTheadr"), IK=derive(bk, 2, "VLTindex"), LK=derive(bk, 3, "VLTlookp"), BK=bk)
        keys["sak"][(1, 0)] = derive(bk, 8, "VLT3scop")
        if mk is not None:
            keys["sak"][(0, 0)] = derive(mk, 8, "VLT3scop")
    else:
        keys.update(HK=opened["HK"], IK=opened["IK"], LK=opened["LK"], BK=None)
        keys["groupKeys"][opened["domain"]] = opened["GK"]
        keys["sak"][(2, opened["domain"])] = derive(opened["GK"], 8, "VLT3scop")
    return keys


# MARK: - Root, trees, entries (§6, §7, §8)


def read_history(data, at):
    n = data[at] if at < len(data) else None
    if n is None:
        raise Fail("indexCorrupt", "ends inside a history")
    if not 1 <= n <= 16:
        raise Fail("indexCorrupt", "history count")
    if at + 1 + 8 * n > len(data):
        raise Fail("indexCorrupt", "ends inside a history")
    events = [data[at + 1 + 8 * i:at + 9 + 8 * i] for i in range(n)]
    if any(e == bytes(8) for e in events) or len(set(events)) != n:
        raise Fail("indexCorrupt", "a zero or repeated event")
    return events, at + 1 + 8 * n


def entry_scope(protection, scope):
    if scope[0] == 2:
        return scope
    return (1, 0) if protection in (2, 5) else (0, 0)


def read_node(ctx, ref, scope, level, top):
    data = chunk(ctx["file"], ref, ctx["end"], "indexCorrupt")
    plain = aead_open(ctx["keys"]["IK"], data[:24], data[24:], b"VLT3node" + ctx["vaultID"] + bytes(scope))
    if plain is None:
        raise Fail("indexCorrupt", "a node does not open")
    if len(plain) > 65536 or len(plain) < 3:
        raise Fail("indexCorrupt", "node size")
    node_level, count = plain[0], u(plain, 1, 2)
    if node_level > 5:
        raise Fail("indexCorrupt", "level above 5")
    if count == 0 and not (top and node_level == 0):
        raise Fail("indexCorrupt", "an empty node")
    if level is not None and node_level != level:
        raise Fail("indexCorrupt", "a child's level")
    at, items = 3, []
    for _ in range(count):
        if at + 24 > len(plain):
            raise Fail("indexCorrupt", "ends inside a key")
        key = plain[at:at + 24]
        if node_level > 0:
            if at + 68 > len(plain):
                raise Fail("indexCorrupt", "ends inside a child")
            items.append((key, reference(plain, at + 24)))
            at += 68
            continue
        if at + 25 > len(plain):
            raise Fail("indexCorrupt", "ends inside an entry")
        state = plain[at + 24]
        if state == 0:
            if at + 40 > len(plain):
                raise Fail("indexCorrupt", "ends inside an entry")
            class_byte = plain[at + 25]
            item_class, protection = class_byte >> 4, class_byte & 0x0F
            if item_class > 1 or protection > 6:
                raise Fail("indexCorrupt", "class byte")
            if entry_scope(protection, scope) != scope:
                raise Fail("indexCorrupt", "an entry in the wrong scope")
            attributes_length, secret_length = u(plain, at + 26, 2), u(plain, at + 28, 4)
            if secret_length > 16777216:
                raise Fail("indexCorrupt", "secret length")
            offset = u(plain, at + 32, 8)
            history, at = read_history(plain, at + 40)
            items.append((key, {"live": True, "class": class_byte, "protection": protection, "attrs": attributes_length,
                                "secret": secret_length, "offset": offset, "history": history, "scope": scope}))
        elif state == 1:
            if at + 33 > len(plain):
                raise Fail("indexCorrupt", "ends inside an entry")
            deleted_at = struct.unpack_from("<q", plain, at + 25)[0]
            history, at = read_history(plain, at + 33)
            items.append((key, {"live": False, "deletedAt": deleted_at, "history": history, "scope": scope}))
        else:
            raise Fail("indexCorrupt", "entry state")
    if at != len(plain):
        raise Fail("indexCorrupt", "bytes after the entries")
    keys = [key for key, _ in items]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        raise Fail("indexCorrupt", "keys not ascending")
    return node_level, items


def read_tree(ctx, top, scope):
    """Every entry in key order, every node checked (R3-TREE-1 to R3-TREE-3), and the nodes."""
    entries, nodes = [], []

    def walk(ref, level, is_top, first_key):
        nodes.append(ref)
        node_level, items = read_node(ctx, ref, scope, level, is_top)
        if first_key is not None and (not items or items[0][0] != first_key):
            raise Fail("indexCorrupt", "a child's first key")
        if node_level == 0:
            entries.extend(items)
        else:
            for key, child in items:
                walk(child, node_level - 1, False, key)

    walk(top, None, True, None)
    keys = [key for key, _ in entries]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        raise Fail("indexCorrupt", "keys not ascending across nodes")
    return entries, nodes


def groups_hash(header):
    return blake2b(32, b"", b"".join(g[:1] + blake2b(32, b"", g) for g in header["groups"]))


# MARK: - Records (§12)

STRINGS = {1: "service", 2: "account", 3: "accessGroup", 4: "label", 5: "comment", 6: "itemDescription",
           13: "server", 14: "protocol", 15: "authenticationType", 17: "path", 18: "securityDomain"}
NUMBERS = {7: ("creator", 4), 8: ("type", 4), 16: ("port", 2)}
DATES = {10: "creationDate", 11: "modificationDate"}
FLAGS = {12: "synchronizable", 19: "isInvisible", 20: "isNegative"}


def parse_attributes(data, item_class):
    """R-ATT-1 to R-ATT-4, into the manifest's attribute object."""
    out = {name: "" for name in STRINGS.values()}
    out.update({name: 0 for name, _ in NUMBERS.values()}, **{name: 0 for name in DATES.values()})
    out.update({name: False for name in FLAGS.values()}, generic=[], preserved=[])
    at, last = 0, 0
    while at < len(data):
        tag = data[at]
        at += 1
        if tag <= last:
            raise Fail("recordCorrupt", "tags not ascending")
        last = tag
        length, shift, size = 0, 0, 0
        while True:
            if at >= len(data) or size == 3:
                raise Fail("recordCorrupt", "varint")
            byte = data[at]
            at += 1
            size += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if size > 1 and byte == 0:
            raise Fail("recordCorrupt", "varint not minimal")
        value = data[at:at + length]
        if len(value) != length:
            raise Fail("recordCorrupt", "value past the end")
        at += length
        if 21 <= tag <= 63:
            raise Fail("recordCorrupt", "reserved tag")
        if 13 <= tag <= 18 and item_class == 0:
            raise Fail("recordCorrupt", "internet attribute on a generic password")
        if tag in STRINGS:
            if not 1 <= length <= 4096:
                raise Fail("recordCorrupt", "string length")
            try:
                out[STRINGS[tag]] = value.decode("utf-8")
            except UnicodeDecodeError:
                raise Fail("recordCorrupt", "a string that is not UTF-8")
        elif tag in NUMBERS:
            name, width = NUMBERS[tag]
            if length != width or u(value, 0, width) == 0:
                raise Fail("recordCorrupt", name)
            out[name] = u(value, 0, width)
        elif tag in DATES:
            if length != 8 or value == bytes(8):
                raise Fail("recordCorrupt", DATES[tag])
            out[DATES[tag]] = struct.unpack("<q", value)[0]
        elif tag in FLAGS:
            if value != b"\x01":
                raise Fail("recordCorrupt", FLAGS[tag])
            out[FLAGS[tag]] = True
        elif tag == 9:
            if not 1 <= length <= 32768:
                raise Fail("recordCorrupt", "generic")
            out["generic"] = list(value)
        else:
            out["preserved"].append({"tag": tag, "value": list(value)})
    return out


def primary_key(item_class, a):
    def s(text):
        data = text.encode()
        return struct.pack("<H", len(data)) + data

    sync = b"\x01" if a["synchronizable"] else b"\x00"
    if item_class == 0:
        return b"\x00" + s(a["service"]) + s(a["account"]) + s(a["accessGroup"]) + sync
    return (b"\x01" + s(a["server"]) + s(a["account"]) + s(a["protocol"]) + s(a["authenticationType"])
            + struct.pack("<H", a["port"]) + s(a["path"]) + s(a["securityDomain"]) + s(a["accessGroup"]) + sync)


class Unavailable(Exception):
    pass


def read_record(ctx, key, entry):
    """The item of a live entry (R3-ENT-3, §12), or Unavailable."""
    keys, vault_id, file = ctx["keys"], ctx["vaultID"], ctx["file"]
    protection, domain = entry["protection"], entry["scope"][1]
    device_bound = protection >= 3
    d = 16 if device_bound else 0
    pad_s, pad_a = pad(entry["secret"]), pad(entry["attrs"])
    length = 24 + d + pad_s + 16 + pad_a + 16
    offset = entry["offset"]
    if offset < 1024 or offset + length > ctx["end"]:
        raise Fail("structure", "a record outside the committed heap")
    record = file[offset:offset + length]
    nonce, marker = record[:24], record[24:24 + d]
    secret_ct = record[24 + d:24 + d + pad_s + 16]
    attrs_ct = record[24 + d + pad_s + 16:]
    item_id = key[8:]
    context = vault_id + item_id + bytes([entry["class"]]) + entry["history"][0]
    if device_bound and keys["device"] is None:
        raise Unavailable("foreignDevice")
    if domain:
        group = keys["groupKeys"].get(domain)
        if group is None:
            raise Unavailable("keyUnavailable")
        class_key = derive(group, 16 + protection, "VLTgrpcl")
    else:
        parent = keys["BK"] if protection in (2, 5) else keys["mk"]
        if parent is None:
            raise Unavailable("keyUnavailable")
        class_key = derive(parent, 16 + protection, "VLTclass")
    if device_bound:
        ds = keys["device"]
        class_key = blake2b(32, class_key, b"VLT1devc" + ds)
        dmk = blake2b(32, ds, b"VLT1dvmk" + vault_id)
        own_marker = blake2b(16, dmk, b"VLT1mark" + nonce)
        tagged = item_id[8:] == blake2b(8, dmk, b"VLT1dvid" + item_id[:8])
        if tagged and marker != own_marker:
            raise Fail("recordCorrupt", "an altered marker")
        if not tagged and marker != own_marker:
            trial = aead_open(derive(class_key, 2, "VLTsecrt"), nonce, secret_ct, b"VLT1secr" + context)
            if trial is not None:
                raise Fail("recordCorrupt", "an altered marker")
            raise Unavailable("foreignDevice")
    secret = aead_open(derive(class_key, 2, "VLTsecrt"), nonce, secret_ct, b"VLT1secr" + context)
    if secret is None or any(secret[entry["secret"]:]):
        raise Fail("recordCorrupt", "the secret does not open")
    attrs = aead_open(derive(class_key, 1, "VLTattrs"), nonce, attrs_ct,
                      b"VLT1attr" + context + secret_ct[pad_s:pad_s + 16])
    if attrs is None or any(attrs[entry["attrs"]:]):
        raise Fail("recordCorrupt", "the attributes do not open")
    raw_attrs = attrs[:entry["attrs"]]
    attributes = parse_attributes(raw_attrs, entry["class"] >> 4)
    if blake2b(8, keys["LK"], primary_key(entry["class"] >> 4, attributes)) != key[:8]:
        raise Fail("recordCorrupt", "the lookup tag")
    names = keys["names"]
    if keys["mk"] is not None:
        group = attributes["accessGroup"].encode()
        if domain and names.get(domain) != group:
            raise Fail("recordCorrupt", "R2-GRP-5")
        if not domain and group in names.values():
            raise Fail("recordCorrupt", "R2-GRP-6")
    return {"id": item_id.hex(), "class": entry["class"], "attributes": attributes, "rawAttributes": raw_attrs,
            "secret": secret[:entry["secret"]], "history": entry["history"], "length": length}


# MARK: - Opening a file (§10)


def open_vault(file, credentials):
    slot, note = choose_slot(file)
    end = slot["end"]
    header_data = chunk(file, slot["header"], end, "headerCorrupt")
    header = parse_header(header_data)
    vault_id = header["vaultID"]
    opened = unlock(header, credentials)
    keys = scope_keys(header, opened, credentials.get("deviceSecret"))
    if blake2b(32, keys["HK"], slot["bytes"][:480]) != slot["bytes"][480:]:
        raise Fail("headerAuthentication", "the slot MAC")
    before = slot["predecessor"]
    if before is not None and blake2b(32, keys["HK"], before[:480]) != before[480:]:
        note = True  # R3-SLT-4: a slot forged without HK stands where the newest commit's was
    if keys["mk"] is not None:
        keys["names"] = group_names(header, keys["mk"])
        for domain, name in keys["names"].items():
            group = blake2b(32, derive(keys["mk"], 256 + domain, "VLTgroup"), b"VLT2gkey" + name)
            keys["groupKeys"][domain] = group
            keys["sak"][(2, domain)] = derive(group, 8, "VLT3scop")
    root_data = chunk(file, slot["root"], end, "indexCorrupt")
    plain = aead_open(keys["IK"], root_data[:24], root_data[24:], b"VLT3root" + vault_id
                      + struct.pack("<Q", slot["generation"]) + slot["header"][2])
    if plain is None:
        raise Fail("indexCorrupt", "the root does not open")
    if len(plain) < 9:
        raise Fail("indexCorrupt", "root too short")
    live_bytes, count = u(plain, 0, 8), plain[8]
    scopes = []
    for i in range(count):
        at = 9 + 94 * i
        if at + 94 > len(plain):
            raise Fail("indexCorrupt", "ends inside a scope")
        kind, domain = plain[at], plain[at + 1]
        if (kind, domain) not in ((0, 0), (1, 0)) and not (kind == 2 and 1 <= domain <= 32):
            raise Fail("indexCorrupt", "scope ID")
        counter = u(plain, at + 2, 8)
        if counter == 0:
            raise Fail("indexCorrupt", "counter 0")
        scopes.append({"id": (kind, domain), "counter": counter, "tree": reference(plain, at + 10),
                       "live": u(plain, at + 54, 4), "deleted": u(plain, at + 58, 4), "tag": plain[at + 62:at + 94],
                       "raw": plain[at:at + 62]})
    if len(plain) != 9 + 94 * count:
        raise Fail("indexCorrupt", "bytes after the scopes")
    if [s["id"] for s in scopes] != [(0, 0), (1, 0)] + [(2, g[0]) for g in header["groups"]]:
        raise Fail("indexCorrupt", "the scope list")
    if sum(s["live"] for s in scopes) > 1000000 or sum(s["deleted"] for s in scopes) > 1000000:
        raise Fail("limit", "over a million entries")
    ghash = groups_hash(header)
    for s in scopes:
        key = keys["sak"].get(s["id"])
        if key is None:
            continue
        message = (b"VLT3scop" + vault_id + bytes(s["id"]) + struct.pack("<Q", s["counter"]) + s["tree"][2]
                   + struct.pack("<II", s["live"], s["deleted"]) + (ghash if s["id"] == (0, 0) else b""))
        if blake2b(32, key, message) != s["tag"]:
            raise Fail("indexCorrupt", f"the tag of scope {s['id']}")
    ctx = {"file": file, "end": end, "keys": keys, "vaultID": vault_id}
    # Step 7 as a scan: every node, entry and record.
    entries, chunks = [], [(slot["header"][0], slot["header"][1]), (slot["root"][0], slot["root"][1])]
    for s in scopes:
        tree, nodes = read_tree(ctx, s["tree"], s["id"])
        chunks += [(ref[0], ref[1]) for ref in nodes]
        entries += tree
        live = sum(1 for _, e in tree if e["live"])
        if live != s["live"] or len(tree) - live != s["deleted"]:
            raise Fail("indexCorrupt", "the root's counts")
    items, unavailable = [], 0
    for key, entry in entries:
        if not entry["live"]:
            continue
        try:
            item = read_record(ctx, key, entry)
        except Unavailable:
            unavailable += 1
            length = 24 + (16 if entry["protection"] >= 3 else 0) + pad(entry["secret"]) + pad(entry["attrs"]) + 32
            chunks.append((entry["offset"], length))
            continue
        items.append(item)
        chunks.append((entry["offset"], item["length"]))
    # Step 8: the full verification.
    chunks.sort()
    if any(a[0] + a[1] > b[0] for a, b in zip(chunks, chunks[1:])):
        raise Fail("structure", "two chunks overlap")
    if sum(length for _, length in chunks) != live_bytes:
        raise Fail("indexCorrupt", "liveBytes")
    ids = [key[8:] for key, _ in entries]
    if len(set(ids)) != len(ids):
        raise Fail("indexCorrupt", "an item ID in two entries")
    pks = [primary_key(i["class"] >> 4, i["attributes"]) for i in items]
    if len(set(pks)) != len(pks):
        raise Fail("recordCorrupt", "two items of one primary key")
    deletions = [{"id": key[8:].hex(), "deletedAt": e["deletedAt"], "history": [h.hex() for h in e["history"]],
                  "tag": key[:8].hex(), "scope": list(e["scope"])} for key, e in entries if not e["live"]]
    weak = any(s["kind"] in (1, 3) and (s["memory"] < 19456 or s["passes"] < 2) for s in header["keyslots"])
    return {"items": items, "unavailable": unavailable, "generation": slot["generation"], "note": note,
            "tail": len(file) - end, "deletions": sorted(deletions, key=lambda d: d["id"]),
            "readOnly": slot["minor"] > 0, "weak": weak, "deletionStates": {key[8:]: e for key, e in entries
                                                                           if not e["live"]}}


# MARK: - The cases

CLASSES = ["genericPassword", "internetPassword"]
PROTECTIONS = ["whenUnlocked", "afterFirstUnlock", "always", "whenUnlockedThisDeviceOnly",
               "afterFirstUnlockThisDeviceOnly", "alwaysThisDeviceOnly", "whenPasscodeSetThisDeviceOnly"]


def credentials_of(case):
    given = case["credentials"]
    out = {}
    if "password" in given:
        out["password"] = given["password"]
    if "keyFile" in given:
        out["keyFile"] = (FOLDER / given["keyFile"]).read_bytes()
    if "deviceSecret" in given:
        out["deviceSecret"] = bytes.fromhex(given["deviceSecret"])
    if "identity" in given:
        out["identity"] = (FOLDER / given["identity"]).read_text()
    return out


def item_view(item):
    secret = item["secret"]
    view = {"id": item["id"], "itemClass": CLASSES[item["class"] >> 4],
            "protectionClass": PROTECTIONS[item["class"] & 0x0F], "attributes": item["attributes"],
            "secretLength": len(secret), "secretBLAKE2b": blake2b(32, b"", secret).hex(),
            "history": [h.hex() for h in item["history"]]}
    if len(secret) <= 256:
        try:
            view["secret"] = secret.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return view


def expected_items(case):
    if "itemsFile" in case:
        return json.loads((FOLDER / case["itemsFile"]).read_text())
    return case.get("items", [])


def strip(item):
    return {k: v for k, v in item.items() if k not in ("relations", "conflictCopyOf")}


def check_case(case):
    file = (FOLDER / case["file"]).read_bytes()
    try:
        result = open_vault(file, credentials_of(case))
    except Fail as failure:
        if case["expect"] == "failure" and failure.code == case["error"]:
            return None
        return f"{case['name']}: {failure}, expected {case.get('error', 'success')}"
    if case["expect"] == "failure":
        return f"{case['name']}: opened, expected {case['error']}"
    got = sorted((item_view(i) for i in result["items"]), key=lambda i: i["id"])
    want = sorted((strip(i) for i in expected_items(case)), key=lambda i: i["id"])
    problems = []
    if got != want:
        problems.append("items")
    for key, value in [("unavailable", result["unavailable"]), ("generation", result["generation"]),
                       ("skippedCommit", result["note"] or None), ("uncommittedTail", result["tail"] or None),
                       ("deletions", result["deletions"]), ("readOnly", result["readOnly"] or None),
                       ("weakKDF", result["weak"])]:
        if case.get(key) != value:
            problems.append(f"{key} {value!r} (manifest {case.get(key)!r})")
    return f"{case['name']}: " + ", ".join(problems) if problems else None


# MARK: - Merges (Spec/merge.md R-MRG-18)


def replica_states(file, password):
    """Every ID's state in a format-3 replica: ("live", item) or ("deleted", deletedAt, history)."""
    opened = open_vault(file, {"password": password})
    states = {bytes.fromhex(i["id"]): ("live", i) for i in opened["items"]}
    for item_id, entry in opened["deletionStates"].items():
        states[item_id] = ("deleted", entry["deletedAt"], entry["history"], tuple(entry["scope"]))
    return states


def history_of(state):
    return state[1]["history"] if state[0] == "live" else state[2]


def merge_event(label, message):
    event = blake2b(8, b"", label + message)
    return b"\x01" + bytes(7) if event == bytes(8) else event


def absorb(kept, other):
    """R3-EV-3: the kept state's history after it takes in the other's."""
    if all(e in kept for e in other):
        return list(kept)
    out = [kept[0]] + ([other[0]] if other[0] not in kept else []) + list(kept[1:])
    out += [e for e in other[1:] if e not in out]
    return out[:16]


def absorbing(state, other):
    """The state, its history after taking in the other state's (R-MRG-18)."""
    if state[0] == "live":
        return ("live", dict(state[1], history=absorb(state[1]["history"], history_of(other))))
    return ("deleted", state[1], absorb(state[2], history_of(other))) + state[3:]


def merge(ours, theirs, merge_key):
    def content_hash(item):
        attrs = item["rawAttributes"]
        return blake2b(32, merge_key, bytes([item["class"]]) + struct.pack("<I", len(attrs)) + attrs + item["secret"])

    def rank(item):
        return (item["attributes"]["modificationDate"], 1, int.from_bytes(item["history"][0], "little"),
                content_hash(item))

    out, copies = {}, []
    for item_id in sorted(set(ours) | set(theirs)):
        a, b = ours.get(item_id), theirs.get(item_id)
        if a is None or b is None:
            out[item_id] = a or b
            continue
        ha, hb = history_of(a), history_of(b)
        if ha[0] == hb[0] or hb[0] in ha[1:]:
            out[item_id] = absorbing(a, b)
        elif ha[0] in hb[1:]:
            out[item_id] = absorbing(b, a)
        elif a[0] == "live" and b[0] == "live":
            won, lost = (b, a) if rank(a[1]) < rank(b[1]) else (a, b)
            out[item_id] = absorbing(won, lost)
            if lost[1]["class"] & 0x0F < 3:
                copies.append((item_id, lost[1], content_hash(lost[1])))
        elif a[0] == "deleted" and b[0] == "deleted":
            theirs_later = b[1] > a[1] if a[1] != b[1] else ha[0] < hb[0]
            out[item_id] = absorbing(b, a) if theirs_later else absorbing(a, b)
        else:
            live, deleted = (a, b) if a[0] == "live" else (b, a)
            shadow = item_id[:8] + bytes(x ^ y for x, y in zip(item_id[8:], b"VLTshadw"))
            kept = (ours if a[0] == "live" else theirs).get(shadow)
            # R-MRG-20: the live side keeps this very deletion as the item's (master-scope) shadow.
            seen = kept and kept[0] == "deleted" and kept[3:] in ((), ((0, 0),)) and deleted[2][0] in kept[2]
            newer = seen or (deleted[1], 0) < rank(live[1])[:2]
            out[item_id] = absorbing(live, deleted) if newer else absorbing(deleted, live)
    for origin, lost, digest in copies:
        copy_id = origin[:8] + blake2b(8, merge_key, b"VLTcopy1" + origin + digest)
        if copy_id in out:
            continue
        attributes = json.loads(json.dumps(lost["attributes"]))
        attributes["account"] += f" (conflict {copy_id.hex()[-8:]})"
        marker = {"tag": 0x70, "value": list(origin + lost["history"][0])}
        attributes["preserved"] = sorted([p for p in attributes["preserved"] if p["tag"] != 0x70] + [marker],
                                         key=lambda p: p["tag"])
        event = merge_event(b"VLT3copy", copy_id + lost["history"][0])
        copy = dict(lost, id=copy_id.hex(), attributes=attributes,
                    history=([event] + [e for e in lost["history"] if e != event])[:16], copyOf=origin.hex())
        out[copy_id] = ("live", copy)
    for item_id, state in list(out.items()):
        if state[0] != "live":
            continue
        shadow = item_id[:8] + bytes(x ^ y for x, y in zip(item_id[8:], b"VLTshadw"))
        # R-MRG-19: a shadow counts only in the master scope, where holders of MK write it.
        deletions = [(s[1], s[2][0], s[2]) for side in (ours, theirs) for key in (item_id, shadow)
                     for s in [side.get(key)] if s and s[0] == "deleted"
                     and (key == item_id or s[3:] in ((), ((0, 0),)))]
        if not deletions:
            continue
        time, _, history = max(deletions)  # the later time, then the greater current event
        held = out.get(shadow)
        if held and held[0] == "deleted" and held[1] >= time:
            continue
        out[shadow] = ("deleted", time, history, (0, 0))
    return out


def check_merge(case, merge_keys):
    files = [(FOLDER / name).read_bytes() for name in case["replicas"]]
    if any(f[8] != 3 for f in files):
        return "skipped"  # a replica of an earlier format: read by the Swift tests only
    password = case["credentials"]["password"]
    replicas = [replica_states(f, password) for f in files]
    key = merge_keys(files[0], password)
    problems = []
    for order in case["orders"]:
        result = replicas[order[0]]
        for index in order[1:]:
            result = merge(result, replicas[index], key)
        items, deletions = [], []
        for item_id, state in sorted(result.items()):
            relations = []
            for replica in replicas:
                other = replica.get(item_id)
                mine = history_of(state)
                relations.append("absent" if other is None else "equal" if history_of(other)[0] == mine[0]
                                 else "descends" if history_of(other)[0] in mine[1:] else "concurrent")
            if state[0] == "live":
                view = item_view(state[1])
                view["relations"] = relations
                if "copyOf" in state[1]:
                    view["conflictCopyOf"] = state[1]["copyOf"]
                items.append(view)
            else:
                deletions.append({"id": item_id.hex(), "deletedAt": state[1], "history": [h.hex() for h in state[2]],
                                  "relations": relations})
        if sorted(items, key=lambda i: i["id"]) != sorted(case["items"], key=lambda i: i["id"]):
            problems.append(f"order {order}: items")
        if deletions != sorted(case["deletions"], key=lambda d: d["id"]):
            problems.append(f"order {order}: deletions")
    return f"{case['name']}: " + ", ".join(problems) if problems else None


def merge_key_of(file, password):
    """HK of R-MRG-5, Derive(MK, 1, "VLTmerge"), from the replica's master key."""
    slot, _ = choose_slot(file)
    header = parse_header(chunk(file, slot["header"], slot["end"], "headerCorrupt"))
    return derive(unlock(header, {"password": password})["MK"], 1, "VLTmerge")


def main():
    manifest = json.loads((FOLDER / "manifest.json").read_text())
    if manifest["format"] != "vault v3":
        raise SystemExit("check-fixtures-v3: not the format-3 folder")
    failures, counts = [], {"success": 0, "failure": 0, "merge": 0, "skipped": 0}
    for case in manifest["cases"]:
        problem = check_merge(case, merge_key_of) if case["expect"] == "merge" else check_case(case)
        if problem == "skipped":
            counts["skipped"] += 1
            continue
        if problem:
            failures.append(problem)
        counts[case["expect"]] += 1
    for failure in failures:
        print("MISMATCH " + failure)
    if failures:
        print(f"check-fixtures-v3: {len(failures)} of {len(manifest['cases'])} cases do not match")
        sys.exit(1)
    print(f"check-fixtures-v3: Fixtures/v3 read independently: {counts['success']} success and "
          f"{counts['failure']} failure cases as listed, {counts['merge']} merge cases merged in every listed order "
          f"({counts['skipped']} with a replica of an earlier format left to the Swift tests)")


main()
