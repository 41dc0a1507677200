#!/usr/bin/env bash
# Writes scripts/release/vaulttool.order: the functions of vaulttool that the hot commands run,
# in the order they first run, for scripts/build-release.sh to lay out together (issue 24).
# Each command below runs once under valgrind's callgrind, which records every function called;
# the agent runs under it while it serves. Run it again after a change to a hot path; a stale
# list is harmless (symbols it no longer finds are skipped), only less effective.
# Usage: scripts/order-file.sh   (needs valgrind, and dbus-run-session and secret-tool for the
# Secret Service provider: scripts/install-test-deps.sh installs those)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
built="$(scripts/build-release.sh --keep-symbols)"
work="$(mktemp -d)"
# (Never `kill 0`: with no agent started yet, that would signal the caller's whole process group.)
trap '[[ -z "${agent:-}" ]] || kill "$agent" 2>/dev/null || true; [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
umask 077
export XDG_STATE_HOME="$work/state" HOME="$work"
# valgrind cannot read the DWARF 5 of this toolchain; the symbol table is all it needs.
tool="$work/vaulttool"
strip --strip-debug -o "$tool" "$built"
grind() {
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$1" "${@:2}" >/dev/null 2>&1
}
printf 'order-file password' >"$work/pw"
python3 -c '
import json, sys
items = [{"class": "genericPassword", "service": f"svc{i:05d}", "account": f"acct{i:05d}",
          "secret": f"secret-{i:05d}"} for i in range(2000)]
items.append({"class": "internetPassword", "server": "github.com", "protocol": "https",
              "account": "ci", "secret": "token"})
json.dump({"format": "vault-items", "version": 1, "items": items}, open(sys.argv[1], "w"))' "$work/items.json"
vault="$work/a.vault"
cheap=(--kdf-memory 19456 --kdf-iterations 2 --kdf-lanes 1)
"$tool" create --password-file "$work/pw" "${cheap[@]}" "$vault" >/dev/null
"$tool" import --password-file "$work/pw" --from json "$work/items.json" "$vault" >/dev/null
mkdir -m 700 "$work/agent"
export VAULT_AGENT_SOCK="$work/agent/sock"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.7-agent" \
    "$tool" agent --foreground --socket "$VAULT_AGENT_SOCK" >/dev/null 2>&1 &
agent=$!
for _ in $(seq 200); do [[ -S "$VAULT_AGENT_SOCK" ]] && break; sleep 0.1; done
"$tool" unlock --password-file "$work/pw" "$vault" >/dev/null
# The most frequent first: a get through the agent, then the other everyday commands, then the
# agent itself and the Secret Service provider (files are read in name order).
grind 0-get "$tool" get --service svc01007 --account acct01007 "$vault"
grind 1-version "$tool" --version
grind 2-list "$tool" list "$vault"
printf 'new secret' | grind 3-set "$tool" set --service new --account one "$vault"
printf 'protocol=https\nhost=github.com\n\n' | grind 4-git "$tool" credential-helper --vault "$vault" git get
printf 'password: {{ vault://svc01007/acct01007 }}\n' | grind 5-inject "$tool" inject --vault "$vault"
unset VAULT_AGENT_SOCK
grind 6-get-password "$tool" get --password-file "$work/pw" --service svc01007 --account acct01007 "$vault"
kill "$agent"
wait "$agent" 2>/dev/null || true
# The Secret Service provider on a private bus, serving secret-tool (issue 23; its RSS target).
if command -v dbus-run-session >/dev/null && command -v secret-tool >/dev/null; then
    cat >"$work/ss.sh" <<SS
set -eu
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.8-secret-service" \
    "$tool" secret-service >/dev/null 2>&1 &
P=\$!
for _ in \$(seq 300); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
        string:org.freedesktop.secrets 2>/dev/null | grep -q true && break
    sleep 0.1
done
printf s3cret | secret-tool store --label=order service order account a
secret-tool lookup service order account a >/dev/null
secret-tool search --all service order >/dev/null
kill \$P
wait \$P 2>/dev/null || true
SS
    HOME="$work/ss-home" XDG_DATA_HOME="$work/ss-home/share" dbus-run-session -- bash "$work/ss.sh" 2>/dev/null ||
        echo "order-file: the secret-service run failed; its functions are left out" >&2
else
    echo "order-file: no dbus-run-session or secret-tool; the secret-service provider is left out" >&2
fi
python3 - "$work" <<'PY' >"$work/order"
import glob, re, sys
# callgrind names each function once ("fn=(id) name"), then by id; "ob=" names the object.
seen, order = set(), []
for path in sorted(glob.glob(sys.argv[1] + "/cg.*")):
    names, objects, ob, cob = {}, {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, ident, name = m.groups()
        table = objects if kind in ("ob", "cob") else names
        if name is not None:
            table[ident] = name
        name = table.get(ident)
        if kind == "ob":
            ob = name
        elif kind == "cob":
            cob = name
        else:
            owner = ob if kind == "fn" or cob is None else cob
            if kind == "fn":
                cob = None
            if owner and owner.endswith("/vaulttool") and name and not name.startswith(("0x", "(")) \
                    and name not in seen:
                seen.add(name)
                order.append(name)
print("\n".join(order))
PY
# Replaced only when the list is complete: an empty list would silently order nothing.
[[ -s "$work/order" ]] || { echo "order-file: no functions recorded" >&2; exit 1; }
mv "$work/order" scripts/release/vaulttool.order
echo "scripts/release/vaulttool.order: $(wc -l <scripts/release/vaulttool.order) functions" >&2
