#!/usr/bin/env bash
# vault benchmarks: `vaulttool run` (issue 22) against `vaulttool get`, both through the agent,
# and the masker's throughput and peak memory on 1 GiB of child output.
#
#   scripts/bench-run.sh
#
# Builds a release vaulttool (static Swift runtime, as scripts/bench.sh does), makes a vault of 5
# generic passwords at the default KDF, starts `vaulttool agent --foreground` on a scratch socket
# and unlocks the vault once. Then prints the median / min wall time of fresh processes:
#   - `vaulttool get` of one item (no credential: the agent's keys);
#   - `vaulttool run` with 5 references to a child `/bin/sh` that reads the 5 variables and exits,
#     masking on (vaulttool supervises) and --no-masking (vaulttool executes the child in place);
#   - the same child alone, to show what the child itself costs;
# and, under /usr/bin/time -v, a child writing 1 GiB of text lines (every line holding a secret,
# or none) through the masker to /dev/null, with the child alone for comparison: wall time,
# throughput and vaulttool's peak resident set.
# Environment: BENCH_RUNS (default 31), BENCH_BYTES (default 1073741824), BENCH_BUILD (scratch
# path, default /tmp/vault-bench-build-run), BENCH_TOOL (a vaulttool binary to time instead).
set -euo pipefail
[[ -z "${BENCH_TOOL:-}" ]] || BENCH_TOOL=$(realpath "$BENCH_TOOL")
cd "$(dirname "$0")/.."
runs=${BENCH_RUNS:-31}
bytes=${BENCH_BYTES:-1073741824}
build=${BENCH_BUILD:-/tmp/vault-bench-build-run}
if [[ -n "${BENCH_TOOL:-}" ]]; then
    tool=$BENCH_TOOL
else
    echo "building (release)..." >&2
    swift build -c release --scratch-path "$build" --product vaulttool --static-swift-stdlib >&2
    tool="$build/release/vaulttool"
fi
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d /tmp/vault-bench-run.XXXXXX)
agent_pid=""
cleanup() {
    [[ -z "$agent_pid" ]] || kill "$agent_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

python3 - "$tool" "$work" "$runs" "$bytes" <<'EOF'
import os, re, statistics, subprocess, sys, time

tool, work, runs, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
socket = work + "/agent/agent.sock"
env = {"PATH": os.environ["PATH"], "HOME": work, "LC_ALL": "C", "XDG_STATE_HOME": work + "/state",
       "VAULT_AGENT_SOCK": socket}
vault = work + "/v.vault"
with open(work + "/pw", "w") as f:
    f.write("bench password\n")


def run(args, stdin=b"", check=True):
    result = subprocess.run(args, input=stdin, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and result.returncode != 0:
        sys.exit(f"{args[:4]} failed ({result.returncode}): {result.stderr.decode()}")
    return result


run([tool, "create", "--password-file", work + "/pw", vault])
secrets = [f"bench-secret-{i}-Zq8vR3pX" for i in range(5)]
for i, secret in enumerate(secrets):
    run([tool, "set", "--password-file", work + "/pw", "--service", f"svc{i}", "--account", "app", vault],
        secret.encode())
os.makedirs(work + "/agent", mode=0o700)
agent = subprocess.Popen([tool, "agent", "--foreground", "--socket", socket], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(100):
    if os.path.exists(socket):
        break
    time.sleep(0.05)
run([tool, "unlock", "--password-file", work + "/pw", vault])

refs = []
for i in range(5):
    refs += ["--env", f"V{i}=vault://svc{i}/app"]
child = ["/bin/sh", "-c", 'test -n "$V0$V1$V2$V3$V4"']


def timed(args, expect=None):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run(args)
        samples.append((time.perf_counter() - start) * 1000)
        if expect is not None and result.stdout != expect:
            sys.exit(f"unexpected output of {args[:3]}: {result.stdout[:80]!r}")
    return statistics.median(samples), min(samples)


get = timed([tool, "get", "--service", "svc0", "--account", "app", vault], secrets[0].encode())
supervised = timed([tool, "run", "--vault", vault] + refs + ["--"] + child)
in_place = timed([tool, "run", "--vault", vault, "--no-masking"] + refs + ["--"] + child)
alone_env = dict(env, **{f"V{i}": s for i, s in enumerate(secrets)})
samples = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(child, env=alone_env, check=True)
    samples.append((time.perf_counter() - start) * 1000)
alone = (statistics.median(samples), min(samples))

print("fresh processes, through the agent, 5 items at the default KDF; median / min in ms")
print(f"  vaulttool get (one item)                      {get[0]:7.2f} / {get[1]:6.2f}")
print(f"  vaulttool run, 5 references, masking          {supervised[0]:7.2f} / {supervised[1]:6.2f}"
      f"   ({supervised[0] / get[0]:.2f}x get)")
print(f"  vaulttool run, 5 references, --no-masking     {in_place[0]:7.2f} / {in_place[1]:6.2f}"
      f"   ({in_place[0] / get[0]:.2f}x get)")
print(f"  the child alone (/bin/sh reading 5 variables) {alone[0]:7.2f} / {alone[1]:6.2f}")

line = "2026-12-02T15:00:00Z INFO request served in 12 ms, user=alice status=200 "


def through(prefix, text):
    script = f'yes "{text}" | head -c {size}'
    args = ["/usr/bin/time", "-v"] + prefix + ["/bin/sh", "-c", script]
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        result = subprocess.run(args, env=env, stdout=null, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{args[:5]} failed: {result.stderr.decode()[-400:]}")
    rss = int(re.search(rb"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    return seconds, rss


run_prefix = [tool, "run", "--vault", vault] + refs + ["--"]
print(f"\n{size / 2**30:.2f} GiB of child output to /dev/null (pipes), wall s, MiB/s, peak RSS of the timed process")
for label, prefix, text in [
    ("child alone", [], line + "no secret here"),
    ("run, no secret in the output", run_prefix, line + "no secret here"),
    ("run, a secret in every line", run_prefix, line + "token=$V3"),
]:
    seconds, rss = through(prefix, text)
    print(f"  {label:<32} {seconds:7.2f} s  {size / 2**20 / seconds:8.1f} MiB/s  {rss / 1024:7.1f} MiB")

agent.terminate()
agent.wait()
EOF
