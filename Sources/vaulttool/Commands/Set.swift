// vaulttool set: add an item or replace its secret. The secret never comes from argv.

import FoundationEssentials
import Glibc
import VaultIO

/// `printf %s SECRET | vaulttool set --password-file <file> --service <service> --account <account> <vault>`.
struct SetItem: Command {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Add an item, or replace the secret of an existing one.",
        discussion: """
            The item is named by its primary key: service, account and access group for a generic
            password; server, account, protocol, port, path, security domain, authentication type and
            access group for an internet password. The secret is read from --secret-file, else from
            standard input when it is not a terminal (every byte, as is), else from a prompt without echo
            (asked after the vault password). An empty secret is refused unless --allow-empty is given:
            it is almost always a forgotten pipe or an unset variable. --trim-newline removes one
            trailing newline (LF or CRLF) from the secret, for secrets piped from 'echo' or a file
            that ends in one. A secret holds at most 16 MiB.

            Accessibility classes: whenUnlocked (the default), afterFirstUnlock, always, and the
            ThisDeviceOnly classes whenUnlockedThisDeviceOnly, afterFirstUnlockThisDeviceOnly,
            alwaysThisDeviceOnly and whenPasscodeSetThisDeviceOnly, which need this machine's device
            secret (--device-secret-file) to read and are left out of exports.
            """
    )
    @Group(specs: ItemSelector.options(without: "--label", "--class", "--id")) var selector: ItemSelector
    @Option(
        "--class",
        valueName: "class",
        help: "generic or internet (default: from the options).",
        completion: .values(["generic", "internet"])
    )
    var itemClassName: String?
    @Option("--label", valueName: "label", help: "A label for people.") var label: String?
    @Option("--comment", valueName: "comment", help: "A comment.") var comment: String?
    @Option("--description", valueName: "text", help: "A description of the kind of item.") var itemDescription: String?
    @Option(
        "--accessibility",
        valueName: "class",
        help: "whenUnlocked (default), afterFirstUnlock, always, or a ThisDeviceOnly class.",
        completion: .values(ProtectionClass.allCases.map(\.description))
    )
    var accessibilityName: String?
    @Flag("--synchronizable", help: "Mark the item synchronizable.") var synchronizable: Bool
    @Option("--secret-file", valueName: "file", help: "Read the secret from a file (every byte, at most 16 MiB).")
    var secretFile: String?
    @Flag("--allow-empty", help: "Store an empty secret instead of refusing it.") var allowEmpty: Bool
    @Flag("--trim-newline", help: "Remove one trailing newline from the secret.") var trimNewline: Bool
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    private(set) var itemClass = ItemClass.genericPassword
    private(set) var accessibility: ProtectionClass?

    mutating func validate() throws {
        itemClass =
            try itemClassName.map(ItemSelector.parseClass)
            ?? (selector.hasInternetFields ? .internetPassword : .genericPassword)
        if itemClass == .genericPassword && selector.hasInternetFields {
            throw UsageError("A generic password has no server, protocol, port, path or security domain")
        }
        if itemClass == .internetPassword && selector.service != nil {
            throw UsageError("An internet password has no service; use '--server'")
        }
        if selector.service == nil && selector.account == nil && selector.server == nil {
            throw UsageError("Name the item with '--service' or '--server', and '--account'")
        }
        accessibility = try accessibilityName.map { try ItemSelector.parseAccessibility($0) }
    }

    /// The attributes named on the command line.
    var keyAttributes: ItemAttributes {
        var attributes = selector.query.identity
        attributes.synchronizable = synchronizable
        return attributes
    }

    func run() throws {
        // The vault password first (a prompt asks for it before the secret), then the secret,
        // then the key derivation.
        let opener = try VaultAccess.opener(path, credentialOptions)
        var secret = try readSecret()
        defer { SecretMemory.wipe(&secret) }
        if trimNewline { SecretMemory.trimNewline(&secret) }
        if secret.isEmpty && !allowEmpty {
            throw ToolError(
                "the secret is empty (an empty pipe or an unset variable?); nothing was changed. "
                    + "Give '--allow-empty' to store an empty secret",
                exitCode: .usage
            )
        }
        let vault = try VaultAccess.vault(path, opener, acceptRollback: credentialOptions.acceptRollback)
        let key = keyAttributes
        let result = try VaultAccess.write(vault) { txn in
            try txn.upsert(
                itemClass,
                identity: key,
                secret: SecretBytes(bytes: secret, protection: .guarded),
                protectionClass: accessibility
            ) { attributes in
                if let label { attributes.label = label }
                if let comment { attributes.comment = comment }
                if let itemDescription { attributes.itemDescription = itemDescription }
            }
        }
        let (id, added) = (result.id, result == .added(result.id))
        Output.out("\(added ? "Added" : "Updated") item \(id).\n")
    }

    /// The secret from `--secret-file`, standard input, or a prompt.
    func readSecret() throws -> [UInt8] {
        if let secretFile { return try SecretInput.read("secret file", at: secretFile) }
        if !Terminal.isTerminal(STDIN_FILENO) {
            if credentialOptions.usesStdin {
                throw UsageError("Standard input carries the password; give the secret with '--secret-file'")
            }
            return try SecretInput.read("secret from standard input", from: STDIN_FILENO)
        }
        return try credentialOptions.sources.ask("Secret", confirm: true, otherwise: "--secret-file or a pipe")
    }
}
