#!/usr/bin/python3
"""Python clients of the Secret Service, for scripts/secret-service-clients.sh.

Run by /usr/bin/python3: Debian's python3-keyring, python3-secretstorage and python3-jeepney
live in its dist-packages, which a pyenv python on PATH does not see.

Every subcommand talks to whoever owns org.freedesktop.secrets on the session bus
(DBUS_SESSION_BUS_ADDRESS, set by dbus-run-session), prints one line per case,
`ok <name>`, `FAIL <name>: <why>` or `skip <name> (<why>)`, and exits 1 when a case failed.
The shell script counts those lines.
"""

import base64
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import sys
import time
import traceback

from jeepney import DBusAddress, MessageType, HeaderFields, new_method_call
from jeepney.io.blocking import open_dbus_connection
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

BUS_NAME = 'org.freedesktop.secrets'
SS_PATH = '/org/freedesktop/secrets'
SS = 'org.freedesktop.Secret.'
DEFAULT_ALIAS = '/org/freedesktop/secrets/aliases/default'
# The name libsecret 0.20, python-secretstorage 3.3 and gnome-keyring 42 use, with hyphens
# throughout (strings(1) of libsecret-1.so.0 and gnome-keyring-daemon); gnome-keyring answers
# NotSupported to 'dh-ietf1024-sha256_aes128_cbc_pkcs7' (see the dh-only check).
ALGORITHM_DH = 'dh-ietf1024-sha256-aes128-cbc-pkcs7'
NOT_SUPPORTED = 'org.freedesktop.DBus.Error.NotSupported'
# Every call gets an answer within this many seconds or counts as a hang: a provider must
# never make a client wait for a timeout (KeePassXC's most reported failure).
REPLY_TIMEOUT = 20

failures = 0


def ok(name):
    print(f'ok {name}', flush=True)


def fail(name, why):
    global failures
    failures += 1
    why = ' '.join(str(why).split())  # one line, so the shell can count it
    print(f'FAIL {name}: {why}', flush=True)


def case(name):
    """Decorator-free helper: run fn(), report ok, or FAIL with the exception."""
    def run(fn, *args):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - any failure of a client is a FAIL line
            fail(name, f'{type(e).__name__}: {e}')
            if os.environ.get('SS_DEBUG'):
                traceback.print_exc()
        else:
            ok(name)
    return run


def expect(cond, why):
    if not cond:
        raise AssertionError(why)


# ---------------------------------------------------------------------------------------------
# Raw D-Bus through jeepney: exact error names, our own DH, and messages no library would send.

def address(path, interface):
    return DBusAddress(path, bus_name=BUS_NAME, interface=interface)


def call(conn, path, interface, method, signature=None, *body, timeout=REPLY_TIMEOUT):
    """Returns (error_name or None, body). Raises TimeoutError when no reply comes."""
    msg = new_method_call(address(path, interface), method, signature, tuple(body))
    reply = conn.send_and_get_reply(msg, timeout=timeout)
    if reply.header.message_type == MessageType.error:
        return reply.header.fields.get(HeaderFields.error_name), reply.body
    return None, reply.body


def call_ok(conn, path, interface, method, signature=None, *body):
    err, result = call(conn, path, interface, method, signature, *body)
    if err:
        raise AssertionError(f'{interface}.{method} on {path} answered {err}: {result}')
    return result


def get_property(conn, path, interface, name):
    (sig, value), = call_ok(conn, path, 'org.freedesktop.DBus.Properties', 'Get', 'ss',
                            interface, name)
    return value


# The second Oakley group (RFC 2409, 6.2), g = 2: the spec's dh-ietf1024 group.
DH_PRIME = int(
    'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879'
    '8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B'
    '0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF', 16)


def hkdf_sha256_16(shared_secret_int):
    """The spec's key derivation, written out here rather than taken from secretstorage, so a
    provider that pads the shared secret wrongly cannot agree with a client sharing its bug."""
    ikm = shared_secret_int.to_bytes(128, 'big')  # left-padded to 128 bytes
    prk = hmac.new(b'\x00' * 32, ikm, hashlib.sha256).digest()
    return hmac.new(prk, b'\x01', hashlib.sha256).digest()[:16]


class DHSession:
    """A client that speaks only dh-ietf1024-sha256_aes128_cbc_pkcs7 and never falls back to
    plain, as the Rust secret-service crate in Dh mode does."""

    def __init__(self, conn):
        self.private = int.from_bytes(os.urandom(128), 'big')
        public = pow(2, self.private, DH_PRIME)
        err, body = call(conn, SS_PATH, SS + 'Service', 'OpenSession', 'sv',
                         ALGORITHM_DH, ('ay', public.to_bytes(128, 'big')))
        if err:
            raise AssertionError(f'OpenSession({ALGORITHM_DH}) answered {err}: {body}'
                                 + (' (a DH-only client cannot work)' if err == NOT_SUPPORTED else ''))
        (sig, server_public), self.path = body
        expect(sig == 'ay', f'OpenSession output has signature {sig!r}, not ay')
        y = int.from_bytes(server_public, 'big')
        expect(1 < y < DH_PRIME - 1, 'the server public key is out of range')
        self.shared = pow(y, self.private, DH_PRIME)
        self.key = hkdf_sha256_16(self.shared)

    def encrypt(self, plaintext):
        pad = 16 - len(plaintext) % 16
        iv = os.urandom(16)
        enc = Cipher(algorithms.AES(self.key), modes.CBC(iv)).encryptor()
        return iv, enc.update(plaintext + bytes([pad]) * pad) + enc.finalize()

    def decrypt(self, iv, ciphertext):
        # libsecret's checks: a 16-byte IV, a whole number of blocks, and strict PKCS#7.
        expect(len(iv) == 16, f'secret parameters are {len(iv)} bytes, not a 16-byte IV')
        expect(len(ciphertext) % 16 == 0 and ciphertext,
               f'ciphertext of {len(ciphertext)} bytes is not whole AES blocks')
        dec = Cipher(algorithms.AES(self.key), modes.CBC(bytes(iv))).decryptor()
        padded = dec.update(bytes(ciphertext)) + dec.finalize()
        pad = padded[-1]
        expect(1 <= pad <= 16 and padded[-pad:] == bytes([pad]) * pad,
               'bad PKCS#7 padding (wrong key, or the provider pads differently)')
        return padded[:-pad]

    def close(self, conn):
        call(conn, self.path, SS + 'Session', 'Close')


def create_item(conn, session_path, params, value, attributes, label, replace=True,
                collection=DEFAULT_ALIAS, content_type='application/octet-stream'):
    props = {SS + 'Item.Label': ('s', label), SS + 'Item.Attributes': ('a{ss}', attributes)}
    item, prompt = call_ok(conn, collection, SS + 'Collection', 'CreateItem', 'a{sv}(oayays)b',
                           props, (session_path, params, value, content_type), replace)
    expect(prompt == '/', f'CreateItem asked for a prompt {prompt} on an unlocked collection')
    return item


def search(conn, attributes):
    unlocked, locked = call_ok(conn, SS_PATH, SS + 'Service', 'SearchItems', 'a{ss}', attributes)
    return unlocked, locked


# ---------------------------------------------------------------------------------------------
# b. python3-keyring, SecretService backend forced (it would otherwise pick by priority).

def cmd_keyring():
    import keyring
    import keyring.backends.SecretService
    keyring.set_keyring(keyring.backends.SecretService.Keyring())
    svc, user = 'vault-test.keyring', 'alice'

    def set_get():
        keyring.set_password(svc, user, 'first pw ✓')
        got = keyring.get_password(svc, user)
        expect(got == 'first pw ✓', f'get_password returned {got!r}')
    case('keyring/set-get')(set_get)

    def overwrite():
        keyring.set_password(svc, user, 'second pw')
        got = keyring.get_password(svc, user)
        expect(got == 'second pw', f'after a second set_password, get_password returned {got!r}')
    case('keyring/overwrite')(overwrite)

    def delete():
        keyring.delete_password(svc, user)
        got = keyring.get_password(svc, user)
        expect(got is None, f'after delete_password, get_password returned {got!r}')
    case('keyring/delete')(delete)


# ---------------------------------------------------------------------------------------------
# c. python3-secretstorage: DH (its default), plain forced, a DH-only client, 100 KB binary.

def plain_session(conn):
    from secretstorage.dhcrypto import Session
    (_, _), path = call_ok(conn, SS_PATH, SS + 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))
    session = Session()
    session.encrypted = False
    session.object_path = path
    return session


def roundtrip_secretstorage(conn, session, tag, value):
    import secretstorage
    coll = secretstorage.get_default_collection(conn, session=session)
    attrs = {'vault-test': 'secretstorage', 'case': tag}
    item = coll.create_item(f'secretstorage {tag}', attrs, value, replace=True)
    found = list(coll.search_items(attrs))
    expect(len(found) == 1, f'search found {len(found)} items, not 1')
    got = found[0].get_secret()
    expect(got == value, f'secret read back differs ({len(got)} bytes, not {len(value)})')
    # A second reader on its own connection and session sees the same bytes.
    other = secretstorage.dbus_init()
    try:
        again = [i.get_secret() for i in secretstorage.search_items(other, attrs)]
        expect(again == [value], 'a second connection read a different secret')
    finally:
        other.close()
    item.delete()
    expect(not list(coll.search_items(attrs)), 'the item is still found after Delete')


def cmd_secretstorage():
    import secretstorage
    from secretstorage.util import open_session
    conn = secretstorage.dbus_init()
    big = os.urandom(100 * 1024)

    def dh(value, tag):
        session = open_session(conn)
        # open_session falls back to plain on NotSupported: a provider must not need that.
        expect(session.encrypted, 'secretstorage fell back to a plain session: DH is not offered')
        roundtrip_secretstorage(conn, session, tag, value)
    case('secretstorage/dh')(dh, 'dh pw ✓\nwith a newline'.encode(), 'dh')
    case('secretstorage/dh-100k-binary')(dh, big, 'dh-big')

    def plain(value, tag):
        roundtrip_secretstorage(conn, plain_session(conn), tag, value)
    case('secretstorage/plain')(plain, b'plain pw', 'plain')
    case('secretstorage/plain-100k-binary')(plain, big, 'plain-big')

    def unknown_algorithm():
        err, body = call(conn, SS_PATH, SS + 'Service', 'OpenSession', 'sv',
                         'dh-ietf9999-made-up', ('ay', b'\x02'))
        expect(err == NOT_SUPPORTED, f'an unknown algorithm answered {err or "success"}, '
               f'not {NOT_SUPPORTED} (clients fall back to plain only on that error)')
    case('secretstorage/unknown-algorithm-not-supported')(unknown_algorithm)
    conn.close()


def dh_roundtrip(conn, session, value, tag):
    attrs = {'vault-test': 'dh-only', 'case': tag}
    iv, ct = session.encrypt(value)
    item = create_item(conn, session.path, iv, ct, attrs, f'dh-only {tag}')
    # Item.GetSecret, and Service.GetSecrets as libsecret's lookup calls it.
    (spath, params, secret, ctype), = call_ok(conn, item, SS + 'Item', 'GetSecret', 'o',
                                              session.path)
    expect(spath == session.path, f'GetSecret names session {spath}, not {session.path}')
    expect(session.decrypt(params, secret) == value, 'Item.GetSecret decrypted to other bytes')
    secrets, = call_ok(conn, SS_PATH, SS + 'Service', 'GetSecrets', 'aoo', [item], session.path)
    expect(list(secrets) == [item], f'GetSecrets answered for {list(secrets)}')
    _, params, secret, _ = secrets[item]
    expect(session.decrypt(params, secret) == value, 'Service.GetSecrets decrypted to other bytes')
    call_ok(conn, item, SS + 'Item', 'Delete')


def cmd_dh_only():
    conn = open_dbus_connection(bus='SESSION')

    def simple():
        s = DHSession(conn)
        dh_roundtrip(conn, s, 'dh-only ✓\n'.encode(), 'simple')
        # A value that is a whole number of blocks gets a full block of padding.
        dh_roundtrip(conn, s, b'0123456789abcdef', 'one-block')
        dh_roundtrip(conn, s, os.urandom(100 * 1024), '100k-binary')
        s.close(conn)
    case('dh-only/roundtrip')(simple)

    def leading_zero():
        # pass-secret-service padded the shared secret on the wrong side, and 1 session in 256
        # derived another key than the client (its issue 23). Open sessions until the shared
        # secret's first byte is zero, then use that one. 4000 tries miss with p < 1e-5.
        for attempt in range(1, 4001):
            s = DHSession(conn)
            if s.shared < 1 << (127 * 8):
                dh_roundtrip(conn, s, b'leading zero byte', 'leading-zero')
                s.close(conn)
                print(f'  (shared secret with a leading zero byte after {attempt} sessions)',
                      file=sys.stdout, flush=True)
                return
            s.close(conn)
        raise AssertionError('no session with a leading zero byte in 4000 tries (bad luck?)')
    case('dh-only/leading-zero-shared-secret')(leading_zero)
    conn.close()


# ---------------------------------------------------------------------------------------------
# f. Attributes come back exactly as sent; search is subset matching.

def cmd_attributes():
    import secretstorage
    conn = secretstorage.dbus_init()
    coll = secretstorage.get_default_collection(conn)
    attrs = {
        'xdg:schema': 'org.example.Vault.Test',
        'service': 'attr-svc',
        'user': 'bob',
        'port': '8443',
        'unicode': 'Wert ✓ ü',
        'with space': 'a b  c',
        'colon:name': 'x:y',
    }
    item = coll.create_item('attributes ✓', attrs, b'attr secret', replace=True)

    def exact():
        got = item.get_attributes()
        expect(got == attrs, f'attributes came back as {got}, sent {attrs}')
        # And through a fresh connection, as another program would read them.
        other = secretstorage.dbus_init()
        try:
            found = list(secretstorage.search_items(other, {'service': 'attr-svc'}))
            expect(len(found) == 1, f'{len(found)} items found by service')
            expect(found[0].get_attributes() == attrs, 'another connection reads other attributes')
            expect(found[0].get_label() == 'attributes ✓', f'label {found[0].get_label()!r}')
        finally:
            other.close()
    case('attributes/exact-roundtrip')(exact)

    def subset():
        for query in ({'user': 'bob'}, {'xdg:schema': 'org.example.Vault.Test'},
                      {'unicode': 'Wert ✓ ü', 'port': '8443'}, attrs):
            found = [i.item_path for i in secretstorage.search_items(conn, query)]
            expect(found == [item.item_path], f'Service.SearchItems({query}) found {found}')
            found = [i.item_path for i in coll.search_items(query)]
            expect(found == [item.item_path], f'Collection.SearchItems({query}) found {found}')
    case('attributes/subset-search-finds')(subset)

    def mismatch():
        for query in ({'service': 'attr-svc', 'user': 'WRONG'}, {'user': 'Bob'},
                      {'service': 'attr-svc', 'no-such-attribute': 'bob'},
                      dict(attrs, port='8444'), {'port': '844'}):
            found = [i.item_path for i in secretstorage.search_items(conn, query)]
            expect(found == [], f'Service.SearchItems({query}) found {found}')
            found = [i.item_path for i in coll.search_items(query)]
            expect(found == [], f'Collection.SearchItems({query}) found {found}')
    case('attributes/one-wrong-value-finds-nothing')(mismatch)

    def replace():
        # libsecret and every helper store with replace=true: same attributes, same item.
        again = coll.create_item('attributes replaced', attrs, b'new secret', replace=True)
        found = list(secretstorage.search_items(conn, {'service': 'attr-svc'}))
        expect(len(found) == 1, f'replace=true left {len(found)} items')
        expect(found[0].get_secret() == b'new secret', 'replace=true did not replace the secret')
        expect(again.item_path == found[0].item_path, 'CreateItem returned another path')
        # replace=false with the same attributes is a second item (the freedesktop spec's rule);
        # vaulttool keeps one item per identity and updates it (Spec/secret-service.md R-SS-25).
        coll.create_item('attributes twin', attrs, b'twin', replace=False)
        found = list(secretstorage.search_items(conn, {'service': 'attr-svc'}))
        wanted = 1 if os.environ.get('SS_ONE_ITEM_PER_IDENTITY') else 2
        expect(len(found) == wanted, f'replace=false gave {len(found)} items, not {wanted}')
        for i in found:
            i.delete()
    case('attributes/create-item-replace')(replace)

    def set_attributes():
        it = coll.create_item('set attrs', {'vault-test': 'set', 'a': '1'}, b's', replace=True)
        it.set_attributes({'vault-test': 'set', 'b': '2', 'xdg:schema': 'x.y'})
        got = it.get_attributes()
        expect(got == {'vault-test': 'set', 'b': '2', 'xdg:schema': 'x.y'},
               f'after Set Attributes: {got}')
        expect(not list(coll.search_items({'a': '1'})), 'the old attribute still matches')
        it.delete()
    case('attributes/set-attributes-property')(set_attributes)
    conn.close()


def cmd_show_attributes(query_json):
    """Prints the attributes of every item matching the query, as JSON (for the git check)."""
    import secretstorage
    conn = secretstorage.dbus_init()
    items = list(secretstorage.search_items(conn, json.loads(query_json)))
    print(json.dumps([i.get_attributes() for i in items], sort_keys=True))


# ---------------------------------------------------------------------------------------------
# g. Concurrency: N clients, each on its own connection, M store+lookup of its own keys.

def cmd_concurrency_worker(worker, count):
    count = int(count)
    import secretstorage
    conn = secretstorage.dbus_init()
    coll = secretstorage.get_default_collection(conn)
    wrong = errors = 0
    first_error = ''
    values = {}
    for n in range(count):
        attrs = {'vault-test': 'concurrency', 'worker': worker, 'n': str(n)}
        value = f'{worker}/{n}/{os.urandom(6).hex()}'.encode()
        values[n] = value
        try:
            coll.create_item(f'conc {worker} {n}', attrs, value, replace=True)
            found = list(coll.search_items(attrs))
            if len(found) != 1 or found[0].get_secret() != value:
                wrong += 1
        except Exception as e:  # noqa: BLE001 - counted, the driver reports it
            errors += 1
            first_error = first_error or f'{type(e).__name__}: {e}'
    print(json.dumps({'worker': worker, 'wrong': wrong, 'errors': errors,
                      'first_error': first_error,
                      'values': {str(k): v.decode() for k, v in values.items()}}))


def cmd_concurrency(clients, count):
    clients, count = int(clients), int(count)
    name = f'concurrency/{clients}x{count}'
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, __file__, 'concurrency-worker', str(w), str(count)],
                              stdout=subprocess.PIPE, text=True) for w in range(clients)]
    reports = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            fail(name, f'a worker exited {p.returncode}')
            return
        reports.append(json.loads(out))
    elapsed = time.monotonic() - start
    wrong = sum(r['wrong'] for r in reports)
    errors = sum(r['errors'] for r in reports)
    # Then every value once more, from a fresh client: a write that a later one lost shows here.
    import secretstorage
    conn = secretstorage.dbus_init()
    coll = secretstorage.get_default_collection(conn)
    lost = 0
    for r in reports:
        for n, value in r['values'].items():
            found = list(coll.search_items({'vault-test': 'concurrency', 'worker': r['worker'],
                                            'n': n}))
            if len(found) != 1 or found[0].get_secret() != value.encode():
                lost += 1
    total = len(list(coll.search_items({'vault-test': 'concurrency'})))
    print(f'  ({clients * count * 2} calls of {clients} clients in {elapsed:.1f} s)',
          file=sys.stdout, flush=True)
    if wrong or errors or lost or total != clients * count:
        first = next((r['first_error'] for r in reports if r['first_error']), '')
        fail(name, f'{wrong} wrong and {errors} failed lookups during the run, {lost} lost '
             f'after it, {total} items for {clients * count} keys {first}')
    else:
        ok(name)


# ---------------------------------------------------------------------------------------------
# h. Robustness: malformed calls get a D-Bus error reply at once, and the provider lives on.

def cmd_robustness():
    conn = open_dbus_connection(bus='SESSION')
    (_, _), plain = call_ok(conn, SS_PATH, SS + 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))
    item = create_item(conn, plain, b'', b'still here', {'vault-test': 'robust'}, 'robust')

    def error_reply(name, path, interface, method, signature=None, *body, want=None):
        def run():
            try:
                err, result = call(conn, path, interface, method, signature, *body)
            except TimeoutError:
                raise AssertionError(f'no reply within {REPLY_TIMEOUT} s') from None
            expect(err, f'{method} succeeded: {str(result)[:200]}')
            expect(want is None or err in want, f'answered {err}, expected one of {want}')
            print(f'  ({name}: {err})', file=sys.stdout, flush=True)
        case(f'robustness/{name}')(run)

    svc = SS + 'Service'
    error_reply('wrong-signature', SS_PATH, svc, 'OpenSession', 'i', 7)
    error_reply('wrong-signature-item', item, SS + 'Item', 'GetSecret', 's', plain)
    error_reply('missing-arguments', SS_PATH, svc, 'SearchItems')
    error_reply('unknown-method', SS_PATH, svc, 'NoSuchMethod', 's', 'x')
    error_reply('unknown-interface', SS_PATH, 'org.example.NoSuchInterface', 'Foo')
    error_reply('unknown-object-path', SS_PATH + '/collection/no_such_collection',
                'org.freedesktop.DBus.Properties', 'Get', 'ss', SS + 'Collection', 'Label')
    error_reply('unknown-item-path', item + '_no_such_item', SS + 'Item', 'GetSecret', 'o', plain)
    error_reply('unknown-property', SS_PATH, 'org.freedesktop.DBus.Properties', 'Get', 'ss',
                svc, 'NoSuchProperty')
    error_reply('getsecrets-unknown-session', SS_PATH, svc, 'GetSecrets', 'aoo', [item],
                SS_PATH + '/session/no_such_session')
    error_reply('getsecret-unknown-session', item, SS + 'Item', 'GetSecret', 'o',
                SS_PATH + '/session/no_such_session')
    error_reply('dh-wrong-input-type', SS_PATH, svc, 'OpenSession', 'sv', ALGORITHM_DH,
                ('s', 'not bytes'))

    # A session closed before it is used: the next call must get an error (NoSession), not
    # a secret and not a crash.
    (_, _), closing = call_ok(conn, SS_PATH, svc, 'OpenSession', 'sv', 'plain', ('s', ''))
    call_ok(conn, closing, SS + 'Session', 'Close')
    error_reply('closed-session', item, SS + 'Item', 'GetSecret', 'o', closing)

    # 100k object paths in one message (about 6 MB), in a collection no provider has (so no
    # path names a real item): with an unknown session, an error it must be.
    huge = [f'{SS_PATH}/collection/vault_test_none/{n}' for n in range(100_000)]
    error_reply('huge-array-getsecrets', SS_PATH, svc, 'GetSecrets', 'aoo', huge,
                SS_PATH + '/session/no_such_session')

    def huge_valid_session():
        # The same 100k unknown items with a real session: any reply, error or empty, is fine;
        # no reply or a dead provider is not.
        try:
            err, result = call(conn, SS_PATH, svc, 'GetSecrets', 'aoo', huge, plain)
        except TimeoutError:
            raise AssertionError(f'no reply within {REPLY_TIMEOUT} s') from None
        expect(err or len(result[0]) == 0, f'secrets returned for unknown items: {len(result[0])}')
        print(f'  (huge-array-valid-session: {err or "empty reply"})', file=sys.stdout, flush=True)
    case('robustness/huge-array-valid-session')(huge_valid_session)

    def huge_search():
        # 10k attributes in one search: answered (nothing found), not a hang.
        query = {f'k{n}': 'v' * 20 for n in range(10_000)}
        try:
            err, result = call(conn, SS_PATH, svc, 'SearchItems', 'a{ss}', query)
        except TimeoutError:
            raise AssertionError(f'no reply within {REPLY_TIMEOUT} s') from None
        expect(err or result == ([], []), f'a search of 10k attributes found {result}')
    case('robustness/huge-search')(huge_search)

    def disconnect_before_reply():
        # A client that sends a call and goes away before the answer (a killed git, a
        # closed terminal): the provider's reply goes nowhere, and it must not die of it.
        for _ in range(3):
            c = open_dbus_connection(bus='SESSION')
            c.send(new_method_call(address(SS_PATH, svc), 'GetSecrets', 'aoo', (huge, plain)))
            c.send(new_method_call(address(SS_PATH, svc), 'OpenSession', 'sv',
                                   (ALGORITHM_DH, ('ay', os.urandom(128)))))
            c.close()
        time.sleep(0.5)
    case('robustness/disconnect-before-reply')(disconnect_before_reply)

    def still_answers():
        fresh = open_dbus_connection(bus='SESSION')
        (_, _), s = call_ok(fresh, SS_PATH, svc, 'OpenSession', 'sv', 'plain', ('s', ''))
        unlocked, locked = search(fresh, {'vault-test': 'robust'})
        expect(unlocked == [item], f'the stored item is not found afterwards: {unlocked} {locked}')
        (_, _, value, _), = call_ok(fresh, item, SS + 'Item', 'GetSecret', 'o', s)
        expect(bytes(value) == b'still here', 'the stored secret changed')
        fresh.close()
    case('robustness/still-answers-afterwards')(still_answers)
    conn.close()


# ---------------------------------------------------------------------------------------------
# d. An HTTP server for the git clone check: serves a directory (git's dumb protocol over a
# bare repository after update-server-info), demanding basic auth on every request.

def cmd_http_server(root, user, password, port_file, log_file):
    want = 'Basic ' + base64.b64encode(f'{user}:{password}'.encode()).decode()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=root, **kwargs)

        def do_GET(self):
            if self.headers.get('Authorization') != want:
                self.send_response(401)
                self.send_header('WWW-Authenticate', 'Basic realm="vault-test"')
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
            super().do_GET()

        def log_message(self, fmt, *args):
            with open(log_file, 'a') as f:
                f.write(fmt % args + '\n')

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    with open(port_file + '.tmp', 'w') as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + '.tmp', port_file)
    server.serve_forever()


COMMANDS = {
    'keyring': cmd_keyring,
    'secretstorage': cmd_secretstorage,
    'dh-only': cmd_dh_only,
    'attributes': cmd_attributes,
    'show-attributes': cmd_show_attributes,
    'concurrency': cmd_concurrency,
    'concurrency-worker': cmd_concurrency_worker,
    'robustness': cmd_robustness,
    'http-server': cmd_http_server,
}

if __name__ == '__main__':
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(f'usage: {sys.argv[0]} {"|".join(COMMANDS)} [args]')
    COMMANDS[sys.argv[1]](*sys.argv[2:])
    sys.exit(1 if failures else 0)
