// vault: the credential server's config file, which maps a unit's credential to a vault item.

import Glibc
import VaultIO

/// Which item answers which unit's credential: one `UNIT CREDENTIAL-ID REFERENCE` line each.
///
/// ```
/// # unit            credential    reference
/// myapp.service     db-password   vault://db/app
/// ```
///
/// Names are exact (no globs): a unit not listed gets nothing, so a renamed or new unit never
/// receives a secret by accident.
///
/// Spec: Spec/agent.md, section 7.2 (R-CS-1 to R-CS-4).
public struct CredentialServerConfig: Sendable {
    /// One line: what a unit asks for, and the item that answers.
    public struct Entry: Sendable {
        /// The unit, such as `myapp.service`.
        public let unit: String
        /// The credential ID of the unit's `LoadCredential=`.
        public let credential: String
        /// The item that answers.
        public let reference: ItemReference
        /// The line of the config file.
        public let line: Int
    }

    /// The entries by unit and credential ID.
    public let entries: [Key: Entry]

    /// A unit and one of its credential IDs.
    public struct Key: Hashable, Sendable {
        /// The unit.
        public let unit: String
        /// The credential ID.
        public let credential: String
    }

    /// A config file is far smaller than this.
    public static let maximumByteCount = 1 << 20
    /// The unit types `LoadCredential=` is a setting of (systemd.exec(5)).
    static let unitSuffixes = [".service", ".socket", ".mount", ".swap"]
    /// `sun_path` holds 108 bytes; systemd binds NUL, up to 16 hex digits and `/unit/`, then
    /// UNIT `/` ID (R-CS-5), so a longer pair could never be asked for.
    static let maximumNameBytes = 108 - 1 - 16 - "/unit/".count - 1

    /// The entry for `unit` and `credential`, if the config names them.
    public subscript(unit: String, credential: String) -> Entry? {
        entries[Key(unit: unit, credential: credential)]
    }

    // MARK: - Reading

    /// Reads and checks the config file at `path`.
    ///
    /// - Throws: ``VaultDeliveryError``: ``VaultDeliveryError/Code/refused`` when the file's owner
    ///   or mode is refused (R-CS-1), ``VaultDeliveryError/Code/system`` when it cannot be read,
    ///   ``VaultDeliveryError/Code/invalidInput`` naming the line of the first mistake (R-CS-2).
    public static func load(_ path: String) throws(VaultDeliveryError) -> CredentialServerConfig {
        // O_NONBLOCK: a FIFO named as the config must not block the start before fstat refuses it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw VaultDeliveryError(.system, "cannot read the config file '\(path)': \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw VaultDeliveryError(
                .refused,
                "cannot read the config file '\(path)': \(String(cString: strerror(errno)))"
            )
        }
        try checkOwnerAndMode(status, path: path)
        let bytes: [UInt8]
        do {
            bytes = try SecretInput.read(descriptor: descriptor, limit: maximumByteCount)
        } catch  where error.code == .tooLarge {
            throw VaultDeliveryError(
                .invalidInput,
                "the config file '\(path)' is larger than 1024 KiB; a config file is at most 1024 KiB"
            )
        } catch {
            throw VaultDeliveryError(
                .system,
                "cannot read the config file '\(path)': \(error.errno.map(\.description) ?? error.reason)"
            )
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw VaultDeliveryError(.invalidInput, "the config file '\(path)' is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// R-CS-1: a regular file owned by this user or by root, that neither its group nor other
    /// users can write. Whoever can change the file chooses which unit gets which secret.
    static func checkOwnerAndMode(_ status: stat, path: String) throws(VaultDeliveryError) {
        let mode = String(status.st_mode & 0o7777, radix: 8)
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VaultDeliveryError(.refused, "the config file '\(path)' is refused: it is not a regular file")
        }
        guard status.st_uid == getuid() || status.st_uid == 0 else {
            throw VaultDeliveryError(
                .refused,
                "the config file '\(path)' is refused: it belongs to user \(status.st_uid), "
                    + "not to this user (\(getuid())) or root; whoever owns it chooses which unit gets which secret"
            )
        }
        guard status.st_mode & 0o022 == 0 else {
            throw VaultDeliveryError(
                .refused,
                "the config file '\(path)' is refused: mode \(mode) lets "
                    + "\(status.st_mode & 0o002 != 0 ? "every user" : "its group") change it; chmod go-w it"
            )
        }
    }

    /// Parses the text of a config file (R-CS-2); `path` only names it in errors.
    public static func parse(_ text: String, path: String) throws(VaultDeliveryError) -> CredentialServerConfig {
        var entries: [Key: Entry] = [:]
        // "\r\n" is one Character in Swift: split on it as well as on "\n" (the grammar's [CR] LF).
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            func refuse(_ why: String) -> VaultDeliveryError {
                VaultDeliveryError(.invalidInput, "the config file '\(path)', line \(number): \(why)")
            }
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            // The grammar's VCHAR, space and tab only (comments too): nothing a log line or a
            // terminal would act on reaches the server's log.
            guard line.unicodeScalars.allSatisfy({ $0 == " " || $0 == "\t" || (0x21...0x7E).contains($0.value) }) else {
                throw refuse("the line holds a character other than printable ASCII, space and tab")
            }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 3 else {
                throw refuse(
                    "expected UNIT CREDENTIAL-ID REFERENCE separated by spaces, found \(fields.count) field(s)"
                )
            }
            let unit = String(fields[0])
            let credential = String(fields[1])
            if let problem = unitProblem(unit) { throw refuse(problem) }
            if let problem = credentialProblem(credential) { throw refuse(problem) }
            guard unit.utf8.count + credential.utf8.count <= maximumNameBytes else {
                throw refuse(
                    "the unit and credential ID have \(unit.utf8.count + credential.utf8.count) bytes together; "
                        + "systemd's socket address leaves room for \(maximumNameBytes)"
                )
            }
            let reference: ItemReference
            do {
                reference = try ItemReference(parsing: String(fields[2]))
            } catch {
                throw refuse("the reference is invalid: \(error.reason)")
            }
            let key = Key(unit: unit, credential: credential)
            if let earlier = entries[key] {
                throw refuse("\(unit) \(credential) is already given on line \(earlier.line)")
            }
            entries[key] = Entry(unit: unit, credential: credential, reference: reference, line: number)
        }
        return CredentialServerConfig(entries: entries)
    }

    // MARK: - Names

    /// Why `unit` is not a unit name `LoadCredential=` can come from, or `nil`: ASCII letters,
    /// digits and `:-_.\@`, at most 255 bytes, ending in a unit type that has the setting.
    static func unitProblem(_ unit: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@".utf8)
        guard unit.utf8.count <= 255, unit.utf8.allSatisfy(allowed.contains) else {
            return "'\(printable(unit))' is not a unit name (letters, digits and :-_.\\@ only)"
        }
        guard let suffix = unitSuffixes.first(where: { unit.hasSuffix($0) }), unit.count > suffix.count else {
            return "'\(unit)' is not a unit that takes LoadCredential= (\(unitSuffixes.joined(separator: ", ")))"
        }
        return nil
    }

    /// Why `credential` is not a credential ID, or `nil`: printable ASCII without `/`, at most
    /// 255 bytes, neither `.` nor `..` (systemd's `credential_name_valid`, a file name).
    static func credentialProblem(_ credential: String) -> String? {
        guard !credential.isEmpty, credential.utf8.count <= 255, credential != ".", credential != "..",
            credential.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
        else {
            return "'\(printable(credential))' is not a credential ID (printable ASCII without '/', a file name)"
        }
        return nil
    }

    /// `text` with every byte outside printable ASCII written `\xNN`, for messages and the log.
    static func printable(_ text: some Sequence<UInt8>) -> String {
        var out = ""
        for byte in text {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return out
    }

    static func printable(_ text: String) -> String { printable(text.utf8) }
}
