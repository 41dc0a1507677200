// vault: what an app's test target would write itself: temporary directories and reading files.

import Foundation
import Testing

/// Runs `body` with a fresh directory under the system's temporary directory, then removes it.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("appstyle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
}

/// Points `XDG_STATE_HOME` of this test process at a temporary directory, once, so that a sample
/// run with the default configuration keeps its rollback records (Spec/rollback.md) there and not
/// in the real home of whoever runs the tests. Every test that opens a vault with the default
/// configuration calls it first.
///
/// Tests run in parallel, so another thread may read the environment meanwhile. That is safe
/// here: nothing else in this process calls `setenv`, and glibc's first `setenv` of a new name
/// copies the environment into a new array and leaves the old one (which readers may hold) in place.
func isolateStateHome() { _ = isolatedStateHome }

private let isolatedStateHome: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("appstyle-state-\(UUID().uuidString)").path
    setenv("XDG_STATE_HOME", path, 1)
    return path
}()

/// The vault package's top directory: `VAULT_PACKAGE_ROOT` when set (`scripts/outside-package.sh`
/// runs these files from a package of its own), otherwise found from this file's path
/// (`Tests/AppStyleTests/Support.swift`).
func packageRoot(file: String = #filePath) -> String {
    if let root = ProcessInfo.processInfo.environment["VAULT_PACKAGE_ROOT"], !root.isEmpty { return root }
    return URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .path
}

/// The text of `file` (relative to the package root).
func packageFile(_ file: String) throws -> String {
    try String(contentsOfFile: packageRoot() + "/" + file, encoding: .utf8)
}

/// The text between the first `start` and the next `end` after it.
func section(of text: String, from start: String, to end: String) -> String? {
    guard let lower = text.range(of: start), let upper = text.range(of: end, range: lower.upperBound..<text.endIndex)
    else { return nil }
    return String(text[lower.upperBound..<upper.lowerBound])
}

/// Every fenced block of `language` in `text`, in order.
func codeBlocks(in text: String, language: String = "swift") -> [String] {
    var blocks: [String] = []
    var rest = text[...]
    while let open = rest.range(of: "```" + language + "\n"),
        let close = rest.range(of: "```", range: open.upperBound..<rest.endIndex)
    {
        blocks.append(String(rest[open.upperBound..<close.lowerBound]))
        rest = rest[close.upperBound...]
    }
    return blocks
}

/// Code with layout removed: lines trimmed, runs of spaces collapsed, blank lines and `import`
/// lines dropped, so that swift-format's spacing before a comment does not count as a difference
/// and a document's `import VaultIO` matches the test file's own import.
func normalized(_ code: String) -> [String] {
    code.split(separator: "\n").map { line in
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
}

/// Expects every ```swift block of `document`, in order, to be the code between
/// `// BEGIN <name> <n>` and `// END <name> <n>` in the test file `testFile` of this target,
/// so that a sample cannot change in the document without the compiled copy, or the reverse.
func expectDocumentSamples(
    in document: String,
    match name: String,
    compiledIn testFile: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let blocks = codeBlocks(in: try packageFile(document))
    let source = try packageFile("Tests/AppStyleTests/" + testFile)
    #expect(!blocks.isEmpty, "\(document) has no Swift sample", sourceLocation: sourceLocation)
    for (index, block) in blocks.enumerated() {
        let number = index + 1
        guard let compiled = section(of: source, from: "// BEGIN \(name) \(number)\n", to: "// END \(name) \(number)")
        else {
            Issue.record(
                "sample \(number) of \(document) is not compiled in \(testFile)",
                sourceLocation: sourceLocation
            )
            continue
        }
        #expect(
            normalized(block) == normalized(compiled),
            "sample \(number) of \(document)",
            sourceLocation: sourceLocation
        )
    }
    #expect(
        section(of: source, from: "// BEGIN \(name) \(blocks.count + 1)\n", to: "// END") == nil,
        "\(testFile) compiles more samples than \(document) has",
        sourceLocation: sourceLocation
    )
}

/// Directory listing, kept here so that test files other than this one need no Foundation.
enum FileManagerShim {
    /// The names of the `.swift` files in `directory`, sorted.
    static func swiftFiles(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".swift") }.sorted()
    }
}
