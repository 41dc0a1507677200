// vaulttool: the few path and text helpers the commands need, without Foundation's NSString.

import Glibc

/// The last component of `path` (`a/b/` → `b`), as `NSString.lastPathComponent`.
func lastPathComponent(_ path: String) -> String {
    guard let last = path.split(separator: "/").last else { return path.isEmpty ? "" : "/" }
    return String(last)
}

/// `$TMPDIR`, else `/tmp`.
func temporaryDirectory() -> String {
    guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
    return value
}

/// `text` cut or padded with spaces to exactly `width` characters, as `padding(toLength:)`.
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
}
