#!/usr/bin/env bash
# Installs libsodium and libargon2 (headers and pkg-config files), and libsystemd (sd-bus) and
# libgcrypt (its DH and AES) for the Secret Service provider, and the TSS2 headers for TPM2 keyslots
# (libtss2-dev; vaulttool loads the libraries at run time only when a TPM is used), when they
# are missing.
# Debian/Ubuntu only; needs root or sudo. Does nothing when both are present.
set -euo pipefail
if pkg-config --exists libsodium libargon2 libsystemd libgcrypt tss2-esys 2>/dev/null; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing libsodium-dev, libargon2-dev, libsystemd-dev, libgcrypt20-dev, libxml2-dev and libtss2-dev (apt-get)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libsodium-dev libargon2-dev libsystemd-dev libgcrypt20-dev libxml2-dev libtss2-dev pkg-config >/dev/null
