#!/usr/bin/env python3
"""Latency of the agent's `lock` and `status` while 300 idle and 10 trickling peers are
connected (Spec/agent.md section 2). Usage: scripts/bench-agent-peers.py VAULTTOOL [ROUNDS].
Starts `VAULTTOOL agent --foreground` on a private socket, opens the peers, then times ROUNDS
lock and status requests from a fresh connection each; prints median, p99 and max in ms."""
import os, socket, statistics, subprocess, sys, tempfile, time

tool = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
work = tempfile.mkdtemp(prefix="agent-bench-")
path = os.path.join(work, "run", "agent.sock")
agent = subprocess.Popen([tool, "agent", "--foreground", "--socket", path],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        if os.path.exists(path): break
        time.sleep(0.05)

    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        return s

    def request(body):
        s = connect()
        s.sendall(len(body).to_bytes(4, "big") + body)
        head = s.recv(4, socket.MSG_WAITALL)
        s.recv(int.from_bytes(head, "big"), socket.MSG_WAITALL)
        s.close()

    lock = bytes([1, 0x03]) + (0).to_bytes(4, "big")
    status = bytes([1, 0x04])
    idle = [connect() for _ in range(300)]
    slow = [connect() for _ in range(10)]
    for s in slow: s.sendall(bytes([0, 0, 0, 40, 1]))
    times = {"lock": [], "status": []}
    for i in range(rounds):
        for s in slow:
            try: s.send(b"\x04")
            except OSError: pass
        for name, body in (("lock", lock), ("status", status)):
            start = time.perf_counter()
            request(body)
            times[name].append((time.perf_counter() - start) * 1000)
        if i % 20 == 19:  # keep 300 idle and 10 trickling peers connected: replace the dropped ones
            for s in idle + slow: s.close()
            idle = [connect() for _ in range(300)]
            slow = [connect() for _ in range(10)]
            for s in slow: s.sendall(bytes([0, 0, 0, 40, 1]))
    for name, values in times.items():
        values.sort()
        p99 = values[int(len(values) * 0.99) - 1]
        print(f"{name}: n={len(values)} median={statistics.median(values):.2f} ms p99={p99:.2f} ms max={values[-1]:.2f} ms")
finally:
    agent.terminate()
    agent.wait()
