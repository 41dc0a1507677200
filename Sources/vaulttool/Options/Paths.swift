// vaulttool: the few path, environment and text helpers the commands need, without Foundation's
// NSString or ProcessInfo.

import Glibc

/// The last component of `path` (`a/b/` → `b`), as `NSString.lastPathComponent`.
func lastPathComponent(_ path: String) -> String {
    guard let last = path.split(separator: "/").last else { return path.isEmpty ? "" : "/" }
    return String(last)
}

/// Environment variable `name`, or `nil` when it is not set: one `getenv`, where
/// `ProcessInfo.processInfo.environment` first copies the whole environment into a dictionary (a
/// tenth of a `get`'s work; BENCHMARKS.md, "A lean process").
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// `text` cut or padded with spaces to exactly `width` characters, as `padding(toLength:)`.
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
}
