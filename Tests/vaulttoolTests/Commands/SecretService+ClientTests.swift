// vaulttool secret-service driven by real clients on a private session bus (dbus-run-session):
// secret-tool (libsecret, DH session), Python keyring and secretstorage (DH and plain), dbus-send
// for malformed calls (Spec/secret-service.md). scripts/install-test-deps.sh installs them.

import Foundation
import Testing

@Suite("secret-service clients", .serialized)
struct SecretServiceClientTests {
    /// Runs `body` (sh) on a private bus with the provider started as `provider` (words after
    /// `vaulttool`), HOME and the XDG directories inside the workspace; returns stdout and stderr.
    func onBus(_ w: Workspace, provider: String = "secret-service", before: String = "", _ body: String) throws
        -> RunResult
    {
        let script = """
            set -u
            \(before)
            "$VAULTTOOL" \(provider) 2>"$W/provider.err" &
            PROVIDER=$!
            i=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus / \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
                i=$((i+1)); [ $i -gt 100 ] && { echo "provider did not start"; cat "$W/provider.err"; exit 90; }
                sleep 0.1
            done
            \(body)
            kill $PROVIDER; wait $PROVIDER; echo "provider-status $?"
            """
        try w.write("bus.sh", script)
        return try PrivateBus.run(w)
    }

    /// Shell lines that start an agent on `$W/agent/sock`, export `VAULT_AGENT_SOCK`, set
    /// `AGENT` to its pid, and wait for its socket.
    static let startAgent = """
        mkdir -m 700 "$W/agent"
        export VAULT_AGENT_SOCK="$W/agent/sock"
        "$VAULTTOOL" agent --foreground --socket "$VAULT_AGENT_SOCK" 2>/dev/null &
        AGENT=$!
        i=0
        until [ -S "$VAULT_AGENT_SOCK" ]; do i=$((i+1)); [ $i -gt 100 ] && echo "no agent"; sleep 0.1; done
        """

    /// Writes the executable `$W/askpass` (a `sh` script) that tests name in `VAULT_ASKPASS`.
    func writeAskpass(_ w: Workspace, _ script: String) throws {
        try w.write("askpass", script)
        chmod(w.file("askpass"), 0o755)
    }

    @Test func secretToolStoresWhatVaulttoolGetReads() throws {
        let w = try Workspace()
        let r = try onBus(
            w,
            """
            printf 'line one\\nline two' | secret-tool store --label='Déjà vu' service svc account alice
            echo "lookup=$(secret-tool lookup service svc account alice | base64 -w0)"
            echo "get=$("$VAULTTOOL" get --device-secret-file "$XDG_DATA_HOME/vault/device-secret" --service svc --account alice "$XDG_DATA_HOME/vault/default.vault" | base64 -w0)"
            secret-tool search --all service svc 2>&1 | grep '^label'
            secret-tool clear service svc account alice
            secret-tool lookup service svc account alice; echo "after-clear $?"
            # Python keyring's map {service, username, application} names the same item (R-SS-23).
            /usr/bin/python3 -c 'import keyring; from keyring.backends import SecretService as S; keyring.set_keyring(S.Keyring()); keyring.set_password("svc", "alice", "from-keyring")'
            echo "keyring-item=$(secret-tool lookup service svc account alice)"
            """
        )
        let encoded = Data("line one\nline two".utf8).base64EncodedString()
        #expect(r.stdout.contains("lookup=\(encoded)\n"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("get=\(encoded)\n"))
        #expect(r.stdout.contains("label = Déjà vu"))
        #expect(r.stdout.contains("after-clear 1"))
        #expect(r.stdout.contains("keyring-item=from-keyring\n"))
        #expect(r.stdout.contains("provider-status 0"))
    }

    @Test func pythonClientsOverDHAndPlainSessions() throws {
        let w = try Workspace()
        try w.write(
            "client.py",
            """
            import sys, keyring, secretstorage
            from keyring.backends import SecretService
            keyring.set_keyring(SecretService.Keyring())
            keyring.set_password("pysvc", "bob", "py-pw")
            print("keyring", keyring.get_password("pysvc", "bob"))
            conn = secretstorage.dbus_init()
            coll = secretstorage.get_default_collection(conn)
            print("label", coll.get_label(), "locked", coll.is_locked())
            attrs = {"xdg:schema": "org.example.App", "app": "demo", "k": "a=b&c"}
            blob = bytes(range(256)) * 400
            item = coll.create_item("blob", attrs, blob, replace=True)
            found = list(coll.search_items({"app": "demo"}))
            print("found", len(found), "same-attrs", found[0].get_attributes() == attrs, "same-secret", found[0].get_secret() == blob)
            print("miss", len(list(coll.search_items({"app": "other"}))))
            # A plain session: secretstorage falls back to it only on NotSupported, so force it.
            from secretstorage.dhcrypto import Session
            from secretstorage.util import DBusAddressWrapper, open_session
            plain = secretstorage.dbus_init()
            import secretstorage.util as util
            session = Session(); session.encrypted = False
            service = DBusAddressWrapper(util.SS_PATH, util.SERVICE_IFACE, plain)
            output, path = service.call("OpenSession", "sv", "plain", ("s", ""))
            session.object_path = path
            item2 = secretstorage.Item(plain, item.item_path, session=session)
            print("plain-secret", item2.get_secret() == blob)
            keyring.delete_password("pysvc", "bob")
            print("deleted", keyring.get_password("pysvc", "bob"))
            """
        )
        let r = try onBus(
            w,
            """
            /usr/bin/python3 -u "$W/client.py" 2>&1
            echo "get=$("$VAULTTOOL" list --device-secret-file "$XDG_DATA_HOME/vault/device-secret" "$XDG_DATA_HOME/vault/default.vault" | grep -c org.example.App)"
            """
        )
        #expect(r.stdout.contains("keyring py-pw"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("label default.vault locked False"))
        #expect(r.stdout.contains("found 1 same-attrs True same-secret True"))
        #expect(r.stdout.contains("miss 0"))
        #expect(r.stdout.contains("plain-secret True"))
        #expect(r.stdout.contains("deleted None"))
        #expect(r.stdout.contains("get=1"))
    }

    @Test func malformedCallsGetErrorsAndTheProviderStaysUp() throws {
        let w = try Workspace()
        let r = try onBus(
            w,
            """
            S="dbus-send --session --print-reply --dest=org.freedesktop.secrets"
            $S /org/freedesktop/secrets org.freedesktop.Secret.Service.OpenSession string:plain 2>&1 | head -1
            $S /org/freedesktop/secrets org.freedesktop.Secret.Service.OpenSession string:rot13 variant:string: 2>&1 | head -1
            $S /org/freedesktop/secrets org.freedesktop.Secret.Service.GetSecrets array:objpath: \\
                objpath:/org/freedesktop/secrets/session/99 2>&1 | head -1
            $S /org/freedesktop/secrets/collection/nothere org.freedesktop.Secret.Collection.SearchItems \\
                dict:string:string: 2>&1 | head -1
            $S /org/freedesktop/secrets/aliases/default org.freedesktop.DBus.Properties.Get \\
                string:org.freedesktop.Secret.Collection string:Label 2>&1 | tail -1
            printf pw | secret-tool store --label=L service after account check && secret-tool lookup service after account check
            """
        )
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("InvalidArgs") }, "\(r.stdout)\(r.stderr)")
        #expect(lines.contains { $0.contains("NotSupported") })
        #expect(lines.contains { $0.contains("NoSession") })
        #expect(lines.contains { $0.contains("UnknownObject") || $0.contains("UnknownMethod") })
        #expect(lines.contains { $0.contains("\"default.vault\"") })
        #expect(r.stdout.contains("pw"))
        #expect(r.stdout.contains("provider-status 0"))
    }

    /// R-SS-10 under random calls (scripts/secret-service-fuzz.py, a fixed seed): every call of
    /// 1,500 to every object is answered, none ends the provider, and a real client works after.
    @Test func randomCallsAreAllAnsweredAndTheProviderStaysUp() throws {
        let w = try Workspace()
        let fuzz = Tool.packageRoot.appendingPathComponent("scripts/secret-service-fuzz.py").path
        let r = try onBus(
            w,
            """
            /usr/bin/python3 -u '\(fuzz)' 1 1500 2>&1 | tail -2
            printf pw | secret-tool store --label=L service after account fuzz && echo "lookup $(secret-tool lookup service after account fuzz)"
            """
        )
        #expect(r.stdout.contains("answered 1500 of 1500"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("lookup pw"))
        #expect(r.stdout.contains("provider-status 0"))
    }

    /// Calls libsecret never makes, crafted with jeepney (secretstorage's own D-Bus library):
    /// each gets the error R-SS-10 and R-SS-12 name, and the provider stays up.
    @Test func craftedCallsGetTheErrorsTheSpecNames() throws {
        let w = try Workspace()
        try w.write(
            "crafted.py",
            """
            from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
            from jeepney.io.blocking import open_dbus_connection
            conn = open_dbus_connection(bus="SESSION")
            def call(path, iface, method, sig, body):
                addr = DBusAddress(path, bus_name="org.freedesktop.secrets", interface=iface)
                reply = conn.send_and_get_reply(new_method_call(addr, method, sig, body), timeout=25)
                if reply.header.message_type == MessageType.error:
                    return "error " + reply.header.fields[HeaderFields.error_name]
                return reply.body
            service = ("/org/freedesktop/secrets", "org.freedesktop.Secret.Service")
            def dh(value):
                return call(*service, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", value)))
            print("dh-300", dh(bytes([7]) * 300))
            print("dh-padded", "ok" if dh(bytes(200) + bytes([2])).__class__ is tuple else "refused")
            print("dh-5000", dh(bytes([7]) * 5000))
            _, session = call(*service, "OpenSession", "sv", ("plain", ("s", "")))
            collection = ("/org/freedesktop/secrets/aliases/default", "org.freedesktop.Secret.Collection")
            def create(props, value):
                return call(*collection, "CreateItem", "a{sv}(oayays)b", (props, (session, b"", value, "text/plain"), True))
            print("wrong-type", create({"org.freedesktop.Secret.Item.Attributes": ("s", "oops")}, b"x"))
            print("wrong-label", create({"org.freedesktop.Secret.Item.Label": ("u", 5)}, b"x"))
            many = {"p%d" % i: ("s", "v") for i in range(257)}
            print("many-props", create(many, b"x"))
            attrs = ("a{ss}", {"service": "big", "account": "a"})
            print("big-plain", create({"org.freedesktop.Secret.Item.Attributes": attrs}, bytes(1024 * 1024 + 1)))
            ok = create({"org.freedesktop.Secret.Item.Attributes": attrs}, bytes(1024 * 1024))
            print("max-plain", "stored" if ok.__class__ is tuple else ok)
            print("search", len(call(*service, "SearchItems", "a{ss}", ({"service": "big"},))[0]))
            """
        )
        let r = try onBus(w, #"/usr/bin/python3 -u "$W/crafted.py" 2>&1"#)
        #expect(r.stdout.contains("dh-300 error org.freedesktop.DBus.Error.InvalidArgs"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("dh-padded ok"))
        #expect(r.stdout.contains("dh-5000 error org.freedesktop.DBus.Error.LimitsExceeded"))
        #expect(r.stdout.contains("wrong-type error org.freedesktop.DBus.Error.InvalidArgs"))
        #expect(r.stdout.contains("wrong-label error org.freedesktop.DBus.Error.InvalidArgs"))
        #expect(r.stdout.contains("many-props error org.freedesktop.DBus.Error.LimitsExceeded"))
        #expect(r.stdout.contains("big-plain error org.freedesktop.DBus.Error.LimitsExceeded"))
        #expect(r.stdout.contains("max-plain stored"))
        #expect(r.stdout.contains("search 1"))
        #expect(r.stdout.contains("provider-status 0"))
    }

    /// R-SS-28 with the real secret-tool: denied until allowed (while the provider runs), and
    /// denied again when its binary changes; an interpreter not on the list is denied too.
    @Test func onlyAllowedExecutablesMayCall() throws {
        let w = try Workspace()
        let r = try onBus(
            w,
            provider: "secret-service --only-allowed-executables",
            """
            printf pw | secret-tool store --label=L service s account a 2>&1 | head -1
            "$VAULTTOOL" secret-service --allow-executable secret-tool | sed 's/(sha256:[0-9a-f]*)/(sha256:HEX)/'
            printf pw | secret-tool store --label=L service s account a && echo "lookup $(secret-tool lookup service s account a)"
            mkdir "$W/bin" && cp "$(command -v secret-tool)" "$W/bin/secret-tool"
            "$VAULTTOOL" secret-service --allow-executable "$W/bin/secret-tool" >/dev/null
            echo "copy $("$W/bin/secret-tool" lookup service s account a)"
            printf '\\0' >> "$W/bin/secret-tool"
            echo "changed $("$W/bin/secret-tool" lookup service s account a 2>&1)"
            /usr/bin/python3 -c 'import secretstorage; secretstorage.get_default_collection(secretstorage.dbus_init()).get_label()' 2>&1 | tail -1
            cp "$(command -v secret-tool)" "$W/bin/same-size" && touch -r "$W/bin/same-size" "$W/stamp"
            "$VAULTTOOL" secret-service --allow-executable "$W/bin/same-size" >/dev/null
            echo "same-size $("$W/bin/same-size" lookup service s account a)"
            printf 'XX' | dd of="$W/bin/same-size" bs=1 seek=10 conv=notrunc 2>/dev/null  # ELF header padding
            touch -r "$W/stamp" "$W/bin/same-size"
            echo "edited $("$W/bin/same-size" lookup service s account a 2>&1)"
            cp "$(command -v secret-tool)" "$W/bin/huge" && truncate -s 30G "$W/bin/huge"
            echo "huge $(timeout 20 "$W/bin/huge" lookup service s account a 2>&1)"
            ls -l "$XDG_CONFIG_HOME/vault/secret-service-executables" | cut -c1-10
            """
        )
        let tool = "/usr/bin/secret-tool"
        #expect(
            r.stdout.contains("the executable \(tool) is not allowed to use this provider"),
            "\(r.stdout)\(r.stderr)"
        )
        #expect(r.stdout.contains("allowed \(tool) (sha256:HEX)"))
        #expect(r.stdout.contains("lookup pw"))
        #expect(r.stdout.contains("copy pw"))
        #expect(r.stdout.contains("changed secret-tool: the executable \(w.file("bin/secret-tool")) is not allowed"))
        #expect(r.stdout.contains("/usr/bin/python3.11 is not allowed"))
        #expect(r.stdout.contains("same-size pw"))
        #expect(r.stdout.contains("edited same-size: the executable \(w.file("bin/same-size")) is not allowed"))
        #expect(r.stdout.contains("huge huge: the executable \(w.file("bin/huge")) is not allowed"))
        #expect(r.stdout.contains("-rw-------"))
        #expect(r.stdout.contains("provider-status 0"))
    }

    @Test func anAllowListThatIsNotOneStopsTheProviderAtStart() throws {
        let w = try Workspace()
        let r = try onBus(
            w,
            before: """
                mkdir -p "$XDG_CONFIG_HOME/vault"
                echo /usr/bin/secret-tool > "$XDG_CONFIG_HOME/vault/secret-service-executables"
                chmod 600 "$XDG_CONFIG_HOME/vault/secret-service-executables"
                "$VAULTTOOL" secret-service --only-allowed-executables 2>&1; echo "status $?"
                exit 0
                """,
            ""
        )
        #expect(r.stdout.contains("is not an allow list"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("status 64"))
    }

    /// R-SS-3, found by an outside attack: after another writer's rekey the held keys open
    /// nothing; the provider opens the vault again with its start password, and without one
    /// (the agent's keys only) the collection reads as locked instead of failing every call.
    @Test func aRekeyByAnotherWriterIsFollowed() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("db-pw", ["--service", "db", "--account", "app"])
        try w.write(
            "locked.py",
            """
            import secretstorage
            coll = secretstorage.get_default_collection(secretstorage.dbus_init())
            print("agent-only locked", coll.is_locked(), "items", len(list(coll.get_all_items())))
            """
        )
        let r = try onBus(
            w,
            provider: "secret-service --password-file \"$W/pw\" --vault \"$W/v.vault\"",
            """
            echo "before $(secret-tool lookup service db account app)"
            "$VAULTTOOL" rekey --password-file "$W/pw" "$W/v.vault" >/dev/null 2>&1 || echo "rekey failed"
            echo "after $(secret-tool lookup service db account app)"
            \(Self.startAgent)
            "$VAULTTOOL" unlock --password-file "$W/pw" "$W/v.vault"
            VAULT_AGENT_SOCK="$VAULT_AGENT_SOCK" "$VAULTTOOL" secret-service --replace --vault "$W/v.vault" 2>/dev/null &
            SECOND=$!
            sleep 1
            echo "agent $(secret-tool lookup service db account app)"
            # A writer the agent does not hear of: its keys for the file go stale.
            VAULT_AGENT_SOCK= "$VAULTTOOL" rekey --password-file "$W/pw" "$W/v.vault" >/dev/null 2>&1 || echo "rekey failed"
            /usr/bin/python3 -u "$W/locked.py" 2>&1
            kill $SECOND $AGENT
            """
        )
        #expect(r.stdout.contains("before db-pw"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("after db-pw"))
        #expect(r.stdout.contains("agent db-pw"))
        #expect(r.stdout.contains("agent-only locked True items 0"))
        #expect(!r.stdout.contains("rekey failed"))
    }

    /// R-SS-16, found by an outside attack: an askpass that writes without end is killed at
    /// once, and one that leaves a child holding its output answers when it exits (the child
    /// is killed with its process group).
    @Test func askpassProgramsThatMisbehaveEndWithTheirPrompt() throws {
        let w = try Workspace()
        try w.makeVault()
        try writeAskpass(
            w,
            """
            #!/bin/sh
            [ -e "$W/flood" ] && exec yes
            printf '%s\\n' "$(cat "$W/pw")"
            sleep 300 &
            echo $! > "$W/child.pid"
            """
        )
        try w.write(
            "misbehave.py",
            """
            import os, secretstorage
            W = os.environ["W"]
            coll = secretstorage.get_default_collection(secretstorage.dbus_init())
            open(W + "/flood", "w").close()
            print("flood dismissed", coll.unlock(), "locked", coll.is_locked())
            os.remove(W + "/flood")
            print("child-kept dismissed", coll.unlock(), "locked", coll.is_locked())
            # Killed, it may stay a zombie (this container's init may not reap orphans).
            try:
                state = open("/proc/%d/stat" % int(open(W + "/child.pid").read())).read().split(") ")[1][0]
            except FileNotFoundError:
                state = "gone"
            print("child", "ended" if state in ("Z", "g") else "running")
            """
        )
        let r = try onBus(
            w,
            provider: "secret-service --vault \"$W/v.vault\"",
            before: #"export VAULT_ASKPASS="$W/askpass"; unset VAULT_AGENT_SOCK"#,
            #"/usr/bin/python3 -u "$W/misbehave.py" 2>&1"#
        )
        #expect(r.stdout.contains("flood dismissed True locked True"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("child-kept dismissed False locked False"))
        #expect(r.stdout.contains("child ended"))
    }

    /// python-secretstorage opens a session for every Item object and never closes it: reading 100
    /// items over one connection must work, the name keeping its 64 most recently used sessions (R-SS-9).
    @Test func aClientReadingManyItemsOverOneConnectionKeepsItsRecentSessions() throws {
        let w = try Workspace()
        try w.write(
            "many.py",
            """
            import secretstorage
            conn = secretstorage.dbus_init()
            coll = secretstorage.get_default_collection(conn)
            for n in range(100):
                coll.create_item("many %d" % n, {"many": "yes", "n": str(n)}, b"s%d" % n, replace=True)
            # A Collection object that opened no session: each Item it finds opens its own.
            reader = secretstorage.get_default_collection(conn)
            items = sorted(reader.search_items({"many": "yes"}), key=lambda i: int(i.get_attributes()["n"]))
            print("items", len(items))
            print("read", sum(1 for n, i in enumerate(items) if i.get_secret() == b"s%d" % n))
            print("last-again", items[-1].get_secret() == b"s99")
            try:
                items[0].get_secret()
                print("first-again still open")
            except Exception as e:
                print("first-again", e)
            """
        )
        let r = try onBus(w, #"/usr/bin/python3 -u "$W/many.py" 2>&1"#)
        #expect(r.stdout.contains("items 100\n"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("read 100\n"))
        #expect(r.stdout.contains("last-again True\n"))
        // The first item's session was the least recently used: closed.
        #expect(
            r.stdout.contains("first-again") && r.stdout.contains("org.freedesktop.Secret.Error.NoSession"),
            "\(r.stdout)"
        )
        #expect(r.stdout.contains("provider-status 0"))
    }

    @Test func aSecondProviderNamesTheOwnerAndExitsBusy() throws {
        let w = try Workspace()
        let r = try onBus(w, #""$VAULTTOOL" secret-service 2>&1; echo "second $?""#)
        #expect(r.stdout.contains("The name org.freedesktop.secrets is owned by :"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("pass --replace"))
        #expect(r.stdout.contains("second 6"))
    }

    /// §8: a device secret that cannot be used is named at start with its reason, and the standard
    /// vault stays locked (it is not opened with no credential, which said "wrong password").
    @Test func anUnusableDeviceSecretIsNamedAtStart() throws {
        let w = try Workspace()
        let r = try onBus(
            w,
            before: """
                printf 'protocol=https\nhost=example.com\nusername=u\npassword=p1\n\n' | "$VAULTTOOL" credential-helper git store
                rm "$XDG_DATA_HOME/vault/device-secret"; mkdir "$XDG_DATA_HOME/vault/device-secret"
                """,
            """
            /usr/bin/python3 -c 'import secretstorage; c = secretstorage.get_default_collection(secretstorage.dbus_init()); print("locked", c.is_locked())'
            """
        )
        let errors = (try? String(contentsOfFile: w.file("provider.err"), encoding: .utf8)) ?? ""
        #expect(errors.contains("cannot use this user's device secret: "), "\(errors)\(r.stdout)")
        #expect(errors.contains("; it stays locked"))
        #expect(!errors.contains("wrong password"))
        #expect(r.stdout.contains("locked True"), "\(r.stdout)")
    }

    /// R-SS-16 (2) and R-SS-17: no agent; `$VAULT_ASKPASS` answers the prompt, its answer's keys
    /// stay with the provider until `Lock`; a cancelled or wrong answer dismisses the prompt.
    @Test func anAskpassProgramAnswersTheUnlockPrompt() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("db-pw", ["--service", "db", "--account", "app"])
        try writeAskpass(
            w,
            """
            #!/bin/sh
            printf '%s|' "$1" >> "$W/askpass.log"
            [ -t 0 ] && echo tty >> "$W/askpass.log"
            read -r line; echo "stdin:$line" >> "$W/askpass.log"
            [ -s "$W/answer" ] || exit 1
            cat "$W/answer"
            """
        )
        try w.write(
            "askpass.py",
            """
            import secretstorage, os
            W = os.environ["W"]
            conn = secretstorage.dbus_init()
            coll = secretstorage.get_default_collection(conn)
            def attempt(answer, tag):
                open(W + "/answer", "w").write(answer)
                dismissed = coll.unlock()
                print(tag, "dismissed", dismissed, "locked", coll.is_locked())
            attempt("", "cancelled")
            attempt("wrong\\n", "wrong")
            attempt(open(W + "/pw").read().rstrip("\\n") + "\\n", "right")
            print("secret", next(coll.search_items({"service": "db"})).get_secret().decode())
            coll.lock()
            print("after-lock locked", coll.is_locked(), "items", len(list(coll.get_all_items())))
            """
        )
        let r = try onBus(
            w,
            provider: "secret-service --vault \"$W/v.vault\"",
            before: #"export VAULT_ASKPASS="$W/askpass"; unset VAULT_AGENT_SOCK"#,
            #"/usr/bin/python3 -u "$W/askpass.py" 2>&1; echo "log $(cat "$W/askpass.log")""#
        )
        #expect(r.stdout.contains("cancelled dismissed True locked True"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("wrong dismissed True locked True"))
        #expect(r.stdout.contains("right dismissed False locked False"))
        #expect(r.stdout.contains("secret db-pw"))
        #expect(r.stdout.contains("after-lock locked True items 0"))
        let asked = "Unlock vault \(w.file("v.vault")) for the Secret Service|stdin:"
        #expect(r.stdout.contains("log " + String(repeating: asked + "\n", count: 3).dropLast()))
        #expect(!r.stdout.contains("tty"))
    }

    /// R-SS-16 (2) with an agent: the askpass answer's keys go to the agent, so `vaulttool lock`
    /// locks the provider; `Dismiss` ends an askpass program still running.
    @Test func askpassKeysGoToTheAgentAndDismissEndsTheProgram() throws {
        let w = try Workspace()
        try w.makeVault()
        try writeAskpass(
            w,
            """
            #!/bin/sh
            [ -e "$W/slow" ] && { echo $$ > "$W/slow.tmp"; mv "$W/slow.tmp" "$W/slow.pid"; exec sleep 300; }
            cat "$W/pw"
            """
        )
        try w.write(
            "dismiss.py",
            """
            import os, time, secretstorage, subprocess
            from jeepney import DBusAddress, new_method_call
            W = os.environ["W"]
            conn = secretstorage.dbus_init()
            coll = secretstorage.get_default_collection(conn)
            print("unlocked", not coll.unlock(), "locked", coll.is_locked())
            subprocess.run([os.environ["VAULTTOOL"], "lock", W + "/v.vault"], check=True)
            print("after-agent-lock locked", coll.is_locked())
            open(W + "/slow", "w").close()
            service = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets", "org.freedesktop.Secret.Service")
            unlocked, prompt = conn.send_and_get_reply(new_method_call(service, "Unlock", "ao", ([coll.collection_path],))).body
            p = DBusAddress(prompt, "org.freedesktop.secrets", "org.freedesktop.Secret.Prompt")
            conn.send_and_get_reply(new_method_call(p, "Prompt", "s", ("",)))
            for _ in range(100):
                if os.path.exists(W + "/slow.pid"): break
                time.sleep(0.1)
            pid = int(open(W + "/slow.pid").read())
            conn.send_and_get_reply(new_method_call(p, "Dismiss"))
            try:
                os.kill(pid, 0); print("askpass still running")
            except ProcessLookupError:
                print("askpass ended")
            """
        )
        let r = try onBus(
            w,
            provider: "secret-service --vault \"$W/v.vault\"",
            before: """
                export VAULT_ASKPASS="$W/askpass"
                \(Self.startAgent)
                """,
            """
            /usr/bin/python3 -u "$W/dismiss.py" 2>&1
            kill $AGENT
            """
        )
        #expect(r.stdout.contains("unlocked True locked False"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("after-agent-lock locked True"))
        #expect(r.stdout.contains("askpass ended"))
    }

    @Test func aLockedVaultAnswersAtOnceAndUnlocksThroughTheAgent() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write(
            "locked.py",
            """
            import secretstorage, sys
            conn = secretstorage.dbus_init()
            coll = secretstorage.get_default_collection(conn)
            print("locked", coll.is_locked(), "items", len(list(coll.get_all_items())))
            print("search", len(list(coll.search_items({"service": "db"}))))
            dismissed = coll.unlock()
            print("unlocked", not dismissed, "locked", coll.is_locked())
            item = next(coll.search_items({"service": "db"}))
            print("secret", item.get_secret().decode())
            """
        )
        try w.set("db-pw", ["--service", "db", "--account", "app"])
        let r = try onBus(
            w,
            provider: "secret-service --vault \"$W/v.vault\"",
            before: """
                \(Self.startAgent)
                """,
            """
            ( sleep 2; "$VAULTTOOL" unlock --password-file "$W/pw" "$W/v.vault" ) &
            /usr/bin/python3 -u "$W/locked.py" 2>&1
            kill $AGENT
            """
        )
        #expect(r.stdout.contains("locked True items 0"), "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("search 0"))
        #expect(r.stdout.contains("unlocked True locked False"))
        #expect(r.stdout.contains("secret db-pw"))
    }
}
