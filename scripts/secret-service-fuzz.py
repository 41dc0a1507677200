#!/usr/bin/env python3
"""Random calls at vaulttool secret-service (Spec/secret-service.md R-SS-10: every call is answered, with
a reply or a D-Bus error, and none ends the provider). Usage: secret-service-fuzz.py SEED CALLS, on a
session bus where the provider runs. Well-typed calls (60 %) get random values; the rest random
signatures. A call not answered within 20 s raises. Prints "answered N of N errors E"."""
import random, sys
from jeepney import DBusAddress, new_method_call, MessageType
from jeepney.io.blocking import open_dbus_connection

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
conn = open_dbus_connection(bus="SESSION")
BUS = "org.freedesktop.secrets"

def split(sig):
    """Complete types of a signature."""
    out, i = [], 0
    while i < len(sig):
        j = end(sig, i)
        out.append(sig[i:j]); i = j
    return out

def end(sig, i):
    c = sig[i]
    if c == "a": return end(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        depth, j = 0, i
        while True:
            if sig[j] in "({": depth += 1
            elif sig[j] in ")}": depth -= 1
            j += 1
            if depth == 0: return j
    return i + 1

def value(t, depth=0):
    c = t[0]
    if c == "y": return rng.randrange(256)
    if c == "b": return rng.random() < 0.5
    if c in "nqiuxt": return rng.randrange(0, 1000)
    if c == "d": return rng.random()
    if c == "s": return rng.choice(["org.freedesktop.Secret.Collection", "org.freedesktop.Secret.Item", "Label", "Attributes", "Items", "Locked", "", "plain", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "default", "x" * rng.randrange(5000), "é\u0301", "org.freedesktop.Secret.Item.Label"])
    if c == "o": return rng.choice(paths + ["/", "/org/freedesktop/secrets", "/org/freedesktop/secrets/aliases/default", "/org/freedesktop/secrets/collection/login", "/org/freedesktop/secrets/collection/login/" + "0" * 32, "/org/freedesktop/secrets/session/1", "/org/freedesktop/secrets/prompt/2", "/a/b"])
    if c == "g": return rng.choice(["", "s", "a{ss}"])
    if c == "v":
        inner = rng.choice(["s", "ay", "a{ss}", "u", "ao"])
        return (inner, value(inner, depth + 1))
    if c == "a":
        inner = t[1:]
        n = 0 if depth > 2 else rng.choice([0, 1, 2, 3, 300])
        if inner[0] == "{":
            k, v = split(inner[1:-1])
            return {value(k, depth + 1): value(v, depth + 1) for _ in range(n)}
        if inner == "y": return bytes(rng.randrange(256) for _ in range(rng.choice([0, 16, 128, 300])))
        return [value(inner, depth + 1) for _ in range(n)]
    if c == "(": return tuple(value(x, depth + 1) for x in split(t[1:-1]))
    raise ValueError(t)

paths = ["/org/freedesktop/secrets", "/org/freedesktop/secrets/aliases/default", "/org/freedesktop/secrets/collection/login",
         "/org/freedesktop/secrets/collection/login/" + "0" * 32, "/org/freedesktop/secrets/session/1",
         "/org/freedesktop/secrets/prompt/1", "/org/freedesktop/secrets/collection/nothere", "/"]
members = {
    "org.freedesktop.Secret.Service": ["OpenSession", "CreateCollection", "SearchItems", "Unlock", "Lock", "GetSecrets", "ReadAlias", "SetAlias", "Nope"],
    "org.freedesktop.Secret.Collection": ["CreateItem", "SearchItems", "Delete"],
    "org.freedesktop.Secret.Item": ["GetSecret", "SetSecret", "Delete"],
    "org.freedesktop.Secret.Session": ["Close"],
    "org.freedesktop.Secret.Prompt": ["Prompt", "Dismiss"],
    "org.freedesktop.DBus.Properties": ["Get", "GetAll", "Set"],
}
sigs = ["", "s", "sv", "a{ss}", "ao", "o", "ao" + "o", "a{sv}(oayays)b", "(oayays)", "a{sv}s", "so", "ss", "ssv", "u", "v", "aay", "a(oayays)", "a{oa{ss}}"]
right = {"OpenSession": "sv", "CreateCollection": "a{sv}s", "SearchItems": "a{ss}", "Unlock": "ao", "Lock": "ao",
         "GetSecrets": "aoo", "ReadAlias": "s", "SetAlias": "so", "CreateItem": "a{sv}(oayays)b", "GetSecret": "o",
         "SetSecret": "(oayays)", "Delete": "", "Close": "", "Prompt": "s", "Dismiss": "", "Get": "ss",
         "GetAll": "s", "Set": "ssv", "Nope": ""}
# A real session and a real item, so that well-typed calls reach past the first check.
service = DBusAddress("/org/freedesktop/secrets", bus_name=BUS, interface="org.freedesktop.Secret.Service")
_, session = conn.send_and_get_reply(new_method_call(service, "OpenSession", "sv", ("plain", ("s", "")))).body
collection = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=BUS, interface="org.freedesktop.Secret.Collection")
item, _ = conn.send_and_get_reply(new_method_call(collection, "CreateItem", "a{sv}(oayays)b", (
    {"org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "fuzz", "account": "a"})},
    (session, b"", b"seed", "text/plain"), True))).body
paths += [session, item]
answered = errors = 0
for n in range(calls):
    iface = rng.choice(list(members))
    member = rng.choice(members[iface])
    sig = right[member] if rng.random() < 0.6 else rng.choice(sigs)
    body = tuple(value(t) for t in split(sig))
    msg = new_method_call(DBusAddress(rng.choice(paths), bus_name=BUS, interface=iface), member, sig, body)
    reply = conn.send_and_get_reply(msg, timeout=20)
    if reply.header.message_type == MessageType.error:
        errors += 1
    answered += 1
print("answered", answered, "of", calls, "errors", errors)
