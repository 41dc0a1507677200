// vaulttool tests: the git and docker credential helpers, driven with their protocols' exact bytes.

import Foundation
import Testing
import VaultTestSupport

/// Runs `vaulttool credential-helper <helper> --vault v.vault --password-file pw <action>` in `w`.
@discardableResult
private func helper(
    _ w: Workspace,
    _ helper: String,
    _ action: String,
    _ input: String? = nil,
    options: [String] = ["--vault", "v.vault", "--password-file", "pw"]
) throws -> RunResult {
    try w.run(["credential-helper", helper] + options + [action], stdin: input ?? "")
}

@Suite("Credential helper: git protocol")
struct GitCredentialHelperTests {
    @Test func store_thenGet_printsUsernameAndPassword() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try helper(
            w,
            "git",
            "store",
            "protocol=https\nhost=git.example.org\nusername=bob\npassword=hunter2\n\n"
        )
        #expect(store.status == 0, "\(store.stderr)")
        #expect(store.stdout == "")
        let get = try helper(w, "git", "get", "protocol=https\nhost=git.example.org\n\n")
        #expect(get.status == 0)
        #expect(get.stdout == "username=bob\npassword=hunter2\n")
        #expect(get.stderr == "")
    }

    @Test func get_withNoMatch_printsNothing_andExits0() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=a.example\nusername=bob\npassword=pw-a\n")
        for request in [
            "protocol=https\nhost=b.example\n\n",  // another host
            "protocol=http\nhost=a.example\n\n",  // another protocol
            "protocol=https\nhost=a.example:8443\n\n",  // another port
            "protocol=https\nhost=a.example\nusername=alice\n\n",  // another user
        ] {
            let get = try helper(w, "git", "get", request)
            #expect(get.status == 0)
            #expect(get.stdout == "")
            #expect(get.stderr == "")
        }
    }

    @Test func store_mapsHostPortAndPath_ontoAnInternetPassword() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(
            w,
            "git",
            "store",
            "protocol=https\nhost=git.example.org:8443\npath=team/repo.git\nusername=bob\npassword=s3cret\n"
        )
        let get = try w.run([
            "get", "--json", "--password-file", "pw", "--server", "git.example.org", "--port", "8443",
            "--protocol", "https", "--path", "/team/repo.git", "--account", "bob", "v.vault",
        ])
        #expect(get.status == 0, "\(get.stderr)")
        let json = try get.json()
        #expect(json["class"] as? String == "internetPassword")
        #expect(json["secret"] as? String == "s3cret")
        #expect(json["accessGroup"] as? String ?? "" == "")
        // git's rule: a path in the request must match; no path in the request matches any path.
        let withPath = try helper(w, "git", "get", "protocol=https\nhost=git.example.org:8443\npath=team/repo.git\n")
        #expect(withPath.stdout == "username=bob\npassword=s3cret\n")
        let otherPath = try helper(w, "git", "get", "protocol=https\nhost=git.example.org:8443\npath=other.git\n")
        #expect(otherPath.stdout == "")
        let noPath = try helper(w, "git", "get", "protocol=https\nhost=git.example.org:8443\n")
        #expect(noPath.stdout == "username=bob\npassword=s3cret\n")
    }

    @Test func get_prefersTheExactPrimaryKey_elseTheMostRecentMatch() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=exact\n")
        try w.set("newer", ["--server", "h", "--protocol", "https", "--path", "/x.git", "--account", "bob"])
        let withUser = try helper(w, "git", "get", "protocol=https\nhost=h\nusername=bob\n")
        #expect(withUser.stdout == "username=bob\npassword=exact\n")
        let withoutUser = try helper(w, "git", "get", "protocol=https\nhost=h\n")
        #expect(withoutUser.stdout == "username=bob\npassword=newer\n")
    }

    @Test func urlKey_isSplitIntoItsFields() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try helper(w, "git", "store", "url=https://bob%40corp@h.example:8443/a/b.git\npassword=pw\n")
        #expect(store.status == 0, "\(store.stderr)")
        let get = try helper(w, "git", "get", "protocol=https\nhost=h.example:8443\npath=a/b.git\n")
        #expect(get.stdout == "username=bob@corp\npassword=pw\n")
        let bad = try helper(w, "git", "get", "url=h.example/no-scheme\n")
        #expect(bad.status == 64)
        #expect(bad.stderr == "Error: The url in the credential request has no scheme\n")
    }

    @Test func get_findsAnItemMadeWithSet() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("from-set", ["--server", "example.com", "--protocol", "https", "--account", "carol"])
        let get = try helper(w, "git", "get", "protocol=https\nhost=example.com\nwwwauth[]=Basic realm=\"x\"\n")
        #expect(get.stdout == "username=carol\npassword=from-set\n")
    }

    @Test func store_again_updatesTheSecret_andKeepsOneItem() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=one\n")
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=two\n")
        #expect(try helper(w, "git", "get", "protocol=https\nhost=h\n").stdout == "username=bob\npassword=two\n")
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect((try list.json()["items"] as? [Any])?.count == 1)
    }

    @Test func store_ofTheSameSecret_writesNothing() throws {
        // git stores after every successful authentication, including one the helper answered.
        let w = try Workspace()
        try w.makeVault()
        let request = "protocol=https\nhost=h\nusername=bob\npassword=same\n"
        try helper(w, "git", "store", request)
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        #expect(try helper(w, "git", "store", request).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        try helper(w, "git", "store", request.replacingOccurrences(of: "same", with: "other"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) != before)
    }

    @Test func erase_removesOnlyTheItemHoldingThePasswordGiven() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=current\n")
        let stale = try helper(w, "git", "erase", "protocol=https\nhost=h\nusername=bob\npassword=old\n")
        #expect(stale.status == 0)
        #expect(try helper(w, "git", "get", "protocol=https\nhost=h\n").stdout == "username=bob\npassword=current\n")
        try helper(w, "git", "erase", "protocol=https\nhost=h\nusername=bob\npassword=current\n")
        #expect(try helper(w, "git", "get", "protocol=https\nhost=h\n").stdout == "")
    }

    @Test func erase_withoutAnyField_removesNothing() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=pw\n")
        #expect(try helper(w, "git", "erase", "\n").status == 0)
        #expect(try helper(w, "git", "get", "protocol=https\nhost=h\n").stdout == "username=bob\npassword=pw\n")
    }

    @Test func store_withoutUsernameOrPassword_isIgnored() throws {
        let w = try Workspace()
        try w.makeVault()
        for request in ["protocol=https\nhost=h\nusername=bob\n", "protocol=https\nhost=h\npassword=pw\n"] {
            let store = try helper(w, "git", "store", request)
            #expect(store.status == 0)
            #expect(store.stdout == "" && store.stderr == "")
        }
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect((try list.json()["items"] as? [Any])?.isEmpty == true)
    }

    @Test func unknownAction_isIgnoredSilently() throws {
        let w = try Workspace()
        let result = try helper(w, "git", "frobnicate", "protocol=https\nhost=h\n")
        #expect(result.status == 0)
        #expect(result.stdout == "" && result.stderr == "")
    }

    @Test func badRequestLine_isRefused_withoutEchoingIt() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\nhunter2-no-equals\n")
        #expect(result.status == 64)
        #expect(result.stderr == "Error: Line 4 of the credential request has no '='\n")
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test func wrongVaultPassword_failsOnStderr_neverPrintingASecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "git", "store", "protocol=https\nhost=h\nusername=bob\npassword=hunter2\n")
        try w.write("wrong", "not the password\n")
        let get = try helper(
            w,
            "git",
            "get",
            "protocol=https\nhost=h\n\n",
            options: ["--vault", "v.vault", "--password-file", "wrong"]
        )
        #expect(get.status == 3)
        #expect(get.stdout == "")
        #expect(get.stderr == "Error: Wrong password or key file\n")
    }

    @Test func passwordStdin_isRefused_becauseStdinCarriesTheProtocol() throws {
        let w = try Workspace()
        let result = try helper(w, "git", "get", "protocol=https\n", options: ["--password-stdin"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Standard input carries the git protocol"))
    }

    @Test func noCredentialAndNoDeviceSecret_failsWithoutPrompting() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(
            ["credential-helper", "git", "--vault", "v.vault", "get"],
            stdin: "protocol=https\nhost=h\n",
            environment: ["XDG_DATA_HOME": w.file("data")]
        )
        #expect(result.status == 64)
        #expect(result.stderr.contains("a credential helper cannot prompt"))
    }

    @Test func secretWithANewline_isNotSentToGit() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("line1\nline2", ["--server", "h", "--protocol", "https", "--account", "bob"])
        let get = try helper(w, "git", "get", "protocol=https\nhost=h\n")
        #expect(get.status == 0)
        #expect(get.stdout == "")
    }
}

@Suite("Credential helper: docker protocol")
struct DockerCredentialHelperTests {
    /// The `store` payload of docker's documentation (docs/reference/commandline/login.md,
    /// "Credential helper protocol"), pretty-printed as it is there.
    static let documentedStore = """
        {
          "ServerURL": "https://index.docker.io/v1",
          "Username": "david",
          "Secret": "passw0rd1"
        }

        """

    @Test func documentedExamples_storeGetListErase() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try helper(w, "docker", "store", Self.documentedStore)
        #expect(store.status == 0, "\(store.stdout)")
        #expect(store.stdout == "" && store.stderr == "")
        let get = try helper(w, "docker", "get", "https://index.docker.io/v1")
        #expect(get.status == 0)
        #expect(
            get.stdout == #"{"ServerURL":"https://index.docker.io/v1","Username":"david","Secret":"passw0rd1"}"# + "\n"
        )
        #expect(get.stderr == "")
        let list = try helper(w, "docker", "list")
        #expect(list.stdout == #"{"https://index.docker.io/v1":"david"}"# + "\n")
        let erase = try helper(w, "docker", "erase", "https://index.docker.io/v1\n")
        #expect(erase.status == 0)
        #expect(erase.stdout == "")
        let gone = try helper(w, "docker", "get", "https://index.docker.io/v1")
        #expect(gone.status == 1)
        #expect(gone.stdout == "credentials not found in native keychain\n")
        #expect(gone.stderr == "")
        #expect(try helper(w, "docker", "list").stdout == "{}\n")
    }

    @Test func serverURLs_comeBackExactly_andSorted() throws {
        let w = try Workspace()
        try w.makeVault()
        let urls = [
            "https://index.docker.io/v1/", "registry.example.com", "localhost:5000", "https://[::1]:5000",
            "ghcr.io", "https://r.example:0443/x",
        ]
        for (index, url) in urls.enumerated() {
            let store = try helper(
                w,
                "docker",
                "store",
                #"{"ServerURL":"\#(url)","Username":"u\#(index)","Secret":"s\#(index)"}"#
            )
            #expect(store.status == 0, "\(store.stdout)")
        }
        let expected = urls.enumerated().sorted { $0.element < $1.element }
            .map { #""\#($0.element)":"u\#($0.offset)""# }.joined(separator: ",")
        #expect(try helper(w, "docker", "list").stdout == "{\(expected)}\n")
        let get = try helper(w, "docker", "get", "localhost:5000")
        #expect(get.stdout == #"{"ServerURL":"localhost:5000","Username":"u2","Secret":"s2"}"# + "\n")
        // The ServerURL is split onto the internet-password attributes, in access group "docker".
        let item = try w.run([
            "get", "--json", "--password-file", "pw", "--server", "localhost", "--port", "5000", "--access-group",
            "docker", "--account", "u2", "v.vault",
        ])
        let json = try item.json()
        #expect(json["label"] as? String == "Docker Credentials")
        #expect(json["protocol"] as? String ?? "" == "")
    }

    @Test func store_replacesTheUsernameOfTheSameServer() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "docker", "store", #"{"ServerURL":"r.example","Username":"old","Secret":"a"}"#)
        try helper(w, "docker", "store", #"{"ServerURL":"r.example","Username":"new","Secret":"b"}"#)
        #expect(try helper(w, "docker", "list").stdout == #"{"r.example":"new"}"# + "\n")
        #expect(
            try helper(w, "docker", "get", "r.example").stdout
                == #"{"ServerURL":"r.example","Username":"new","Secret":"b"}"# + "\n"
        )
    }

    @Test func dockerAndGitItems_doNotSeeEachOther() throws {
        let w = try Workspace()
        try w.makeVault()
        try helper(w, "docker", "store", #"{"ServerURL":"https://h.example","Username":"d","Secret":"docker-pw"}"#)
        try helper(w, "git", "store", "protocol=https\nhost=h.example\nusername=g\npassword=git-pw\n")
        #expect(try helper(w, "docker", "list").stdout == #"{"https://h.example":"d"}"# + "\n")
        #expect(
            try helper(w, "git", "get", "protocol=https\nhost=h.example\n").stdout == "username=g\npassword=git-pw\n"
        )
        try helper(w, "git", "erase", "protocol=https\nhost=h.example\n")
        #expect(try helper(w, "docker", "get", "https://h.example").status == 0)
    }

    @Test func secrets_areEscapedAsGoEscapesThem() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try helper(
            w,
            "docker",
            "store",
            #"{"ServerURL":"r","Username":"<token>","Secret":"a\"b\\c\n<&>\u2028é"}"#
        )
        #expect(store.status == 0, "\(store.stdout)")
        #expect(
            try helper(w, "docker", "get", "r").stdout
                == #"{"ServerURL":"r","Username":"\u003ctoken\u003e","Secret":"a\"b\\c\n\u003c\u0026\u003e\u2028é"}"#
                + "\n"
        )
    }

    @Test func store_readsJSONAsGoDoes() throws {
        let w = try Workspace()
        try w.makeVault()
        // Names in any case, other members of any type skipped, escapes and surrogate pairs, null as no value.
        let payload = #"""
            {"serverurl": "r", "Extra": {"a": [1, -2.5e3, true, null, "x"]}, "USERNAME": "u",
             "Secret": "a\/b\ud83d\ude00\u00e9\t", "Username": "v", "unused": null}
            """#
        let store = try helper(w, "docker", "store", payload)
        #expect(store.status == 0, "\(store.stdout)")
        #expect(
            try helper(w, "docker", "get", "r").stdout == #"{"ServerURL":"r","Username":"v","Secret":"a/b😀é\t"}"# + "\n"
        )
        for bad in [
            #"{"ServerURL": "r", "Username": 5, "Secret": "s"}"#, #"{"ServerURL": "r""#, #"["r"]"#,
            #"{"ServerURL": "r\u12"}"#, "{\"ServerURL\": \"a\u{01}\"}",
        ] {
            let result = try helper(w, "docker", "store", bad)
            #expect(result.status == 1)
            #expect(result.stdout == "the credentials are not a JSON object of strings\n")
        }
    }

    @Test func protocolErrors_areOneLineOnStdout_withStatus1() throws {
        let w = try Workspace()
        try w.makeVault()
        let cases: [(String, String, String)] = [
            ("store", #"{"Username":"u","Secret":"s"}"#, "no credentials server URL"),
            ("store", #"{"ServerURL":"r","Secret":"s"}"#, "no credentials username"),
            ("store", #"{"ServerURL":"r","Username":"u","Secret":""}"#, "no credentials secret"),
            ("store", "not json", "the credentials are not a JSON object of strings"),
            ("get", "  \n", "no credentials server URL"),
            ("erase", "https://nothing.example", "credentials not found in native keychain"),
            ("frobnicate", "", "Unknown credential action `frobnicate`"),
        ]
        for (action, input, message) in cases {
            let result = try helper(w, "docker", action, input)
            #expect(result.status == 1)
            #expect(result.stdout == message + "\n")
            #expect(result.stderr == "")
        }
    }

    @Test func storeErrors_neverEchoTheSecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("wrong", "not the password\n")
        let result = try helper(
            w,
            "docker",
            "store",
            #"{"ServerURL":"r","Username":"u","Secret":"hunter2"}"#,
            options: ["--vault", "v.vault", "--password-file", "wrong"]
        )
        #expect(result.status == 1)
        #expect(result.stdout == "wrong password or key file\n")
        #expect(!result.stdout.contains("hunter2") && !result.stderr.contains("hunter2"))
    }

    @Test func completions_offerTheCommandAndItsVaultOption() throws {
        let bash = try Tool.run(["completions", "bash"]).stdout
        #expect(bash.contains("        credential-helper)\n"))
        #expect(bash.contains("opts=\"--vault "))
        let fileOptions = "--vault|--password-file|--key-file|--device-secret-file|--identity"
        #expect(bash.contains(fileOptions + ") _vaulttool_reply \"@files\""))
        let zsh = try Tool.run(["completions", "zsh"]).stdout
        #expect(zsh.contains("(credential-helper)"))
        #expect(
            zsh.contains("'--vault[The vault file (default: $VAULTTOOL_VAULT, else the standard vault).]:path:_files'")
        )
    }

    @Test func version() throws {
        let result = try Tool.run(["credential-helper", "docker", "version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("docker-credential-vault (vaulttool) "))
    }
}

@Suite("Credential helper: malformed input")
struct CredentialHelperMalformedInputTests {

    /// `input` with a few random edits: a byte replaced by a structural one, removed, or the tail cut.
    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let structural = Array("=\n\r\"\\{}[]:,u0 \u{0}".utf8) + [0xFF, 0xC3]
        for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes[at] = structural.randomElement(using: &rng)!
            case 1: bytes.remove(at: at)
            default: bytes.removeLast(bytes.count - at)
            }
        }
        return bytes
    }

    /// Mutated requests never crash a helper, exit with a documented status, and never print the secret.
    @Test func mutatedStoreRequests_failCleanly_andNeverEchoTheSecret() throws {
        let w = try Workspace()
        try w.makeVault()
        let marker = "SECRETMARKER"
        let seeds: [(String, [UInt8], Set<Int32>)] = [
            (
                "git",
                Array("protocol=https\nhost=h.example:8443\npath=a/b\nusername=bob\npassword=\(marker)\n\n".utf8),
                [0, 64]
            ),
            (
                "docker", Array(#"{"ServerURL":"https://h.example/v1","Username":"bob","Secret":"\#(marker)"}"#.utf8),
                [0, 1]
            ),
        ]
        var rng = SplitMix64(state: 20_261_201)
        for (name, seed, statuses) in seeds {
            for _ in 0..<25 {
                let input = Self.mutate(seed, using: &rng)
                let result = try Tool.run(
                    ["credential-helper", name, "--vault", "v.vault", "--password-file", "pw", "store"],
                    stdin: input,
                    in: w.path
                )
                let shown = String(decoding: input, as: UTF8.self)
                #expect(
                    statuses.contains(result.status),
                    "\(name) store exited \(result.status) for \(shown.debugDescription)"
                )
                #expect(
                    !result.stdout.contains("MARKER") && !result.stderr.contains("MARKER"),
                    "\(shown.debugDescription)"
                )
            }
        }
    }
}

@Suite("Credential helper: real git and docker's names")
struct CredentialHelperIntegrationTests {
    /// Runs `git` with a clean environment: a temporary HOME, no system config, no prompts, no proxy.
    @discardableResult
    static func git(
        _ arguments: [String],
        stdin: String = "",
        in w: Workspace,
        environment: [String: String] = [:]
    ) throws -> RunResult {
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": w.file("home"),
            "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C",
        ]
        env.merge(environment) { $1 }
        return try Tool.runProgram(
            "/usr/bin/env",
            ["git"] + arguments,
            stdin: Array(stdin.utf8),
            environment: env,
            in: w.path
        )
    }

    /// Whether `program --version` runs (the real-program tests are skipped without it).
    static func available(_ program: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program, "--version"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let hasGit = available("git")
    /// The HTTP tests also need python3, which runs `Data/basic-auth-server.py`.
    static let hasGitAndPython = hasGit && available("python3")
    static let hasDockerAndPython = available("docker") && available("python3")

    /// `credential.helper` running the built vaulttool with an explicit vault and password file.
    static func helperConfig(_ w: Workspace) -> String {
        "credential.helper=!'\(Tool.path)' credential-helper git --vault '\(w.file("v.vault"))' --password-file '\(w.file("pw"))'"
    }

    @Test(.enabled(if: hasGit)) func gitCredential_approveFillReject() throws {
        let w = try Workspace()
        try w.makeVault()
        let config = Self.helperConfig(w)
        let approve = try Self.git(
            ["-c", config, "credential", "approve"],
            stdin: "url=https://bob@git.example.org/team/repo.git\npassword=hunter2\n\n",
            in: w
        )
        #expect(approve.status == 0, "\(approve.stderr)")
        let fill = try Self.git(
            ["-c", config, "credential", "fill"],
            stdin: "url=https://git.example.org/x.git\n\n",
            in: w
        )
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout == "protocol=https\nhost=git.example.org\nusername=bob\npassword=hunter2\n")
        let reject = try Self.git(
            ["-c", config, "credential", "reject"],
            stdin: "url=https://bob@git.example.org/\npassword=hunter2\n\n",
            in: w
        )
        #expect(reject.status == 0, "\(reject.stderr)")
        let after = try Self.git(
            ["-c", config, "credential", "fill"],
            stdin: "url=https://git.example.org/\n\n",
            in: w
        )
        #expect(after.status != 0)
        #expect(after.stdout == "")
        #expect(after.stderr.contains("terminal prompts disabled"))
    }

    @Test(.enabled(if: hasGit)) func gitCredentialVault_link_usesTheStandardVault_withNoConfiguration() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.file("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: w.file("bin/git-credential-vault"),
            withDestinationPath: Tool.path
        )
        let env = [
            "PATH": w.file("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "XDG_DATA_HOME": w.file("data"),
        ]
        let approve = try Self.git(
            ["-c", "credential.helper=vault", "credential", "approve"],
            stdin: "protocol=https\nhost=example.com\nusername=bob\npassword=zero-config\n\n",
            in: w,
            environment: env
        )
        #expect(approve.status == 0, "\(approve.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.file("data/vault/default.vault")))
        let fill = try Self.git(
            ["-c", "credential.helper=vault", "credential", "fill"],
            stdin: "protocol=https\nhost=example.com\n\n",
            in: w,
            environment: env
        )
        #expect(fill.stdout == "protocol=https\nhost=example.com\nusername=bob\npassword=zero-config\n")
    }

    @Test(.enabled(if: hasGitAndPython)) func gitClone_overHTTPWithBasicAuth_storesUsesAndErases() throws {
        let w = try Workspace()
        try w.makeVault()
        try Self.git(["init", "-q", "--bare", "-b", "main", "srv/repo.git"], in: w)
        try Self.git(["init", "-q", "-b", "main", "work"], in: w)
        try Self.git(
            ["-C", "work", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "1"],
            in: w
        )
        try Self.git(["-C", "work", "push", "-q", "../srv/repo.git", "main"], in: w)
        try Self.git(["-C", "srv/repo.git", "update-server-info"], in: w)
        try w.write("server-password", "letmein\n")

        let server = try BasicAuthServer(root: w.file("srv"), user: "bob", passwordFile: w.file("server-password"))
        let port = server.port
        let config = Self.helperConfig(w)

        // The first clone authenticates with the URL's credentials; git then asks the helper to store them.
        let first = try Self.git(
            ["-c", config, "clone", "-q", "http://bob:letmein@127.0.0.1:\(port)/repo.git", "c1"],
            in: w
        )
        #expect(first.status == 0, "\(first.stderr)")
        let stored = try w.run([
            "get", "--password-file", "pw", "--server", "127.0.0.1", "--port", "\(port)", "--protocol", "http",
            "--account", "bob", "v.vault",
        ])
        #expect(stored.stdout == "letmein")
        // The second clone has no credentials of its own: the helper supplies them.
        let second = try Self.git(["-c", config, "clone", "-q", "http://127.0.0.1:\(port)/repo.git", "c2"], in: w)
        #expect(second.status == 0, "\(second.stderr)")
        // The server's password changes: git is refused and asks the helper to erase the stale one.
        try w.write("server-password", "changed\n")
        let third = try Self.git(["-c", config, "clone", "-q", "http://127.0.0.1:\(port)/repo.git", "c3"], in: w)
        #expect(third.status != 0)
        #expect(!third.stderr.contains("letmein"))
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect((try list.json()["items"] as? [Any])?.isEmpty == true)
    }

    /// The docker CLI logs in without a daemon (it checks the registry's `/v2/` itself), stores
    /// through `credsStore`, and erases on logout.
    @Test(.enabled(if: hasDockerAndPython)) func dockerLoginAndLogout_throughCredsStore() throws {
        let w = try Workspace()
        for directory in ["bin", "cfg", "srv/v2"] {
            try FileManager.default.createDirectory(atPath: w.file(directory), withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(
            atPath: w.file("bin/docker-credential-vault"),
            withDestinationPath: Tool.path
        )
        try w.write("cfg/config.json", #"{"credsStore": "vault"}"#)
        try w.write("server-password", "letmein\n")
        let server = try BasicAuthServer(root: w.file("srv"), user: "bob", passwordFile: w.file("server-password"))
        let registry = "127.0.0.1:\(server.port)"
        let env = [
            "PATH": w.file("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "DOCKER_CONFIG": w.file("cfg"), "DOCKER_HOST": "unix://" + w.file("no-daemon.sock"),
            "XDG_DATA_HOME": w.file("data"), "XDG_STATE_HOME": Tool.stateHome(w.path),
        ]
        func docker(_ arguments: [String], stdin: String = "") throws -> RunResult {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["docker"] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.feed(stdin.utf8)
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            return RunResult(status: process.terminationStatus, stdout: text, stderr: text, stdoutBytes: Array(data))
        }
        let login = try docker(["login", registry, "-u", "bob", "--password-stdin"], stdin: "letmein")
        #expect(login.status == 0, "\(login.stdout)")
        let list = try w.run(["credential-helper", "docker", "list"], environment: env)
        #expect(list.stdout == #"{"\#(registry)":"bob"}"# + "\n")
        let get = try w.run(["credential-helper", "docker", "get"], stdin: registry, environment: env)
        #expect(get.stdout == #"{"ServerURL":"\#(registry)","Username":"bob","Secret":"letmein"}"# + "\n")
        let config = try String(contentsOfFile: w.file("cfg/config.json"), encoding: .utf8)
        #expect(!config.contains("letmein") && !config.contains("Ym9iOmxldG1laW4"))
        let logout = try docker(["logout", registry])
        #expect(logout.status == 0, "\(logout.stdout)")
        #expect(try w.run(["credential-helper", "docker", "list"], environment: env).stdout == "{}\n")
    }

    @Test func dockerCredentialVault_link_runsTheDockerProtocol() throws {
        let w = try Workspace()
        try FileManager.default.createSymbolicLink(
            atPath: w.file("docker-credential-vault"),
            withDestinationPath: Tool.path
        )
        // The rollback state goes to the workspace, never the real home (as `Tool.run` does).
        let env = ["XDG_DATA_HOME": w.file("data"), "XDG_STATE_HOME": Tool.stateHome(w.path)]
        let link = w.file("docker-credential-vault")
        func run(_ action: String, _ input: String) throws -> RunResult {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: link)
            process.arguments = [action]
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            let stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try process.run()
            stdin.feed(input.utf8)
            let data = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return RunResult(
                status: process.terminationStatus,
                stdout: String(decoding: data, as: UTF8.self),
                stderr: "",
                stdoutBytes: Array(data)
            )
        }
        let missing = try run("get", "https://index.docker.io/v1")
        #expect(missing.status == 1)
        #expect(missing.stdout == "credentials not found in native keychain\n")
        #expect(try run("store", DockerCredentialHelperTests.documentedStore).status == 0)
        #expect(FileManager.default.fileExists(atPath: w.file("data/vault/default.vault")))
        #expect(
            try run("get", "https://index.docker.io/v1").stdout
                == #"{"ServerURL":"https://index.docker.io/v1","Username":"david","Secret":"passw0rd1"}"# + "\n"
        )
    }
}

/// `Data/basic-auth-server.py` on 127.0.0.1: started here, stopped when this is released.
final class BasicAuthServer {
    let process = Process()
    let lifeline = Pipe()  // the server exits when this closes
    private(set) var port = 0

    init(root: String, user: String, passwordFile: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Tool.data("basic-auth-server.py"), root, user, passwordFile]
        let portPipe = Pipe()
        process.standardOutput = portPipe
        process.standardInput = lifeline
        try process.run()
        var text = ""
        while !text.hasSuffix("\n") {
            let byte = portPipe.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            text += String(decoding: byte, as: UTF8.self)
        }
        port = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    deinit {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
