#!/usr/bin/python3
"""A format-3 writer for key holders with less than the master key (security review of issue 21).

It reads a vault with scripts/check-fixtures-v3.py's reader (written from Spec/format-v3.md, no
vault code) and writes an in-place commit (§9.1) with only the keys a holder has: `HK` for the
slot MAC, `IK` for the root and the nodes, `LK` for lookup tags, the scope key of the scope it
may write (`SAK(1, 0)` for a base holder, `SAK(2, d)` for a recipient limited to `d`), and the
class keys of its records. Every other scope's root entry is copied byte for byte, from this
commit or from an older copy of the file (a whole-scope state that is still valid under its
scope key, §7.3).

Used as a library by scripts/attack/*.py; nothing here is used by vault.
"""

import os
import pathlib
import struct
import time
import types

HERE = pathlib.Path(__file__).resolve().parent
# The reader of scripts/check-fixtures-v3.py, without its last line (which checks Fixtures/v3).
_source = (HERE.parent / "check-fixtures-v3.py").read_text()
assert _source.endswith("\n\nmain()\n")
cf = types.ModuleType("cf")
cf.__file__ = str(HERE.parent / "check-fixtures-v3.py")
exec(compile(_source[: -len("main()\n")], cf.__file__, "exec"), cf.__dict__)

from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305  # noqa: E402


def seal(key, nonce, plaintext, associated):
    """Seal of §1.1 (XChaCha20-Poly1305)."""
    return ChaCha20Poly1305(cf.hchacha20(key, nonce[:16])).encrypt(bytes(4) + nonce[16:], plaintext, associated)


def now_ms():
    return int(time.time() * 1000)


def ref_bytes(ref):
    return struct.pack("<QI", ref[0], ref[1]) + ref[2]


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def encode_attributes(service="", account="", group="", created=0, modified=0):
    out = b""
    for tag, value in ((1, service.encode()), (2, account.encode()), (3, group.encode())):
        if value:
            out += bytes([tag]) + varint(len(value)) + value
    for tag, value in ((10, created), (11, modified)):
        if value:
            out += bytes([tag]) + varint(8) + struct.pack("<q", value)
    return out


def attributes_view(service="", account="", group=""):
    view = {name: "" for name in cf.STRINGS.values()}
    view.update({name: 0 for name, _ in cf.NUMBERS.values()}, **{name: 0 for name in cf.DATES.values()})
    view.update({name: False for name in cf.FLAGS.values()})
    view.update(service=service, account=account, accessGroup=group)
    return view


class Vault3:
    """One commit of a format-3 file, opened with `credentials` (as check-fixtures-v3.py takes them)
    or with `opened` (the keys a credential yields: {"MK"}, {"BK"} or a limited stanza's keys)."""

    def __init__(self, file, credentials=None, opened=None):
        self.file = bytes(file)
        self.slot, self.note = cf.choose_slot(self.file)
        self.end = self.slot["end"]
        self.index = self.slot["bytes"][160]
        self.header_bytes = cf.chunk(self.file, self.slot["header"], self.end, "headerCorrupt")
        self.header = cf.parse_header(self.header_bytes)
        self.vault_id = self.header["vaultID"]
        if opened is None:
            opened = cf.unlock(self.header, credentials or {})
        device = (credentials or {}).get("deviceSecret")
        self.keys = cf.scope_keys(self.header, opened, device)
        if cf.blake2b(32, self.keys["HK"], self.slot["bytes"][:480]) != self.slot["bytes"][480:]:
            raise cf.Fail("headerAuthentication", "the slot MAC")
        if self.keys["mk"] is not None:
            self.keys["names"] = cf.group_names(self.header, self.keys["mk"])
            for domain, name in self.keys["names"].items():
                group = cf.blake2b(32, cf.derive(self.keys["mk"], 256 + domain, "VLTgroup"), b"VLT2gkey" + name)
                self.keys["groupKeys"][domain] = group
                self.keys["sak"][(2, domain)] = cf.derive(group, 8, "VLT3scop")
        root = cf.chunk(self.file, self.slot["root"], self.end, "indexCorrupt")
        plain = cf.aead_open(self.keys["IK"], root[:24], root[24:], self.root_ad(self.slot["generation"],
                                                                                  self.slot["header"][2]))
        if plain is None:
            raise cf.Fail("indexCorrupt", "the root does not open")
        self.live_bytes = cf.u(plain, 0, 8)
        self.scopes = []
        for i in range(plain[8]):
            at = 9 + 94 * i
            self.scopes.append({"id": (plain[at], plain[at + 1]), "counter": cf.u(plain, at + 2, 8),
                                "tree": cf.reference(plain, at + 10), "live": cf.u(plain, at + 54, 4),
                                "deleted": cf.u(plain, at + 58, 4), "tag": plain[at + 62:at + 94],
                                "raw": plain[at:at + 94]})
        self.ctx = {"file": self.file, "end": self.end, "keys": self.keys, "vaultID": self.vault_id}
        self.trees = {}
        for s in self.scopes:
            entries, nodes = cf.read_tree(self.ctx, s["tree"], s["id"])
            self.trees[s["id"]] = {"entries": entries, "nodes": nodes}

    # MARK: reading

    def root_ad(self, generation, header_hash):
        return b"VLT3root" + self.vault_id + struct.pack("<Q", generation) + header_hash

    def scope(self, sid):
        return next(s for s in self.scopes if s["id"] == sid)

    def entries(self, sid):
        return list(self.trees[sid]["entries"])

    def all_entries(self):
        return [(s["id"], k, e) for s in self.scopes for k, e in self.trees[s["id"]]["entries"]]

    def find(self, item_id):
        return [(sid, k, e) for sid, k, e in self.all_entries() if k[8:] == item_id]

    @staticmethod
    def record_length(entry):
        d = 16 if entry["protection"] >= 3 else 0
        return 24 + d + cf.pad(entry["secret"]) + 16 + cf.pad(entry["attrs"]) + 16

    def read_item(self, key, entry):
        return cf.read_record(self.ctx, key, entry)

    def tag(self, item_class, service="", account="", group=""):
        return cf.blake2b(8, self.keys["LK"], cf.primary_key(item_class, attributes_view(service, account, group)))

    # MARK: writing

    def seal_record(self, item_id, class_byte, event, secret, attrs, domain=0):
        """A record of class `class_byte & 15` in `domain`, with the class key this holder derives."""
        protection = class_byte & 0x0F
        assert protection < 3, "device-bound records are not written here"
        if domain:
            class_key = cf.derive(self.keys["groupKeys"][domain], 16 + protection, "VLTgrpcl")
        elif protection == 2:
            class_key = cf.derive(self.keys["BK"], 18, "VLTclass")
        else:
            class_key = cf.derive(self.keys["mk"], 16 + protection, "VLTclass")
        ak, sk = cf.derive(class_key, 1, "VLTattrs"), cf.derive(class_key, 2, "VLTsecrt")
        nonce = os.urandom(24)
        ctx = self.vault_id + item_id + bytes([class_byte]) + event
        secret_ct = seal(sk, nonce, secret + bytes(cf.pad(len(secret)) - len(secret)), b"VLT1secr" + ctx)
        pad_s = cf.pad(len(secret))
        attrs_ct = seal(ak, nonce, attrs + bytes(cf.pad(len(attrs)) - len(attrs)),
                        b"VLT1attr" + ctx + secret_ct[pad_s:pad_s + 16])
        return nonce + secret_ct + attrs_ct

    @staticmethod
    def encode_entry(key, entry):
        history = bytes([len(entry["history"])]) + b"".join(entry["history"])
        if entry["live"]:
            return (key + b"\x00" + bytes([entry["class"]]) + struct.pack("<HIQ", entry["attrs"], entry["secret"],
                                                                           entry["offset"]) + history)
        return key + b"\x01" + struct.pack("<q", entry["deletedAt"]) + history

    def commit(self, changes=None, keep=None, header_bytes=None, generation=None, counter_of=None):
        """An in-place commit (§9.1) on top of this one.

        - changes: {scope id: [(key, entry)]}, the new entries of each scope this holder writes (it
          must hold the scope key); `entry["record"]` holds the bytes of a record to append.
        - keep: {scope id: scope dict}, a root entry copied byte for byte (from this commit or from
          an older copy of the same heap): a whole-scope state put back.
        - header_bytes: a new header chunk (else the slot names the current one again).
        Returns the new file's bytes.
        """
        changes, keep = changes or {}, keep or {}
        base = bytearray(self.file[:self.end])
        appended = bytearray()

        def append(chunk):
            ref = (len(base) + len(appended), len(chunk), cf.blake2b(32, b"", chunk))
            appended.extend(chunk)
            return ref

        header_ref = self.slot["header"] if header_bytes is None else append(header_bytes)
        header_len = header_ref[1]
        generation = generation or self.slot["generation"] + 1
        ghash = cf.groups_hash(self.header if header_bytes is None else cf.parse_header(header_bytes))
        states, live_bytes = [], header_len + 49 + 94 * len(self.scopes)
        for s in self.scopes:
            sid = s["id"]
            if sid in changes:
                entries = []
                for key, entry in sorted(changes[sid], key=lambda pair: pair[0]):
                    entry = dict(entry)
                    if entry.get("record") is not None:
                        entry["offset"] = len(base) + len(appended)
                        appended.extend(entry["record"])
                    entries.append((key, entry))
                leaves, current, size = [], [], 3
                for key, entry in entries:
                    encoded = self.encode_entry(key, entry)
                    if current and size + len(encoded) > 4096:
                        leaves.append(current)
                        current, size = [], 3
                    current.append((key, encoded))
                    size += len(encoded)
                if current or not leaves:
                    leaves.append(current)
                ad = b"VLT3node" + self.vault_id + bytes(sid)
                refs = []
                for leaf in leaves:
                    plain = bytes([0]) + struct.pack("<H", len(leaf)) + b"".join(e for _, e in leaf)
                    nonce = os.urandom(24)
                    refs.append((leaf[0][0] if leaf else None, append(nonce + seal(self.keys["IK"], nonce, plain, ad))))
                node_bytes = sum(r[1] for _, r in refs)
                if len(refs) == 1:
                    top = refs[0][1]
                else:
                    plain = bytes([1]) + struct.pack("<H", len(refs)) + b"".join(k + ref_bytes(r) for k, r in refs)
                    nonce = os.urandom(24)
                    top = append(nonce + seal(self.keys["IK"], nonce, plain, ad))
                    node_bytes += top[1]
                live = sum(1 for _, e in entries if e["live"])
                counter = (counter_of or {}).get(sid) or max(s["counter"] + 1, now_ms())
                message = (b"VLT3scop" + self.vault_id + bytes(sid) + struct.pack("<Q", counter) + top[2]
                           + struct.pack("<II", live, len(entries) - live) + (ghash if sid == (0, 0) else b""))
                tag = cf.blake2b(32, self.keys["sak"][sid], message)
                raw = bytes(sid) + struct.pack("<Q", counter) + ref_bytes(top) + struct.pack(
                    "<II", live, len(entries) - live) + tag
                live_bytes += node_bytes + sum(self.record_length(e) for _, e in entries if e["live"])
                states.append(raw)
            else:
                state = keep.get(sid, s)
                states.append(state["raw"])
                live_bytes += self._scope_bytes(state)
        plain = struct.pack("<QB", live_bytes, len(states)) + b"".join(states)
        nonce = os.urandom(24)
        root_ref = append(nonce + seal(self.keys["IK"], nonce, plain, self.root_ad(generation, header_ref[2])))
        start = len(base)
        out = bytearray(base + appended)
        slot = bytearray(b"".join([cf.MAGIC, struct.pack("<HHI", 3, 0, 512),
                                   struct.pack("<QQQ", generation, start, len(out)),
                                   cf.blake2b(32, b"", bytes(appended)), ref_bytes(header_ref), ref_bytes(root_ref),
                                   bytes([1 - self.index])]))
        slot += bytes(448 - len(slot))
        slot += cf.blake2b(32, b"", bytes(slot))
        slot += cf.blake2b(32, self.keys["HK"], bytes(slot))
        at = 512 * (1 - self.index)
        out[at:at + 512] = slot
        return bytes(out)

    def _scope_bytes(self, state):
        """The node and record bytes a scope state reaches, read from this file's heap."""
        sid = state["id"]
        if state is self.scope(sid) or state["raw"] == self.scope(sid)["raw"]:
            entries, nodes = self.trees[sid]["entries"], self.trees[sid]["nodes"]
        else:
            entries, nodes = cf.read_tree(self.ctx, state["tree"], sid)
        return sum(r[1] for r in nodes) + sum(self.record_length(e) for _, e in entries if e["live"])


def read_identity(path):
    return {"identity": pathlib.Path(path).read_text()}
