// vault reliability, suite 6, key-holder pass: format 2.0 files tampered as a holder of BK alone
// or a recipient limited to one access group can, the header MAC and the index recomputed.

import Foundation
import Glibc
import VaultFormat
import _VaultHooks

/// Suite 6's key-holder pass.
///
/// The bit flips of the tamper matrix (`Tamper`) cannot get past the header MAC, but a holder of
/// `BK` alone (a base-scope keyslot) or a limited recipient holds `HK` and `IK` and can write a
/// file that the MAC and the index accept (Spec/threat-model.md §3.13.1, "Who can write what").
/// This pass plays them, on the two-group vaults of `Fixtures/v2` and `Fixtures/v2-damage`: it
/// tampers access-group fields, recipient stanzas (full and limited), index entries and grouped
/// records, seals records with the tamperer's own keys where it can, and writes each variant
/// with the MAC and the index recomputed (`KeyHolderFile`). Every variant is then read by every
/// reader of the vault: the owner (password keyslot), the full recipient and each limited
/// recipient, each opening, reading every item and secret and running `verify`; an owner also
/// lists the recipients.
///
/// Each read must end in a typed error or a correct read. A correct read returns the items of the
/// pristine file, except where the tamperer is allowed to change them: an item it may write
/// (a `BK` holder: `always` items of domain 0 that claim no group with a domain; a limited
/// recipient: items of its own domain that claim its group), an item it deleted (any holder of
/// `IK` can delete, threat model §3.13), or, for a limited reader only, an item of its group that
/// a holder of `IK` moved to another domain (it cannot tell that from a deletion). Anything else
/// is a silent wrong answer and fails the suite: a planted or changed item returned, an item
/// missing or unreadable that is still there, an owner's listing that names a key nobody added.
///
/// One known hole is reported, not passed: a holder of `BK` drops a group's field, its limited
/// stanzas and its records, and writes `always` records of domain 0 that claim the group. Nothing
/// in a 2.0 file that `BK` cannot rewrite says that the group had a domain, so the owner reads the
/// forged items (threat model §3.13.1, still open; format 3 closes it). Those variants are counted
/// as `known`; the suite fails if they stop reproducing, so that the documentation is updated.
enum KeyHolderTamper {
    /// Who opens a variant.
    struct Reader {
        let name: String
        let credentials: Credentials
        /// A holder of `MK` (password keyslot or full recipient): R2-GRP-2, R2-GRP-5, R2-GRP-6 apply.
        let holdsMasterKey: Bool
    }

    /// A recipient limited to one access group, as a tamperer.
    struct Limited {
        let name: String
        let keys: VaultKeys
        let domain: UInt8
        /// `HK || IK || LK || GK(d)`, unwrapped from its stanza.
        let payload: SecretBytes
    }

    /// One item as a reader sees it.
    struct Item: Equatable {
        let id: ItemID
        let attributes: ItemAttributes
        let secret: [UInt8]
        let protection: ProtectionClass
    }

    /// What a reader reads of a file.
    struct Read {
        var items: [ItemID: Item] = [:]
        var indexIDs: Set<ItemID> = []
        var unavailable: Set<ItemID> = []
        /// The keys an owner's listing names (R12-RCP-4), `nil` when it fails with a typed error.
        var recipients: Set<[UInt8]>? = nil
    }

    /// A vault to tamper with, its readers and what they read of it.
    struct Subject {
        let name: String
        let bytes: [UInt8]
        let vaultID: [UInt8]
        let readers: [Reader]
        let owner: VaultKeys
        let base: VaultKeys
        let limited: [Limited]
        /// Group name by key domain, as the owner reads them.
        let groups: [UInt8: String]
        /// Every item as the owner reads it, with its entry's domain.
        let items: [(item: Item, domain: UInt8)]
        var pristine: [String: Read] = [:]
    }

    enum Area: String, CaseIterable {
        case groupField = "group field", stanza, record = "grouped record", index, version
    }

    /// An item the tamperer sealed, and whether the threat model lets it write that item.
    struct Planted {
        let item: Item
        let authorized: Bool
    }

    /// One tampered file and what the tamperer did on purpose.
    struct Case {
        let area: Area
        let name: String
        /// `HK+IK` (any holder of the header and index keys), `BK`, or a limited recipient's name.
        let tamperer: String
        var bytes: [UInt8] = []
        var planted: [Planted] = []
        /// Items removed from the index on purpose.
        var deleted: Set<ItemID> = []
        /// Items moved out of a limited reader's domain in the index, still there.
        var hidden: Set<ItemID> = []
        /// The dropped-group hole of format 2.0 (threat model §3.13.1).
        var knownHole = false
        /// One of many bit flips: not listed by name.
        var sweep = false
    }

    /// How one reader's read of one variant ended, from best to worst.
    enum Outcome: Int, Comparable, CaseIterable {
        case unchanged, authorizedWrite, ownForgery, deletion, hiddenFromLimited, rejected, knownHole, silentWrong

        static func < (a: Outcome, b: Outcome) -> Bool { a.rawValue < b.rawValue }

        var label: String {
            switch self {
            case .unchanged: "read, unchanged"
            case .authorizedWrite: "read, a write the tamperer may make"
            case .ownForgery: "read by the tamperer itself: its own record (a limited reader checks no group, R2-GRP-6)"
            case .deletion: "read, an item deleted (any IK holder can)"
            case .hiddenFromLimited: "read by a limited recipient, an item of its group moved out of its domain"
            case .rejected: "typed error"
            case .knownHole: "KNOWN FINDING: dropped group, forged items read (format 2.0)"
            case .silentWrong: "SILENT WRONG ANSWER"
            }
        }
    }

    // MARK: - Running

    static func run(_ mode: Mode, tool: String?) -> Tally {
        let tally = Tally()
        var subjects: [Subject] = []
        for (folder, file) in [("Fixtures/v2", "v2_groups.vault"), ("Fixtures/v2-damage", "v2d_two_groups.vault")] {
            do {
                subjects.append(try subject(folder: folder, file: file))
            } catch {
                tally.fail("keyholder: \(folder)/\(file) does not open as its manifest says: \(error)")
            }
        }
        print(
            "Key-holder tamper pass: format 2.0 files rewritten with HK and IK (a holder of BK alone or a limited recipient)"
        )
        var counts: [Area: [Outcome: Int]] = [:]
        var codes: [String: Int] = [:]
        var variants = 0
        var caseCount = 0
        var known: [String] = []
        var cliChecked = 0
        var named = 0
        var selfTest = (cases: 0, detected: 0)
        let verbose = ProcessInfo.processInfo.environment["TAMPER_VERBOSE"] != nil
        for subject in subjects {
            let cases: [Case]
            do {
                cases = try Cases.all(subject, mode: mode)
            } catch {
                tally.fail("keyholder: \(subject.name): building the variants failed: \(error)")
                continue
            }
            caseCount += cases.count
            print(
                "  \(subject.name): \(cases.count) variants x \(subject.readers.count) readers (\(subject.readers.map(\.name).joined(separator: ", ")))"
            )
            for c in cases {
                var worst = Outcome.unchanged
                var line: [String] = []
                for reader in subject.readers {
                    variants += 1
                    let (outcome, detail) = judge(c, reader: reader, subject: subject)
                    line.append("\(reader.name): \(outcome == .rejected ? detail ?? "" : "\(outcome)")")
                    counts[c.area, default: [:]][outcome, default: 0] += 1
                    worst = max(worst, outcome)
                    if case .rejected = outcome, let detail { codes[detail, default: 0] += 1 }
                    if outcome == .silentWrong {
                        tally.fail(
                            "keyholder: \(subject.name): \(c.name) (by \(c.tamperer)), read by \(reader.name): \(detail ?? "")"
                        )
                    }
                    if outcome == .knownHole {
                        known.append("\(subject.name): \(c.name), read by \(reader.name): \(detail ?? "")")
                    }
                }
                if verbose && !c.sweep { print("    [\(c.tamperer)] \(c.name): \(line.joined(separator: ", "))") }
                // The oracle's self-test: without the known-hole allowance, the same reads must be
                // silent wrong answers, or the oracle could not see one.
                if c.knownHole {
                    var blind = c
                    blind.knownHole = false
                    selfTest.cases += 1
                    if subject.readers.contains(where: { judge(blind, reader: $0, subject: subject).0 == .silentWrong })
                    {
                        selfTest.detected += 1
                    }
                }
                if c.knownHole && worst != .knownHole {
                    tally.fail(
                        "keyholder: \(subject.name): \(c.name) no longer reads as the known dropped-group hole (\(worst.label)): update RELIABILITY.md and threat model §3.13.1"
                    )
                }
                // vaulttool on the named variants: all of them in full mode; in quick mode the
                // known-hole variants and every third other one (each run costs a process and a
                // key derivation).
                if !c.sweep { named += 1 }
                if let tool, !c.sweep, mode == .full || c.knownHole || named % 3 == 0 {
                    cliChecked += cli(c, subject: subject, tool: tool, tally: tally)
                }
            }
        }
        print("  outcomes by area (variant x reader):")
        for area in Area.allCases {
            let row = Outcome.allCases.compactMap { o in counts[area]?[o].map { "\(o.label) \($0)" } }
            print(
                "    \(area.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(row.joined(separator: "; "))"
            )
        }
        print(
            "  typed errors: "
                + codes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        )
        let total = Outcome.allCases.map { o in Area.allCases.reduce(0) { $0 + (counts[$1]?[o] ?? 0) } }
        if !known.isEmpty {
            print("  FINDING (known, format 2.0, open until format 3; threat model §3.13.1, RELIABILITY.md suite 6):")
            print("    a holder of BK alone drops a group's field, its limited stanzas and its records, and the owner")
            print(
                "    reads the file without error; with always records of domain 0 that claim the group, it reads them as"
            )
            print("    the group's items. \(known.count) reads:")
            for line in known { print("      \(line)") }
        }
        if tool != nil { print("  vaulttool verify agreed with the library on \(cliChecked) named variant reads") }
        print(
            "  self-test: the known-hole variants judged as if they were not known: \(selfTest.detected) of \(selfTest.cases) silent wrong answers"
        )
        tally.check(
            selfTest.cases > 0 && selfTest.detected == selfTest.cases,
            "keyholder: the oracle's self-test missed a forged read (\(selfTest.detected) of \(selfTest.cases))"
        )
        printResult(
            "tamper-keyholder",
            tally,
            [
                "cases": caseCount, "reads": variants, "rejected": total[Outcome.rejected.rawValue],
                "unchanged": total[Outcome.unchanged.rawValue],
                "authorized_writes": total[Outcome.authorizedWrite.rawValue],
                "own_forgeries": total[Outcome.ownForgery.rawValue],
                "deletions": total[Outcome.deletion.rawValue],
                "hidden_from_limited": total[Outcome.hiddenFromLimited.rawValue],
                "known_dropped_group": total[Outcome.knownHole.rawValue],
                "silent_wrong": total[Outcome.silentWrong.rawValue], "cli_checked": cliChecked,
                "selftest_detected": "\(selfTest.detected)/\(selfTest.cases)",
            ]
        )
        return tally
    }

    // MARK: - Subjects

    /// The file and its readers from the folder's manifest: every success case of `file` that reads
    /// all it can (the owner's password, the full recipient, each limited recipient).
    static func subject(folder: String, file: String) throws -> Subject {
        guard let data = FileManager.default.contents(atPath: folder + "/manifest.json"),
            let bytes = readBytes(folder + "/" + file)
        else { throw VaultFormatError(.invalidParameter, "cannot read \(folder)") }
        let manifest = try JSONDecoder().decode(Tamper.Manifest.self, from: data)
        var readers: [Reader] = []
        var limited: [Limited] = []
        var owner: VaultKeys?
        let length = try VaultHeader.headerLength(preamble: bytes.prefix(16), fileLength: bytes.count)
        let vaultID = try VaultHeader.decode(Array(bytes[0..<length]), fileLength: bytes.count).vaultID
        for c in manifest.cases where c.file == file && c.expect == "success" {
            var credentials = Credentials()
            var identity: RecipientIdentity?
            if let p = c.credentials.password { credentials.password = SecretBytes(utf8: p) }
            if let i = c.credentials.identity, let text = readBytes(folder + "/" + i) {
                identity = try RecipientIdentity(fileContents: text)
                credentials.identity = identity
            }
            let keys = try VaultSnapshot.open(bytes, with: credentials).keys
            let name = c.credentials.identity.map { String($0.dropLast(".identity".count)) } ?? "password"
            readers.append(Reader(name: name, credentials: credentials, holdsMasterKey: keys.holdsMasterKey))
            if keys.holdsMasterKey && c.credentials.password != nil { owner = keys }
            if let domain = keys.limitedDomain, let identity {
                let file = try KeyHolderFile(bytes, keys: keys)
                let payload = file.fields.lazy.filter { $0.type == 0x0001 }
                    .compactMap { KeyHolderFile.unwrap(stanza: $0.value, identity: identity, vaultID: vaultID) }.first
                guard let payload else { throw VaultFormatError(.invalidParameter, "\(name)'s stanza does not open") }
                limited.append(Limited(name: name, keys: keys, domain: domain, payload: payload))
            }
        }
        guard let owner, let base = KeyHolderFile.baseKeyHolder(of: owner, vaultID: vaultID) else {
            throw VaultFormatError(.invalidParameter, "no password case reads \(file)")
        }
        let ownerRead = try VaultSnapshot.open(bytes, with: readers.first { $0.name == "password" }!.credentials)
        var groups: [UInt8: String] = [:]
        var items: [(Item, UInt8)] = []
        for decoded in try ownerRead.items(includeSecrets: true) {
            if decoded.entry.domain != 0 { groups[decoded.entry.domain] = decoded.attributes.accessGroup }
            items.append((item(decoded), decoded.entry.domain))
        }
        var subject = Subject(
            name: folder.split(separator: "/").last.map(String.init)! + "/" + file,
            bytes: bytes,
            vaultID: vaultID,
            readers: readers,
            owner: owner,
            base: base,
            limited: limited,
            groups: groups,
            items: items
        )
        for reader in readers { subject.pristine[reader.name] = try read(bytes, reader) }
        return subject
    }

    static func item(_ decoded: DecodedItem) -> Item {
        Item(
            id: decoded.entry.itemID,
            attributes: decoded.attributes,
            secret: decoded.secret?.copyBytes() ?? [],
            protection: decoded.entry.protectionClass
        )
    }

    /// Opens `bytes` as `reader`, reads every item and secret it can, verifies; an owner also lists
    /// the recipients.
    static func read(_ bytes: [UInt8], _ reader: Reader) throws -> Read {
        let snapshot = try VaultSnapshot.open(bytes, with: reader.credentials)
        var read = Read()
        for decoded in try snapshot.items(includeSecrets: true, skipUnavailable: true) {
            read.items[decoded.entry.itemID] = item(decoded)
        }
        _ = try snapshot.verify()
        let index = try snapshot.index
        read.indexIDs = Set((0..<index.count).map { index.entry(at: $0).itemID })
        read.unavailable = read.indexIDs.subtracting(read.items.keys)
        if reader.holdsMasterKey {
            do {
                read.recipients = Set(try snapshot.recipients().map(\.key.bytes))
            } catch {
                read.recipients = nil  // reported as damage by `recipients ls`
            }
        }
        return read
    }

    // MARK: - The oracle

    /// How `reader`'s read of `c` ended, with a detail: the error code, or what went wrong.
    static func judge(_ c: Case, reader: Reader, subject: Subject) -> (Outcome, String?) {
        let read: Read
        do {
            read = try self.read(c.bytes, reader)
        } catch let error as VaultFormatError {
            return (.rejected, error.code.name)
        } catch {
            return (.silentWrong, "a non-format error: \(error)")
        }
        let before = subject.pristine[reader.name]!
        var outcome = Outcome.unchanged
        var detail: String?
        func note(_ o: Outcome, _ what: String) {
            if o > outcome {
                outcome = o
                detail = what
            }
        }
        for item in read.items.values where before.items[item.id] != item {
            let what = "\(item.attributes.service)/\(item.attributes.accountGroupText)"
            if let planted = c.planted.first(where: { $0.item == item }) {
                if planted.authorized {
                    note(.authorizedWrite, "planted \(what), a write the tamperer may make")
                } else if !reader.holdsMasterKey && reader.name == c.tamperer {
                    note(.ownForgery, "its own \(what)")
                } else if c.knownHole {
                    note(.knownHole, "forged \(what) read as the group's item")
                } else {
                    return (.silentWrong, "the tamperer's item \(what) was read")
                }
            } else {
                return (.silentWrong, "item \(item.id) (\(what)) reads with content that nobody wrote")
            }
        }
        for (id, item) in before.items where read.items[id] == nil {
            let what = "\(item.attributes.service)/\(item.attributes.accountGroupText)"
            if !read.indexIDs.contains(id) {
                if c.deleted.contains(id) {
                    note(.deletion, "\(what) deleted")
                } else if c.knownHole {
                    note(.knownHole, "\(what) dropped with its group")
                } else {
                    return (.silentWrong, "\(what) is missing, and nobody deleted it")
                }
            } else if !reader.holdsMasterKey && c.hidden.contains(id) {
                note(.hiddenFromLimited, "\(what) moved out of the reader's domain")
            } else {
                return (.silentWrong, "\(what) is in the index but reads as unavailable")
            }
        }
        if reader.holdsMasterKey {
            let foreign = read.unavailable.subtracting(before.unavailable)
            if !foreign.isEmpty { return (.silentWrong, "the owner cannot read \(foreign.count) entries") }
            if let listed = read.recipients, let was = before.recipients, !listed.isSubset(of: was) {
                return (.silentWrong, "the owner's listing names a key that no owner added")
            }
        }
        return (outcome, detail)
    }

    // MARK: - vaulttool

    /// Runs `vaulttool verify` on a named variant as each reader and checks that it exits as the
    /// library's outcome says: 0 for a read, 4 for damage, 3 for a wrong credential, 5 for an
    /// unsupported version or feature, 1 for a count limit. Returns how many reads were checked.
    static func cli(_ c: Case, subject: Subject, tool: String, tally: Tally) -> Int {
        let directory = makeTemporaryDirectory("keyholder")
        defer { removeTree(directory) }
        writeBytes(c.bytes, to: directory + "/v.vault")
        writeBytes(Array(password.utf8), to: directory + "/password")
        var checked = 0
        for reader in subject.readers {
            var arguments = ["verify"]
            if reader.credentials.password != nil {
                arguments += ["--password-file", directory + "/password"]
            } else if let identity = reader.credentials.identity {
                writeBytes(identity.fileContents.copyBytes(), to: directory + "/\(reader.name).identity")
                arguments += ["--identity", directory + "/\(reader.name).identity"]
            }
            let (outcome, detail) = judge(c, reader: reader, subject: subject)
            let expected: Int32 =
                switch outcome {
                case .rejected:
                    switch detail {
                    case "wrongCredential": 3
                    case "unsupportedVersion", "unsupportedFeature": 5
                    // A header over a count limit (33 stanzas, fields or keyslots) exits 1 with the
                    // library's sentence ("More than 32 recipient stanzas"), as cli.md §5 lists
                    // "an invalid value for the format" under 1; see RELIABILITY.md, suite 6.
                    case "limit": 1
                    default: 4
                    }
                // With MK, verify also reads every stanza's info (cli.md 4.3): one that does not read
                // (a stanza a limited recipient added for another key) is damage.
                default: reader.holdsMasterKey && (try? read(c.bytes, reader))?.recipients == nil ? 4 : 0
                }
            let state = directory + "/state-\(reader.name)"
            let errors = directory + "/stderr-\(reader.name)"
            let child = Child.spawn(
                ["-c", "exec \"$0\" \"$@\" 2>\"$KEYHOLDER_STDERR\"", tool] + arguments + [directory + "/v.vault"],
                executable: "/bin/sh",
                environment: [
                    "KEYHOLDER_STDERR": errors,
                    "HOME": directory, "XDG_STATE_HOME": state, "XDG_DATA_HOME": directory + "/data",
                    "XDG_CONFIG_HOME": directory + "/config", "VAULT_AGENT_SOCK": "",
                ]
            )
            let output = child.readAll()
            let status = child.wait()
            let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
            tally.check(
                code == expected,
                "keyholder: \(subject.name): \(c.name): vaulttool verify as \(reader.name) exited \(code), expected \(expected) (\(outcome.label)\(detail.map { ": \($0)" } ?? ""))"
            )
            // A refusal is one line, `Error: <sentence>`, and nothing vaulttool prints holds a secret.
            let message = String(decoding: readBytes(errors) ?? [], as: UTF8.self)
            if code != 0 {
                tally.check(
                    message.hasPrefix("Error: ") && message.filter { $0 == "\n" }.count == 1,
                    "keyholder: \(subject.name): \(c.name): vaulttool verify as \(reader.name) printed \(message.debugDescription)"
                )
            }
            let secrets =
                [password]
                + (subject.items.map(\.item.secret) + c.planted.map(\.item.secret)).map {
                    String(decoding: $0, as: UTF8.self)
                }
            for secret in secrets where secret.count >= 4 && (message.contains(secret) || output.contains(secret)) {
                tally.fail("keyholder: \(subject.name): \(c.name): vaulttool verify as \(reader.name) printed a secret")
            }
            checked += 1
        }
        return checked
    }
}

extension ItemAttributes {
    /// `account` and, when set, `[group]`, for messages.
    fileprivate var accountGroupText: String { accessGroup.isEmpty ? account : "\(account) [\(accessGroup)]" }
}
