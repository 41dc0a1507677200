#!/usr/bin/env bash
# The main job on an embedded default: build vaulttool, create a demo vault with a few
# items in a temporary folder, and inspect it (without and with the password).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product vaulttool >&2
tool="$(swift build -c release --static-swift-stdlib --show-bin-path)/vaulttool"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 077
# The rollback record (Spec/rollback.md) of this throwaway vault stays in the throwaway folder.
export XDG_STATE_HOME="$work/state"
printf '%s' 'demo password: correct horse battery staple' >"$work/password"
vault="$work/demo.vault"
"$tool" create --password-file "$work/password" "$vault"
printf '%s' 'ghp_demoTokenNotReal0123456789' | "$tool" set --password-file "$work/password" \
    --service github.com --account ci-bot "$vault"
printf '%s' 'postgres://app:s3cret@db.internal/app' | "$tool" set --password-file "$work/password" \
    --service db.internal --account app --label "Primary database" "$vault"
printf '%s' 'AKIAEXAMPLEKEY' | "$tool" set --password-file "$work/password" \
    --service aws --account deploy --accessibility afterFirstUnlock "$vault"
echo "== vaulttool inspect $vault"
"$tool" inspect "$vault"
echo
echo "== vaulttool inspect --items (with the password)"
"$tool" inspect --items --password-file "$work/password" "$vault"
echo
echo "== vaulttool get --service github.com --account ci-bot"
"$tool" get --password-file "$work/password" --service github.com --account ci-bot "$vault"
echo
