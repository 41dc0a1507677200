// vaulttool: writing to stdout and stderr.

import FoundationEssentials
import Glibc
import VaultIO

/// Where the tool's text goes. Library code never prints; commands do, through here.
enum Output {
    /// Writes `text` to standard output as is.
    static func out(_ text: String) { write(Array(text.utf8), to: STDOUT_FILENO) }
    /// Writes raw bytes to standard output (for `get` and `list --json`), without copying them.
    ///
    /// The corresponding C function is `write`.
    static func outBytes(_ bytes: [UInt8]) { write(bytes, to: STDOUT_FILENO) }

    /// Writes all of `bytes` to `descriptor`, retrying interrupted and partial writes. Standard
    /// output that cannot be written (a full disk, a closed descriptor) ends the tool with status 7
    /// and a sentence on standard error, so that `export > backup` never reports success for a file it
    /// did not write. A reader that went away (EPIPE, when SIGPIPE is ignored) ends it quietly.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    // Standard error that cannot be written has nobody to tell: the command goes on.
                    guard descriptor == STDOUT_FILENO else { return }
                    let failure = errno
                    if failure != EPIPE {
                        let line = "vaulttool: cannot write to standard output: \(String(cString: strerror(failure)))\n"
                        _ = line.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
                    }
                    exit(ExitCode.ioFailure.rawValue)
                }
                offset += written
            }
        }
    }
    /// Writes `text` to standard error.
    static func err(_ text: String) { write(Array(text.utf8), to: STDERR_FILENO) }

    /// Encodes a value as stable JSON (sorted keys) followed by a newline.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// `2026-01-01T00:00:00Z` for milliseconds since the Unix epoch.
    static func date(_ milliseconds: Int64) -> String { RFC3339.format(milliseconds, fractionalSeconds: false) }

    /// `1,234,567`.
    static func count(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (index, char) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(char)
        }
        return out
    }

    /// Pads `label` so that values line up after it.
    static func field(_ label: String, _ value: String, width: Int = 13) -> String {
        label + String(repeating: " ", count: max(1, width - label.count)) + value + "\n"
    }
}
