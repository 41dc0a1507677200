// vault reliability, suite 6, key-holder pass on format 3: a holder of BK alone and recipients
// limited to one access group change what they cannot write, and every reader reads the result.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 6's key-holder pass on format 3 (`tamper-keyholder-v3`).
///
/// The vault, written by the library: the owner's password keyslot; a base-scope keyslot opened by
/// a key file (the holder of `BK` alone); recipients `runner` and `biller`, limited to the access
/// groups `deploy` and `billing`; items in the master scope, the base scope and both groups'
/// scopes; a copy of the file kept from before later commits rotated, added and deleted items
/// (what a key holder that once read the file holds). Each tamperer (BK, runner, biller) takes the
/// current file apart with its own keys (`Format3KeyHolderFile`), changes one thing and commits it
/// in place as it can: slot MAC, root and nodes recomputed, the tag of its own scope recomputed,
/// every other scope's tag kept (Spec/format-v3.md §7.3).
///
/// The variants, for every scope the tamperer cannot write (the master scope, the base scope and
/// the other group for a limited recipient; the master scope and both groups for BK) and every
/// entry of it: the entry removed; replaced by a deletion entry; put back from the older copy (a
/// record rolled back, a deletion undone); replaced by a record the tamperer sealed in its own
/// scope under the same item ID. Then: the scope put back whole from the older copy (a known,
/// expected finding, §7.3), and the same with one entry removed; an access group dropped (field,
/// limited stanzas and scope), with and without records of the tamperer's own scope that claim
/// the group under the dropped IDs (format 2.0's hole, threat model §3.13.1: the master scope's tag
/// covers the group fields, R3-SCP-2); a limited stanza removed (denial of service, allowed); and
/// writes the tamperer may make in its own scope.
///
/// Every variant is read by every reader (owner, BK, runner, biller): open, read every item and
/// secret it can, `verify`. A read must be a typed error or the pristine read, except for the
/// tamperer's own scope; the owner must refuse every variant that changes a scope the tamperer
/// cannot write (R3-SCP-1, R3-SCP-2), and a reader of that scope must refuse it too. A scope put
/// back whole reads as that scope's older state: counted as the known finding, and the suite fails
/// if it stops reproducing, or if the oracle, told it is not known, does not see a wrong read.
enum KeyHolderTamper3 {
    struct Item: Equatable {
        let attributes: ItemAttributes
        let secret: [UInt8]
    }

    struct Reader {
        let name: String
        let credentials: Credentials
    }

    struct Tamperer {
        let name: String
        let keys: VaultKeys
        /// The scope it may write: base for BK, its group for a limited recipient.
        let own: Format3KeyHolderFile.ScopeName
        /// Domain of its records: 0 for BK, its group's for a limited recipient.
        let domain: UInt8
        /// The access group its records claim ("" for BK).
        let group: String
    }

    struct Case {
        let name: String
        let tamperer: String
        var bytes: [UInt8] = []
        /// Scopes whose items the tamperer may change.
        var own: String
        /// Whether it changes a scope the tamperer cannot write: the owner must refuse it.
        var forbidden = true
        /// A scope put back whole from the older copy (the known finding).
        var restoredScope: String?
        /// A credential removed: the readers it served may fail to open.
        var denial = false
        /// Items the tamperer sealed in its own scope under the ID of another scope's item: its own
        /// scope's readers (itself, or another holder of its key) read them; the owner must refuse.
        var planted: Set<ItemID> = []
    }

    enum Outcome: Int, Comparable, CaseIterable {
        case unchanged, ownScopeWrite, rejected, deniedReader, knownScopeRollback, silentWrong

        static func < (a: Outcome, b: Outcome) -> Bool { a.rawValue < b.rawValue }

        var label: String {
            switch self {
            case .unchanged: "read, unchanged"
            case .ownScopeWrite: "read, a write in the tamperer's own scope"
            case .rejected: "typed error"
            case .deniedReader: "typed error: its credential was removed (denial of service)"
            case .knownScopeRollback: "KNOWN FINDING: a scope put back whole reads as its older state"
            case .silentWrong: "SILENT WRONG ANSWER"
            }
        }
    }

    struct Subject {
        let pristine: [UInt8]
        let older: [UInt8]
        let readers: [Reader]
        let tamperers: [Tamperer]
        /// Each item's scope name ("master", "base", "group d"), from the pristine and older files.
        let scopeOf: [ItemID: String]
        var reads: [String: [ItemID: Item]] = [:]
        var olderReads: [String: [ItemID: Item]] = [:]
    }

    static func run(_ mode: Mode, tool: String?) -> Tally {
        let tally = Tally()
        let directory = makeTemporaryDirectory("keyholder3")
        defer { removeTree(directory) }
        var subject: Subject
        do {
            subject = try makeSubject(directory)
        } catch {
            tally.fail("keyholder-v3: making the vault failed: \(error)")
            printResult("tamper-keyholder-v3", tally, [:])
            return tally
        }
        print("Key-holder tamper pass, format 3: BK, runner (deploy) and biller (billing) commit in place what they cannot write")
        var cases: [Case] = []
        for tamperer in subject.tamperers {
            do {
                cases += try Self.cases(subject, tamperer)
            } catch {
                tally.fail("keyholder-v3: building \(tamperer.name)'s variants failed: \(error)")
            }
        }
        var counts: [String: [Outcome: Int]] = [:]
        var codes: [String: Int] = [:]
        var reads = 0, known: [String] = [], selfTest = (cases: 0, detected: 0), cliChecked = 0
        var ownerRefused = 0, forbiddenCases = 0
        let verbose = ProcessInfo.processInfo.environment["TAMPER_VERBOSE"] != nil
        for (n, c) in cases.enumerated() {
            var line: [String] = []
            var worst = Outcome.unchanged
            if c.forbidden && c.restoredScope == nil { forbiddenCases += 1 }
            for reader in subject.readers {
                reads += 1
                let (outcome, detail) = judge(c, reader: reader, subject: subject)
                counts[c.tamperer, default: [:]][outcome, default: 0] += 1
                worst = max(worst, outcome)
                line.append("\(reader.name): \(outcome == .rejected ? detail ?? "" : "\(outcome)")")
                if outcome == .rejected || outcome == .deniedReader, let detail { codes[detail, default: 0] += 1 }
                if outcome == .silentWrong {
                    tally.fail("keyholder-v3: \(c.name) (by \(c.tamperer)), read by \(reader.name): \(detail ?? "")")
                }
                if outcome == .knownScopeRollback { known.append("\(c.name), read by \(reader.name)") }
                if reader.name == "owner" && c.forbidden && c.restoredScope == nil {
                    if outcome == .rejected {
                        ownerRefused += 1
                    } else {
                        tally.fail("keyholder-v3: \(c.name) (by \(c.tamperer)): the owner's open did not fail (\(outcome.label))")
                    }
                }
                if reader.name == "owner" && !c.forbidden && !c.denial && outcome == .rejected {
                    tally.fail("keyholder-v3: \(c.name) (by \(c.tamperer)): the owner refused a write the tamperer may make: \(detail ?? "")")
                }
            }
            if verbose { print("    [\(c.tamperer)] \(c.name): \(line.joined(separator: ", "))") }
            if let scope = c.restoredScope {
                if worst != .knownScopeRollback {
                    tally.fail("keyholder-v3: \(c.name) no longer reads as the known whole-scope rollback (\(worst.label)): update RELIABILITY.md")
                }
                // The oracle's self-test: told the rollback is not known, it must see a wrong read.
                var blind = c
                blind.restoredScope = nil
                selfTest.cases += 1
                if subject.readers.contains(where: { judge(blind, reader: $0, subject: subject).0 == .silentWrong }) {
                    selfTest.detected += 1
                }
                _ = scope
            }
            if let tool, mode == .full || n % 3 == 0 || c.restoredScope != nil {
                cliChecked += cli(c, subject: subject, tool: tool, tally: tally)
            }
        }
        let recordFinding = rollbackRecord(subject, cases: cases.filter { $0.restoredScope != nil }, tally: tally)
        print("  outcomes by tamperer (variant x reader):")
        for tamperer in subject.tamperers.map(\.name) {
            let row = Outcome.allCases.compactMap { o in counts[tamperer]?[o].map { "\(o.label) \($0)" } }
            print("    \(tamperer.padding(toLength: 7, withPad: " ", startingAt: 0)) \(row.joined(separator: "; "))")
        }
        print("  typed errors: " + codes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("  the owner refused \(ownerRefused) of \(forbiddenCases) variants that change a scope their tamperer cannot write")
        if !known.isEmpty {
            print("  FINDING (known, expected; Spec/format-v3.md §7.3): a key holder puts back a scope it cannot write whole,")
            print("    from an older copy of the file (its root entry: counter, tree, counts and tag); every reader reads that")
            print("    scope's older state without error. \(known.count) reads:")
            for line in known { print("      \(line)") }
        }
        print("  \(recordFinding)")
        if tool != nil { print("  vaulttool verify agreed with the library on \(cliChecked) reads") }
        print("  self-test: the whole-scope rollbacks judged as if not known: \(selfTest.detected) of \(selfTest.cases) silent wrong answers")
        tally.check(
            selfTest.cases > 0 && selfTest.detected == selfTest.cases,
            "keyholder-v3: the oracle's self-test missed a rolled-back read (\(selfTest.detected) of \(selfTest.cases))"
        )
        let total = Outcome.allCases.map { o in counts.values.reduce(0) { $0 + ($1[o] ?? 0) } }
        printResult(
            "tamper-keyholder-v3",
            tally,
            [
                "cases": cases.count, "reads": reads, "owner_refused": "\(ownerRefused)/\(forbiddenCases)",
                "rejected": total[Outcome.rejected.rawValue], "unchanged": total[Outcome.unchanged.rawValue],
                "own_scope_writes": total[Outcome.ownScopeWrite.rawValue],
                "denied_readers": total[Outcome.deniedReader.rawValue],
                "known_scope_rollback": total[Outcome.knownScopeRollback.rawValue],
                "silent_wrong": total[Outcome.silentWrong.rawValue], "cli_checked": cliChecked,
                "selftest_detected": "\(selfTest.detected)/\(selfTest.cases)",
            ]
        )
        return tally
    }

    // MARK: - The vault

    static let keyFile = fillerSecret(64, seed: 0x4B48)

    static func makeSubject(_ directory: String) throws -> Subject {
        let path = directory + "/" + vaultName
        let vault = try Vault.create(at: path, credentials: .password(password), configuration: Format.v3.configuration)
        let runner = RecipientIdentity.generate()
        let biller = RecipientIdentity.generate()
        let keyFileCredentials = Credentials(keyFile: SecretBytes(bytes: keyFile))
        func item(_ name: String, _ text: String, always: Bool = false, group: String = "") -> ItemDraft {
            var item = draft(name, text: text)
            if always { item.protectionClass = .always }
            item.attributes.accessGroup = group
            return item
        }
        try vault.write { try $0.addKeyslot(.keyFile, credentials: keyFileCredentials, scope: .baseKey) }
        try vault.write { txn in
            for n in 0..<3 { try txn.set(item("master-\(n)", "master secret \(n), first")) }
            for n in 0..<3 { try txn.set(item("base-\(n)", "always secret \(n), first", always: true)) }
            for n in 0..<2 { try txn.set(item("deploy-\(n)", "deploy secret \(n), first", group: "deploy")) }
            for n in 0..<2 { try txn.set(item("billing-\(n)", "billing secret \(n), first", group: "billing")) }
        }
        try vault.write { txn in
            try txn.addRecipient(runner.recipient, name: "runner", limitedTo: "deploy")
            try txn.addRecipient(biller.recipient, name: "biller", limitedTo: "billing")
        }
        let older = readBytes(path)!
        // Later commits: a rotation in every scope, an addition, deletions.
        try vault.write { txn in
            try txn.set(item("master-0", "master secret 0, rotated"))
            try txn.set(item("base-0", "always secret 0, rotated", always: true))
            try txn.set(item("deploy-0", "deploy secret 0, rotated", group: "deploy"))
            try txn.set(item("billing-0", "billing secret 0, rotated", group: "billing"))
        }
        try vault.write { txn in
            try txn.set(item("master-3", "master secret 3, added"))
            _ = try txn.remove(id: itemID("master-2"))
            _ = try txn.remove(id: itemID("base-2"))
            _ = try txn.remove(id: itemID("billing-1"))
        }
        let pristine = readBytes(path)!
        // In-place commits only: the older copy's heap is a prefix of the current file's.
        guard pristine.count > older.count, pristine[1024..<older.count] == older[1024...] else {
            throw VaultFormatError(.invalidParameter, "the later commits did not append to the older copy")
        }
        let readers = [
            Reader(name: "owner", credentials: .password(password)),
            Reader(name: "BK", credentials: keyFileCredentials),
            Reader(name: "runner", credentials: .identity(runner)),
            Reader(name: "biller", credentials: .identity(biller)),
        ]
        func keys(_ credentials: Credentials) throws -> VaultKeys {
            try VaultSnapshot.open(pristine, with: credentials).keys
        }
        let bk = try keys(keyFileCredentials)
        guard !bk.holdsMasterKey, bk.limitedDomain == nil else {
            throw VaultFormatError(.invalidParameter, "the key file does not open the base keyslot alone")
        }
        let runnerKeys = try keys(.identity(runner))
        let billerKeys = try keys(.identity(biller))
        guard let deploy = runnerKeys.limitedDomain, let billing = billerKeys.limitedDomain else {
            throw VaultFormatError(.invalidParameter, "the recipients are not limited")
        }
        let tamperers = [
            Tamperer(name: "BK", keys: bk, own: .base, domain: 0, group: ""),
            Tamperer(name: "runner", keys: runnerKeys, own: .group(deploy), domain: deploy, group: "deploy"),
            Tamperer(name: "biller", keys: billerKeys, own: .group(billing), domain: billing, group: "billing"),
        ]
        // Each entry's scope, as a key holder reads the trees (BK reads every tree's entries).
        var scopeOf: [ItemID: String] = [:]
        for bytes in [older, pristine] {
            let file = try Format3KeyHolderFile(bytes, keys: bk)
            for scope in file.scopes {
                for entry in file.entries(in: scope) { scopeOf[entry.itemID] = scope.description }
            }
        }
        var subject = Subject(pristine: pristine, older: older, readers: readers, tamperers: tamperers, scopeOf: scopeOf)
        for reader in readers {
            subject.reads[reader.name] = try read(pristine, reader)
            subject.olderReads[reader.name] = try read(older, reader)
        }
        return subject
    }

    /// Opens `bytes` as `reader` and reads every item and secret it can, then verifies.
    static func read(_ bytes: [UInt8], _ reader: Reader) throws -> [ItemID: Item] {
        let snapshot = try VaultSnapshot.open(bytes, with: reader.credentials)
        var items: [ItemID: Item] = [:]
        for decoded in try snapshot.items(includeSecrets: true, skipUnavailable: true) {
            items[decoded.entry.itemID] = Item(attributes: decoded.attributes, secret: decoded.secret?.copyBytes() ?? [])
        }
        _ = try snapshot.verify()
        return items
    }

    // MARK: - The variants

    static func cases(_ subject: Subject, _ t: Tamperer) throws -> [Case] {
        let current = try Format3KeyHolderFile(subject.pristine, keys: t.keys)
        let older = try Format3KeyHolderFile(subject.older, keys: t.keys)
        let random = SystemRandom()
        var cases: [Case] = []
        let now = UInt64(Vault.currentTime())
        func add(_ name: String, forbidden: Bool = true, _ change: (inout Format3KeyHolderFile) throws -> Void) throws {
            var file = current
            try change(&file)
            var c = Case(name: name, tamperer: t.name, own: t.own.description, forbidden: forbidden)
            c.bytes = try file.encode(now: now, random: random)
            c.planted = Set(file.entries(in: t.own).map(\.itemID)).subtracting(current.entries(in: t.own).map(\.itemID))
            cases.append(c)
        }
        func forged(_ id: ItemID, like entry: Format3KeyHolderFile.Entry) -> ItemDraft {
            let name = subject.scopeOf[id] == nil ? "forged" : nameOf(id, subject)
            var item = draft(name, text: "forged by \(t.name)")
            item.id = id
            item.protectionClass = t.domain == 0 ? .always : .whenUnlocked
            item.attributes.accessGroup = t.group
            return item
        }
        for scope in current.scopes where scope != t.own {
            for entry in current.entries(in: scope) {
                let what = "\(nameOf(entry.itemID, subject)) (\(scope))"
                try add("\(what): entry removed") { $0.remove(entry.itemID) }
                if entry.isLive {
                    try add("\(what): deleted (deletion entry)") { $0.markDeleted(entry.itemID, at: Int64(now), random: random) }
                }
                if let old = older.entry(of: entry.itemID), old.events != entry.events {
                    try add("\(what): put back from the older copy") { $0.put(old, in: old.scope) }
                }
                try add("\(what): replaced by the tamperer's own record") {
                    try $0.plant(forged(entry.itemID, like: entry), domain: t.domain, random: random)
                }
            }
            // An item of the older copy that the current file has no entry of.
            for entry in older.entries(in: scope) where current.entry(of: entry.itemID) == nil {
                try add("\(nameOf(entry.itemID, subject)) (\(scope)): put back from the older copy") {
                    $0.put(entry, in: scope)
                }
            }
            if older.entries(in: scope).map(\.events) != current.entries(in: scope).map(\.events) {
                var file = current
                file.restore(scope, from: older)
                var c = Case(name: "\(scope) scope put back whole from the older copy", tamperer: t.name, own: t.own.description)
                c.restoredScope = scope.description
                c.bytes = try file.encode(now: now, random: random)
                cases.append(c)
                if let first = older.entries(in: scope).first {
                    try add("\(scope) scope put back whole, and one of its entries removed") {
                        $0.restore(scope, from: older)
                        $0.remove(first.itemID)
                    }
                }
            }
            // Format 2.0's hole (threat model §3.13.1), on format 3: a group dropped, and records
            // of the tamperer's own scope that claim it planted under the dropped IDs.
            if scope.kind == 2 {
                let dropped = current.entries(in: scope).filter(\.isLive)
                let group = nameOf(dropped.first?.itemID, subject).split(separator: "-").first.map(String.init) ?? "?"
                try add("access group \(group) dropped (field, limited stanzas, scope)") { $0.dropAccessGroup(scope.domain) }
                try add("access group \(group) dropped, its items forged in the \(t.own) scope claiming it") {
                    $0.dropAccessGroup(scope.domain)
                    for entry in dropped {
                        var item = forged(entry.itemID, like: entry)
                        item.attributes.accessGroup = t.domain == 0 ? group : t.group
                        try $0.plant(item, domain: t.domain, random: random)
                    }
                }
            }
        }
        // Denial of service, allowed (§7.3): a holder of HK can drop a limited recipient's stanza.
        if t.name == "BK" {
            var file = current
            let before = file.fields.count
            file.fields.removeAll { $0.type == 0x0001 && $0.value.count > 2 && $0.value[1] == 2 }
            if file.fields.count < before {
                var c = Case(name: "the limited recipients' stanzas removed", tamperer: t.name, own: t.own.description)
                c.forbidden = false
                c.denial = true
                c.bytes = try file.encode(now: now, random: random)
                cases.append(c)
            }
        }
        // Writes the tamperer may make in its own scope.
        for entry in current.entries(in: t.own) where entry.isLive {
            try add("\(nameOf(entry.itemID, subject)) (own scope): rotated", forbidden: false) {
                var item = forged(entry.itemID, like: entry)
                item.attributes.accessGroup = t.group
                try $0.plant(item, domain: t.domain, random: random)
            }
            try add("\(nameOf(entry.itemID, subject)) (own scope): deleted", forbidden: false) {
                $0.markDeleted(entry.itemID, at: Int64(now), random: random)
            }
        }
        return cases
    }

    /// The service name of an item of the vault, for messages and forged copies.
    static func nameOf(_ id: ItemID?, _ subject: Subject) -> String {
        guard let id else { return "?" }
        for name in (0..<4).flatMap({ n in ["master", "base", "deploy", "billing"].map { "\($0)-\(n)" } })
        where itemID(name) == id {
            return name
        }
        return "\(id)"
    }

    // MARK: - The oracle

    static func judge(_ c: Case, reader: Reader, subject: Subject) -> (Outcome, String?) {
        let read: [ItemID: Item]
        do {
            read = try self.read(c.bytes, reader)
        } catch let error as VaultFormatError {
            if c.denial && reader.name != "owner" && reader.name != "BK" { return (.deniedReader, error.code.name) }
            return (.rejected, error.code.name)
        } catch {
            return (.silentWrong, "a non-format error: \(error)")
        }
        let before = subject.reads[reader.name]!
        var outcome = Outcome.unchanged
        var detail: String?
        for id in Set(before.keys).union(read.keys) where before[id] != read[id] {
            let scope = subject.scopeOf[id] ?? "?"
            let what = "\(nameOf(id, subject)) (\(scope))"
            if scope == c.own, read[id].map({ $0.attributes.accessGroup == groupOf(c.own, subject) }) ?? true {
                if outcome < .ownScopeWrite { (outcome, detail) = (.ownScopeWrite, what) }
            } else if c.planted.contains(id), reader.name != "owner", read[id] != nil {
                // A reader of the tamperer's scope reads the record sealed there (the owner must not).
                if outcome < .ownScopeWrite { (outcome, detail) = (.ownScopeWrite, "\(what), sealed in the \(c.own) scope") }
            } else if let restored = c.restoredScope, scope == restored, read[id] == subject.olderReads[reader.name]![id] {
                if outcome < .knownScopeRollback { (outcome, detail) = (.knownScopeRollback, "\(what) reads as in the older copy") }
            } else {
                let change = read[id] == nil ? "is missing" : before[id] == nil ? "appeared" : "changed"
                return (.silentWrong, "\(what) \(change)")
            }
        }
        return (outcome, detail)
    }

    /// The access group a scope's items claim ("" for the master and base scopes).
    static func groupOf(_ scope: String, _ subject: Subject) -> String {
        guard scope.hasPrefix("group") else { return "" }
        return subject.tamperers.first { $0.own.description == scope }?.group ?? "?"
    }

    // MARK: - The rollback record

    /// Whether the owner's rollback record, which saw the pristine file, reports a scope put back
    /// whole (Spec/format-v3.md §7.2: "a library remembers the highest counter it has seen per
    /// scope"). Returns the finding's sentence.
    static func rollbackRecord(_ subject: Subject, cases: [Case], tally: Tally) -> String {
        var reported = 0, read = 0, other: [String] = []
        for c in cases {
            let directory = makeTemporaryDirectory("keyholder3-record")
            defer { removeTree(directory) }
            var configuration = Format.v3.configuration
            configuration.rollbackState = .directory(directory + "/state")
            let path = directory + "/" + vaultName
            writeBytes(subject.pristine, to: path)
            do {
                let vault = try Vault(path: path, credentials: .password(password), configuration: configuration)
                _ = try vault.read { try $0.items(includeSecrets: true) }
                writeBytes(c.bytes, to: path)
                let again = try Vault(path: path, credentials: .password(password), configuration: configuration)
                _ = try again.read { try $0.items(includeSecrets: true) }
                read += 1
            } catch let error as VaultIOError where error.code == .rolledBack {
                reported += 1
            } catch {
                other.append("\(c.name): \(error)")
            }
        }
        tally.check(other.isEmpty, "keyholder-v3: the rollback-record check failed otherwise: \(other)")
        if reported == cases.count {
            return "the owner's rollback record, which saw the newer state, reported \(reported) of \(cases.count) whole-scope rollbacks"
        }
        return "known (by decision, format-v3 §7.2): the owner's rollback record, which saw the newer state, reported "
            + "\(reported) of \(cases.count) whole-scope rollbacks (\(read) read without a word): it keeps no scope "
            + "counter, as a git branch that never touched a scope looks the same (threat model 3.15)"
    }

    // MARK: - vaulttool

    /// Runs `vaulttool verify` on a variant as each reader; it must exit as the library's outcome
    /// says (0 read, 4 damage, 3 wrong credential, 5 unsupported) and print no secret.
    static func cli(_ c: Case, subject: Subject, tool: String, tally: Tally) -> Int {
        let directory = makeTemporaryDirectory("keyholder3-cli")
        defer { removeTree(directory) }
        writeBytes(c.bytes, to: directory + "/v.vault")
        writeBytes(Array(password.utf8), to: directory + "/password")
        writeBytes(keyFile, to: directory + "/key")
        var checked = 0
        for reader in subject.readers {
            var arguments = ["verify"]
            if reader.credentials.password != nil {
                arguments += ["--password-file", directory + "/password"]
            } else if reader.credentials.hasKeyFile {
                arguments += ["--key-file", directory + "/key"]
            } else if let identity = reader.credentials.identity {
                writeBytes(identity.fileContents.copyBytes(), to: directory + "/\(reader.name).identity")
                arguments += ["--identity", directory + "/\(reader.name).identity"]
            }
            let (outcome, detail) = judge(c, reader: reader, subject: subject)
            let expected: Int32 =
                switch outcome {
                case .rejected, .deniedReader:
                    switch detail {
                    case "wrongCredential": 3
                    case "unsupportedVersion", "unsupportedFeature": 5
                    case "limit": 1
                    default: 4
                    }
                default: 0
                }
            let errors = directory + "/stderr-\(reader.name)"
            let child = Child.spawn(
                ["-c", "exec \"$0\" \"$@\" 2>\"$KEYHOLDER_STDERR\"", tool] + arguments + [directory + "/v.vault"],
                executable: "/bin/sh",
                environment: [
                    "KEYHOLDER_STDERR": errors, "HOME": directory, "XDG_STATE_HOME": directory + "/state-\(reader.name)",
                    "XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config", "VAULT_AGENT_SOCK": "",
                ]
            )
            let output = child.readAll()
            let status = child.wait()
            let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
            let message = String(decoding: readBytes(errors) ?? [], as: UTF8.self)
            tally.check(
                code == expected,
                "keyholder-v3: \(c.name): vaulttool verify as \(reader.name) exited \(code), expected \(expected) (\(outcome.label)\(detail.map { ": \($0)" } ?? "")): \(message)"
            )
            for item in subject.reads["owner"]!.values {
                let secret = String(decoding: item.secret, as: UTF8.self)
                if output.contains(secret) || message.contains(secret) {
                    tally.fail("keyholder-v3: \(c.name): vaulttool verify as \(reader.name) printed a secret")
                }
            }
            checked += 1
        }
        return checked
    }
}
