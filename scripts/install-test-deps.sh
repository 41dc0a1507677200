#!/usr/bin/env bash
# Installs the programs the tests drive when they are missing: git (credential helper tests),
# zsh (completion test), python3 (a local HTTP server), script(1) from bsdutils (terminal
# tests), /usr/bin/time (benchmark smoke), dbus, secret-tool and Python's keyring and
# secretstorage (the Secret Service clients), gnome-keyring (the provider vaulttool must not
# displace), systemd-analyze from systemd (the example units of Examples/systemd,
# scripts/verify-systemd-units.sh), swtpm and tpm2-tools (a software TPM for the TPM2 keyslot
# tests and the recovery recipe of Spec/tpm2.md), and PyNaCl, argon2-cffi and cryptography for
# the Debian python (scripts/check-vectors.sh: the Spec/ vectors checked with other
# implementations). Debian/Ubuntu only; needs root or sudo.
set -euo pipefail
"$(dirname "$0")/install-deps.sh"
need=()
command -v git >/dev/null || need+=(git)
command -v zsh >/dev/null || need+=(zsh)
command -v python3 >/dev/null || need+=(python3)
command -v script >/dev/null || need+=(bsdutils)
[ -x /usr/bin/time ] || need+=(time)
command -v systemd-analyze >/dev/null || need+=(systemd)
# The Secret Service tests: a private session bus and real clients (SecretServiceClientTests).
command -v dbus-run-session >/dev/null || need+=(dbus)
command -v secret-tool >/dev/null || need+=(libsecret-tools)
# The provider already on the bus in SecretServiceActivationTests (vaulttool must not take its name).
command -v gnome-keyring-daemon >/dev/null || need+=(gnome-keyring)
/usr/bin/python3 -c 'import secretstorage, keyring' 2>/dev/null || need+=(python3-secretstorage python3-keyring)
# The independent check of the spec's vectors (scripts/check-vectors.py).
/usr/bin/python3 -c 'import nacl.bindings, argon2.low_level, cryptography' 2>/dev/null ||
    need+=(python3-nacl python3-argon2 python3-cryptography)
# The TPM2 tests: a software TPM and the reference tools (TPM2Tests, TPM2KeyslotTests).
command -v swtpm >/dev/null || need+=(swtpm swtpm-tools)
command -v tpm2_unseal >/dev/null || need+=(tpm2-tools)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing ${need[*]} (apt-get)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
