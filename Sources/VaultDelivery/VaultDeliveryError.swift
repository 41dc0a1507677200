// vault: why a secret could not be handed to another program.

/// An error from running a program with secrets, rendering a template or serving a credential.
///
/// ``reason`` is one sentence for a person: it names the variable, file, line or reference at
/// fault, with control characters escaped (``TerminalText/escaped(_:)``), and never holds a
/// secret. Only ``code`` takes part in `==`, so tests can write
/// `#expect(throws: VaultDeliveryError(.commandNotFound))`.
///
/// A reference that does not resolve is ``Code/unresolvedReference``: ``underlying`` is the
/// error of opening the vault or of the lookup, which the caller words (it knows its
/// credentials), and ``reason`` names what was being resolved.
public struct VaultDeliveryError: Error, Equatable, CustomStringConvertible {
    /// A kind of failure. New codes may be added in minor releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// An argument the caller passed is malformed (`NAME=REF` without a name, a value that is
        /// no reference): a command line's usage error.
        public static let invalidArgument = Code("invalidArgument")
        /// Input read from a file, the environment or a template is not valid: a malformed
        /// reference, an env-file line, a config line, a file that is too large or not UTF-8.
        public static let invalidInput = Code("invalidInput")
        /// The program to run does not exist, or is not found in the search path (a shell's 127).
        public static let commandNotFound = Code("commandNotFound")
        /// The program was found but cannot be executed (a shell's 126).
        public static let commandNotExecutable = Code("commandNotExecutable")
        /// A system call failed, or a file cannot be read; ``VaultDeliveryError/reason`` names the
        /// step and the system's reason.
        public static let system = Code("system")
        /// A program run on the caller's behalf (git) refused; ``VaultDeliveryError/reason`` quotes
        /// the first line of what it said.
        public static let commandFailed = Code("commandFailed")
        /// The request cannot be carried out as asked: a secret holding a NUL byte for an
        /// environment variable, a config file whose owner or mode is refused.
        public static let refused = Code("refused")
        /// A reference did not resolve; see ``VaultDeliveryError/underlying``.
        public static let unresolvedReference = Code("unresolvedReference")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for a person. Never a secret.
    public let reason: String
    /// For ``Code/unresolvedReference``: why the vault did not open or the item was not found.
    public let underlying: (any Error)?

    /// An error to compare against: `#expect(throws: VaultDeliveryError(.refused))`.
    public init(_ code: Code) { self.init(code, "") }

    init(_ code: Code, _ reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public var description: String { reason.isEmpty ? code.name : reason }
}
