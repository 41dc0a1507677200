// vault: what a run starts: the variables in their order of precedence, resolved once, then the child.

import CVaultRun
import Glibc
import VaultIO

/// A program to run with secrets from a vault in its environment, masked in its output.
///
/// The steps are those of `vaulttool run`, in order: ``init(command:inherited:envFiles:assignments:pristine:)``
/// gathers the variables (later sources win) and looks the command up when `PATH` is no
/// reference; ``resolve(opening:)`` reads every reference's secret once, from one snapshot;
/// ``start(masking:)`` builds the environment and starts the child, in place when nothing is
/// to be masked. The secrets are overwritten when the plan is released.
///
/// ```swift
/// let plan = try RunPlan(
///     command: ["./server"],
///     assignments: [try RunEnvironment.assignment("DB_PASSWORD=vault://db/app", option: "--env", asFile: false)]
/// )
/// try plan.resolve { try VaultFileReader(path: path).open(with: credentials) }
/// let status = try plan.start(masking: true)
/// ```
///
/// Spec: Spec/cli.md, "run".
public final class RunPlan {
    /// The command and its arguments.
    public let command: [String]
    /// Whether the child gets only the resolved variables and a minimal `PATH`.
    public let pristine: Bool
    /// Every variable given, in the order of precedence (later wins).
    private let assignments: [RunAssignment]
    /// The inherited environment, as it was when the plan was made.
    private let inherited: [RunEnvironment.Inherited]
    /// Name → index in ``assignments`` of the assignment that wins.
    private let effective: [String: Int]
    /// The assignments that win, in order.
    private let winners: [RunAssignment]
    /// The assignment of `PATH`, if any.
    private let pathAssignment: RunAssignment?
    /// The program, once looked up.
    private var executable: String?
    /// Each reference's secret. Copies of a secret share its buffer (the masker's raw form, the
    /// list handed to the supervisor): it is overwritten in place, for every holder, on `deinit`.
    private var secrets: [ItemReference: [UInt8]] = [:]

    /// Gathers the variables of a run, in the order of precedence: the inherited environment's
    /// references, then each env file (``RunEnvironment/envFile(_:)``), then `assignments`; and
    /// looks the command up, unless `PATH` itself is a reference (then ``resolve(opening:)`` does).
    ///
    /// - Parameters:
    ///   - command: The program and its arguments; not empty.
    ///   - inherited: This process's environment, without the variables that must not be passed on
    ///     (one that held a password).
    ///   - envFiles: Files of `NAME=VALUE` lines.
    ///   - assignments: `--env NAME=REF` and `--file NAME=REF`, each name once.
    ///   - pristine: Pass only the resolved variables and ``ChildProgram/minimalPath``.
    /// - Throws: ``VaultDeliveryError``: an inherited reference or an env file that is not valid,
    ///   or a command that is not found.
    public init(
        command: [String],
        inherited: [RunEnvironment.Inherited] = RunEnvironment.inherited(),
        envFiles: [String] = [],
        assignments: [RunAssignment] = [],
        pristine: Bool = false
    ) throws(VaultDeliveryError) {
        self.command = command
        self.pristine = pristine
        self.inherited = inherited
        var gathered = [RunAssignment]()
        for variable in inherited where ItemReference.isReference(variable.value) {
            guard variable.isUTF8 else {
                throw VaultDeliveryError(
                    .invalidInput,
                    "the variable \(variable.name) holds a reference that is not valid (its value is not shown): "
                        + "it is not UTF-8"
                )
            }
            // An inherited value is not shown in messages: text that only starts like a reference
            // (vault+postgres://user:pw@…) may hold a password of its own.
            let reference = try RunEnvironment.parse(variable.value, name: variable.name, showValue: false)
            gathered.append(RunAssignment(name: variable.name, value: .secret(reference), showsReference: false))
        }
        for file in envFiles { gathered += try RunEnvironment.envFile(file) }
        gathered += assignments
        var effective = [String: Int]()
        for (index, assignment) in gathered.enumerated() { effective[assignment.name] = index }
        self.assignments = gathered
        self.effective = effective
        winners = gathered.indices.filter { effective[gathered[$0].name] == $0 }.map { gathered[$0] }
        pathAssignment = winners.first { $0.name == "PATH" }
        if pathAssignment?.reference == nil {
            executable = try ChildProgram.lookUp(command[0], searchPath: searchPath())
        }
    }

    deinit {
        for secret in secrets.values { OutputMasker.wipeShared(secret) }
    }

    /// Whether any variable is a reference (else ``resolve(opening:)`` opens nothing).
    public var needsVault: Bool { winners.contains { $0.reference != nil } }

    /// Reads the secret of every reference, each once, from the snapshot `open` returns (called
    /// once, and only when there is a reference); then looks the command up in a `PATH` that is a
    /// reference.
    ///
    /// - Throws: ``VaultDeliveryError/Code/unresolvedReference`` naming the variable and the
    ///   reference (or only the variable, for an inherited one), with the error of `open` or of
    ///   the lookup as ``VaultDeliveryError/underlying``; the errors of
    ///   ``ChildProgram/lookUp(_:searchPath:showsPath:)``.
    public func resolve(opening open: () throws -> VaultSnapshot) throws(VaultDeliveryError) {
        let wanted = winners.filter { $0.reference != nil }
        if let first = wanted.first {
            let snapshot: VaultSnapshot
            do {
                snapshot = try open()
            } catch {
                throw Self.unresolved(first, error)
            }
            for assignment in wanted {
                guard let reference = assignment.reference, secrets[reference] == nil else { continue }
                do {
                    secrets[reference] = try snapshot.secret(for: reference).copyBytes()
                } catch {
                    throw Self.unresolved(assignment, error)
                }
            }
        }
        if executable == nil {
            executable = try ChildProgram.lookUp(command[0], searchPath: searchPath(), showsPath: false)
        }
    }

    /// Builds the child's environment (never through `setenv`: this process's own stays as it
    /// was) and starts the program: in this process's place when there is nothing to mask
    /// (`masking` off, or no secret), else under a ``ChildSupervisor``.
    ///
    /// - Returns: The child's exit status (128 + N when signal N ended it).
    /// - Throws: ``VaultDeliveryError``: ``VaultDeliveryError/Code/refused`` for a secret holding a
    ///   NUL byte for an environment variable, ``VaultDeliveryError/Code/system`` when a memory file
    ///   cannot be made, or the errors of starting the program.
    public func start(masking: Bool) throws(VaultDeliveryError) -> Int32 {
        guard let executable else { preconditionFailure("start(masking:) before resolve(opening:)") }
        var environment = [[UInt8]]()
        defer { for index in environment.indices { SecretMemory.wipe(&environment[index]) } }
        var memoryFiles = [Int32]()
        defer { for descriptor in memoryFiles { close(descriptor) } }
        func entry(_ name: String, _ value: [UInt8]) -> [UInt8] { Array(name.utf8) + [UInt8(ascii: "=")] + value }
        var placed = Set<String>()
        if pristine {
            if pathAssignment == nil { environment.append(entry("PATH", Array(ChildProgram.minimalPath.utf8))) }
        } else {
            for variable in inherited where !placed.contains(variable.name) {
                placed.insert(variable.name)
                if let index = effective[variable.name] {
                    environment.append(entry(variable.name, try value(of: assignments[index], &memoryFiles)))
                } else {
                    environment.append(entry(variable.name, Array(variable.value.utf8)))
                }
            }
        }
        for assignment in winners where !placed.contains(assignment.name) {
            environment.append(entry(assignment.name, try value(of: assignment, &memoryFiles)))
        }
        let program = ChildProgram(
            path: executable,
            arguments: command,
            environment: environment,
            showsPath: pathAssignment?.reference == nil
        )
        let masked = masking ? Array(secrets.values) : []
        if masked.allSatisfy(\.isEmpty) {
            try program.execInPlace()
        }
        return try ChildSupervisor(program, secrets: masked).run()
    }

    /// The value of `assignment` in the child's environment: its text, its secret, or the path of
    /// a sealed memory file holding the secret (whose descriptor is added to `memoryFiles`).
    private func value(of assignment: RunAssignment, _ memoryFiles: inout [Int32]) throws(VaultDeliveryError)
        -> [UInt8]
    {
        switch assignment.value {
        case .plain(let text): return Array(text.utf8)
        case .secret(let reference):
            let secret = secrets[reference] ?? []
            if secret.contains(0) {
                let shown = TerminalText.escaped(reference.description)
                throw VaultDeliveryError(
                    .refused,
                    "the secret of \(shown) (variable \(assignment.name)) holds a NUL byte, which an "
                        + "environment variable cannot; pass it with --file \(assignment.name)=\(shown)"
                )
            }
            return secret
        case .file(let reference):
            let secret = secrets[reference] ?? []
            let descriptor = secret.withUnsafeBytes { vault_run_memfd(assignment.name, $0.baseAddress, $0.count) }
            guard descriptor >= 0 else {
                throw VaultDeliveryError(
                    .system,
                    "cannot make the memory file for \(assignment.name): memfd_create failed: "
                        + String(cString: strerror(errno))
                )
            }
            memoryFiles.append(descriptor)
            return Array("/proc/self/fd/\(descriptor)".utf8)
        }
    }

    /// The PATH the command is looked up in: the child's (Spec/cli.md, "run": as `env -i` does).
    private func searchPath() -> String {
        switch pathAssignment?.value {
        case .plain(let text)?: return text
        case .secret(let reference)?: return String(decoding: secrets[reference] ?? [], as: UTF8.self)
        case .file?: return ChildProgram.minimalPath
        case nil:
            if pristine { return ChildProgram.minimalPath }
            return getenv("PATH").map { String(cString: $0) } ?? ChildProgram.minimalPath
        }
    }

    /// The error for a reference of `assignment` that did not resolve: it names the variable and
    /// the reference (never a value), or only the variable for an inherited reference.
    private static func unresolved(_ assignment: RunAssignment, _ error: any Error) -> VaultDeliveryError {
        let what =
            assignment.showsReference
            ? "\(assignment.name)=\(TerminalText.escaped(assignment.reference?.description ?? ""))"
            : "\(assignment.name) (an inherited reference, not shown)"
        return VaultDeliveryError(.unresolvedReference, "cannot resolve \(what)", underlying: error)
    }
}
