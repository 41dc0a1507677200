// vault: which variables a run's child gets, and which of them are references to resolve.

import Glibc
import VaultIO

/// One variable the child is to get, before references are resolved.
///
/// Spec: Spec/cli.md, "run" (Environment).
public struct RunAssignment: Sendable {
    /// Where the value is given.
    public enum Value: Sendable {
        /// A plain value, passed as is (an `--env-file` line that is no reference, or an inherited variable).
        case plain(String)
        /// A reference whose secret becomes the value.
        case secret(ItemReference)
        /// A reference whose secret goes into a sealed memfd; the value is its `/proc/self/fd/N` path.
        case file(ItemReference)
    }

    /// The variable's name.
    public var name: String
    /// Its value, or the reference that gives it.
    public var value: Value
    /// Whether the reference may be shown in messages: not for one inherited from the environment,
    /// whose text may only start like a reference and hold a password of its own.
    public var showsReference = true

    /// Variable `name` set to `value`.
    public init(name: String, value: Value, showsReference: Bool = true) {
        self.name = name
        self.value = value
        self.showsReference = showsReference
    }

    /// The reference, for those values that have one.
    public var reference: ItemReference? {
        switch value {
        case .plain: return nil
        case .secret(let reference), .file(let reference): return reference
        }
    }
}

/// Reading the sources of the child's variables: the inherited environment, `--env-file` files,
/// `--env NAME=REF` and `--file NAME=REF`.
public enum RunEnvironment {
    /// An env file larger than this is refused: it is a list of names and references.
    static let envFileLimit = 1 << 20

    /// Whether `name` is a portable environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
    public static func isValidName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || isalpha(Int32(first)) != 0 else {
            return false
        }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isalnum(Int32($0)) != 0 }
    }

    /// Splits `NAME=REF` given to `option`, and parses the reference.
    ///
    /// - Throws: ``VaultDeliveryError`` ``VaultDeliveryError/Code/invalidArgument`` when there is no
    ///   `=`, the name is not a variable name, or the value is not a reference;
    ///   ``VaultDeliveryError/Code/invalidInput`` when the reference is malformed.
    public static func assignment(_ text: String, option: String, asFile: Bool) throws(VaultDeliveryError)
        -> RunAssignment
    {
        guard let equals = text.firstIndex(of: "="), isValidName(text[..<equals]) else {
            throw VaultDeliveryError(
                .invalidArgument,
                "'\(option)' takes NAME=REF, with a variable name of letters, digits and '_'"
            )
        }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard ItemReference.isReference(value) else {
            throw VaultDeliveryError(
                .invalidArgument,
                "'\(option) \(name)=…' takes a reference (vault://…); set plain variables with an env file or env(1)"
            )
        }
        let reference = try parse(value, name: name)
        return RunAssignment(name: name, value: asFile ? .file(reference) : .secret(reference))
    }

    /// Parses `value`, a reference for the variable `name`; a malformed one is
    /// ``VaultDeliveryError/Code/invalidInput``, naming the variable, and the value only when
    /// `showValue` (a value from a command line, not one inherited: text that only starts like a
    /// reference may hold a password of its own).
    static func parse(_ value: String, name: String, showValue: Bool = true) throws(VaultDeliveryError)
        -> ItemReference
    {
        do {
            return try ItemReference(parsing: value)
        } catch {
            let shown = showValue ? ", '\(TerminalText.escaped(value))'" : " (its value is not shown)"
            throw VaultDeliveryError(
                .invalidInput,
                "the variable \(name) holds a reference that is not valid\(shown): \(error.reason)"
            )
        }
    }

    /// The variables of an env file, in order (Spec/cli.md, "run", "Env files"): `NAME=VALUE` lines
    /// (blanks around the name and the value ignored), an optional `export ` before the name, blank lines and `#` comment lines ignored, one pair of
    /// matching quotes around a value removed (nothing inside is special), a reference resolved,
    /// any other value kept as is.
    ///
    /// - Throws: ``VaultDeliveryError`` ``VaultDeliveryError/Code/system`` when the file cannot be
    ///   read, ``VaultDeliveryError/Code/invalidInput`` for a line that is not an assignment (named
    ///   by its number, never quoted: it may hold a secret).
    public static func envFile(_ path: String) throws(VaultDeliveryError) -> [RunAssignment] {
        let text = try readEnvFile(path)
        var assignments = [RunAssignment]()
        // Lines end at LF or CR LF only ("\r\n" is one Character in Swift): a lone CR, a vertical
        // tab or U+2028 is part of its line, never a second assignment.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let assignment =
                line.hasPrefix("export ") || line.hasPrefix("export\t")
                ? line.dropFirst("export".count).drop { $0 == " " || $0 == "\t" } : line
            let equals = assignment.firstIndex(of: "=")
            var name = equals.map { assignment[..<$0] } ?? ""
            while let last = name.last, last == " " || last == "\t" { name.removeLast() }
            guard let equals, isValidName(name) else {
                throw VaultDeliveryError(
                    .invalidInput,
                    "the env file '\(path)', line \(offset + 1), is not NAME=VALUE (a name of letters, digits and '_')"
                )
            }
            var value = assignment[assignment.index(after: equals)...]
            while let last = value.last, last == " " || last == "\t" { value.removeLast() }
            value = value.drop { $0 == " " || $0 == "\t" }
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            let text = String(value)
            guard !text.utf8.contains(0) else {
                throw VaultDeliveryError(
                    .invalidInput,
                    "the env file '\(path)', line \(offset + 1), holds a NUL byte, which an environment variable cannot"
                )
            }
            if ItemReference.isReference(text) {
                let name = String(name)
                assignments.append(RunAssignment(name: name, value: .secret(try parse(text, name: name))))
            } else {
                assignments.append(RunAssignment(name: String(name), value: .plain(text)))
            }
        }
        return assignments
    }

    private static func readEnvFile(_ path: String) throws(VaultDeliveryError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw VaultDeliveryError(.system, "cannot read the env file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let data: [UInt8]
        do {
            data = try SecretInput.read(descriptor: fd, limit: envFileLimit, path: path)
        } catch {
            if error.code == .tooLarge {
                throw VaultDeliveryError(.invalidInput, "the env file '\(path)' is larger than 1 MiB")
            }
            throw VaultDeliveryError(.system, "cannot read the env file '\(path)': \(error)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw VaultDeliveryError(.invalidInput, "the env file '\(path)' is not UTF-8 text")
        }
        return text
    }

    /// One variable of this process's environment.
    public struct Inherited: Sendable {
        /// The variable's name.
        public var name: String
        /// Its value; U+FFFD stands for bytes that are not UTF-8.
        public var value: String
        /// Whether the value's bytes are UTF-8: one that is not may be passed on, never read as a
        /// reference.
        public var isUTF8: Bool

        /// A variable `name` with `value`.
        public init(name: String, value: String, isUTF8: Bool = true) {
            self.name = name
            self.value = value
            self.isUTF8 = isUTF8
        }
    }

    /// This process's environment now, in order (`environ`, so a variable removed with `unsetenv`
    /// is gone).
    public static func inherited() -> [Inherited] {
        var result = [Inherited]()
        var pointer = environ
        while let entry = pointer.pointee {
            let isUTF8 = String(validatingCString: entry) != nil
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result.append(
                    Inherited(
                        name: String(text[..<equals]),
                        value: String(text[text.index(after: equals)...]),
                        isUTF8: isUTF8
                    )
                )
            }
            pointer += 1
        }
        return result
    }
}
