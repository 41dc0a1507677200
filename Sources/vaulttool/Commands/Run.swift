// vaulttool run: start a program with secrets from the vault in its environment, masked in its output.

import CVaultTool
import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool run [--vault <path>] [<credential options>] [--env NAME=REF ...] [--env-file <file> ...]
/// [--file NAME=REF ...] [--pristine] [--no-masking] -- <command> ...`.
///
/// Spec: Spec/cli.md, "run".
struct Run: Command {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program with secrets from the vault in its environment.",
        discussion: """
            Every variable of the program's environment whose value is a reference (Spec/cli.md
            4.4.2: vault://SERVICE/ACCOUNT, vault+https://ACCOUNT@HOST/...) is replaced by the
            item's secret, and so are the references of --env NAME=REF and of --env-file files
            (NAME=VALUE lines, # comments; other values are set as they are). --file NAME=REF sets
            NAME to the path of a sealed in-memory file holding the secret (/proc/self/fd/N: never
            on disk, readable many times). Every reference is resolved before the program starts:
            one that does not resolve stops the command (2: no item, 3: wrong credential, 64: not
            a valid reference), naming the variable and the reference, never a value.
            The secrets, in their raw, base64, percent-encoded and JSON-escaped forms, are replaced
            by <concealed by vault> in the program's output; on a terminal the program gets a
            pseudo-terminal, so colours and line editing work. --no-masking executes the program
            in vaulttool's place. --pristine passes only the resolved variables and a minimal PATH.
            The exit status is the program's (128+N when signal N ended it; 127: command not
            found; 126: not executable); SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are
            forwarded to it. The vault is --vault, else $VAULTTOOL_VAULT, else the standard vault;
            with the agent holding it ('vaulttool unlock'), runs need no credential.

            A CI job whose runner holds an identity publishes with a token it never sees:
              vaulttool run --vault ci.vault --identity "$RUNNER_IDENTITY" \\
                --env NPM_TOKEN=vault://registry/ci -- npm publish
            A web service reads its database password from its environment, as before:
              DB_PASSWORD=vault://db/app vaulttool run --vault /srv/app/app.vault \\
                --key-file /etc/app/key -- ./server --port 8080
            """
    )
    @Option(VaultLocation.option) var vault: String?
    @RepeatedOption(
        "--env",
        valueName: "name=ref",
        help: "Set variable <name> to the secret of reference <ref>.",
        completion: .none
    )
    var envOptions: [String]
    @RepeatedOption(
        "--env-file",
        valueName: "file",
        help: "Read NAME=VALUE lines; values that are references are resolved.",
        completion: .files
    )
    var envFiles: [String]
    @RepeatedOption(
        "--file",
        valueName: "name=ref",
        help: "Set variable <name> to the path of a sealed memory file holding the secret.",
        completion: .none
    )
    var fileOptions: [String]
    @Flag("--pristine", help: "Pass only the resolved variables and PATH=\(ChildProgram.minimalPath).")
    var pristine: Bool
    @Flag("--no-masking", help: "Do not mask the output; execute the program in vaulttool's place.")
    var noMasking: Bool
    @Group var credentialOptions: CredentialOptions
    @RemainingArguments("command", help: "The program to run, and its arguments.", passthrough: true, completion: .none)
    var command: [String]

    /// `--env NAME=REF`, parsed by ``validate()``.
    private(set) var envAssignments: [RunAssignment] = []
    /// `--file NAME=REF`, parsed by ``validate()``.
    private(set) var fileAssignments: [RunAssignment] = []

    mutating func validate() throws {
        envAssignments = try envOptions.map { try RunEnvironment.assignment($0, option: "--env", asFile: false) }
        fileAssignments = try fileOptions.map { try RunEnvironment.assignment($0, option: "--file", asFile: true) }
        var seen = Set<String>()
        for assignment in envAssignments + fileAssignments where !seen.insert(assignment.name).inserted {
            throw UsageError("The variable \(assignment.name) is given more than once with --env or --file")
        }
    }

    func run() throws {
        // 1. Every source of variables, in the order of precedence (later wins).
        var assignments = [RunAssignment]()
        // The --password-env variable is a credential, never a reference, and never passed on.
        let dropped = Set([credentialOptions.passwordEnv].compactMap { $0 })
        let inherited = RunEnvironment.inherited().filter { !dropped.contains($0.name) }
        for (name, value, isUTF8) in inherited where ItemReference.isReference(value) {
            guard isUTF8 else {
                throw ToolError(
                    "the variable \(name) holds a reference that is not valid (its value is not shown): "
                        + "it is not UTF-8",
                    exitCode: .usage
                )
            }
            // An inherited value is not shown in messages: text that only starts like a reference
            // (vault+postgres://user:pw@…) may hold a password of its own.
            let reference = try RunEnvironment.parse(value, name: name, showValue: false)
            assignments.append(RunAssignment(name: name, value: .secret(reference), showsReference: false))
        }
        for file in envFiles { assignments += try RunEnvironment.envFile(file) }
        assignments += envAssignments + fileAssignments
        var effective = [String: Int]()  // name → index of the assignment that wins
        for (index, assignment) in assignments.enumerated() { effective[assignment.name] = index }
        let winners = assignments.indices.filter { effective[assignments[$0].name] == $0 }.map { assignments[$0] }

        // 2. The command, looked up before the vault is opened when PATH is no reference.
        let pathAssignment = winners.first { $0.name == "PATH" }
        var executable: String?
        if pathAssignment?.reference == nil {
            executable = try ChildProgram.lookUp(command[0], searchPath: searchPath(pathAssignment, [:]))
        }

        // 3. Each reference resolved once, before anything starts.
        var secrets = [ItemReference: [UInt8]]()
        // Copies of a secret share its buffer (the masker's raw form, the list handed to the
        // supervisor): it is overwritten in place, for every holder, once the child has ended.
        defer { for secret in secrets.values { OutputMasker.wipeShared(secret) } }
        try resolve(winners, into: &secrets)
        if executable == nil {
            executable = try ChildProgram.lookUp(
                command[0],
                searchPath: searchPath(pathAssignment, secrets),
                showsPath: false
            )
        }

        // 4. The environment, built here (never through setenv: vaulttool's own stays as it was).
        var environment = [[UInt8]]()
        defer {
            for index in environment.indices { SecretMemory.wipe(&environment[index]) }
        }
        var memoryFiles = [Int32]()
        defer { for descriptor in memoryFiles { close(descriptor) } }
        func value(of assignment: RunAssignment) throws -> [UInt8] {
            switch assignment.value {
            case .plain(let text): return Array(text.utf8)
            case .secret(let reference):
                let secret = secrets[reference] ?? []
                if secret.contains(0) {
                    let shown = TerminalText.escaped(reference.description)
                    throw ToolError(
                        "the secret of \(shown) (variable \(assignment.name)) holds a NUL byte, which an "
                            + "environment variable cannot; pass it with --file \(assignment.name)=\(shown)"
                    )
                }
                return secret
            case .file(let reference):
                let secret = secrets[reference] ?? []
                let descriptor = secret.withUnsafeBytes { vault_run_memfd(assignment.name, $0.baseAddress, $0.count) }
                guard descriptor >= 0 else {
                    throw ToolError(
                        "cannot make the memory file for \(assignment.name): memfd_create failed: "
                            + String(cString: strerror(errno)),
                        exitCode: .ioFailure
                    )
                }
                memoryFiles.append(descriptor)
                return Array("/proc/self/fd/\(descriptor)".utf8)
            }
        }
        func entry(_ name: String, _ value: [UInt8]) -> [UInt8] { Array(name.utf8) + [UInt8(ascii: "=")] + value }
        var placed = Set<String>()
        if pristine {
            if pathAssignment == nil { environment.append(entry("PATH", Array(ChildProgram.minimalPath.utf8))) }
        } else {
            for (name, text, _) in inherited where !placed.contains(name) {
                placed.insert(name)
                if let index = effective[name] {
                    environment.append(entry(name, try value(of: assignments[index])))
                } else {
                    environment.append(entry(name, Array(text.utf8)))
                }
            }
        }
        for assignment in winners where !placed.contains(assignment.name) {
            environment.append(entry(assignment.name, try value(of: assignment)))
        }

        // 5. Start it: in place when nothing is to be masked, else under supervision.
        var program = ChildProgram(path: executable!, arguments: command, environment: environment)
        program.showsPath = pathAssignment?.reference == nil
        let masked = noMasking ? [] : Array(secrets.values)
        if masked.allSatisfy(\.isEmpty) {
            try program.execInPlace()
        }
        let status = try ChildSupervisor(program, secrets: masked).run()
        if status != 0 { throw ExitCode(rawValue: status) }
    }

    /// The PATH the command is looked up in: the child's (Spec/cli.md, "run": as `env -i` does).
    private func searchPath(_ assignment: RunAssignment?, _ secrets: [ItemReference: [UInt8]]) -> String {
        switch assignment?.value {
        case .plain(let text)?: return text
        case .secret(let reference)?: return String(decoding: secrets[reference] ?? [], as: UTF8.self)
        case .file?: return ChildProgram.minimalPath
        case nil:
            if pristine { return ChildProgram.minimalPath }
            return environmentValue("PATH") ?? ChildProgram.minimalPath
        }
    }

    /// Reads the secret of every reference among `assignments`, each once, from one snapshot.
    ///
    /// Every failure (the vault does not open, no item, several items) names the variable and the
    /// reference, never a value, and keeps its exit status.
    private func resolve(_ assignments: [RunAssignment], into secrets: inout [ItemReference: [UInt8]]) throws {
        let wanted = assignments.filter { $0.reference != nil }
        guard let first = wanted.first, let firstReference = first.reference else { return }
        let snapshot: VaultSnapshot
        do {
            snapshot = try VaultLocation.snapshot(vault, credentialOptions)
        } catch {
            throw Self.failure(error, name: first.name, reference: firstReference, shown: first.showsReference)
        }
        for assignment in wanted {
            guard let reference = assignment.reference, secrets[reference] == nil else { continue }
            do {
                secrets[reference] = try snapshot.secret(for: reference).copyBytes()
            } catch {
                throw Self.failure(error, name: assignment.name, reference: reference, shown: assignment.showsReference)
            }
        }
    }

    private static func failure(_ error: any Error, name: String, reference: ItemReference, shown: Bool = true)
        -> any Error
    {
        let what =
            shown
            ? "\(name)=\(TerminalText.escaped(reference.description))" : "\(name) (an inherited reference, not shown)"
        if let usage = error as? UsageError {
            return ToolError("cannot resolve \(what): \(usage.message)", exitCode: .usage)
        }
        let (reason, exitCode) = describe(error)
        return ToolError("cannot resolve \(what): \(reason)", exitCode: exitCode)
    }
}
