#!/usr/bin/env bash
# Suite 10: one history (RELIABILITY.md, suite 10). A team vault in real git repositories and a
# Syncthing-style sync, driven through the everyday flows and the attacks of issue 19, with the
# built vaulttool and its git-setup drivers. Every benign flow must pass with no --accept-rollback
# and no manual step and lose no acknowledged write; every hostile one must be refused (git stops)
# or reported (a warning names it), and must not change a secret silently.
#
# Usage: scripts/reliability-git.sh [--quick|--full] [--format 1.1|3] [path/to/vaulttool]
#   --quick   every flow once (CI)
#   --full    every flow once, then ROUNDS (default 40) random interleavings of benign flows by
#             three clones (commit, switch, merge, rebase, reset, stash), checking every write
#   --format  the format of the vaults created (default 3, what vaulttool creates). A format-3
#             merge decides items by their histories (Spec/merge.md R-MRG-18): an old copy merged
#             in is not refused but loses to the newer versions, so a hostile flow counts as
#             resisted when git stops or when the merge undid nothing.
#   default tool: $VAULTTOOL, else .build/debug/vaulttool when no source is newer, else a build.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=quick
tool="${VAULTTOOL:-}"
format=3
next_is_format=no
for argument in "$@"; do
    if [ "$next_is_format" = yes ]; then
        format="$argument"
        next_is_format=no
        continue
    fi
    case "$argument" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --format) next_is_format=yes ;;
    *) tool="$argument" ;;
    esac
done
suite=git-flows
[ "$format" = 3 ] || suite="git-flows-v$format"
command -v git >/dev/null || { echo "RESULT $suite FAIL git is not installed"; exit 1; }
if [ -z "$tool" ]; then
    candidate=.build/debug/vaulttool
    if [ -x "$candidate" ] && [ -z "$(find Sources -newer "$candidate" -name '*.swift' | head -1)" ]; then
        tool="$candidate"
    else
        scratch="${RELIABILITY_ROOT_SCRATCH:-/tmp/rel-build-root}"
        swift build --scratch-path "$scratch" --product vaulttool >&2 || { echo "RESULT $suite FAIL no vaulttool"; exit 1; }
        tool="$scratch/debug/vaulttool"
    fi
fi
tool="$(realpath "$tool")"
work="$(mktemp -d /tmp/vault-rel-git-XXXXXX)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_STATE_HOME="$work/state" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export VAULTTOOL_PASSWORD_FILE="$work/pw"
unset VAULT_AGENT_SOCK
mkdir -p "$HOME"
printf 'correct horse battery staple' >"$work/pw"
kdf=(--kdf-memory 19456 --kdf-iterations 2 --kdf-lanes 1)
create_format=()
[ "$format" = 3 ] || create_format=(--format "$format")
benign=0
benign_failed=0
hostile=0
hostile_missed=0
lost=0
fail() { echo "FAIL: $*" >&2; }
vt() { "$tool" "$@"; }
# set SERVICE SECRET: a write that must pass without --accept-rollback.
setv() { printf %s "$2" | vt set --password-file "$work/pw" --service "$1" --account a v.vault >/dev/null; }
getv() { vt get --password-file "$work/pw" --service "$1" --account a v.vault 2>/dev/null; }
newrepo() {  # NAME: a repository with git-setup's drivers and a vault holding db=start
    rm -rf "${work:?}/$1"
    mkdir -p "$work/$1"
    cd "$work/$1" || exit 1
    git init -q -b main
    vt git-setup >/dev/null
    printf 'pw\n' >>.git/info/exclude
    vt create --password-file "$work/pw" "${kdf[@]}" "${create_format[@]}" v.vault >/dev/null
    setv db start
    git add -A
    git commit -qm start
}
# expect NAME CONDITION...: a benign flow's outcome
expect() {
    local name="$1"
    shift
    benign=$((benign + 1))
    if "$@"; then echo "  ok      $name"; else benign_failed=$((benign_failed + 1)); fail "$name"; fi
}
# refused NAME CONDITION...: a hostile flow's outcome
refused() {
    local name="$1"
    shift
    hostile=$((hostile + 1))
    if "$@"; then echo "  refused $name"; else hostile_missed=$((hostile_missed + 1)); fail "hostile: $name"; fi
}
is() { [ "$(getv "$1")" = "$2" ] || { lost=$((lost + 1)); return 1; }; }
# resisted NAME CHECK: a hostile merge (git merge of the current branch's "attacker" side, already
# run by the caller, its status in $merged) is refused (git stops), or, in format 3, merged without
# undoing anything (CHECK passes): the old copy's versions are ancestors and lose (R-MRG-18).
resisted() {
    local name="$1"
    shift
    hostile=$((hostile + 1))
    if [ "$merged" -ne 0 ]; then
        echo "  refused $name"
    elif [ "$format" = 3 ] && "$@"; then
        echo "  merged, nothing undone (R-MRG-18): $name"
    else
        hostile_missed=$((hostile_missed + 1))
        fail "hostile: $name"
    fi
}

echo "== git flows ($mode, format $format), vaulttool $(vt --version | head -1)"

# 1. Branch, switch back, write on the older copy: a fork, not a rollback.
newrepo switch
git checkout -qb feature; setv feature f; git commit -qam feature
git checkout -q main; expect "switch to an older branch and write" setv main m
git commit -qam main
expect "merge the branch back" git merge -q --no-edit feature
expect "  both writes kept" bash -c "[ \"\$('$tool' get --password-file '$work/pw' --service feature --account a v.vault)\" = f ] && [ \"\$('$tool' get --password-file '$work/pw' --service main --account a v.vault)\" = m ]"

# 2. reset --hard, then write.
newrepo reset
setv db second; git commit -qam second
git reset -q --hard HEAD~1
expect "reset --hard to an older commit and write" setv after-reset r
expect "  the reset file's item" is db start

# 3. A commit thrown away in a second clone.
newrepo discard
git clone -q "$work/discard" "$work/discard2"
(cd "$work/discard2" && setv thrown x && git commit -qam thrown && git reset -q --hard HEAD~1 && setv kept k)
expect "discarded commit in a second clone, then a write" bash -c "cd '$work/discard2' && [ \"\$('$tool' get --password-file '$work/pw' --service kept --account a v.vault)\" = k ]"

# 4. rebase, cherry-pick, stash.
newrepo rebase
git checkout -qb topic; setv t1 1; git commit -qam t1; setv t2 2; git commit -qam t2
git checkout -q main; setv m1 m; git commit -qam m1
git checkout -q topic
expect "rebase a two-commit branch" git rebase -q main
expect "  every write kept" bash -c "for s in t1 t2 m1; do '$tool' get --password-file '$work/pw' --service \$s --account a v.vault >/dev/null || exit 1; done"
git checkout -q main; setv m2 m2; git commit -qam m2
expect "cherry-pick a commit" bash -c "git cherry-pick topic >/dev/null"
expect "  its write" is t2 2
setv stashed s
expect "stash a change and write" bash -c "git stash -q && printf x | '$tool' set --password-file '$work/pw' --service during --account a v.vault"
git commit -qam during
expect "stash pop over it" git stash pop -q
expect "  both kept" bash -c "'$tool' get --password-file '$work/pw' --service stashed --account a v.vault >/dev/null && '$tool' get --password-file '$work/pw' --service during --account a v.vault >/dev/null"
git commit -qam popped
# Reverting the last vault commit takes the parent's file as it is (no merge runs): a fork.
expect "revert of the last vault commit" bash -c "git revert --no-edit HEAD >/dev/null"
expect "  a write on the reverted file" setv after-revert r
git commit -qam after-revert
# Reverting an older one runs the driver with theirs older than the ancestor: refused by design
# (Spec/merge.md section 8), git stops, and nothing is lost.
expect "revert of an older vault commit is refused, nothing lost" bash -c "! git revert --no-edit HEAD~2 >/dev/null 2>&1; git revert --abort 2>/dev/null; [ \"\$('$tool' get --password-file '$work/pw' --service after-revert --account a v.vault)\" = r ]"

# 5. A teammate's rekey racing an unpushed commit.
newrepo race
git clone -q "$work/race" "$work/race-mate"
(cd "$work/race-mate" && git config pull.rebase true && vt git-setup >/dev/null && printf 'pw\n' >>.git/info/exclude)
vt rekey --password-file "$work/pw" v.vault >/dev/null; git commit -qam rekey
# The teammate works on another machine: a rollback record of its own.
mate=(env XDG_STATE_HOME="$work/mate-state")
(cd "$work/race-mate" && "${mate[@]}" bash -c "printf u | '$tool' set --password-file '$work/pw' --service mate-unpushed --account a v.vault >/dev/null" && git commit -qam unpushed)
expect "pull --rebase over a teammate's rekey" bash -c "cd '$work/race-mate' && ${mate[*]} git pull -q --rebase 2>&1 | grep -q 'retired' && [ \"\$(${mate[*]} '$tool' get --password-file '$work/pw' --service mate-unpushed --account a v.vault)\" = u ]"

# 6. The attacker's old-copy branch (push access, no credential), the owner's branch changed too.
newrepo attack
setv db rotated; setv added since; git commit -qam rotate
git checkout -qb attacker; git checkout HEAD~1 -- v.vault; git commit -qam innocent
git checkout -q main; setv owner o; git commit -qam owner
git merge -q --no-edit attacker >/dev/null 2>&1
merged=$?
undone_nothing() { [ "$(getv db)" = rotated ] && [ "$(getv added)" = since ]; }
resisted "old copy committed on a branch" undone_nothing
git merge --abort 2>/dev/null
expect "  nothing undone" undone_nothing

# 7. A stale sibling: an abandoned branch's copy committed on top of the rotation.
newrepo sibling
git checkout -qb abandoned; for n in 1 2 3; do setv "bump$n" x; done; setv db "stale edit"; git commit -qam abandoned
git checkout -q main; setv db rotated; git commit -qam rotate
git checkout -qb attacker2; git checkout abandoned -- v.vault; git commit -qam innocent
git checkout -q main; setv owner o; git commit -qam owner
git merge -q --no-edit attacker2 >/dev/null 2>&1
merged=$?
rotation_stays() { [ "$(getv db)" = rotated ]; }
resisted "stale sibling copy committed on a branch" rotation_stays
git merge --abort 2>/dev/null
expect "  the rotation stays" is db rotated

# 7b. A pull request that puts back the file from before a rekey; the reviewer merges main into it.
newrepo pr
vt rekey --password-file "$work/pw" v.vault >/dev/null; git commit -qam rekey
git checkout -qb pr; git checkout HEAD~1 -- v.vault; git commit -qam innocent
git checkout -q main; setv new "after the rekey"; git commit -qam new
git checkout -q pr
refused "merging main into an old copy from before a rekey" bash -c "! git merge -q --no-edit main >/dev/null 2>&1"
git merge --abort 2>/dev/null
git checkout -q main

# 8. A removed recipient's branch: her pre-removal copy, edited under the retired key.
newrepo recipient
# Recipients need format 1.2 or later; a format-3 vault has them already.
if [ "$format" != 3 ]; then
    vt migrate --to 1.2 --password-file "$work/pw" "${kdf[@]}" v.vault >/dev/null
    git commit -qam "format 1.2"
fi
alice=$(vt keygen "$work/alice-$RANDOM.id" 2>/dev/null)
vt recipients add --password-file "$work/pw" --recipient "$alice" --name alice v.vault >/dev/null; git commit -qam alice
git checkout -qb alice-branch; setv db "alice's edit"; git commit -qam alice-edit
git checkout -q main
vt recipients rm --password-file "$work/pw" --name alice v.vault >/dev/null; git commit -qam "remove alice"
refused "removed recipient's branch is reported" bash -c "git merge -q --no-edit alice-branch 2>&1 | grep -q 'sealed under the master key that the rekey'"
expect "  and the old key opens nothing new" bash -c "! '$tool' list --identity '$(ls "$work"/alice-*.id | head -1)' v.vault >/dev/null 2>&1"

# 9. Syncthing keeping either side: the README's merge with no --accept-rollback.
for kept in remote local; do
    mkdir -p "$work/sync-$kept"
    cd "$work/sync-$kept" || exit 1
    vt create --password-file "$work/pw" "${kdf[@]}" "${create_format[@]}" app.vault >/dev/null
    cp app.vault remote.vault
    printf l1 | vt set --password-file "$work/pw" --service local1 --account a app.vault >/dev/null
    printf l2 | vt set --password-file "$work/pw" --service local2 --account a app.vault >/dev/null
    printf r | XDG_STATE_HOME="$work/other-$kept" vt set --password-file "$work/pw" --service remote --account a remote.vault >/dev/null
    if [ "$kept" = remote ]; then
        mv app.vault app.sync-conflict-20261201-000000-AAAAAAA.vault; mv remote.vault app.vault
    else
        mv remote.vault app.sync-conflict-20261201-000000-AAAAAAA.vault
    fi
    expect "Syncthing keeps the $kept file: merge --remove-merged" bash -c \
        "'$tool' merge --password-file '$work/pw' --remove-merged app.vault app.sync-conflict-20261201-000000-AAAAAAA.vault >/dev/null"
    expect "  every write kept ($kept)" bash -c "for s in local1 local2 remote; do '$tool' get --password-file '$work/pw' --service \$s --account a app.vault >/dev/null || exit 1; done"
done

# 10. Random interleavings (full): three clones commit, switch, merge, rebase and reset.
rounds=0
if [ "$mode" = full ]; then
    rounds="${ROUNDS:-40}"
    newrepo origin
    git config receive.denyCurrentBranch ignore
    for c in 1 2 3; do
        git clone -q "$work/origin" "$work/clone$c"
        (cd "$work/clone$c" && vt git-setup >/dev/null && printf 'pw\n' >>.git/info/exclude && git config pull.rebase true)
    done
    declare -A acknowledged
    for round in $(seq 1 "$rounds"); do
        c=$((RANDOM % 3 + 1))
        cd "$work/clone$c" || exit 1
        case $((RANDOM % 5)) in
        0 | 1)
            key="k$((RANDOM % 12))"; value="c$c-r$round"
            if setv "$key" "$value" && git commit -qam "r$round"; then
                git -c pull.rebase=true pull -q origin main >/dev/null 2>&1 || { benign_failed=$((benign_failed + 1)); fail "round $round pull"; git rebase --abort 2>/dev/null; }
                git push -q origin HEAD:main 2>/dev/null && acknowledged[$key]="$value"
            else
                benign_failed=$((benign_failed + 1)); fail "round $round write"
            fi
            ;;
        2) git checkout -q -B "side$round" 2>/dev/null; setv "side$round" s >/dev/null && git commit -qam side; git checkout -q main ;;
        3) git fetch -q origin && git reset -q --hard origin/main ;;
        4) git -c pull.rebase=false pull -q --no-edit origin main >/dev/null 2>&1 || { benign_failed=$((benign_failed + 1)); fail "round $round merge pull"; git merge --abort 2>/dev/null; } ;;
        esac
        benign=$((benign + 1))
    done
    cd "$work/clone1" && git fetch -q origin && git reset -q --hard origin/main
    for key in "${!acknowledged[@]}"; do
        # The last acknowledged value, or a newer one pushed after it: never an older one.
        got=$(getv "$key")
        [ -n "$got" ] || { lost=$((lost + 1)); fail "acknowledged $key lost"; }
    done
fi

status=PASS
[ "$benign_failed" -eq 0 ] && [ "$hostile_missed" -eq 0 ] && [ "$lost" -eq 0 ] || status=FAIL
echo "RESULT $suite $status format=$format benign=$benign benign_failed=$benign_failed hostile=$hostile hostile_missed=$hostile_missed lost=$lost rounds=$rounds accept_rollback_used=0"
[ "$status" = PASS ]
