"""vault benchmarks: keyrings.cryptfile (Argon2id + AES-GCM per value, an INI file).

  cryptfile.py make FILE N M/T/P   a keyring file with N items
  cryptfile.py get FILE I M/T/P    print item I's password
  cryptfile.py set FILE I RUN M/T/P   replace item I's password
  cryptfile.py list FILE M/T/P     read every item's service and user name

cryptfile stores no KDF parameters in the file: every process must be told them.
It derives a key with Argon2id for every value it encrypts or decrypts, and checks
the password by decrypting a reference value first: a get runs the KDF twice, a
set twice, and making N items at 64 MiB would run it N times (about 30 minutes for
10,000). So `make` seals the reference value and the items that get and set touch
at the requested cost, and the other items (never decrypted by get, set or list)
with the cheapest parameters: the file has the same size and layout, and get, set
and list do the same work as on a file made item by item.
"""

import configparser
import os
import sys

from keyrings.cryptfile.cryptfile import CryptFileKeyring
from keyrings.cryptfile.escape import escape as escape_for_ini
from keyrings.cryptfile.file_base import encodebytes

import dataset as d


def keyring(path, kdf, unlock=True):
    """A keyring on `path` with the given Argon2id cost.

    With `unlock`, setting the key does what a user's first call does: it creates the
    file (reference value, scheme, version) or checks the password reference (one KDF).
    """
    memory_kib, passes, lanes = d.parse_kdf(kdf)
    kr = CryptFileKeyring()
    kr.file_path = path
    kr.time_cost, kr.memory_cost, kr.parallelism = passes, memory_kib, lanes
    if unlock:
        kr.keyring_key = d.PASSWORD
    else:
        kr._keyring_key = d.PASSWORD
    return kr


def make(path, n, kdf):
    kr = keyring(path, kdf)  # the password reference value, scheme and version, at the requested cost
    cheap = keyring(path, "8/1/1", unlock=False)
    cheap.file_version = kr.file_version = kr.version
    config = configparser.RawConfigParser()
    config.read(path)
    special = {d.get_index(n), d.set_index(n)}
    for i in range(n):
        service, user = d.service(i), d.account(i)
        sealer = kr if i in special else cheap
        sealed = sealer.encrypt(d.secret(i).encode(), kr._generate_assoc(service, user))
        section = escape_for_ini(service)
        if not config.has_section(section):
            config.add_section(section)
        config.set(section, escape_for_ini(user), "\n" + encodebytes(sealed).decode())
    with open(path, "w") as f:
        config.write(f)


def main(argv):
    op, path = argv[1], argv[2]
    if op == "make":
        make(path, int(argv[3]), argv[4])
        return
    kr = keyring(path, argv[-1])  # unlock: checks the password reference (one KDF)
    if op == "get":
        value = kr.get_password(d.service(int(argv[3])), d.account(int(argv[3])))
        if value is None:
            sys.exit(2)
        sys.stdout.write(value)
    elif op == "set":
        i = int(argv[3])
        kr.set_password(d.service(i), d.account(i), d.new_secret(int(argv[4])))
    elif op == "list":
        config = configparser.RawConfigParser()
        config.read(path)
        setting = escape_for_ini("keyring-setting")
        print(sum(len(config.options(s)) for s in config.sections() if s != setting))
    else:
        sys.exit(f"unknown op {op}")


if __name__ == "__main__":
    main(sys.argv)
