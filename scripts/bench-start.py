#!/usr/bin/env python3
"""Process start and memory of vaulttool (issue 24), side by side in one run.

Usage: scripts/bench-start.py VAULTTOOL [BASELINE_VAULTTOOL] [--runs N]
Times, interleaved round-robin (median of N fresh processes each): `sqlite3 -version`,
`vaulttool --version`, a `get` through the agent at 10,000 items (a vault at the minimum KDF), and the
SQLCipher shell's cheapest get (kdf_iter = 1) at 10,000 rows. Reports peak RSS of that get
(`/usr/bin/time -f %M`, median of 15), the agent's VmHWM holding 4 vaults, and the stripped binary size.
Installs sqlite3/sqlcipher with apt-get when missing. BENCHMARKS.md has the results."""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 200
if "--runs" in sys.argv:
    args.remove(str(runs))
tools = {"vaulttool": os.path.abspath(args[0])}
if len(args) > 1:
    tools["baseline"] = os.path.abspath(args[1])
N = 10_000
missing = [p for p in ("sqlite3", "sqlcipher") if not shutil.which(p)]
if missing:
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, stdout=subprocess.DEVNULL)
work = tempfile.mkdtemp(prefix="bench-start-")
devnull = open(os.devnull, "w")
pw = os.path.join(work, "pw")
open(pw, "w").write("bench-password")
cheap = ["--kdf-memory", "19456", "--kdf-iterations", "2", "--kdf-lanes", "1"]  # the minimum for new vaults
items = [{"class": "genericPassword", "service": f"svc{i:05d}", "account": f"acct{i:05d}",
          "secret": f"secret-{i:05d}-xxxxxxxxxxxxxxxx"} for i in range(N)]
export = os.path.join(work, "items.json")
json.dump({"format": "vault-items", "version": 1, "items": items}, open(export, "w"))
target = N // 2 + 7
env = dict(os.environ)


def run(argv, **kw):
    return subprocess.run(argv, stdout=devnull, stderr=devnull, **kw)


cases = {"sqlite3 -version": (["sqlite3", "-version"], None)}
agents = []
for name, tool in tools.items():
    vaults = []
    for k in range(4):
        v = os.path.join(work, f"{name}-{k}.vault")
        subprocess.run([tool, "create", "--password-file", pw, *cheap, v], check=True, stdout=devnull)
        subprocess.run([tool, "import", "--password-file", pw, "--from", "json", export, v], check=True,
                       stdout=devnull)
        vaults.append(v)
    sock_dir = os.path.join(work, f"{name}-agent")
    os.mkdir(sock_dir, 0o700)
    sock = os.path.join(sock_dir, "sock")
    agent = subprocess.Popen([tool, "agent", "--foreground", "--socket", sock], stdout=devnull, stderr=devnull)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    agent_env = dict(env, VAULT_AGENT_SOCK=sock)
    for v in vaults:
        subprocess.run([tool, "unlock", "--password-file", pw, v], check=True, env=agent_env, stdout=devnull)
    agents.append((name, agent))
    get = [tool, "get", "--service", f"svc{target:05d}", "--account", f"acct{target:05d}", vaults[0]]
    check = subprocess.run(get, env=agent_env, capture_output=True, text=True)
    assert check.stdout.startswith(f"secret-{target:05d}"), check
    cases[f"{name} --version"] = ([tool, "--version"], None)
    cases[f"{name} get via agent @10k"] = (get, agent_env)
db = os.path.join(work, "sqlcipher.db")
sql = ["PRAGMA key = 'bench-password';", "PRAGMA kdf_iter = 1;",
       "CREATE TABLE items (service TEXT, account TEXT, secret TEXT, PRIMARY KEY (service, account));", "BEGIN;"]
sql += [f"INSERT INTO items VALUES ('svc{i:05d}', 'acct{i:05d}', 'secret-{i:05d}');" for i in range(N)]
subprocess.run(["sqlcipher", db], input=("\n".join(sql) + "\nCOMMIT;\n").encode(), check=True, stdout=devnull)
query = (f"PRAGMA key = 'bench-password';\nPRAGMA kdf_iter = 1;\n"
         f"SELECT secret FROM items WHERE service = 'svc{target:05d}' AND account = 'acct{target:05d}';\n").encode()
cases["sqlcipher cheapest get @10k"] = (["sqlcipher", db], None)

times = {k: [] for k in cases}
for _ in range(runs):
    for k, (argv, e) in cases.items():
        start = time.perf_counter()
        subprocess.run(argv, stdout=devnull, stderr=devnull, env=e,
                       input=query if argv[0] == "sqlcipher" else None)
        times[k].append(time.perf_counter() - start)
median = {k: statistics.median(v) * 1000 for k, v in times.items()}
print(f"| command (N = {N:,}, {runs} runs, interleaved) | median | min |")
print("|---|---|---|")
for k, v in times.items():
    print(f"| {k} | {median[k]:.2f} ms | {min(v) * 1000:.2f} ms |")
print()
base, sqlc = median["sqlite3 -version"], median["sqlcipher cheapest get @10k"]
for name, tool in tools.items():
    v, g = median[f"{name} --version"], median[f"{name} get via agent @10k"]
    print(f"{name}: --version / sqlite3 -version = {v / base:.2f}x; get via agent / sqlcipher get = {g / sqlc:.2f}x; "
          f"get via agent / sqlite3 -version = {g / base:.2f}x")
    agent_env = dict(env, VAULT_AGENT_SOCK=os.path.join(work, f"{name}-agent", "sock"))
    get = [tool, "get", "--service", f"svc{target:05d}", "--account", f"acct{target:05d}",
           os.path.join(work, f"{name}-0.vault")]
    def peak_rss(argv, e):
        # The median of 15 runs: what the kernel maps around each fault depends on the page cache.
        samples = [int(subprocess.run(["/usr/bin/time", "-f", "%M", *argv], env=e, capture_output=True,
                                      text=True).stderr.split()[-1]) for _ in range(15)]
        return statistics.median(samples)
    rss = peak_rss(get, agent_env)
    plain = peak_rss([get[0], "get", "--password-file", pw, *get[2:]], env)
    pid = dict(agents)[name].pid
    hwm = [l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM")][0].split()[1]
    stripped = os.path.join(work, f"{name}-stripped")
    subprocess.run(["strip", "-o", stripped, tool], check=True)
    print(f"{name}: peak RSS (median of 15) get via agent {rss / 1024:.1f} MiB, get with the password "
          f"{plain / 1024:.1f} MiB; agent VmHWM with 4 vaults {int(hwm) / 1024:.1f} MiB; "
          f"binary {os.path.getsize(tool) / 1e6:.1f} MB, stripped {os.path.getsize(stripped) / 1e6:.1f} MB")
for _, agent in agents:
    agent.terminate()
    agent.wait()
shutil.rmtree(work)
