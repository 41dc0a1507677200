#!/usr/bin/env bash
# Installs the real Secret Service clients that scripts/secret-service-clients.sh drives
# (secret-tool, python3 keyring/secretstorage/jeepney, docker-credential-secretservice),
# gnome-keyring as the reference provider, dbus (dbus-run-session, dbus-send, dbus-monitor),
# systemd (busctl), and what git's contrib credential-libsecret needs to build. Then builds
# git-credential-libsecret into a cache directory, since Debian ships only its source.
# Debian/Ubuntu only; needs root or sudo. Installs only what is missing.
#
# Prints the path of the built helper on stdout (the test script reads it).
set -euo pipefail

packages=(libsecret-tools python3-secretstorage python3-keyring python3-jeepney gnome-keyring
    dbus systemd libsecret-1-dev libglib2.0-dev golang-docker-credential-helpers git make gcc
    pkg-config)

# dpkg, not `command -v`: several of these are libraries or python modules, not commands.
need=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        need+=("$p")
    fi
done
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "installing ${need[*]} (apt-get)..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# git ships the helper as source only. Build a copy in a cache directory: the doc directory
# belongs to the package (and may not be writable), and a rebuild there would leave objects
# behind that dpkg does not know about.
src=/usr/share/doc/git/contrib/credential/libsecret
dir="${XDG_CACHE_HOME:-$HOME/.cache}/vault-test/git-credential-libsecret"
helper="$dir/git-credential-libsecret"
if [ ! -x "$helper" ] || [ "$src/git-credential-libsecret.c" -nt "$helper" ]; then
    if [ ! -f "$src/git-credential-libsecret.c" ]; then
        echo "error: $src/git-credential-libsecret.c is missing (is git installed with its docs?)" >&2
        exit 1
    fi
    echo "building git-credential-libsecret in $dir..." >&2
    rm -rf "$dir"
    # The Makefile -includes ../../../config.mak*: keep the copy three levels deep inside our
    # own directory, so those paths stay ours (and absent) rather than reaching into $HOME.
    build="$dir/git/contrib/credential/libsecret"
    mkdir -p "$(dirname "$build")"
    cp -R "$src" "$build"
    make -s -C "$build" >/dev/null
    cp "$build/git-credential-libsecret" "$helper"
fi
echo "$helper"
