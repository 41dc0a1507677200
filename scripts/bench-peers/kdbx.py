"""vault benchmarks: KDBX 4 files through pykeepass (also opened by keepassxc-cli).

  kdbx.py make FILE N M/T/P   a KDBX 4 file with Argon2id (memory KiB, passes, lanes), N entries
  kdbx.py get FILE I          print entry I's password (title = service, user name = account)
  kdbx.py set FILE I RUN      replace entry I's password and save
  kdbx.py list FILE           read every entry's title and user name

Each command is one fresh process, as a script would run it.
"""

import sys

from pykeepass import PyKeePass, create_database
from pykeepass.entry import Entry
from pykeepass.kdbx_parsing.kdbx4 import kdf_uuids

import dataset as d


def make(path, n, kdf):
    memory_kib, passes, lanes = d.parse_kdf(kdf)
    kp = create_database(path, password=d.PASSWORD)
    params = kp.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    params["$UUID"].value = kdf_uuids["argon2id"]
    params["M"].value = memory_kib * 1024
    params["I"].value = passes
    params["P"].value = lanes
    # What add_entry does, without its duplicate search (one XPath query per entry: quadratic).
    kp.root_group.append([Entry(d.service(i), d.account(i), d.secret(i), kp=kp) for i in range(n)])
    kp.save()


def find(kp, i):
    entry = kp.find_entries(title=d.service(i), first=True)
    if entry is None:
        sys.exit(2)
    return entry


def main(argv):
    op, path = argv[1], argv[2]
    if op == "make":
        make(path, int(argv[3]), argv[4])
        return
    kp = PyKeePass(path, password=d.PASSWORD)
    if op == "get":
        sys.stdout.write(find(kp, int(argv[3])).password)
    elif op == "set":
        find(kp, int(argv[3])).password = d.new_secret(int(argv[4]))
        kp.save()
    elif op == "list":
        count = sum(1 for e in kp.entries if e.title is not None and e.username is not None)
        print(count)
    else:
        sys.exit(f"unknown op {op}")


if __name__ == "__main__":
    main(sys.argv)
