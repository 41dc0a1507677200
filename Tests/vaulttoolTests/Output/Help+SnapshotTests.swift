// vaulttool tests: every help text equals its recorded snapshot, so that any change shows in review.

import Foundation
import Testing

/// The help of the tool and of every command, each in `Snapshots/help/<command>.txt`
/// (`root.txt` for `vaulttool --help`), as swift-argument-parser's `Snapshots/` do.
///
/// A change to a help text fails here until the snapshot is recorded again:
/// `VAULTTOOL_RECORD_SNAPSHOTS=1 swift test --filter HelpSnapshotTests`, then review the diff of
/// the snapshot files like any other change. A recording run fails too, so that it cannot pass
/// for a checked one.
@Suite("Help snapshots")
struct HelpSnapshotTests {
    static let directory = Tool.packageRoot.appendingPathComponent("Tests/vaulttoolTests/Snapshots/help")
    static let recording = ProcessInfo.processInfo.environment["VAULTTOOL_RECORD_SNAPSHOTS"] == "1"

    /// The subcommands `vaulttool --help` lists, `help` left out.
    static func commandNames() throws -> [String] {
        let root = try Tool.run(["--help"]).stdout
        let list = try #require(
            root.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first
        )
        return list.split(separator: "\n").map {
            String($0.split(separator: " ")[0]).trimmingCharacters(in: .punctuationCharacters)
        }
        .filter { $0 != "help" }
    }

    @Test func everyHelpText_equalsItsSnapshot() throws {
        let names = try Self.commandNames()
        #expect(names.count >= 27)
        for name in ["root"] + names {
            let result = try Tool.run(name == "root" ? ["--help"] : [name, "--help"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(name)")
            let file = Self.directory.appendingPathComponent("\(name).txt")
            if Self.recording {
                try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
                try Data(result.stdout.utf8).write(to: file)
                Issue.record("recorded \(file.path); run again without VAULTTOOL_RECORD_SNAPSHOTS and review the diff")
                continue
            }
            guard let recorded = try? String(contentsOf: file, encoding: .utf8) else {
                Issue.record("no snapshot of '\(name) --help'; record it with VAULTTOOL_RECORD_SNAPSHOTS=1")
                continue
            }
            #expect(
                result.stdout == recorded,
                "'\(name) --help' differs from \(file.lastPathComponent); if intended, record it with VAULTTOOL_RECORD_SNAPSHOTS=1"
            )
        }
    }

    @Test func everySnapshot_isOfACommand() throws {
        let names = Set(try Self.commandNames() + ["root"])
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
        let stale = files.filter { !$0.hasSuffix(".txt") || !names.contains(String($0.dropLast(4))) }
        #expect(stale.isEmpty, "snapshots of no command: \(stale)")
    }
}
