#!/usr/bin/env bash
# Real clients of the freedesktop Secret Service against a provider (issue 23):
#   scripts/secret-service-clients.sh [--provider gnome-keyring|vaulttool] [--quick] [CHECK...]
#
# gnome-keyring is the reference: every check here passes against it, so a failure against
# `vaulttool secret-service` is ours. Each check runs on its own private bus
# (dbus-run-session) with a fresh provider, and HOME and the XDG directories point into a
# temporary directory, so the real user's keyrings, git and docker settings are never touched
# and one check's leftovers or crash cannot change another's result.
#
# Output: one line per case, `ok <name>`, `FAIL <name>: <why>` or `skip <name> (<why>)`, then
# a summary; the exit status is 1 when any case failed.
#
# Environment: VAULTTOOL (default .build/debug/vaulttool), TRACE=1 writes each check's
# dbus-monitor trace to OUT/trace-<provider>-<check>.txt (OUT defaults to a temporary directory;
# scripts/secret-service-traces.sh compares them), KEEP=1 keeps the temporary directory,
# SS_DEBUG=1 prints Python tracebacks.
#
# The case bodies are small functions that check() calls by name, which shellcheck cannot
# follow (SC2317, "unreachable"); they end with fail_with, which exits their subshell.
# shellcheck disable=SC2317
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
script="$here/$(basename "$0")"
client_py="$here/secret-service-client.py"
# Debian's python3-keyring/secretstorage/jeepney live in /usr/bin/python3's dist-packages;
# a pyenv python3 earlier on PATH does not see them.
PY=/usr/bin/python3
checks_all=(secret-tool keyring secretstorage dh-only git docker attributes concurrency robustness alias)

# ---------------------------------------------------------------------------------------------
# Reporting. Inside a check, results go to $RESULTS (one file per check) and to stdout.

report() { # report ok|FAIL|skip NAME [WHY]
    local line
    case "$1" in
        ok) line="ok $2" ;;
        FAIL) line="FAIL $2: ${3:-}" ;;
        skip) line="skip $2 (${3:-})" ;;
    esac
    echo "$line"
    echo "$line" >>"$RESULTS"
}

# Runs the Python helper and records its result lines.
py_cases() {
    local rc=0 line
    "$PY" "$client_py" "$@" >"$CHECK_DIR/py.out" || rc=$?
    while IFS= read -r line; do
        case "$line" in
            "ok "* | "FAIL "* | "skip "*) echo "$line" | tee -a "$RESULTS" ;;
            *) echo "$line" ;;
        esac
    done <"$CHECK_DIR/py.out"
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$CHECK_DIR/py.out"; then
        report FAIL "$1" "the python client exited $rc without a result (SS_DEBUG=1 for more)"
    fi
}

# check NAME COMMAND...: ok when COMMAND succeeds, FAIL with its last stderr line otherwise.
check() {
    local name="$1" err
    shift
    if err=$("$@" 2>&1 >/dev/null); then
        report ok "$name"
    else
        report FAIL "$name" "$(printf '%s' "$err" | tail -n 3 | tr '\n' ' ')"
    fi
}

# Inside a function run by check(), which runs it in a subshell with errexit off (it is an
# `if` condition): the message goes to stderr and the subshell ends, failing the case.
fail_with() {
    echo "$*" >&2
    exit 1
}

# Background helpers of a check (dbus-monitor, the HTTP server) that must not outlive it.
BACKGROUND=()
stop_background() {
    local pid
    for pid in "${BACKGROUND[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    BACKGROUND=()
}

# ---------------------------------------------------------------------------------------------
# Providers. Both are started explicitly on the private bus, and the bus has no service
# directories (see run_isolated), so nothing can be activated behind our back: a missing
# provider must show as a failure, not as gnome-keyring answering for vaulttool.

name_has_owner() {
    dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true
}

owner_pid() {
    dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets |
        awk '{print $2}'
}

start_provider() {
    printf '%s' 'test password' >"$T/pw"
    chmod 600 "$T/pw"
    case "$PROVIDER" in
        gnome-keyring)
            # --unlock reads the login keyring's password on stdin and creates that keyring
            # (the default alias) when it does not exist; --foreground keeps its PID ours.
            gnome-keyring-daemon --foreground --unlock --components=secrets \
                <"$T/pw" >"$T/provider.log" 2>&1 &
            ;;
        vaulttool)
            # The smallest Argon2id work the format allows: the KDF is not under test here.
            "$VAULTTOOL" create --password-file "$T/pw" --kdf-memory 19456 --kdf-iterations 2 \
                --kdf-lanes 1 "$T/v.vault" >"$T/create.log" 2>&1 ||
                { cat "$T/create.log" >&2; echo "vaulttool create failed" >&2; return 1; }
            "$VAULTTOOL" secret-service --vault "$T/v.vault" --password-file "$T/pw" \
                >"$T/provider.log" 2>&1 &
            ;;
    esac
    PROVIDER_PID=$!
    local i
    for i in $(seq 100); do # up to 10 s
        if name_has_owner; then break; fi
        if ! kill -0 "$PROVIDER_PID" 2>/dev/null; then
            cat "$T/provider.log" >&2
            echo "$PROVIDER exited before it owned org.freedesktop.secrets" >&2
            return 1
        fi
        sleep 0.1
        [ "$i" -lt 100 ] || {
            cat "$T/provider.log" >&2
            echo "$PROVIDER did not own org.freedesktop.secrets within 10 s" >&2
            return 1
        }
    done
    local pid
    pid=$(owner_pid)
    [ "$pid" = "$PROVIDER_PID" ] || {
        echo "org.freedesktop.secrets is owned by PID $pid, not by $PROVIDER (PID $PROVIDER_PID)" >&2
        return 1
    }
}

stop_provider() {
    if [ -n "${PROVIDER_PID:-}" ] && kill -0 "$PROVIDER_PID" 2>/dev/null; then
        kill "$PROVIDER_PID" 2>/dev/null || true
        wait "$PROVIDER_PID" 2>/dev/null || true
    fi
}

provider_alive() { kill -0 "$PROVIDER_PID" 2>/dev/null; }

# ---------------------------------------------------------------------------------------------
# a. secret-tool (libsecret 0.20): store, lookup, search --all, clear.

secret_tool_lookup_is() { # expected-file ATTR...
    local want="$1"
    shift
    secret-tool lookup "$@" >"$CHECK_DIR/got" || fail_with "lookup exited $?"
    cmp -s "$want" "$CHECK_DIR/got" ||
        fail_with "lookup returned $(od -An -c "$CHECK_DIR/got" | head -c 200)"
}

check_secret_tool() {
    local label='Vault ✓ Schlüssel – テスト'
    printf 'first line\nsecond line' >"$CHECK_DIR/secret1"
    printf 'bob secret' >"$CHECK_DIR/secret2"
    printf 'replaced ✓' >"$CHECK_DIR/secret3"
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
    check secret-tool/store-newline-utf8-label \
        sh -c 'secret-tool store --label="$1" service vault-test account alice <"$2"' \
        _ "$label" "$CHECK_DIR/secret1"
    check secret-tool/lookup secret_tool_lookup_is "$CHECK_DIR/secret1" service vault-test account alice
    # shellcheck disable=SC2016 # as above
    check secret-tool/store-second \
        sh -c 'secret-tool store --label=bob service vault-test account bob <"$1"' _ "$CHECK_DIR/secret2"

    search_all() {
        local out
        out=$(secret-tool search --all service vault-test 2>&1) || fail_with "search exited $?"
        [ "$(grep -c '^\[/' <<<"$out")" -eq 2 ] || fail_with "not 2 items: $out"
        grep -qxF "label = $label" <<<"$out" || fail_with "UTF-8 label missing: $out"
        grep -qxF 'attribute.account = alice' <<<"$out" || fail_with "attribute missing: $out"
        grep -qxF 'secret = first line' <<<"$out" || fail_with "secret missing: $out"
        grep -qxF 'second line' <<<"$out" || fail_with "secret's second line missing: $out"
        grep -qxF 'secret = bob secret' <<<"$out" || fail_with "second secret missing: $out"
    }
    check secret-tool/search-all search_all

    # secret-tool stores with replace=true: the same attributes replace the item.
    replace() {
        secret-tool store --label=again service vault-test account alice <"$CHECK_DIR/secret3" ||
            fail_with "store exited $?"
        secret_tool_lookup_is "$CHECK_DIR/secret3" service vault-test account alice
        local n
        n=$(secret-tool search --all service vault-test 2>&1 | grep -c '^\[/')
        [ "$n" -eq 2 ] || fail_with "$n items after replacing one of 2"
    }
    check secret-tool/store-replaces replace

    clear_alice() {
        secret-tool clear service vault-test account alice || fail_with "clear exited $?"
        if secret-tool lookup service vault-test account alice >"$CHECK_DIR/got"; then
            fail_with "lookup after clear succeeded"
        fi
        [ ! -s "$CHECK_DIR/got" ] || fail_with "lookup after clear printed $(cat "$CHECK_DIR/got")"
        secret_tool_lookup_is "$CHECK_DIR/secret2" service vault-test account bob
    }
    check secret-tool/clear clear_alice
}

# ---------------------------------------------------------------------------------------------
# b, c, f, g, h: the Python clients.

check_keyring() { py_cases keyring; }
check_secretstorage() { py_cases secretstorage; }
check_dh_only() { py_cases dh-only; }
check_attributes() { py_cases attributes; }
check_robustness() {
    py_cases robustness
    if provider_alive; then report ok robustness/provider-alive; else
        report FAIL robustness/provider-alive "$PROVIDER exited: $(tail -n 3 "$T/provider.log" | tr '\n' ' ')"
    fi
}
check_concurrency() {
    if [ "$QUICK" = 1 ]; then py_cases concurrency 2 20; else py_cases concurrency 8 500; fi
}

# ---------------------------------------------------------------------------------------------
# d. git's contrib credential-libsecret, directly and through a real `git clone`.

git_cred() { # action, then the request on stdin
    printf '%b' "$2" | "$GIT_HELPER" "$1"
}

git_get_is() { # request, expected password ('' = nothing found)
    local out pw
    out=$(git_cred get "$1") || fail_with "get exited $?"
    pw=$(sed -n 's/^password=//p' <<<"$out")
    [ "$pw" = "$2" ] || fail_with "get answered password '$pw', not '$2'"
}

check_git() {
    check git/store git_cred store 'protocol=https\nhost=example.com\nusername=carol\npassword=pw one\n\n'
    check git/get git_get_is 'protocol=https\nhost=example.com\nusername=carol\n\n' 'pw one'
    check git/get-without-username git_get_is 'protocol=https\nhost=example.com\n\n' 'pw one'
    check git/get-other-user git_get_is 'protocol=https\nhost=example.com\nusername=eve\n\n' ''
    check git/get-other-protocol git_get_is 'protocol=http\nhost=example.com\nusername=carol\n\n' ''

    local port_req='protocol=https\nhost=git.example.com:8443\npath=team/repo.git\nusername=dave'
    check git/store-port-path git_cred store "$port_req\npassword=pw two ✓\n\n"
    check git/get-port-path git_get_is "$port_req\n\n" 'pw two ✓'
    check git/get-other-port git_get_is \
        'protocol=https\nhost=git.example.com:9443\npath=team/repo.git\nusername=dave\n\n' ''
    check git/get-other-path git_get_is \
        'protocol=https\nhost=git.example.com:8443\npath=other/repo.git\nusername=dave\n\n' ''

    # What the helper stored, as the provider must give it back (issue 23 maps this schema
    # onto internet passwords: the mapping must not change one attribute).
    stored_attributes() {
        local got
        got=$("$PY" "$client_py" show-attributes '{"user": "dave"}') || fail_with "show-attributes failed"
        [ "$got" = '[{"object": "team/repo.git", "port": "8443", "protocol": "https", "server": "git.example.com", "user": "dave", "xdg:schema": "org.gnome.keyring.NetworkPassword"}]' ] ||
            fail_with "attributes: $got"
    }
    check git/stored-attributes stored_attributes

    check git/erase git_cred erase 'protocol=https\nhost=example.com\nusername=carol\n\n'
    check git/get-after-erase git_get_is 'protocol=https\nhost=example.com\nusername=carol\n\n' ''
    check git/erase-port-path git_cred erase "$port_req\n\n"
    check git/get-after-erase-port-path git_get_is "$port_req\n\n" ''

    git_clone_checks
}

git_clone_checks() {
    local d="$CHECK_DIR/git" pw='clone pw/+ 1' port
    mkdir -p "$d"
    # The global config of this check only: no user or system helper may answer instead.
    export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$d/gitconfig"
    # Never ask: a prompt would mean the helper gave nothing.
    export GIT_TERMINAL_PROMPT=0 GIT_ASKPASS=/bin/false SSH_ASKPASS=/bin/false
    unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
    export no_proxy=127.0.0.1
    git config --global user.name test
    git config --global user.email test@example.invalid
    git config --global init.defaultBranch main
    git init -q "$d/src"
    echo "cloned through the Secret Service" >"$d/src/README"
    git -C "$d/src" add README
    git -C "$d/src" commit -qm initial
    git clone -q --bare "$d/src" "$d/www/repo.git"
    # The dumb HTTP protocol: static files, listed by update-server-info.
    git -C "$d/www/repo.git" update-server-info

    "$PY" "$client_py" http-server "$d/www" gituser "$pw" "$d/port" "$d/http.log" \
        2>"$d/http.err" &
    BACKGROUND+=($!)
    for _ in $(seq 50); do [ -s "$d/port" ] && break; sleep 0.1; done
    if ! [ -s "$d/port" ]; then
        report FAIL git/clone "the HTTP server did not start: $(cat "$d/http.err")"
        return
    fi
    port=$(cat "$d/port")
    local url="http://gituser@127.0.0.1:$port/repo.git"

    # Without a helper the server must refuse, or the clone below proves nothing.
    clone_refused() {
        if git clone -q "$url" "$d/clone-without" 2>/dev/null; then
            fail_with "the clone succeeded without credentials: the server does not demand them"
        fi
    }
    check git/clone-needs-auth clone_refused

    git config --global credential.helper "$GIT_HELPER"
    check git/store-for-clone git_cred store \
        "protocol=http\nhost=127.0.0.1:$port\nusername=gituser\npassword=$pw\n\n"
    clone() {
        git clone -q "$url" "$d/clone" || fail_with "git clone exited $?"
        grep -q 'cloned through the Secret Service' "$d/clone/README" ||
            fail_with "the clone has no README"
    }
    check git/clone clone
    stop_background
}

# ---------------------------------------------------------------------------------------------
# e. docker-credential-secretservice (golang-docker-credential-helpers 0.6.4).

check_docker() {
    local url=https://registry.example.com:5000
    local dcs=docker-credential-secretservice
    check docker/store sh -c "printf '%s' '{\"ServerURL\":\"$url\",\"Username\":\"dock\",\"Secret\":\"tok ✓ 1\"}' | $dcs store"
    docker_get() {
        local out
        out=$(printf '%s' "$url" | $dcs get) || fail_with "get exited $?: $out"
        "$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(d != {"ServerURL": sys.argv[2], "Username": "dock", "Secret": "tok ✓ 1"})' \
            "$out" "$url" || fail_with "get answered $out"
    }
    check docker/get docker_get
    docker_list() {
        local out
        out=$($dcs list) || fail_with "list exited $?"
        "$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(d.get(sys.argv[2]) != "dock")' \
            "$out" "$url" || fail_with "list answered $out"
    }
    check docker/list docker_list
    check docker/erase sh -c "printf '%s' '$url' | $dcs erase"
    docker_gone() {
        local out
        if out=$(printf '%s' "$url" | $dcs get 2>&1); then fail_with "get after erase answered $out"; fi
        grep -q 'credentials not found' <<<"$out" || fail_with "get after erase: $out"
        out=$($dcs list) || fail_with "list exited $?"
        ! grep -qF "$url" <<<"$out" || fail_with "list after erase answered $out"
    }
    check docker/gone-after-erase docker_gone
}

# ---------------------------------------------------------------------------------------------
# i. The default alias is a real object (python-secretstorage and libsecret need it).

check_alias() {
    alias_label() {
        dbus-send --session --print-reply --dest=org.freedesktop.secrets \
            /org/freedesktop/secrets/aliases/default org.freedesktop.DBus.Properties.Get \
            string:org.freedesktop.Secret.Collection string:Label | grep -q 'variant'
    }
    check alias/default-label alias_label
    read_alias() {
        local path
        path=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.secrets \
            /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default |
            tr -d ' ')
        if [ -z "$path" ] || [ "$path" = / ]; then fail_with "ReadAlias(default) answered '$path'"; fi
        dbus-send --session --print-reply --dest=org.freedesktop.secrets "$path" \
            org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection \
            string:Label >/dev/null || fail_with "Label of $path"
        busctl --user get-property org.freedesktop.secrets /org/freedesktop/secrets \
            org.freedesktop.Secret.Service Collections | grep -qF "\"$path\"" ||
            fail_with "Collections does not list $path"
    }
    check alias/read-alias-is-a-listed-collection read_alias
}

# ---------------------------------------------------------------------------------------------
# Driver.

# Inside the private bus: start the provider, run one check, stop the provider.
inner() {
    local name="$1"
    PROVIDER_PID=""
    trap 'stop_background; stop_provider' EXIT
    if ! start_provider 2>"$CHECK_DIR/start.err"; then
        report FAIL "$name/provider-start" "$(tail -n 5 "$CHECK_DIR/start.err" | tr '\n' ' ')"
        return 1
    fi
    if [ "${TRACE:-0}" = 1 ]; then
        # The whole check's bus traffic, for scripts/secret-service-traces.sh to compare.
        mkdir -p "$OUT"
        dbus-monitor --session >"$OUT/trace-$PROVIDER-$name.txt" 2>&1 &
        BACKGROUND+=($!)
        sleep 0.3 # dbus-monitor must be listening before the first call
    fi
    "check_${name//-/_}"
}

run_isolated() {
    local name="$1" limit rc=0
    CHECK_DIR="$TOP/$name"
    RESULTS="$CHECK_DIR/results"
    mkdir -p "$CHECK_DIR"/{home,data,config,cache,state,services}
    mkdir -m 700 "$CHECK_DIR/run"
    : >"$RESULTS"
    # The standard session bus, minus its service directories: no activation of a provider
    # that the check did not start.
    sed "s|<standard_session_servicedirs */>|<servicedir>$CHECK_DIR/services</servicedir>|" \
        /usr/share/dbus-1/session.conf >"$CHECK_DIR/session.conf"
    limit=300
    # dbus-daemon's notes that say nothing about the provider: an unprivileged fd limit, and
    # the check's own dbus-monitor coming and going.
    local bus_noise='Failed to set fd limit|became a monitor|Monitoring connection .* closed'
    [ "$name" = concurrency ] && [ "$QUICK" = 0 ] && limit=1800
    # T: the check's own directory, where the provider keeps its password and vault.
    export CHECK_DIR RESULTS T="$CHECK_DIR"
    HOME="$CHECK_DIR/home" XDG_DATA_HOME="$CHECK_DIR/data" XDG_CONFIG_HOME="$CHECK_DIR/config" \
        XDG_CACHE_HOME="$CHECK_DIR/cache" XDG_STATE_HOME="$CHECK_DIR/state" \
        XDG_RUNTIME_DIR="$CHECK_DIR/run" DBUS_SESSION_BUS_ADDRESS="" \
        timeout -k 10 "$limit" dbus-run-session --config-file="$CHECK_DIR/session.conf" -- \
        bash "$script" --inner "$name" \
        2> >(grep --line-buffered -v -E "$bus_noise" >&2) || rc=$?
    if ! [ -s "$RESULTS" ]; then
        report FAIL "$name" "no result (exit $rc$([ "$rc" = 124 ] && echo ", timed out after ${limit}s"))"
    elif [ "$rc" -eq 124 ]; then
        report FAIL "$name" "timed out after ${limit}s"
    fi
}

main() {
    PROVIDER=gnome-keyring
    QUICK=0
    local checks=() c
    while [ $# -gt 0 ]; do
        case "$1" in
            --provider) PROVIDER="${2:?--provider needs gnome-keyring or vaulttool}"; shift 2 ;;
            --provider=*) PROVIDER="${1#*=}"; shift ;;
            --quick) QUICK=1; shift ;;
            -h | --help) sed -n '2,17p' "$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
            -*) echo "unknown option $1" >&2; exit 64 ;;
            *) checks+=("$1"); shift ;;
        esac
    done
    [ ${#checks[@]} -gt 0 ] || checks=("${checks_all[@]}")
    for c in "${checks[@]}"; do
        [[ " ${checks_all[*]} " == *" $c "* ]] || { echo "unknown check $c (${checks_all[*]})" >&2; exit 64; }
    done
    case "$PROVIDER" in
        gnome-keyring) ;;
        vaulttool)
            VAULTTOOL="${VAULTTOOL:-.build/debug/vaulttool}"
            [ -x "$VAULTTOOL" ] || { echo "no vaulttool at $VAULTTOOL (build it, or set VAULTTOOL)" >&2; exit 1; }
            VAULTTOOL="$(cd "$(dirname "$VAULTTOOL")" && pwd)/$(basename "$VAULTTOOL")"
            # A vault holds one item per identity (Spec/secret-service.md R-SS-25).
            export SS_ONE_ITEM_PER_IDENTITY=1
            ;;
        *) echo "unknown provider $PROVIDER (gnome-keyring or vaulttool)" >&2; exit 64 ;;
    esac
    # The installer installs only what is missing, and prints where git's helper was built.
    GIT_HELPER="$("$here/install-secret-service-clients.sh")"

    local start
    TOP="$(mktemp -d "${TMPDIR:-/tmp}/vault-ss-clients.XXXXXX")"
    if [ "${KEEP:-0}" = 1 ]; then echo "keeping $TOP" >&2; else
        # shellcheck disable=SC2064 # expand now: $TOP is fixed
        trap "rm -rf '$TOP'" EXIT
    fi
    OUT="${OUT:-$TOP/out}"
    export PROVIDER QUICK VAULTTOOL GIT_HELPER OUT PY
    start=$SECONDS
    echo "provider: $PROVIDER$([ "$QUICK" = 1 ] && echo ' (quick)')"
    for c in "${checks[@]}"; do
        echo "== $c"
        run_isolated "$c"
    done
    local okn failn skipn
    okn=$(cat "$TOP"/*/results | grep -c '^ok ' || true)
    failn=$(cat "$TOP"/*/results | grep -c '^FAIL ' || true)
    skipn=$(cat "$TOP"/*/results | grep -c '^skip ' || true)
    echo
    echo "$PROVIDER: $okn passed, $failn failed, $skipn skipped ($((SECONDS - start)) s)"
    if [ "$failn" -gt 0 ]; then
        grep -h '^FAIL ' "$TOP"/*/results
        exit 1
    fi
}

if [ "${1:-}" = --inner ]; then
    inner "$2"
else
    main "$@"
fi
