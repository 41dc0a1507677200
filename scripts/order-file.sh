#!/usr/bin/env bash
# Writes scripts/release/vaulttool.order: the functions of vaulttool that the hot commands run,
# in the order they first run, for scripts/build-release.sh to lay out together (issue 24).
# Each command below runs once under valgrind's callgrind, which records every function called;
# the agent runs under it while it serves. Run it again after a change to a hot path; a stale
# list is harmless (symbols it no longer finds are skipped), only less effective.
# Usage: scripts/order-file.sh   (needs valgrind: apt-get install -y valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
built="$(scripts/build-release.sh --keep-symbols)"
work="$(mktemp -d)"
trap 'kill "${agent:-0}" 2>/dev/null || true; [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
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
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.0-agent" \
    "$tool" agent --foreground --socket "$VAULT_AGENT_SOCK" >/dev/null 2>&1 &
agent=$!
for _ in $(seq 200); do [[ -S "$VAULT_AGENT_SOCK" ]] && break; sleep 0.1; done
"$tool" unlock --password-file "$work/pw" "$vault" >/dev/null
# The most frequent first: a get through the agent, then the other everyday commands.
grind 1-get "$tool" get --service svc01007 --account acct01007 "$vault"
grind 2-version "$tool" --version
grind 3-list "$tool" list "$vault"
printf 'new secret' | grind 4-set "$tool" set --service new --account one "$vault"
printf 'protocol=https\nhost=github.com\n\n' | grind 5-git "$tool" credential-helper --vault "$vault" git get
printf 'password: {{ vault://svc01007/acct01007 }}\n' | grind 6-inject "$tool" inject --vault "$vault"
unset VAULT_AGENT_SOCK
grind 7-get-password "$tool" get --password-file "$work/pw" --service svc01007 --account acct01007 "$vault"
kill "$agent"
wait "$agent" 2>/dev/null || true
python3 - "$work" <<'PY' >scripts/release/vaulttool.order
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
echo "scripts/release/vaulttool.order: $(wc -l <scripts/release/vaulttool.order) functions" >&2
