#!/usr/bin/env bash
# vault benchmarks: `git credential fill` and `docker-credential-vault get` through vaulttool's helpers.
#
#   scripts/bench-credential-helper.sh [N ...]      (default: 100 1000 10000)
#
# Builds a release vaulttool (static Swift runtime, as `make build` and scripts/bench.sh do),
# then for each N makes two vaults of N internet passwords (plus one docker item):
#   - the standard per-user vault, opened by the device secret (no key derivation);
#   - a password vault at the default KDF cost.
# and prints the median / min wall time of a fresh `git credential fill` through the helper,
# with a username in the request, of git running no helper (its own start), and of the helpers
# run directly.
# Environment: BENCH_RUNS (default 15), BENCH_BUILD (scratch path, default /tmp/vault-bench-build-root),
# BENCH_TOOL (a vaulttool binary to time instead of building this tree's, e.g. an older revision's).
set -euo pipefail
# A relative BENCH_TOOL names a file from where the script was started, not from the package.
[[ -z "${BENCH_TOOL:-}" ]] || BENCH_TOOL=$(realpath "$BENCH_TOOL")
cd "$(dirname "$0")/.."
runs=${BENCH_RUNS:-15}
build=${BENCH_BUILD:-/tmp/vault-bench-build-root}
sizes=("$@")
((${#sizes[@]})) || sizes=(100 1000 10000)

if [[ -n "${BENCH_TOOL:-}" ]]; then
    tool=$BENCH_TOOL # an already built vaulttool, such as an older revision's, to compare with
else
    echo "building (release)..." >&2
    swift build -c release --scratch-path "$build" --product vaulttool --static-swift-stdlib >&2
    tool="$build/release/vaulttool"
fi
work=$(mktemp -d /tmp/vault-bench-helper.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$tool" "$work" "$runs" "${sizes[@]}" <<'EOF'
import json, os, statistics, subprocess, sys, time

tool, work, runs, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(n) for n in sys.argv[4:]]
env = {"PATH": os.environ["PATH"], "HOME": work + "/home", "GIT_TERMINAL_PROMPT": "0",
       "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C", "XDG_DATA_HOME": work + "/data"}
os.makedirs(env["HOME"], exist_ok=True)
with open(work + "/pw", "w") as f:
    f.write("bench password\n")


def run(args, stdin=b"", check=True):
    result = subprocess.run(args, input=stdin, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and result.returncode != 0:
        sys.exit(f"{args[:3]} failed: {result.stderr.decode()}")
    return result


def timed(args, stdin, expect):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run(args, stdin)
        times.append((time.perf_counter() - start) * 1000)
        if expect not in result.stdout:
            sys.exit(f"unexpected answer from {args[:3]}: {result.stdout!r}")
    return f"{statistics.median(times):7.1f} / {min(times):6.1f}"


def items(n):
    out = [{"class": "internetPassword", "server": f"git{i}.example", "protocol": "https",
            "account": f"user{i}", "secret": f"secret-{i}"} for i in range(n)]
    out.append({"class": "internetPassword", "server": "registry.example", "accessGroup": "docker",
                "label": "Docker Credentials", "account": "bob", "secret": "docker-secret"})
    return {"format": "vault-items", "version": 1, "items": out}


print(f"{'vault':<22}{'N':>7}  {'git fill (ms)':>16}  {'fill, user (ms)':>16}  {'git alone (ms)':>16}"
      f"  {'helper get (ms)':>16}  {'docker get (ms)':>16}")
for n in sizes:
    with open(f"{work}/items-{n}.json", "w") as f:
        json.dump(items(n), f)
    standard = f"{work}/data/vault/default.vault"
    for kind in ["standard (device)", "password (default)"]:
        if kind.startswith("standard"):
            if os.path.exists(standard):
                os.remove(standard)
            # The first store creates the standard vault and its device secret.
            run([tool, "credential-helper", "git", "store"], b"protocol=https\nhost=seed\nusername=u\npassword=p\n")
            cred = ["--device-secret-file", f"{work}/data/vault/device-secret"]
            vault, helper_opts = standard, []
        else:
            vault = f"{work}/pw-{n}.vault"
            if os.path.exists(vault):
                os.remove(vault)
            run([tool, "create", "--password-file", f"{work}/pw", vault])
            cred = ["--password-file", f"{work}/pw"]
            vault, helper_opts = vault, ["--vault", vault] + cred
        run([tool, "import", "--from", "json"] + cred + [f"{work}/items-{n}.json", vault])
        last = n - 1
        request = f"protocol=https\nhost=git{last}.example\n\n".encode()
        helper = "!" + " ".join([tool, "credential-helper", "git"] + helper_opts)
        fill = timed(["git", "-c", f"credential.helper={helper}", "credential", "fill"], request, b"secret-")
        # With the username (https://user@host/...) the helper finds the item by its lookup tag.
        with_user = f"protocol=https\nhost=git{last}.example\nusername=user{last}\n\n".encode()
        fill_user = timed(["git", "-c", f"credential.helper={helper}", "credential", "fill"], with_user, b"secret-")
        # With a username and password in the request git runs no helper: its own start and parse.
        alone = timed(["git", "credential", "fill"], b"protocol=https\nhost=x\nusername=u\npassword=p\n\n",
                      b"password=p")
        direct = timed([tool, "credential-helper", "git"] + helper_opts + ["get"], request, b"secret-")
        docker = timed([tool, "credential-helper", "docker"] + helper_opts + ["get"], b"registry.example",
                       b"docker-secret")
        print(f"{kind:<22}{n:>7}  {fill:>16}  {fill_user:>16}  {alone:>16}  {direct:>16}  {docker:>16}")
EOF
