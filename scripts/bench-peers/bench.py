"""vault benchmarks: the driver behind `make bench` and `make bench-smoke`.

Runs vault-bench (in-process numbers), times fresh processes of vaulttool and of
each peer with the same data, interleaving the stores run by run so that the
machine's noise falls on all of them alike, and writes:

  OUT/results.json   every run of every measurement
  OUT/table.md       the tables and the targets, met or missed, with their ratios
  OUT/bench.png      time against N, log-log, one line per store and operation

Python standard library only, except the peers' helpers (run by --python, the
venv that scripts/bench.sh makes) and matplotlib for the plot (skipped without it).
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dataset as d  # noqa: E402

EQUAL = "65536/3/2"  # Argon2id 64 MiB, 3 passes, 2 lanes: our default, and the equal cost for peers
CHEAP = "8/1/1"  # the cheapest Argon2id libargon2 takes: our test-only KDF, and KDBX's and cryptfile's cheapest
STORES = ["vault", "vault-agent", "sqlcipher", "keepassxc-cli", "pykeepass", "cryptfile"]


def log(message):
    print(message, file=sys.stderr, flush=True)


# MARK: - Running one fresh process


def run(cmd, stdin_bytes=None, cwd=None, env=None):
    """Runs `cmd` once; returns (seconds, peak RSS in KiB, stdout). Fails loudly on a non-zero exit."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin_bytes is not None:
            inp.write(stdin_bytes)
            inp.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=inp, stdout=out, stderr=err, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.read().decode(errors='replace')[-2000:]}")
        return seconds, usage.ru_maxrss, out.read()


def summary(runs):
    s = sorted(runs)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    return {"median": median, "min": s[0], "runs": runs}


# MARK: - The stores


class Store:
    """One store's files and commands. `setting` is 'cheap' or 'equal'."""

    name = ""

    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.files = {}

    def path(self, n, setting):
        return self.files[(n, setting)]


class Vault(Store):
    name = "vault"

    def make(self, n, setting):
        path = os.path.join(self.work, f"vault-{n}-{setting}.vault")
        if os.path.exists(path):
            os.unlink(path)
        kdf = CHEAP if setting == "cheap" else EQUAL
        run([self.args.vault_bench, "make", "--n", str(n), "--kdf", kdf, "--password-file", self.args.pwfile, path])
        self.files[(n, setting)] = path
        return path

    def op(self, op, n, setting, run_index):
        vt, pw, path = self.args.vaulttool, self.args.pwfile, self.path(n, setting)
        i = d.get_index(n) if op == "get" else d.set_index(n)
        select = ["--service", d.service(i), "--account", d.account(i)]
        if op == "get":
            return run([vt, "get", "--password-file", pw, *select, path])
        if op == "set":
            return run([vt, "set", "--password-file", pw, *select, path], d.new_secret(run_index).encode())
        if op == "list":
            return run([vt, "list", "--password-file", pw, "--json", path])
        if op == "verify":
            return run([vt, "verify", "--password-file", pw, path])
        raise KeyError(op)


class VaultAgent(Store):
    """vaulttool through a warm `vaulttool agent` (Spec/agent.md): each vault unlocked once, then
    every fresh-process get gives no credential. Shares the vault store's files."""

    name = "vault-agent"

    def __init__(self, args, work, vault):
        super().__init__(args, work)
        self.vault = vault
        self.socket = os.path.join(work, "agent", "agent.sock")
        self.process = subprocess.Popen([args.vaulttool, "agent", "--foreground", "--socket", self.socket,
                                         "--idle-timeout", "0", "--max-lifetime", "0"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(self.socket):
                break
            time.sleep(0.05)
        self.env = {**os.environ, "VAULT_AGENT_SOCK": self.socket}

    def make(self, n, setting):
        path = self.vault.path(n, setting)
        subprocess.run([self.args.vaulttool, "unlock", "--password-file", self.args.pwfile, path], env=self.env,
                       check=True, stdout=subprocess.DEVNULL)
        self.files[(n, setting)] = path
        return path

    def op(self, op, n, setting, run_index):
        i = d.get_index(n)
        if op == "get":
            return run([self.args.vaulttool, "get", "--service", d.service(i), "--account", d.account(i),
                        self.path(n, setting)], env=self.env)
        raise KeyError(op)

    def resident_kib(self):
        """The agent's peak resident set (VmHWM), in KiB."""
        with open(f"/proc/{self.process.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))

    def stop(self):
        self.process.terminate()
        self.process.wait()


class SQLCipher(Store):
    """The sqlcipher shell (SQLCipher 3: PBKDF2-HMAC-SHA1, kdf_iter iterations)."""

    name = "sqlcipher"

    def __init__(self, args, work, iterations):
        super().__init__(args, work)
        self.iterations = iterations  # {'cheap': 1, 'equal': time-matched}

    def prologue(self, setting):
        return f"PRAGMA key = '{d.PASSWORD}';\nPRAGMA kdf_iter = {self.iterations[setting]};\n"

    def make(self, n, setting):
        path = os.path.join(self.work, f"sqlcipher-{n}-{setting}.db")
        if os.path.exists(path):
            os.unlink(path)
        lines = [
            self.prologue(setting),
            "CREATE TABLE items (service TEXT NOT NULL, account TEXT NOT NULL, secret TEXT NOT NULL,"
            " PRIMARY KEY (service, account));\nBEGIN;\n",
        ]
        lines += [f"INSERT INTO items VALUES ('{d.service(i)}', '{d.account(i)}', '{d.secret(i)}');\n" for i in range(n)]
        lines.append("COMMIT;\n")
        run(["sqlcipher", path], "".join(lines).encode())
        self.files[(n, setting)] = path
        return path

    def op(self, op, n, setting, run_index):
        if op == "get":
            i = d.get_index(n)
            sql = f"SELECT secret FROM items WHERE service = '{d.service(i)}' AND account = '{d.account(i)}';\n"
        elif op == "set":
            i = d.set_index(n)
            sql = f"INSERT OR REPLACE INTO items VALUES ('{d.service(i)}', '{d.account(i)}', '{d.new_secret(run_index)}');\n"
        elif op == "list":
            sql = "SELECT service, account FROM items;\n"
        elif op == "verify":
            sql = "PRAGMA integrity_check;\n"
        else:
            raise KeyError(op)
        return run(["sqlcipher", self.path(n, setting)], (self.prologue(setting) + sql).encode())


class KDBXFiles(Store):
    """KDBX 4 files made by pykeepass with the chosen Argon2id cost; shared by pykeepass and keepassxc-cli."""

    def make(self, n, setting):
        path = os.path.join(self.work, f"{self.name}-{n}-{setting}.kdbx")
        if os.path.exists(path):
            os.unlink(path)
        kdf = CHEAP if setting == "cheap" else EQUAL
        run([self.args.python, os.path.join(HERE, "kdbx.py"), "make", path, str(n), kdf])
        self.files[(n, setting)] = path
        return path


class PyKeePass(KDBXFiles):
    name = "pykeepass"

    def op(self, op, n, setting, run_index):
        script, path = os.path.join(HERE, "kdbx.py"), self.path(n, setting)
        if op == "get":
            return run([self.args.python, script, "get", path, str(d.get_index(n))])
        if op == "set":
            return run([self.args.python, script, "set", path, str(d.set_index(n)), str(run_index)])
        if op == "list":
            return run([self.args.python, script, "list", path])
        raise KeyError(op)


class KeePassXC(KDBXFiles):
    name = "keepassxc-cli"

    def op(self, op, n, setting, run_index):
        path, password = self.path(n, setting), (d.PASSWORD + "\n").encode()
        if op == "get":
            return run(["keepassxc-cli", "show", "-q", "-s", "-a", "Password", path, d.service(d.get_index(n))], password)
        if op == "set":
            new = (d.new_secret(run_index) + "\n").encode()
            return run(["keepassxc-cli", "edit", "-q", "-p", path, d.service(d.set_index(n))], password + new + new)
        if op == "list":
            return run(["keepassxc-cli", "ls", "-q", "-R", "-f", path], password)
        raise KeyError(op)


class CryptFile(Store):
    name = "cryptfile"

    def kdf(self, setting):
        return CHEAP if setting == "cheap" else EQUAL

    def make(self, n, setting):
        path = os.path.join(self.work, f"cryptfile-{n}-{setting}.cfg")
        if os.path.exists(path):
            os.unlink(path)
        run([self.args.python, os.path.join(HERE, "cryptfile.py"), "make", path, str(n), self.kdf(setting)])
        self.files[(n, setting)] = path
        return path

    def op(self, op, n, setting, run_index):
        script, path, kdf = os.path.join(HERE, "cryptfile.py"), self.path(n, setting), self.kdf(setting)
        if op == "get":
            return run([self.args.python, script, "get", path, str(d.get_index(n)), kdf])
        if op == "set":
            return run([self.args.python, script, "set", path, str(d.set_index(n)), str(run_index), kdf])
        if op == "list":
            return run([self.args.python, script, "list", path, kdf])
        raise KeyError(op)


# MARK: - Measuring


def calibrate_sqlcipher(args, work, argon2_seconds):
    """PBKDF2 iterations whose cost matches one Argon2id 64 MiB/3/2 on this machine, in this run."""
    probe = SQLCipher(args, work, {"cheap": 1, "equal": 200_000})
    probe.make(100, "cheap")
    probe.make(100, "equal")
    cheap = summary([probe.op("get", 100, "cheap", 0)[0] for _ in range(5)])["median"]
    slow = summary([probe.op("get", 100, "equal", 0)[0] for _ in range(5)])["median"]
    per_iteration = max(slow - cheap, 1e-6) / (200_000 - 1)
    return max(1, int(round(argon2_seconds / per_iteration)))


def peak_rss(store, op, n, setting):
    """Peak resident memory of one more run, in KiB, measured by /usr/bin/time -f %M.

    Not from this driver's wait4: Linux carries the forking Python's high-water mark across exec.
    """
    global run
    plain = run

    def wrapped(cmd, stdin_bytes=None, cwd=None, env=None):
        with tempfile.NamedTemporaryFile() as f:
            result = plain(["/usr/bin/time", "-f", "%M", "-o", f.name, *cmd], stdin_bytes, cwd, env)
            return result[0], int(open(f.name).read().split()[-1]), result[2]

    run = wrapped
    try:
        return store.op(op, n, setting, 99)[1]
    finally:
        run = plain


def measure(stores, plan, runs, results):
    """Runs each (op, setting, n) of `plan` `runs` times per store, round-robin across stores."""
    for op, setting, sizes in plan:
        for n in sizes:
            active = [s for s in stores if (n, setting) in s.files and s.supports(op, n)]
            if not active:
                continue
            samples = {s.name: ([], []) for s in active}
            for r in range(runs):
                for s in active:
                    seconds, rss, _ = s.op(op, n, setting, r)
                    samples[s.name][0].append(seconds)
                    samples[s.name][1].append(rss)
            for s in active:
                times, _ = samples[s.name]
                row = {"store": s.name, "op": f"{op}-{setting}", "n": n, **summary(times), "max_rss_kib": peak_rss(s, op, n, setting)}
                results.append(row)
                log(f"  {s.name:14} {op}-{setting:5} N={n:<7} median {row['median']*1000:9.1f} ms  min {row['min']*1000:9.1f} ms")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vaulttool", required=True)
    p.add_argument("--vault-bench", required=True)
    p.add_argument("--python", default=sys.executable, help="the venv's python, for the peers")
    p.add_argument("--out", required=True)
    p.add_argument("--work", required=True, help="a scratch directory; every file is written and synced here")
    p.add_argument("--sizes", default="100,1000,10000,100000")
    p.add_argument("--peer-sizes", default="100,1000,10000", help="KDBX and cryptfile sizes (they are slow)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--smoke", action="store_true", help="our side only")
    args = p.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    peer_sizes = [int(x) for x in args.peer_sizes.split(",")]
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    args.pwfile = os.path.join(args.work, "password")
    with open(args.pwfile, "w") as f:
        f.write(d.PASSWORD)
    started = time.time()
    results = []

    # 1. In process: vault-bench prints one JSON object per line.
    log(f"in process: N = {sizes}")
    unlock_kdf = CHEAP if args.smoke else EQUAL
    _, _, out = run([args.vault_bench, "inprocess", "--sizes", ",".join(map(str, sizes)), "--runs", str(args.runs),
                     "--dir", args.work, "--password-file", args.pwfile, "--unlock-kdf", unlock_kdf])
    for line in out.decode().splitlines():
        results.append(json.loads(line))
    argon2 = next(r for r in results if r["op"] == "argon2-floor")
    if args.smoke:
        # Format 3 beside format 2.0 (issue 21): its own script at full size
        # (scripts/bench-format3.sh); here only that every measurement still runs.
        for cmd in (["formats", "--sizes", ",".join(map(str, sizes)), "--rounds", str(args.runs)],
                    ["growth", "--n", str(sizes[-1]), "--commits", "20"],
                    ["tail", "--n", str(sizes[-1]), "--tail", "4096", "--rounds", str(args.runs)]):
            _, _, out = run([args.vault_bench, *cmd, "--dir", args.work, "--password-file", args.pwfile])
            for line in out.decode().splitlines():
                results.append({**json.loads(line), "store": "vault-format3"})

    # 2. Fresh processes.
    vault = Vault(args, args.work)
    vault.supports = lambda op, n: True
    agent = VaultAgent(args, args.work, vault)
    agent.supports = lambda op, n: op == "get"
    stores = [vault, agent]
    if not args.smoke:
        iterations = calibrate_sqlcipher(args, args.work, argon2["median"])
        log(f"sqlcipher: PBKDF2-SHA1 kdf_iter {iterations} matches Argon2id {EQUAL} ({argon2['median']*1000:.0f} ms)")
        sqlcipher = SQLCipher(args, args.work, {"cheap": 1, "equal": iterations})
        sqlcipher.supports = lambda op, n: True
        kdbx = [KeePassXC(args, args.work), PyKeePass(args, args.work)]
        cryptfile = CryptFile(args, args.work)
        for s in kdbx + [cryptfile]:
            s.supports = lambda op, n: op != "verify" and n in peer_sizes
        stores += [sqlcipher] + kdbx + [cryptfile]
        results.append({"store": "sqlcipher", "op": "kdf_iter", "n": 0, "median": iterations, "min": iterations, "runs": []})
    baseline = summary([run([args.vaulttool, "--version"])[0] for _ in range(max(args.runs, 11))])
    results.append({"store": "vault", "op": "process-start", "n": 0, **baseline})

    for setting in ["cheap"] if args.smoke else ["cheap", "equal"]:
        for n in sizes:
            for s in stores:
                if not s.supports("get", n):
                    continue
                if isinstance(s, PyKeePass):  # keepassxc-cli and pykeepass share one KDBX file per size and cost
                    s.files[(n, setting)] = next(k for k in stores if isinstance(k, KeePassXC)).files[(n, setting)]
                    continue
                start = time.perf_counter()
                path = s.make(n, setting)
                made = time.perf_counter() - start
                size = os.path.getsize(path)
                if setting == "cheap" and not isinstance(s, VaultAgent):
                    results.append({"store": s.name, "op": "make-fresh", "n": n, "median": made, "min": made, "runs": [made]})
                    results.append({"store": s.name, "op": "bytes", "n": n, "median": size, "min": size, "runs": [size],
                                    "per_item": size / n})
                log(f"made {s.name} N={n} {setting}: {size} bytes in {made:.1f} s")

    plan = [
        ("get", "cheap", sizes),
        ("set", "cheap", sizes),
        ("list", "cheap", sizes),
        ("verify", "cheap", sizes),
    ]
    if not args.smoke:
        plan += [("get", "equal", sizes), ("set", "equal", sizes)]
    measure(stores, plan, args.runs, results)
    results.append({"store": "vault-agent", "op": "agent-rss", "n": 0, "median": agent.resident_kib(), "min": 0,
                    "runs": [], "vaults": len(agent.files)})
    agent.stop()

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}",
        "cpu": cpu_model(),
        "seconds": time.time() - started,
        "runs": args.runs,
        "sizes": sizes,
        "peer_sizes": peer_sizes,
        "smoke": args.smoke,
        "versions": versions(args),
    }
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    report = render(meta, results, args.smoke)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(report)
    print(report)
    plot(results, os.path.join(args.out, "bench.png"))
    log(f"done in {time.time() - started:.0f} s; results in {args.out}")
    if args.smoke:
        check_smoke(results, sizes)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def versions(args):
    out = {}
    for name, cmd in [("vaulttool", [args.vaulttool, "--version"]), ("sqlcipher", ["sqlcipher", "-version"]),
                      ("keepassxc-cli", ["keepassxc-cli", "--version"])]:
        try:
            out[name] = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        code = "import importlib.metadata as m; print(m.version('pykeepass'), m.version('keyrings.cryptfile'), m.version('argon2-cffi'))"
        out["python-peers"] = subprocess.run([args.python, "-c", code], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    return out


def check_smoke(results, sizes):
    """The smoke fails when a measurement is missing, so that the suite cannot rot silently."""
    ops = {(r["op"], r["n"]) for r in results if r["store"] == "vault"}
    wanted = [("unlock", 0), ("argon2-floor", 0)]
    for n in sizes:
        wanted += [(op, n) for op in ["create", "bytes", "get-inproc", "set-inproc", "write-fsync-floor", "list-inproc",
                                      "verify-inproc", "rekey-inproc", "get-cheap", "set-cheap", "list-cheap", "verify-cheap"]]
    agent_ops = {(r["op"], r["n"]) for r in results if r["store"] == "vault-agent"}
    format3 = {(r["op"], r["n"], r.get("format") or r.get("file")) for r in results if r["store"] == "vault-format3"}
    wanted3 = [(op, n, f) for n in sizes for f in ["2.0", "3"]
               for op in ["bytes", "get-inproc", "get-inproc-position", "set-inproc", "set-floor", "list-inproc", "verify-inproc"]]
    wanted3 += [(op, sizes[-1], None) for op in ["growth-appended-bytes", "growth-set-inplace", "tail-set-clean", "tail-set-tail"]]
    wanted3 += [("tail-get-inproc", sizes[-1], f) for f in ["clean", "tail", "torn", "bulk"]]
    missing = [w for w in wanted if w not in ops] + [("get-cheap", n) for n in sizes if ("get-cheap", n) not in agent_ops]
    missing += [w for w in wanted3 if w not in format3]
    wanted += wanted3
    if missing:
        sys.exit(f"bench-smoke: missing measurements {missing}")
    print(f"bench-smoke: {len(wanted)} measurements, 0 missing")


# MARK: - Report


def ms(seconds):
    if seconds is None:
        return "-"
    if seconds >= 10:
        return f"{seconds:,.1f} s"
    if seconds >= 1:
        return f"{seconds * 1000:,.0f} ms"
    if seconds >= 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds >= 0.001:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1e6:.0f} µs"


def find(results, store, op, n):
    return next((r for r in results if r["store"] == store and r["op"] == op and r["n"] == n), None)


def render(meta, results, smoke):
    lines = [
        f"Run: {meta['date']}; {meta['machine']}; {meta['cpu']}; {meta['runs']} runs per cell; "
        f"whole run {meta['seconds']:.0f} s.",
        "",
        "Versions: " + "; ".join(f"{k}: {v}" for k, v in meta["versions"].items()),
        "",
    ]
    sizes = meta["sizes"]
    argon2 = find(results, "vault", "argon2-floor", 0)
    unlock = find(results, "vault", "unlock", 0)

    lines += ["### Ours, in one process (median / min)", "",
              "| operation | " + " | ".join(f"N = {n:,}" for n in sizes) + " |",
              "|---|" + "---|" * len(sizes)]
    names = [
        ("create", "create N items, one transaction (KDF 8 KiB/1/1)"),
        ("get-inproc", "open + get one, keys held (no KDF)"),
        ("get-inproc-cheapkdf", "open + get one with credentials, KDF 8 KiB/1/1"),
        ("set-inproc", "set one (full commit, keys held)"),
        ("write-fsync-floor", "write + fsync a file of the same size"),
        ("list-inproc", "list every item's attributes"),
        ("verify-inproc", "verify every record"),
        ("get-inproc-rollback", "open + get one, keys held, with the rollback check"),
        ("get-inproc-unchecked", "the same without it (interleaved)"),
        ("set-inproc-rollback", "set one, with the rollback check"),
        ("set-inproc-unchecked", "the same without it (interleaved)"),
        ("rekey-inproc", "rekey: new master key, reseal every record, commit (KDF 8 KiB/1/1)"),
    ]
    for op, label in names:
        cells = []
        for n in sizes:
            r = find(results, "vault", op, n)
            cells.append(f"{ms(r['median'])} / {ms(r['min'])}" if r else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for n in sizes:
        s, f = find(results, "vault", "set-inproc", n), find(results, "vault", "write-fsync-floor", n)
        cells.append(f"{s['median'] / f['median']:.1f}x" if s and f else "-")
    lines.append("| set one ÷ write + fsync (medians) | " + " | ".join(cells) + " |")
    cells = []
    for n in sizes:
        r = find(results, "vault", "bytes", n)
        cells.append(f"{r['per_item']:.1f}" if r else "-")
    lines.append("| bytes on disk per item | " + " | ".join(cells) + " |")
    rest = find(results, "vault", "unlock-cheapkdf", 0)
    lines += ["", f"Unlock ({unlock.get('kdf')}): {ms(unlock['median'])} / {ms(unlock['min'])}; libargon2 alone, same "
              f"parameters, interleaved: {ms(argon2['median'])} / {ms(argon2['min'])}. "
              f"Unlock of a vault whose KDF is 8 KiB/1/1 (unwrap, ~30 subkeys, header MAC): {ms(rest['median'])}, "
              f"of which libargon2 {ms(find(results, 'vault', 'argon2-floor-cheapkdf', 0)['median'])}.", ""]

    lines += ["### Fresh processes, every store (median / min; ratio = peer ÷ vault, medians)", ""]
    stores = [s for s in STORES if any(r["store"] == s and r["op"].endswith(("-cheap", "-equal")) for r in results)]
    lines += ["| operation | N | " + " | ".join(stores) + " |", "|---|---|" + "---|" * len(stores)]
    ops = ["get-cheap", "set-cheap", "list-cheap", "verify-cheap", "get-equal", "set-equal"]
    for op in ops:
        for n in sizes:
            ours = find(results, "vault", op, n)
            if not ours:
                continue
            cells = []
            for s in stores:
                r = find(results, s, op, n)
                if not r:
                    cells.append("-")
                elif s == "vault":
                    cells.append(f"{ms(r['median'])} / {ms(r['min'])}")
                else:
                    cells.append(f"{ms(r['median'])} / {ms(r['min'])} ({r['median'] / ours['median']:.1f}x)")
            lines.append(f"| {op} | {n:,} | " + " | ".join(cells) + " |")
    for label, op, key, fmt in [("bytes per item", "bytes", "per_item", "{:.0f}"),
                                 ("peak RSS of get-cheap", "get-cheap", "max_rss_kib", "{:,} KiB"),
                                 ("making the file (1 run)", "make-fresh", "median", None)]:
        for n in sizes:
            if not find(results, "vault", op, n):
                continue
            cells = []
            for s in stores:
                r = find(results, s, op, n)
                cells.append("-" if not r else (ms(r[key]) if fmt is None else fmt.format(int(r[key]) if "RSS" in label else r[key])))
            lines.append(f"| {label} | {n:,} | " + " | ".join(cells) + " |")
    start = find(results, "vault", "process-start", 0)
    lines += ["", f"`vaulttool --version` (process start, no vault): {ms(start['median'])} / {ms(start['min'])}."]
    kdf_iter = find(results, "sqlcipher", "kdf_iter", 0)
    if kdf_iter:
        lines.append(f"SQLCipher's time-matched PBKDF2-HMAC-SHA1: kdf_iter = {kdf_iter['median']:,} "
                     f"(matches libargon2 {EQUAL} = {ms(argon2['median'])} in this run); cheapest: kdf_iter = 1.")
    if smoke:
        lines += ["", "(smoke run: tiny N and a cheap unlock KDF, so the targets are not judged)"]
    else:
        lines += ["", "### Targets", "", "| target | measured | ratio | verdict |", "|---|---|---|---|"]
        lines += targets(results, sizes, smoke)
    return "\n".join(lines) + "\n"


def targets(results, sizes, smoke):
    rows = []

    def row(target, measured, ratio, ok):
        rows.append(f"| {target} | {measured} | {ratio} | {'met' if ok else '**missed**'} |")

    argon2 = find(results, "vault", "argon2-floor", 0)
    unlock = find(results, "vault", "unlock", 0)
    rest = find(results, "vault", "unlock-cheapkdf", 0)
    overhead = rest["median"] / argon2["median"]
    row("unlock ≤ libargon2 + 5 %", f"unlock {ms(unlock['median'])}, libargon2 {ms(argon2['median'])}; non-Argon2 part "
        f"{ms(rest['median'])}", f"{unlock['median'] / argon2['median']:.3f} (min/min {unlock['min'] / argon2['min']:.3f}; "
        f"non-Argon2 part {overhead * 100:.2f} %)", overhead < 0.05)
    for op, label in [("get-cheap", "fresh get"), ("set-cheap", "fresh set")]:
        ours, theirs = find(results, "vault", op, 10000), find(results, "sqlcipher", op, 10000)
        if ours and theirs:
            ratio = ours["median"] / theirs["median"]
            row(f"{label} at 10,000, cheapest KDF ≤ SQLCipher shell", f"{ms(ours['median'])} vs {ms(theirs['median'])}",
                f"{ratio:.2f}", ratio <= 1.0)
    big = max(sizes)
    g = find(results, "vault", "get-inproc", big)
    if g:
        row(f"open + get in process, no KDF, at {big:,} ≤ 5 ms", ms(g["median"]), f"{g['median'] / 0.005:.2f} of 5 ms",
            g["median"] <= 0.005)
        small = find(results, "vault", "get-inproc", big // 10)
        if small:
            growth = g["median"] / small["median"]
            row(f"… growing no faster than the index ({big // 10:,} → {big:,}: 10x)", f"{ms(small['median'])} → {ms(g['median'])}",
                f"{growth:.1f}x", growth <= 10.5)
    s, f = find(results, "vault", "set-inproc", big), find(results, "vault", "write-fsync-floor", big)
    if s and f:
        ratio = s["median"] / f["median"]
        row(f"set one at {big:,} ≤ 1.5x write + fsync", f"{ms(s['median'])} vs {ms(f['median'])}", f"{ratio:.2f}x", ratio <= 1.5)
    c = find(results, "vault", "create", big)
    if c:
        budget = 1.0 + argon2["median"]
        row(f"create {big:,} in one transaction < 1 s + one KDF", f"{ms(c['median'])} + one KDF ({ms(argon2['median'])})",
            f"{(c['median'] + argon2['median']) / budget:.2f} of budget", c["median"] < 1.0)
    k = find(results, "vault", "rekey-inproc", 10000)
    if k:
        row("rekey of 10,000 items < 100 ms + one KDF", f"{ms(k['median'])} + one KDF ({ms(argon2['median'])})",
            f"{k['median'] / 0.1:.2f} of 100 ms", k["median"] < 0.1)
    for peer, get_x, set_x in [("keepassxc-cli", 8, 12), ("pykeepass", 8, 12), ("cryptfile", 10, 10)]:
        for op, want in [("get-equal", get_x), ("set-equal", set_x)]:
            ours, theirs = find(results, "vault", op, 10000), find(results, peer, op, 10000)
            if ours and theirs:
                ratio = theirs["median"] / ours["median"]
                row(f"{op} at 10,000, equal Argon2id: ≥ {want}x faster than {peer}",
                    f"{ms(ours['median'])} vs {ms(theirs['median'])}", f"{ratio:.1f}x", ratio >= want)
    a = find(results, "vault-agent", "get-cheap", 10000)
    sq = find(results, "sqlcipher", "get-cheap", 10000)
    if a and sq:
        ratio = a["median"] / sq["median"]
        row("get through the agent at 10,000 ≤ 0.5x SQLCipher shell get (cheapest)",
            f"{ms(a['median'])} vs {ms(sq['median'])}", f"{ratio:.2f}", ratio <= 0.5)
    a, kx = find(results, "vault-agent", "get-equal", 10000), find(results, "keepassxc-cli", "get-equal", 10000)
    if a and kx:
        ratio = kx["median"] / a["median"]
        row("get through the agent at 10,000 ≥ 20x faster than keepassxc-cli, equal Argon2id",
            f"{ms(a['median'])} vs {ms(kx['median'])}", f"{ratio:.1f}x", ratio >= 20)
    rss = find(results, "vault-agent", "agent-rss", 0)
    if rss:
        row(f"agent resident memory holding {rss['vaults']} vaults < 10 MiB + index", f"{rss['median'] / 1024:.1f} MiB",
            f"{rss['median'] / 1024 / 10:.2f} of 10 MiB", rss["median"] < 10 * 1024)
    for n in sizes:
        b = find(results, "vault", "bytes", n)
        if b and n >= 1000:
            row(f"≤ 192 bytes per item at {n:,}", f"{b['per_item']:.1f} B", f"{b['per_item'] / 192:.3f}", b["per_item"] <= 192)
    r = find(results, "vault", "get-cheap", 10000)
    if r:
        row("peak RSS of a cheap-KDF get at 10,000 < 25 MiB", f"{r['max_rss_kib'] / 1024:.1f} MiB",
            f"{r['max_rss_kib'] / 1024 / 25:.2f}", r["max_rss_kib"] < 25 * 1024)
    return rows


def plot(results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is missing: no plot")
        return
    panels = [
        ("get one, fresh process, cheapest KDF", "get-cheap"),
        ("set one, fresh process, cheapest KDF", "set-cheap"),
        ("get one, fresh process, Argon2id 64 MiB/3/2 (time-matched)", "get-equal"),
        ("set one, fresh process, Argon2id 64 MiB/3/2 (time-matched)", "set-equal"),
        ("list all, fresh process, cheapest KDF", "list-cheap"),
        ("vault in process (no KDF)", None),
    ]
    fig, axes = plt.subplots(3, 2, figsize=(13, 14))
    for ax, (title, op) in zip(axes.flat, panels):
        if op is None:
            series = [(o, o) for o in ["create", "get-inproc", "set-inproc", "write-fsync-floor", "list-inproc", "verify-inproc"]]
            for label, o in series:
                pts = sorted((r["n"], r["median"]) for r in results if r["store"] == "vault" and r["op"] == o)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        else:
            for store in STORES:
                pts = sorted((r["n"], r["median"]) for r in results if r["store"] == store and r["op"] == op)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=store)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("items (N)")
        ax.set_ylabel("seconds (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    log(f"plot: {path}")


if __name__ == "__main__":
    main()
