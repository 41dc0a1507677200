// vaulttool inspect: everything the plain header shows, without a credential.

import FoundationEssentials
import Glibc
import VaultIO
import VaultImport

/// `vaulttool inspect [--json] [--items] <path>`.
struct Inspect: Command {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Inspect a vault file without decrypting it.",
        discussion: """
            Shows the format version, vault ID, creation time, generation, keyslots and their KDF cost,
            item and deletion counts and section sizes, and checks the file's structure. Needs no password.
            Without a credential these values are unauthenticated: anyone who can write the file can
            change them. With a credential, the header MAC is checked too (a wrong one exits 3).
            With --items and a credential, adds one line per item (never a secret).
            """
    )
    @Flag("--json", help: "Print machine-readable output.") var json: Bool
    @Flag("--items", help: "List the items too (needs a credential).") var items: Bool
    @Group var credentialOptions: CredentialOptions
    @Argument("path", help: "The vault file to inspect.") var path: String

    /// Whether `--device-secret-file` was given: a credential (it opens device keyslots), as for
    /// `backup`. The environment's device secret alone is not one.
    private var deviceSecretNamed: Bool { credentialOptions.deviceSecretFileNamed }

    /// Whether a credential was named on the command line (then the header MAC is checked).
    private var credentialGiven: Bool {
        credentialOptions.hasPasswordSource || credentialOptions.keyFile != nil || deviceSecretNamed
            || credentialOptions.identityOptionGiven || credentialOptions.tpm2
    }

    func run() throws {
        var report = try InspectReport.make(path: path)
        if (items || credentialGiven) && report.structure.error == nil {
            // Opening the snapshot verifies the header MAC (R-HDR-6) and the index.
            let snapshot = try VaultAccess.snapshot(path, credentialOptions)
            // The values shown were decoded from the header read first: they are authenticated
            // only if the MAC-checked header is the same bytes.
            guard snapshot.headerBytes == report.headerBytes else {
                throw ToolError("the vault changed while it was inspected; run again", exitCode: .busy)
            }
            report.authenticated = true
            report.compareWithSeen(snapshot)
            if items {
                let scan = try ItemSelector.all.scan(in: snapshot, includeSecrets: false, salvage: true)
                report.entries = scan.items.map { GenericJSONLayout.Item($0, includeSecret: false) }
                report.unavailableItems = scan.unavailable.count
                report.table = ItemTable.text(scan.items)
                if !scan.damaged.isEmpty {
                    report.damagedItems = scan.damaged.map(DamageReport.record)
                    report.damagedLines = scan.damaged.map(DamageReport.line)
                }
            }
        }
        Output.out(json ? try Output.json(report) : report.text)
        if report.structure.error != nil || report.damagedItems != nil { throw ExitCode.damaged }
    }
}

/// The result of `inspect`; its JSON form is documented in Spec/cli.md.
struct InspectReport: Encodable {
    struct Version: Encodable {
        var major: Int
        var minor: Int
    }
    struct KDF: Encodable {
        var algorithm = "argon2id"
        var memoryKiB: Int
        var iterations: Int
        var lanes: Int
    }
    struct Slot: Encodable {
        var index: Int
        var kind: String
        var scope: String
        var kdf: KDF?
        var weak: Bool
        /// A TPM2 keyslot's policy (Spec/tpm2.md L-TPM-5): unauthenticated, as every keyslot here.
        var tpm2: TPM2Policy? = nil
    }
    struct TPM2Policy: Encodable {
        var pcrs: [Int]
        var pin: Bool
    }
    struct Sizes: Encodable {
        var header: Int
        var index: Int
        var records: Int
        var total: Int
    }
    struct Structure: Encodable {
        var ok: Bool
        var error: ErrorInfo?
    }
    struct ErrorInfo: Encodable {
        var code: String
        var message: String
    }
    /// What this account recorded of the vault (Spec/cli.md, "Rollback").
    struct Seen: Encodable {
        /// The highest generation seen here.
        var generation: UInt64
        /// This file against the record: `same`, `newer`, `older` or `different` (same generation,
        /// other header) without a credential; with one, `fork` (older or different under the master
        /// key seen, Spec/rollback.md L-RB-1) or `rolledBack` instead of `older` and `different`.
        var file: String
    }

    var file: String
    var format: Version?
    var vaultID: String?
    var created: String?
    var generation: UInt64?
    var keyslots: [Slot] = []
    /// Format 1.2: how many recipient stanzas the header holds (their keys and names are encrypted).
    var recipients: Int?
    /// Format 2.0: how many recipients are limited to one access group (their domain is in the clear).
    var limitedRecipients: Int?
    /// Format 2.0: how many access groups have their own key domain (their names are encrypted).
    var accessGroups: Int?
    var items: Int?
    var deletions: Int?
    var sizes: Sizes?
    var writable: Bool?
    var structure: Structure
    var seen: Seen?
    /// The record read before the vault was opened (opening may raise it).
    var recorded: SeenGeneration?
    /// Whether a credential checked the header MAC, so the values above are authenticated.
    var authenticated = false
    /// The header as read, to compare with the one the credential authenticates.
    var headerBytes: [UInt8] = []
    var warnings: [String] = []
    /// With `--items`: every item the credential opens, without secrets.
    var entries: [GenericJSONLayout.Item]?
    /// With `--items`: items the credential cannot open (other device, base-scope keyslot).
    var unavailableItems: Int?
    /// With `--items`: records that are damaged (their IDs, and names when readable).
    var damagedItems: [DamageReport.Record]?
    /// With `--items`: one line per damaged record, for the text form.
    var damagedLines: [String] = []
    /// With `--items`: the human-readable item table.
    var table: String?

    enum CodingKeys: String, CodingKey {
        case file, format, vaultID, created, generation, keyslots, items, deletions, sizes, writable, structure
        case authenticated, warnings, entries, unavailableItems, damagedItems, seen
        case recipients, limitedRecipients, accessGroups
    }

    /// Reads the header of `path` and checks the file's structure.
    static func make(path: String) throws -> InspectReport {
        // The library's reader: only the preamble and the header are read, not the whole file.
        let reader = try VaultFileReader(path: path)
        var report = InspectReport(file: path, structure: Structure(ok: true, error: nil))
        do {
            let headerBytes = try reader.headerBytes()
            report.headerBytes = headerBytes
            let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
            report.fill(header, headerLength: headerBytes.count, total: reader.fileLength)
            report.compareWithSeen(header, headerBytes: headerBytes)
        } catch let error as VaultFormatError {
            report.structure = Structure(ok: false, error: ErrorInfo(code: error.code.name, message: error.reason))
        }
        return report
    }

    private mutating func fill(_ header: VaultHeader, headerLength: Int, total: Int) {
        format = Version(major: Int(header.major), minor: Int(header.minor))
        vaultID = Output.hex(header.vaultID)
        created = Output.date(header.created)
        generation = header.generation
        if header.followsVersion12Rules { recipients = header.recipientCount }
        if header.isVersion2 {
            limitedRecipients = header.limitedRecipientCount
            accessGroups = header.accessGroupCount
        }
        items = header.recordCount
        deletions = header.deletionCount
        // The format must allow writing and this user must be able to replace the file.
        writable = header.isWritable && FileAccess.canReplace(file)
        sizes = Sizes(header: headerLength, index: header.indexLength, records: header.recordsLength, total: total)
        for (index, slot) in header.keyslots.enumerated() {
            let kdf = slot.kdf.map {
                KDF(memoryKiB: Int($0.memoryKiB), iterations: Int($0.iterations), lanes: Int($0.lanes))
            }
            let weak = slot.kdf?.isWeak ?? false
            let tpm2 = header.tpm2Binding(for: slot).map {
                TPM2Policy(pcrs: $0.sealed.pcrs, pin: $0.sealed.requiresPIN)
            }
            keyslots.append(
                Slot(
                    index: index,
                    kind: tpm2 == nil ? slot.kind.description : "tpm2",
                    scope: slot.scope.description,
                    kdf: kdf,
                    weak: weak,
                    tpm2: tpm2
                )
            )
            if weak {
                warnings.append(
                    "keyslot #\(index) uses weak Argon2id parameters (below \(KDFParameters.minimumMemoryKiB) KiB or \(KDFParameters.minimumIterations) passes); run 'vaulttool migrate' to raise them"
                )
            }
        }
        if !header.isWritable {
            warnings.append(
                "format \(header.major).\(header.minor) is newer than this vaulttool: the vault is read-only here"
            )
        } else if writable == false {
            warnings.append(
                "this user cannot replace the file (its directory is not writable here): the vault is read-only"
            )
        }
    }

    /// Compares the (unauthenticated) header with what this account recorded of the vault.
    private mutating func compareWithSeen(_ header: VaultHeader, headerBytes: [UInt8]) {
        let recorded: SeenGeneration?
        do {
            recorded = try RollbackGuard(.standard).recorded(vaultID: header.vaultID)
        } catch {
            warnings.append("the rollback state of this vault cannot be read: \(describe(error).0)")
            return
        }
        guard let recorded else { return }
        self.recorded = recorded
        let file = SeenGeneration(vaultID: header.vaultID, generation: header.generation, headerBytes: headerBytes)
        let comparison =
            if let finding = recorded.finding(for: file) {
                finding.kind == .olderGeneration ? "older" : "different"
            } else {
                file.generation > recorded.generation ? "newer" : "same"
            }
        seen = Seen(generation: recorded.generation, file: comparison)
        if comparison == "older" || comparison == "different" {
            warnings.append(
                "generation \(recorded.generation) of this vault was seen here before: this file is \(comparison == "older" ? "older" : "a different copy at that generation"); it is a fork (another git branch, a discarded commit) or a copy put back: inspect it with a credential to tell"
            )
        }
    }

    /// With a credential: decides fork or rollback by the master key (Spec/rollback.md L-RB-1),
    /// against the record as it was before the open, and replaces the keyless comparison.
    mutating func compareWithSeen(_ snapshot: VaultSnapshot) {
        guard let recorded, let seen, seen.file == "older" || seen.file == "different" else { return }
        warnings.removeAll { $0.hasPrefix("generation \(recorded.generation) of this vault was seen here before") }
        let file = SeenGeneration(snapshot)
        if let finding = recorded.finding(for: file) {
            self.seen = Seen(generation: recorded.generation, file: "rolledBack")
            warnings.append("this file was rolled back: \(finding); writes are refused without --accept-rollback")
        } else if recorded.fork(of: file) != nil {
            self.seen = Seen(generation: recorded.generation, file: "fork")
        }
    }

    /// The human-readable form.
    var text: String {
        var out = Output.field("File:", file)
        guard let format, let sizes else {
            out += Output.field("Structure:", "DAMAGED: \(structure.error?.message ?? "unknown problem")")
            return out
        }
        out += Output.field("Format:", "vault \(format.major).\(format.minor)")
        out += Output.field("Vault ID:", vaultID ?? "")
        out += Output.field("Created:", created ?? "")
        out += Output.field("Generation:", String(generation ?? 0))
        if let seen {
            let file =
                switch seen.file {
                case "fork": "fork of generation \(seen.generation)"
                case "rolledBack": "rolled back"
                default: seen.file
                }
            out += Output.field("Seen here:", "generation \(seen.generation) (this file: \(file))")
        }
        out += Output.field("Keyslots:", String(keyslots.count))
        for slot in keyslots {
            var line =
                "  #\(slot.index)  " + padded(slot.kind, 20)
                + padded(slot.scope, 8)
            if let kdf = slot.kdf {
                line +=
                    "Argon2id \(kdf.memoryKiB / 1024 > 0 ? "\(kdf.memoryKiB / 1024) MiB" : "\(kdf.memoryKiB) KiB"), t=\(kdf.iterations), p=\(kdf.lanes)"
                if slot.weak { line += "  (weak)" }
            }
            if let tpm2 = slot.tpm2 {
                line += Passwd.describe(pcrs: tpm2.pcrs)
                line += tpm2.pin ? ", PIN" : ", no PIN"
            }
            out += line + "\n"
        }
        if let recipients {
            let limited = limitedRecipients.map { ", \($0) limited to one access group" } ?? ""
            out += Output.field("Recipients:", "\(recipients) (keys and names encrypted\(limited))")
        }
        if let accessGroups {
            out += Output.field(
                "Groups:",
                "\(accessGroups) access group\(accessGroups == 1 ? "" : "s") with a key domain (names encrypted)"
            )
        }
        out += Output.field("Items:", Output.count(items ?? 0))
        out += Output.field("Deletions:", Output.count(deletions ?? 0))
        out += Output.field(
            "Sizes:",
            "header \(Output.count(sizes.header)) B, index \(Output.count(sizes.index)) B, records \(Output.count(sizes.records)) B, total \(Output.count(sizes.total)) B"
        )
        out += Output.field("Structure:", "ok (header checksum and layout; items need the password to verify)")
        out += Output.field(
            "Header MAC:",
            authenticated
                ? "checked with the credential: the values above are authenticated"
                : "not checked: the values above are unauthenticated (anyone who can write the file can "
                    + "change them); give a credential to check it"
        )
        for warning in warnings { out += "Warning: \(warning)\n" }
        if let table {
            out += "\n" + table
            if let unavailableItems, unavailableItems > 0 {
                out += "(\(unavailableItems) more items cannot be opened with this credential or on this device)\n"
            }
            for line in damagedLines { out += "DAMAGED: \(line)\n" }
        }
        return out
    }
}
