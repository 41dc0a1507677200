"""vault benchmarks: the deterministic items every store is filled with.

Keep in step with Benchmarks/Sources/vault-bench/Dataset.swift: item i has a
20-byte service, a 16-byte account and a 32-byte secret.
"""

PASSWORD = "correct horse battery staple"


def service(i):
    return f"svc.example-{i:08d}"


def account(i):
    return f"account-{i:08d}"


def secret(i):
    return f"secret-{i:025d}"


def new_secret(run):
    return f"newsec-{run:025d}"


def get_index(n):
    return n // 2


def set_index(n):
    return n // 3


def parse_kdf(text):
    """'65536/3/2' -> (memory KiB, passes, lanes)."""
    m, t, p = (int(x) for x in text.split("/"))
    return m, t, p
