#!/usr/bin/python3
"""Attack 4a: a key holder puts back an older whole state of a scope it cannot write.

usage: scope_rollback.py base <current> <older copy> <out> <password file>
       scope_rollback.py limited <current> <older copy> <out> <identity file> <domain to roll back>

`base`: a holder of BK alone (the owner's password is used only to derive BK, as a device keyslot
would unwrap it; MK is then forgotten) puts back the master scope of <older copy>.
`limited`: a recipient limited to its own group puts back another group's scope.
The new commit is in place on <current>; every other scope is carried over unchanged.
"""
import pathlib
import sys

from v3forge import Vault3, cf

mode, current, older, out = sys.argv[1:5]
file, old = pathlib.Path(current).read_bytes(), pathlib.Path(older).read_bytes()
if mode == "base":
    password = pathlib.Path(sys.argv[5]).read_text().rstrip("\n")
    owner = Vault3(file, {"password": password})
    opened = {"BK": cf.derive(owner.keys["mk"], 1, "VLTbase_")}
    target = (0, 0)
else:
    opened = cf.unlock(cf.parse_header(cf.chunk(file, cf.choose_slot(file)[0]["header"], len(file), "x")),
                       {"identity": pathlib.Path(sys.argv[5]).read_text()})
    target = (2, int(sys.argv[6]))
now = Vault3(file, opened=opened)
then = Vault3(old, opened=opened)
print(f"holder keys: {sorted(k for k in ('HK', 'IK', 'LK', 'BK') if now.keys.get(k))}, scope keys {sorted(now.keys['sak'])}")
print(f"{target}: now counter {now.scope(target)['counter']} live {now.scope(target)['live']}, "
      f"putting back counter {then.scope(target)['counter']} live {then.scope(target)['live']}")
pathlib.Path(out).write_bytes(now.commit(keep={target: then.scope(target)}))
