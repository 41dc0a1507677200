// vaulttool secret-service --replace and --install on a private session bus (dbus-run-session):
// taking org.freedesktop.secrets over from gnome-keyring and from another vaulttool (R-SS-1), and
// the activation file and user unit of R-SS-4 and §9, down to the bus starting vaulttool from the
// installed file (Spec/secret-service.md). scripts/install-secret-service-clients.sh installs the
// clients and gnome-keyring.

import Foundation
import Testing

@Suite("secret-service replacement and activation", .serialized)
struct SecretServiceActivationTests {
    /// Shell functions for the scripts: `owner` prints the unique name owning org.freedesktop.secrets
    /// (empty when none), `owner_pid` its process ID, `wait_owner_not X` waits until the owner is
    /// someone other than X (and not nobody).
    static let prelude = """
        set -u
        owner() {
            dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \\
                org.freedesktop.DBus.GetNameOwner string:org.freedesktop.secrets 2>/dev/null | tr -d ' '
        }
        owner_pid() {
            dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \\
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '{print $2}'
        }
        wait_owner_not() {
            i=0
            while o=$(owner); [ -z "$o" ] || [ "$o" = "$1" ]; do
                i=$((i+1)); [ $i -gt 200 ] && { echo "the owner stayed '$1'"; return 1; }
                sleep 0.1
            done
        }
        """

    /// Runs `body` (sh, after `prelude`) on a private bus (`PrivateBus.run`), `extra` added to its environment.
    func onBus(_ w: Workspace, environment extra: [String: String] = [:], _ body: String) throws -> RunResult {
        try w.write("bus.sh", Self.prelude + "\n" + body + "\n")
        return try PrivateBus.run(w, environment: extra)
    }

    /// Expects each of `parts` in the script's output.
    func expect(_ r: RunResult, contains parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for part in parts {
            #expect(
                r.stdout.contains(part),
                "\(part) is not in:\n\(r.stdout)\(r.stderr)",
                sourceLocation: sourceLocation
            )
        }
    }

    /// The value after `key=` on a line of `text`.
    func value(_ key: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// gnome-keyring requests the name without allowing replacement, so `--replace` cannot take it:
    /// the provider exits 6 naming gnome-keyring's connection and process, and gnome-keyring serves on.
    @Test func gnomeKeyringKeepsTheNameAndReplaceExitsBusy() throws {
        let w = try Workspace()
        try w.write("gk-pw", "gnome keyring password")
        let r = try onBus(
            w,
            """
            gnome-keyring-daemon --foreground --unlock --components=secrets <"$W/gk-pw" >"$W/gk.log" 2>&1 &
            GK=$!
            wait_owner_not "" || exit 91
            echo "first=$(owner)"
            echo "owner-pid=$(owner_pid)"
            echo "keyring-pid=$GK"
            "$VAULTTOOL" secret-service --replace 2>&1; echo "replace-status $?"
            echo "after=$(owner)"
            printf 'in-keyring' | secret-tool store --label=K service svc account gk
            echo "lookup=$(secret-tool lookup service svc account gk)"
            [ -e "$XDG_DATA_HOME/vault/default.vault" ]; echo "vault-exists $?"
            kill $GK
            """
        )
        let first = value("first", in: r.stdout) ?? "?"
        let pid = value("keyring-pid", in: r.stdout) ?? "?"
        #expect(r.status == 0 && first.hasPrefix(":"), "\(r.stdout)\(r.stderr)")
        expect(
            r,
            contains: [
                "owner-pid=\(pid)\n",
                "The name org.freedesktop.secrets is owned by \(first), process \(pid)",
                "which does not allow replacement; stop it first", "replace-status 6",
                // gnome-keyring still owns the name and answers; the provider that gave up made no vault.
                "after=\(first)\n", "lookup=in-keyring\n", "vault-exists 1",
            ]
        )
    }

    /// The same with an owner of the name that is not gnome-keyring: a connection that asked for
    /// it without ALLOW_REPLACEMENT (flags 4, DO_NOT_QUEUE only).
    @Test func replaceAgainstAnOwnerThatRefusesReplacementExitsBusy() throws {
        let w = try Workspace()
        try w.write(
            "hold.py",
            """
            import time
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            conn = open_dbus_connection(bus="SESSION")
            bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
            conn.send_and_get_reply(new_method_call(bus, "RequestName", "su", ("org.freedesktop.secrets", 4)))
            time.sleep(60)
            """
        )
        let r = try onBus(
            w,
            """
            /usr/bin/python3 -u "$W/hold.py" >"$W/hold.out" 2>&1 &
            HOLDER=$!
            wait_owner_not "" || { cat "$W/hold.out"; exit 91; }
            echo "holder=$(owner)"
            "$VAULTTOOL" secret-service --replace 2>&1; echo "replace-status $?"
            echo "after=$(owner)"
            kill $HOLDER
            """
        )
        let holder = value("holder", in: r.stdout) ?? "?"
        #expect(holder.hasPrefix(":"), "\(r.stdout)\(r.stderr)")
        expect(
            r,
            contains: [
                "The name org.freedesktop.secrets is owned by \(holder)", "which does not allow replacement",
                "replace-status 6", "after=\(holder)\n",
            ]
        )
        #expect(!r.stdout.contains("pass --replace"))
    }

    /// A vaulttool provider allows replacement: `--replace` takes the name, the new provider
    /// serves its own vault, and the old one exits 0 naming the new owner (R-SS-1, §8).
    @Test func aReplacedVaulttoolExitsZeroAndTheNewOneServes() throws {
        let w = try Workspace()
        try w.makeVault("first.vault")
        try w.makeVault("second.vault")
        let r = try onBus(
            w,
            """
            "$VAULTTOOL" secret-service --vault "$W/first.vault" --password-file "$W/pw" 2>"$W/first.err" &
            FIRST_PID=$!
            wait_owner_not "" || exit 91
            FIRST=$(owner)
            echo "first=$FIRST"
            "$VAULTTOOL" secret-service --replace --vault "$W/second.vault" --password-file "$W/pw" \\
                2>"$W/second.err" &
            SECOND_PID=$!
            wait_owner_not "$FIRST" || { cat "$W/second.err"; exit 92; }
            echo "second=$(owner)"
            echo "owner-pid=$(owner_pid)"
            echo "provider-pid=$SECOND_PID"
            wait $FIRST_PID; echo "first-status $?"
            sed 's/^/first-err: /' "$W/first.err"
            printf 'pw2' | secret-tool store --label=S service svc account bob
            echo "lookup=$(secret-tool lookup service svc account bob)"
            echo "in-second=$("$VAULTTOOL" get --password-file "$W/pw" --service svc --account bob "$W/second.vault")"
            echo "in-first=$("$VAULTTOOL" list --password-file "$W/pw" "$W/first.vault" | grep -c svc)"
            kill $SECOND_PID; wait $SECOND_PID; echo "second-status $?"
            """
        )
        let first = value("first", in: r.stdout) ?? "?"
        let second = value("second", in: r.stdout) ?? "?"
        let pid = value("provider-pid", in: r.stdout) ?? "?"
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(first.hasPrefix(":") && second.hasPrefix(":") && first != second, "\(r.stdout)")
        expect(
            r,
            contains: [
                "owner-pid=\(pid)\n", "first-status 0",
                "first-err: vaulttool: secret-service stopped: org.freedesktop.secrets went to \(second)\n",
                "lookup=pw2\n", "in-second=pw2\n", "in-first=0\n", "second-status 0",
            ]
        )
    }

    /// The two files of R-SS-4 and §9.
    struct Installed {
        let service: String
        let unit: String
        init(data: String, config: String) {
            service = data + "/dbus-1/services/org.freedesktop.secrets.service"
            unit = config + "/systemd/user/vaulttool-secret-service.service"
        }
        func contents() -> (String?, String?) {
            (try? String(contentsOfFile: service, encoding: .utf8), try? String(contentsOfFile: unit, encoding: .utf8))
        }
        static func service(_ exec: String) -> String {
            "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(exec)\nSystemdService=vaulttool-secret-service.service\n"
        }
        static func unit(_ exec: String) -> String {
            "[Unit]\nDescription=vault Secret Service provider (org.freedesktop.secrets)\n\n[Service]\nType=dbus\n"
                + "BusName=org.freedesktop.secrets\nExecStart=\(exec)\n"
        }
    }

    @Test func installWritesTheFilesTheSpecNamesAndSaysWhatChanged() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.makeVault("two words.vault")
        let environment = [
            "HOME": w.file("home"), "XDG_DATA_HOME": w.file("share"), "XDG_CONFIG_HOME": w.file("config"),
        ]
        let files = Installed(data: w.file("share"), config: w.file("config"))
        // /proc/self/exe: the binary itself, not the .build/debug link that may lead to it.
        let exe = URL(fileURLWithPath: Tool.path).resolvingSymlinksInPath().path
        let install = ["secret-service", "--install", "--vault", "v.vault", "--vault", w.file("two words.vault")]

        let first = try w.run(install, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "wrote \(files.service)\nwrote \(files.unit)\n")
        let vaults = "--vault \(w.file("v.vault")) --vault"
        let (service, unit) = files.contents()
        #expect(service == Installed.service("\(exe) secret-service \(vaults) '\(w.file("two words.vault"))'"))
        #expect(unit == Installed.unit("\(exe) secret-service \(vaults) \"\(w.file("two words.vault"))\""))
        for path in [files.service, files.unit] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o644, "\(path)")
        }

        let again = try w.run(install, environment: environment)
        #expect(again.status == 0 && again.stdout == "unchanged \(files.service)\nunchanged \(files.unit)\n")
        let other = try w.run(["secret-service", "--install"], environment: environment)
        #expect(other.status == 0 && other.stdout == "replaced \(files.service)\nreplaced \(files.unit)\n")
        #expect(files.contents().0 == Installed.service("\(exe) secret-service"))
        #expect(files.contents().1 == Installed.unit("\(exe) secret-service"))

        // Empty XDG variables count as unset: the files go under HOME.
        let home = try w.run(
            ["secret-service", "--install"],
            environment: environment.merging(["XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""]) { $1 }
        )
        let defaults = Installed(data: w.file("home/.local/share"), config: w.file("home/.config"))
        #expect(
            home.status == 0 && home.stdout == "wrote \(defaults.service)\nwrote \(defaults.unit)\n",
            "\(home.stderr)"
        )
        #expect(defaults.contents().0 == Installed.service("\(exe) secret-service"))

        // What the files cannot carry is refused, and nothing is written.
        try FileManager.default.removeItem(atPath: w.file("share"))
        for (arguments, status) in [
            (["--password-file", "pw"], Int32(64)), (["--replace"], 64), (["--vault", "missing.vault"], 2),
            (["--vault", "line\nbreak.vault"], 64),
        ] {
            try w.write("line\nbreak.vault", "")
            let refused = try w.run(["secret-service", "--install"] + arguments, environment: environment)
            #expect(refused.status == status, "\(arguments): \(refused.stderr)")
            #expect(refused.stdout.isEmpty && !FileManager.default.fileExists(atPath: files.service), "\(arguments)")
        }
    }

    /// Real activation: nothing owns the name, the bus reads the installed file from
    /// $XDG_DATA_HOME/dbus-1/services (before gnome-keyring's in /usr/share) and starts vaulttool
    /// itself. The executable and the vault are in directories whose names need quoting.
    @Test func theBusStartsTheInstalledProvider() throws {
        let w = try Workspace()
        // systemd refuses quotes and backslashes in an executable's path, not in its arguments.
        let bin = w.file("bin 100% $x")
        let vault = w.file("it's \"q\" \\b 5% $HOME") + "/a.vault"
        for directory in [bin, (vault as NSString).deletingLastPathComponent] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Tool.path, toPath: bin + "/vaulttool")
        // A vault this user's device secret opens: the standard vault a provider creates, copied.
        let seeded = try onBus(
            w,
            """
            "$VAULTTOOL" secret-service 2>"$W/seed.err" &
            SEEDER=$!
            wait_owner_not "" || { cat "$W/seed.err"; exit 91; }
            printf 'seed-pw' | secret-tool store --label=Seed service seed account s
            kill $SEEDER; wait $SEEDER; echo "seeded $?"
            """
        )
        #expect(seeded.stdout.contains("seeded 0"), "\(seeded.stdout)")
        try FileManager.default.copyItem(atPath: w.file("share/vault/default.vault"), toPath: vault)

        let environment = ["XDG_DATA_HOME": w.file("share"), "XDG_CONFIG_HOME": w.file("config"), "HOME": w.path]
        let install = try Tool.runProgram(
            bin + "/vaulttool",
            ["secret-service", "--install", "--vault", vault],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            in: w.path
        )
        #expect(install.status == 0, "\(install.stderr)")
        let files = Installed(data: w.file("share"), config: w.file("config"))
        // systemd's spelling (R-SS-4): %% everywhere, $$ in the arguments, C escapes in double quotes.
        let execStart =
            #""\#(w.path)/bin 100%% $x/vaulttool" secret-service --vault "\#(w.path)/it's \"q\" \\b 5%% $$HOME/a.vault""#
        #expect(files.contents().1 == Installed.unit(execStart), "\(files.contents())")
        // systemd parses the unit and finds the executable its ExecStart names.
        let verify = try Tool.runProgram(
            "/usr/bin/systemd-analyze",
            ["verify", "--man=no", files.unit],
            stdin: nil,
            environment: ["PATH": "/usr/bin:/bin", "SYSTEMD_LOG_LEVEL": "notice", "HOME": w.path],
            in: w.path
        )
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)\n\(files.contents())")

        let r = try onBus(
            w,
            """
            [ -z "$(owner)" ] && echo "nobody owns the name"
            echo "lookup=$(secret-tool lookup service seed account s)"
            printf 'activated-pw' | secret-tool store --label=A service act account carol
            PID=$(owner_pid)
            echo "exe=$(readlink /proc/$PID/exe)"
            kill $PID
            """
        )
        expect(
            r,
            contains: [
                "nobody owns the name", "Activating service name='org.freedesktop.secrets'", "lookup=seed-pw\n",
                "exe=\(bin)/vaulttool\n", "vaulttool: serving org.freedesktop.secrets: a (\(vault))",
            ]
        )
        let get = try w.run(
            [
                "get", "--device-secret-file", w.file("share/vault/device-secret"), "--service", "act", "--account",
                "carol", vault,
            ]
        )
        #expect(get.status == 0 && get.stdout == "activated-pw", "\(get.stderr)")
    }
}
