// vault: the `{{ vault://… }}` references of a template, found byte for byte, and rendered.

import VaultIO

/// A template's bytes and the references in it (`inject`).
///
/// A reference is `{{`, optional spaces or tabs, a reference (Spec/cli.md 4.4.2), optional
/// spaces or tabs, `}}`. Any other `{{ … }}` (a Jinja or Go template's own) is left as it is.
///
/// ```swift
/// let template = Template(Array("password: {{ vault://db/app }}\n".utf8))
/// var rendered = try template.render { try vault.read { $0 } }
/// defer { SecretMemory.wipe(&rendered) }
/// ```
///
/// Spec: Spec/cli.md, "inject".
public struct Template: Sendable {
    /// One `{{ reference }}`: where it is, and what it names.
    public struct Placeholder: Sendable {
        /// The bytes `{{ … }}` occupy in the template.
        public let range: Range<Int>
        /// 1-based line of the `{{`, for messages.
        public let line: Int
        /// 1-based column (in bytes) of the `{{`, for messages.
        public let column: Int
        /// The reference text, as written.
        public let text: String
        /// Why the placeholder is not a reference although it starts like one (no `}}` on its
        /// line, bytes that are not UTF-8), or `nil`: a value meant as a reference is never
        /// passed on as literal text.
        public var problem: String?
    }

    /// The template as given.
    public let bytes: [UInt8]
    /// Every placeholder, in order.
    public let placeholders: [Placeholder]

    /// Finds every placeholder; text between `{{` and `}}` that starts with `vault://` or
    /// `vault+` is a reference and must be one.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var found: [Placeholder] = []
        var line = 1
        var lineStart = 0
        var index = 0
        let open = UInt8(ascii: "{")
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            } else if bytes[index] == open, index + 1 < bytes.count, bytes[index + 1] == open,
                let placeholder = Self.placeholder(in: bytes, at: index, line: line, column: index - lineStart + 1)
            {
                found.append(placeholder)
                index = placeholder.range.upperBound
                continue
            }
            index += 1
        }
        placeholders = found
    }

    /// The placeholder starting at `start` (`{{`), or `nil` when the braces hold no reference:
    /// text that starts like one (`vault://`, `vault+`, in any case) is a placeholder, and one
    /// that does not end in `}}` on its line or is not UTF-8 carries its ``Placeholder/problem``.
    private static func placeholder(in bytes: [UInt8], at start: Int, line: Int, column: Int) -> Placeholder? {
        var cursor = start + 2
        while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
        let textStart = cursor
        let prefix = String(decoding: bytes[textStart..<min(bytes.count, textStart + 8)], as: UTF8.self)
        guard ItemReference.isReference(prefix) else { return nil }
        while cursor + 1 < bytes.count, !(bytes[cursor] == UInt8(ascii: "}") && bytes[cursor + 1] == UInt8(ascii: "}")),
            bytes[cursor] != UInt8(ascii: "\n")
        {
            cursor += 1
        }
        guard cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "}") else {
            let end = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "\n") ? cursor : bytes.count
            return Placeholder(
                range: start..<end,
                line: line,
                column: column,
                text: String(decoding: bytes[textStart..<end], as: UTF8.self),
                problem: "it has no closing '}}' on its line"
            )
        }
        var textEnd = cursor
        while textEnd > textStart, bytes[textEnd - 1] == 0x20 || bytes[textEnd - 1] == 0x09 { textEnd -= 1 }
        let range = start..<(cursor + 2)
        guard let text = String(validating: bytes[textStart..<textEnd], as: UTF8.self) else {
            let lossy = String(decoding: bytes[textStart..<textEnd], as: UTF8.self)
            return Placeholder(range: range, line: line, column: column, text: lossy, problem: "it is not UTF-8")
        }
        return Placeholder(range: range, line: line, column: column, text: text)
    }

    /// The reference of every placeholder, in order.
    ///
    /// - Throws: ``VaultDeliveryError/Code/invalidInput`` for the first placeholder that is not a
    ///   valid reference, naming its line and column.
    public func references() throws(VaultDeliveryError) -> [ItemReference] {
        var references: [ItemReference] = []
        for placeholder in placeholders {
            var problem = placeholder.problem
            if problem == nil {
                do {
                    references.append(try ItemReference(parsing: placeholder.text))
                    continue
                } catch {
                    problem = error.reason
                }
            }
            throw VaultDeliveryError(
                .invalidInput,
                "line \(placeholder.line), column \(placeholder.column): the reference "
                    + "'\(TerminalText.escaped(placeholder.text))' is not valid: \(problem ?? "")"
            )
        }
        return references
    }

    /// Every reference's secret, in order, from the snapshot `open` returns (called once, and only
    /// when there is a reference): the first that does not resolve stops before anything is
    /// rendered.
    ///
    /// - Returns: The secrets; the caller wipes them (`SecretMemory.wipe(_:)`).
    /// - Throws: The errors of ``references()``; ``VaultDeliveryError/Code/unresolvedReference``
    ///   naming the placeholder's line and reference, with the error of `open` or of the lookup
    ///   as ``VaultDeliveryError/underlying``.
    public func secrets(opening open: () throws -> VaultSnapshot) throws -> [[UInt8]] {
        let references = try references()
        guard !references.isEmpty else { return [] }
        let snapshot = try open()
        var secrets: [[UInt8]] = []
        secrets.reserveCapacity(references.count)
        for (reference, placeholder) in zip(references, placeholders) {
            do {
                secrets.append(try snapshot.secret(for: reference).copyBytes())
            } catch {
                for index in secrets.indices { SecretMemory.wipe(&secrets[index]) }
                throw VaultDeliveryError(
                    .unresolvedReference,
                    "line \(placeholder.line), reference '\(TerminalText.escaped(reference.description))'",
                    underlying: error
                )
            }
        }
        return secrets
    }

    /// The template with placeholder `i` replaced by `secrets[i]`, in one buffer allocated once
    /// (no reallocation leaves a copy of a secret behind); the caller wipes it.
    public func rendered(_ secrets: [[UInt8]]) -> [UInt8] {
        precondition(secrets.count == placeholders.count)
        let total = bytes.count + zip(placeholders, secrets).reduce(0) { $0 + $1.1.count - $1.0.range.count }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        var next = 0
        for (placeholder, secret) in zip(placeholders, secrets) {
            out += bytes[next..<placeholder.range.lowerBound]
            out += secret
            next = placeholder.range.upperBound
        }
        out += bytes[next...]
        return out
    }
}
