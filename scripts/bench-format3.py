"""Tables of issue 21's targets from `vault-bench formats`, `growth` and `tail` (JSON lines).

    python3 scripts/bench-format3.py results.jsonl

Every ratio is format 3 ÷ format 2.0 (or set ÷ its floor) of medians measured in one run, in
interleaved rounds (scripts/bench-format3.sh, BENCHMARKS.md "Format 3 beside format 2.0").
"""

import json
import sys


def ms(seconds):
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} µs"


def main(path):
    results = [json.loads(line) for line in open(path) if line.startswith("{")]
    by = {}
    for r in results:
        by[(r["op"], r["n"], r.get("format", r.get("file")))] = r
    sizes = sorted({r["n"] for r in results if "format" in r})

    def pair(op, n):
        a, b = by.get((op, n, "2.0")), by.get((op, n, "3"))
        return (a, b) if a and b else (None, None)

    lines = ["| measure | N | format 2.0 (median / min) | format 3 (median / min) | 3 ÷ 2.0 (medians) |", "|---|---|---|---|---|"]
    for n in sizes:
        a, b = pair("bytes", n)
        if a:
            lines.append(f"| bytes per item | {n:,} | {a['per_item']:.1f} | {b['per_item']:.1f} | {b['per_item'] / a['per_item']:.3f} |")
    for op, label in [
        ("get-inproc", "open + get one by primary key, keys held"),
        ("get-inproc-position", "open + get through the public `position(of:)`"),
        ("set-inproc", "set one (an update), keys held"),
        ("list-inproc", "list every item's attributes"),
        ("verify-inproc", "verify every record"),
    ]:
        for n in sizes:
            a, b = pair(op, n)
            if a:
                lines.append(
                    f"| {label} | {n:,} | {ms(a['median'])} / {ms(a['min'])} | {ms(b['median'])} / {ms(b['min'])} "
                    f"| {b['median'] / a['median']:.3f} |"
                )
    lines += ["", "| set one ÷ the bytes it must write, written and synced | N | set | floor | ratio (medians) | bytes appended (median) |", "|---|---|---|---|---|---|"]
    for n in sizes:
        for fmt, floor in [("2.0", "create, write and fsync a file of the vault's size"),
                           ("3", "pwrite of the appended bytes, pwrite of a 512-byte slot, fdatasync")]:
            s, f = by.get(("set-inproc", n, fmt)), by.get(("set-floor", n, fmt))
            if not s or not f or not f["runs"]:
                continue
            appended = by.get(("set-appended-bytes", n, None))
            extra = f"{appended['median']:,.0f} ({appended['compactions']} compactions)" if fmt == "3" and appended else "whole file"
            lines.append(
                f"| format {fmt} ({floor}) | {n:,} | {ms(s['median'])} | {ms(f['median'])} | {s['median'] / f['median']:.2f}x | {extra} |"
            )
    growth = [r for r in results if r["op"] == "growth-appended-bytes"]
    for g in growth:
        n = g["n"]
        inplace = by.get(("growth-set-inplace", n, None))
        compaction = by.get(("growth-set-compaction", n, None))
        lines += [
            "",
            f"Growth over {g['commits']} one-item commits at N = {n:,} (format 3): file {g['start_file_bytes']:,} → "
            f"{g['end_file_bytes']:,} bytes (largest {g['largest_file_bytes']:,}); live bytes {g['start_live_bytes']:,} → "
            f"{g['end_live_bytes']:,}; waste at most {g['most_waste_bytes']:,} bytes, {g['mean_waste_bytes']:,.0f} on average; "
            f"appended per in-place commit {g['median']:,.0f} bytes (median, min {g['min']:,.0f}); "
            f"{g['compactions']} compactions (full rewrites, R3-WR-3) at commits {g['compacted_at']}; "
            f"set {ms(inplace['median'])} in place (median)"
            + (f", {ms(compaction['median'])} when it compacts (median of {len(compaction['runs'])})" if compaction and compaction["runs"] else "")
            + ".",
        ]
    tails = [r for r in results if r["op"] == "tail-get-inproc"]
    if tails:
        n = tails[0]["n"]
        lines += ["", f"| file at N = {n:,} | newest commit appended | open + get, keys held | fresh open + get, cheap KDF |", "|---|---|---|---|"]
        for name, label in [("clean", "clean"), ("tail", "with an uncommitted tail"), ("torn", "torn commit (newest slot's bytes damaged)"),
                            ("bulk", "newest commit changed 200 items at once")]:
            g, f = by.get(("tail-get-inproc", n, name)), by.get(("tail-open-get-cheapkdf", n, name))
            if g:
                tail = f" ({g['tail_bytes']:,} bytes)" if g.get("tail_bytes") else ""
                lines.append(f"| {label}{tail} | {g.get('last_commit_bytes', 0):,} bytes | {ms(g['median'])} / {ms(g['min'])} | {ms(f['median'])} / {ms(f['min'])} |")
        c, t = by.get(("tail-set-clean", n, None)), by.get(("tail-set-tail", n, None))
        if c and t:
            lines.append(f"| set one: clean file / file with the tail (cut first, §9.1 step 2) | | {ms(c['median'])} | {ms(t['median'])} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
