#!/usr/bin/env bash
# Checks the test vectors of Spec/ with implementations that are not vault's own
# (scripts/check-vectors.py says which), then reads every case of Fixtures/v3 with a format-3
# reader and merge written in Python from the spec (scripts/check-fixtures-v3.py), installing what
# they need when it is missing:
# python3-nacl, python3-argon2 and python3-cryptography for the Debian python, /usr/bin/python3
# (a python3 earlier on PATH, such as pyenv's, does not see Debian packages).
# Debian/Ubuntu only; installing needs root or sudo. `make ci` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import nacl.bindings, argon2.low_level, cryptography' 2>/dev/null; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "installing python3-nacl, python3-argon2 and python3-cryptography (apt-get)..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        python3 python3-nacl python3-argon2 python3-cryptography >/dev/null
fi
/usr/bin/python3 scripts/check-vectors.py
exec /usr/bin/python3 scripts/check-fixtures-v3.py
