#!/usr/bin/env python3
"""Compares two dbus-monitor traces of the same client run against two Secret Service providers.

    scripts/secret-service-traces.py REFERENCE.txt CANDIDATE.txt

Each trace is reduced to what a client can observe: every call it made to the provider, in the
order it made them, with the reply (its kind, an error's name, and its body), and the signals the
provider sent, with their bodies. Object paths are renamed by first appearance (collection C1,
item I1, session S1, prompt P1), so gnome-keyring's `collection/login/1` and vaulttool's
`collection/v/<item ID>` compare equal; times, serials, unique names and 64-bit numbers
(timestamps) are left out, and byte arrays compare by length (DH values, IVs, ciphertexts) or,
when dbus-monitor prints them as text, by content (a plain session's secret); the entries of a
dictionary and a list of objects compare as sets, and objects only one provider has
(ONE_SIDED_PATHS) are left out of arrays.

The calls must agree one for one: when a client made another call, or got another kind of answer,
it saw a different provider. Signals are compared as a multiset, because providers emit them at
different moments around a reply. NORMALIZE and KNOWN list the differences Spec/secret-service.md
argues for, each with the side it applies to; in the candidate's trace, every content type a
GetSecret or GetSecrets answers must be the one the item was stored with.

Prints the differences, and exits 1 when there is one that NORMALIZE and KNOWN do not cover.
"""

import re
import sys
from collections import Counter

SERVICE = "org.freedesktop.secrets"
HEADER = re.compile(r"^(method call|method return|error|signal) ")

# Objects only one provider has, left out of every array: gnome-keyring's in-memory "session"
# collection (vault keeps every item in a file; Spec/secret-service.md §2).
ONE_SIDED_PATHS = {"/org/freedesktop/secrets/collection/session"}

# Answers that differ by decision, made equal before comparing: (pattern, replacement, sides),
# sides "both" or "reference" (gnome-keyring's trace alone, so that vaulttool's cannot hide there).
NORMALIZE = [
    # A collection's label: gnome-keyring's "Login", vaulttool's vault file name (§3).
    (r'(on (?:C\d+|/org/freedesktop/secrets/aliases/default) \(string "org\.freedesktop\.Secret\.Collection", '
     r'string "Label"\) -> return \(string )"[^"]*"', r'\1"(label)"', "both"),
    (r'(Properties\.GetAll on (?:C\d+|/org/freedesktop/secrets/aliases/default) .*dict\(string "Label", string )"[^"]*"',
     r'\1"(label)"', "both"),
    # DH public values are random numbers below p: a client's or gnome-keyring's is 127 bytes or
    # fewer one time in 256 (neither pads), vaulttool's always 128 (R-SS-12, SessionCipherTests).
    (r'(?<=Service\.OpenSession on /org/freedesktop/secrets \(string "dh)(.*?)bytes\[\d+\](.*?)bytes\[\d+\]',
     r'\1bytes[a DH value]\2bytes[a DH value]', "both"),
    # gnome-keyring 42 at times adds xdg:schema=org.freedesktop.Secret.Generic (and the Type that
    # follows from it) to an item secret-tool stored without one: seen on the first of two items
    # in one run and on neither in the next. vaulttool returns the attributes exactly as sent (the
    # attributes check of secret-service-clients.sh).
    (r', dict\(string "xdg:schema", string "org\.freedesktop\.Secret\.Generic"\)(?=\))', "", "reference"),
    (r'dict\(string "Type", string "org\.freedesktop\.Secret\.Generic"\)', 'dict(string "Type", string "")',
     "reference"),
    # The content type of a returned secret: gnome-keyring 42 answers text/plain whatever the
    # client stored; vaulttool returns what was stored (§6.1, ProviderStoreTests), which
    # stored_types() checks in vaulttool's trace.
    (r'(, bytes\S*, bytes\S*, string )"[^"]*"\)', r'\1"(type)")', "both"),
]

# Signal differences that are decisions, not bugs: (signal in the reference, in the candidate).
KNOWN = {
    # CreateItem with replace=true over an existing item: gnome-keyring announces a new item,
    # vaulttool a changed one (the item keeps its path and identity; Spec/secret-service.md §6).
    ("ItemCreated C1", "ItemChanged C1"),
}


def field(line, name):
    m = re.search(name + r"=([^ ;]*)", line)
    return m.group(1) if m else None


def messages(path):
    """(header line, [body lines]) for every message of a dbus-monitor trace."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if HEADER.match(line):
                out.append((line, []))
            elif out and line.startswith(" "):
                out[-1][1].append(line)
    return out


def parse_body(lines):
    """The body as nested tuples: ("array", [...]), ("dict", k, v), ("struct", [...]) or a scalar."""
    tokens = []
    for line in lines:
        text = line.strip()
        while text.startswith("variant"):
            text = text[len("variant"):].strip()
        tokens.append(text)
    pos = 0

    def value():
        nonlocal pos
        text = tokens[pos]
        pos += 1
        if text == "array of bytes [":
            count = 0
            while tokens[pos] != "]":
                count += len(tokens[pos].split())
                pos += 1
            pos += 1
            return ("bytes", f"[{count}]")
        if text.startswith("array of bytes"):
            # dbus-monitor prints bytes that are all printable as a string: the same on both
            # sides when the client sent the same (a plain session's secret).
            return ("bytes", text[len("array of bytes"):].strip())
        for opener, closer, kind in (("array [", "]", "array"), ("dict entry(", ")", "dict"),
                                     ("struct {", "}", "struct")):
            if text == opener:
                items = []
                while tokens[pos] != closer:
                    items.append(value())
                pos += 1
                return (kind, tuple(items))
        return ("scalar", text)

    values = []
    while pos < len(tokens):
        values.append(value())
    return values


class Paths:
    """Object paths renamed by first appearance, per kind."""

    def __init__(self):
        self.names = {}
        self.counts = Counter()

    def rename(self, path):
        base = "/org/freedesktop/secrets"
        if path in (base, "/", base + "/aliases/default") or not path.startswith(base + "/"):
            return path
        rest = path[len(base) + 1:].split("/")
        kind = {"collection": "C" if len(rest) == 2 else "I", "session": "S", "prompt": "P"}.get(rest[0], "O")
        if path not in self.names:
            self.counts[kind] += 1
            self.names[path] = f"{kind}{self.counts[kind]}"
        return self.names[path]


def one_sided(text):
    m = re.match(r'object path "(.*)"$', text)
    return bool(m) and m.group(1) in ONE_SIDED_PATHS


def canonical(value, paths):
    kind = value[0]
    if kind == "bytes":
        return "bytes" + value[1]
    if kind == "scalar":
        text = value[1]
        m = re.match(r'object path "(.*)"$', text)
        if m:
            return "path " + paths.rename(m.group(1))
        if text.startswith(("uint64 ", "int64 ")):
            return text.split(" ")[0]
        return text
    members = [v for v in value[1] if not (v[0] == "scalar" and one_sided(v[1]))]
    items = [canonical(v, paths) for v in members]
    if kind == "array" and all(v[0] == "dict" or (v[0] == "scalar" and v[1].startswith("object path ")) for v in members):
        items.sort()  # a dictionary, or a list of objects (search results, Items): a set
    return f"{kind}({', '.join(items)})"


def observed(path, side):
    """The calls with their answers (normalised for `side`), the signals, and the content types
    answered that differ from the ones stored."""
    msgs = messages(path)
    calls, providers = {}, set()
    for header, _ in msgs:
        if header.startswith("method call") and field(header, "destination") == SERVICE:
            calls[(field(header, "sender"), field(header, "serial"))] = header
    for header, _ in msgs:
        if header.startswith(("method return", "error")):
            if (field(header, "destination"), field(header, "reply_serial")) in calls:
                providers.add(field(header, "sender"))
    paths = Paths()
    types = StoredTypes()
    steps, replies, signals, order = {}, {}, Counter(), []
    for header, body in msgs:
        sender, destination = field(header, "sender"), field(header, "destination")
        if header.startswith("method call") and (destination == SERVICE or destination in providers):
            key = (sender, field(header, "serial"))
            member = field(header, "interface") + "." + field(header, "member")
            values = parse_body(body)
            args = [canonical(v, paths) for v in values]
            steps[key] = f"{member} on {paths.rename(field(header, 'path'))} ({', '.join(args)})"
            types.call(key, field(header, "member"), field(header, "path"), values)
            order.append(key)
        elif header.startswith(("method return", "error")) and sender in providers:
            key = (destination, field(header, "reply_serial"))
            if header.startswith("error"):
                replies[key] = "error " + field(header, "error_name")
            else:
                values = parse_body(body)
                replies[key] = "return (" + ", ".join(canonical(v, paths) for v in values) + ")"
                types.reply(key, values)
        elif header.startswith("signal") and sender in providers:
            args = ", ".join(canonical(v, paths) for v in parse_body(body))
            signals[f"{field(header, 'member')} {paths.rename(field(header, 'path'))} ({args})"] += 1
    lines = [f"{steps[k]} -> {replies.get(k, 'no reply')}" for k in order]
    for pattern, replacement, sides in NORMALIZE:
        if sides == "both" or sides == side:
            lines = [re.sub(pattern, replacement, line) for line in lines]
    return in_set_order(lines), signals, types.errors


def text_of(value):
    """The text of a scalar `string "..."` or `object path "..."`, else None."""
    m = re.match(r'(?:string|object path) "(.*)"$', value[1]) if value[0] == "scalar" else None
    return m.group(1) if m else None


class StoredTypes:
    """The content type each item was stored with (CreateItem, SetSecret), and the answers of
    GetSecret and GetSecrets that name another."""

    def __init__(self):
        self.stored, self.pending, self.errors = {}, {}, []

    @staticmethod
    def secret_type(value):
        # (o session, ay parameters, ay value, s content type)
        return text_of(value[1][3]) if value[0] == "struct" and len(value[1]) == 4 else None

    def call(self, key, member, path, values):
        self.pending[key] = (member, path, values)

    def reply(self, key, values):
        member, path, args = self.pending.pop(key, (None, None, None))
        if member == "CreateItem" and len(args) == 3 and values:
            item = text_of(values[0])
            if item and item != "/":
                self.stored[item] = self.secret_type(args[1])
        elif member == "SetSecret" and args:
            self.stored[path] = self.secret_type(args[0])
        elif member == "GetSecret" and values:
            self.check(path, self.secret_type(values[0]))
        elif member == "GetSecrets" and values and values[0][0] == "array":
            for entry in values[0][1]:
                if entry[0] == "dict":
                    self.check(text_of(entry[1][0]), self.secret_type(entry[1][1]))

    def check(self, item, answered):
        if item in self.stored and self.stored[item] != answered:
            self.errors.append(f"{item}: stored as {self.stored[item]}, answered as {answered}")


def in_set_order(lines):
    """Runs of the same method sorted: a client calls it once per search result, in the result's
    order, which a provider does not define."""
    out, run = [], []
    for line in lines + [None]:
        if run and (line is None or line.split(" on ")[0] != run[0].split(" on ")[0]):
            out += sorted(run)
            run = []
        if line is not None:
            run.append(line)
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 64
    ref_calls, ref_signals, _ = observed(sys.argv[1], "reference")
    new_calls, new_signals, type_errors = observed(sys.argv[2], "candidate")
    unexplained = 0
    for i in range(max(len(ref_calls), len(new_calls))):
        a = ref_calls[i] if i < len(ref_calls) else "(none)"
        b = new_calls[i] if i < len(new_calls) else "(none)"
        if a != b:
            unexplained += 1
            print(f"call {i + 1} differs:\n  reference: {a}\n  candidate: {b}")
            break  # after the first difference the rest follows from it
    for error in type_errors:
        unexplained += 1
        print(f"content type in the candidate: {error}")
    missing, extra = ref_signals - new_signals, new_signals - ref_signals
    for a, b in KNOWN:
        for name_a in [n for n in missing if n.startswith(a + " ")]:
            name_b = b + name_a[len(a):]
            while missing[name_a] and extra[name_b]:
                missing[name_a] -= 1
                extra[name_b] -= 1
                print(f"known: the reference signals {name_a} where the candidate signals {name_b}")
    for name, n in (+missing).items():
        unexplained += 1
        print(f"signal missing in the candidate: {name} ({n}x)")
    for name, n in (+extra).items():
        unexplained += 1
        print(f"signal only in the candidate: {name} ({n}x)")
    print(f"{len(ref_calls)} calls, {sum(ref_signals.values())} signals compared: "
          + ("the same" if unexplained == 0 else f"{unexplained} difference(s)"))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
