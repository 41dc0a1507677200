// vaulttool verify: check every record with the credential.

import VaultFormat

/// `vaulttool verify --password-file <file> <vault>`.
struct Verify: Command {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the integrity of every item in a vault.",
        discussion: """
            Authenticates the header and index and decrypts every record, its attributes and its
            secret, without printing any of them. Exit status 0 means the vault is sound.
            """
    )
    static let options = CredentialOptions.specs
    static let arguments = [ArgumentSpec(name: "vault", help: "The vault file to check.")]

    let path: String
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        path = parsed.positional(0)!
        credentialOptions = try CredentialOptions(parsed)
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let result = try Progress.run("Verifying \(snapshot.index.count) items") { try snapshot.verify() }
        var line = "ok: \(Output.count(result.checked)) items verified, generation \(snapshot.header.generation)"
        if result.skipped > 0 {
            line += "; \(Output.count(result.skipped)) items need another device or credential and were not checked"
        }
        Output.out(line + "\n")
    }
}
