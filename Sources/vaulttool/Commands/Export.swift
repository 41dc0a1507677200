// vaulttool export: items and secrets as plaintext JSON in the generic layout.

import Foundation
import Glibc
import VaultFormat

/// `vaulttool export --password-file <file> [--output <file>] <vault>`.
struct Export: Command {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write items and their secrets as plaintext JSON.",
        discussion: """
            Writes the generic JSON layout that 'vaulttool import --from json' reads (Spec/cli.md).
            Items of the ThisDeviceOnly classes are left out unless --include-device-only is given.
            The output is not encrypted: keep it safe and delete it when done.
            """
    )
    static let options =
        [
            OptionSpec(names: ["--output", "-o"], valueName: "file", help: "Write to a new file (mode 0600)."),
            OptionSpec(names: ["--include-device-only"], valueName: nil, help: "Include ThisDeviceOnly items."),
        ] + ItemSelector.specs + ItemSelector.filterSpecs + CredentialOptions.specs
    static let arguments = [ArgumentSpec(name: "vault", help: "The vault file.")]

    /// The top level of the generic JSON layout.
    struct Document: Codable {
        var format = "vault-items"
        var version = 1
        var items: [ItemRecord]
    }

    let path: String
    let output: String?
    let includeDeviceOnly: Bool
    let selector: ItemSelector
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        path = parsed.positional(0)!
        output = parsed.value("--output")
        includeDeviceOnly = parsed.flag("--include-device-only")
        selector = try ItemSelector(parsed)
        credentialOptions = try CredentialOptions(parsed)
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let items = try selector.select(in: snapshot, includeSecrets: true)
        let kept = items.filter { includeDeviceOnly || !$0.entry.protectionClass.isDeviceBound }
        let records = kept.map { ItemRecord($0, includeSecret: true) }.sorted { ($0.id ?? "") < ($1.id ?? "") }
        var text = Array(try Output.json(Document(items: records)).utf8)
        defer { CredentialOptions.wipe(&text) }
        Output.err("Warning: the export is plaintext; anyone who can read it can read every secret in it.\n")
        if items.count > kept.count {
            Output.err(
                "Note: \(items.count - kept.count) ThisDeviceOnly items left out (use --include-device-only).\n"
            )
        }
        guard let output else {
            Output.outBytes(text)
            return
        }
        let descriptor = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ToolError("cannot create '\(output)': \(String(cString: strerror(errno)))", exitCode: .ioFailure)
        }
        defer { close(descriptor) }
        var written = 0
        while written < text.count {
            let count = text[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw ToolError("cannot write '\(output)': \(String(cString: strerror(errno)))", exitCode: .ioFailure)
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            throw ToolError("cannot write '\(output)': \(String(cString: strerror(errno)))", exitCode: .ioFailure)
        }
        Output.err("Exported \(records.count) items to \(output).\n")
    }
}
