// vault reliability, suite 6, key-holder pass: the variants, each one thing a key holder can do.

import Foundation
import VaultFormat
import _VaultHooks

extension KeyHolderTamper {
    /// Builds the variants of one subject.
    ///
    /// Quick mode flips one bit of every byte of each access-group field and stanza (the bit
    /// rotating with the offset); full mode flips every bit. Everything else is the same in both.
    final class Cases {
        let subject: Subject
        let mode: Mode
        let pristine: KeyHolderFile
        var cases: [Case] = []

        init(subject: Subject, mode: Mode, pristine: KeyHolderFile) {
            self.subject = subject
            self.mode = mode
            self.pristine = pristine
        }

        static let groupType: UInt16 = 0x8006
        static let stanzaType: UInt16 = 0x0001
        /// A stanza's sealed info: its last 113 bytes, whatever its scope.
        static let infoByteCount = 113

        static func all(_ subject: Subject, mode: Mode) throws -> [Case] {
            let b = Cases(subject: subject, mode: mode, pristine: try KeyHolderFile(subject.bytes, keys: subject.base))
            try b.groupFields()
            try b.stanzas()
            try b.records()
            try b.index()
            try b.versions()
            return b.cases
        }

        /// One variant: `change` edits the file (and says what it did on purpose in the case); the
        /// file is then written with `keys` (by default those of a holder of `BK` alone, whose
        /// `HK` and `IK` every limited recipient holds too).
        func add(
            _ area: Area,
            _ name: String,
            by tamperer: String = "HK+IK",
            keys: VaultKeys? = nil,
            sweep: Bool = false,
            _ change: (inout KeyHolderFile, inout Case) throws -> Void
        ) throws {
            var file = pristine
            if let keys { file = try KeyHolderFile(subject.bytes, keys: keys) }
            var c = Case(area: area, name: name, tamperer: tamperer, sweep: sweep)
            try change(&file, &c)
            c.bytes = file.encode(random: SeededSource(seed: "keyholder \(subject.name) \(name)"))
            cases.append(c)
        }

        func positions(_ type: UInt16, in file: KeyHolderFile? = nil) -> [Int] {
            let f = file ?? pristine
            return f.fields.indices.filter { f.fields[$0].type == type }
        }

        func bits(_ offset: Int) -> [Int] { mode == .full ? Array(0..<8) : [offset % 8] }

        var domains: [UInt8] { positions(Self.groupType).map { pristine.fields[$0].value[0] } }
        var unusedDomain: UInt8 { UInt8((1...32).first { !domains.contains(UInt8($0)) }!) }
        func name(ofDomain domain: UInt8) -> String { subject.groups[domain] ?? "?" }
        func items(inDomain domain: UInt8) -> [Item] { subject.items.filter { $0.domain == domain }.map(\.item) }
        func limitedStanza(_ value: [UInt8]) -> UInt8? { value.count > 2 && value[1] == 2 ? value[2] : nil }

        /// Removes the fields at `positions`.
        static func remove(_ positions: [Int], from file: inout KeyHolderFile) {
            var fields = file.fields
            for at in positions.sorted(by: >) { fields.remove(at: at) }
            file.fields = fields
        }

        // MARK: - Access-group fields

        func groupFields() throws {
            let groupAt = positions(Self.groupType)
            for (k, at) in groupAt.enumerated() {
                let domain = domains[k]
                let label = "group \(name(ofDomain: domain)) (domain \(domain))"
                for offset in 0..<pristine.fields[at].value.count {
                    for bit in bits(offset) {
                        try add(.groupField, "\(label): bit \(bit) of byte \(offset) flipped", sweep: true) { f, _ in
                            f.fields[at].value[offset] ^= UInt8(1 << bit)
                        }
                    }
                }
                try add(.groupField, "\(label): one byte short") { f, _ in f.fields[at].value.removeLast() }
                try add(.groupField, "\(label): one byte long") { f, _ in f.fields[at].value.append(0) }
                for value in Set([0, unusedDomain, 33, 255] + domains).subtracting([domain]).sorted() {
                    try add(.groupField, "\(label): domain byte set to \(value)") { f, _ in
                        f.fields[at].value[0] = value
                    }
                }
                try add(.groupField, "\(label): field dropped") { f, _ in Self.remove([at], from: &f) }
                try add(.groupField, "\(label): field dropped with its limited stanzas") { f, _ in
                    Self.remove([at] + stanzas(ofDomain: domain, in: f), from: &f)
                }
                try add(.groupField, "\(label): field and records dropped, stanzas kept") { f, c in
                    Self.remove([at], from: &f)
                    c.deleted = dropRecords(ofDomain: domain, from: &f)
                }
                try knownHole(label: label, at: at, domain: domain)
                try add(.groupField, "\(label): field duplicated") { f, _ in f.fields.insert(f.fields[at], at: at + 1) }
                try add(.groupField, "\(label): field moved before the stanzas") { f, _ in
                    let field = f.fields.remove(at: at)
                    f.fields.insert(field, at: positions(Self.stanzaType, in: f).first ?? at)
                }
                for (j, other) in groupAt.enumerated() where j != k {
                    try add(.groupField, "\(label): sealed name of domain \(domains[j]) put in its field") { f, _ in
                        f.fields[at].value = [domain] + pristine.fields[other].value.dropFirst()
                    }
                }
                let others = groupAt.indices.filter { $0 != k }.map { name(ofDomain: domains[$0]) }
                for spliced in ["payroll"] + others {
                    try add(.groupField, "\(label): field of another copy that gave domain \(domain) to \(spliced)") {
                        f,
                        _ in
                        f.fields[at].value = try KeyHolderFile.ownerAccessGroupField(
                            name: spliced,
                            domain: domain,
                            ownerKeys: subject.owner,
                            vaultID: subject.vaultID,
                            random: SeededSource(seed: "keyholder splice \(spliced) \(domain)")
                        )
                    }
                }
                let unused = unusedDomain
                try add(.groupField, "\(label): a second field naming it, from a copy that gave it domain \(unused)") {
                    f,
                    _ in
                    let value = try KeyHolderFile.ownerAccessGroupField(
                        name: name(ofDomain: domain),
                        domain: unused,
                        ownerKeys: subject.owner,
                        vaultID: subject.vaultID,
                        random: SeededSource(seed: "keyholder second field \(domain)")
                    )
                    let after = positions(Self.groupType, in: f).last { f.fields[$0].value[0] < unused } ?? at
                    f.fields.insert((type: Self.groupType, value: value), at: after + 1)
                }
            }
            if let last = groupAt.last {
                try add(.groupField, "33 access-group fields") { f, _ in
                    let top = Int(domains.last!)
                    let extra = (top + 1...33).map {
                        (type: Self.groupType, value: [UInt8($0)] + pristine.fields[last].value.dropFirst())
                    }
                    f.fields.insert(contentsOf: extra, at: last + 1)
                }
                try add(.groupField, "every group dropped, downgraded to format 1.2 (known hole)", by: "BK") { f, c in
                    try downgrade(&f, &c, forge: false)
                }
                try add(
                    .groupField,
                    "every group dropped, downgraded to 1.2, their items forged in domain 0 (known hole)",
                    by: "BK"
                ) { f, c in
                    try downgrade(&f, &c, forge: true)
                }
            }
            if groupAt.count > 1 {
                try add(.groupField, "access-group fields in descending order") { f, _ in
                    f.fields.swapAt(groupAt[0], groupAt[1])
                }
            }
        }

        /// The positions of the limited stanzas of `domain` in `file`.
        func stanzas(ofDomain domain: UInt8, in file: KeyHolderFile) -> [Int] {
            positions(Self.stanzaType, in: file).filter { limitedStanza(file.fields[$0].value) == domain }
        }

        /// Removes every record of `domain`; returns their IDs.
        func dropRecords(ofDomain domain: UInt8, from file: inout KeyHolderFile) -> Set<ItemID> {
            let dropped = Set(file.records.filter { $0.entry.domain == domain }.map(\.entry.itemID))
            file.records.removeAll { $0.entry.domain == domain }
            return dropped
        }

        /// An `always` record of domain 0 sealed with `BK` alone under `item`'s ID that claims
        /// `item`'s group, with a forged secret.
        func forgeInDomainZero(_ item: Item, in file: KeyHolderFile) throws -> (KeyHolderFile.Record, Item) {
            let secret = Array("forged-\(item.attributes.service)".utf8)
            let record = try file.seal(
                ItemDraft(
                    id: item.id,
                    protectionClass: .always,
                    attributes: item.attributes,
                    secret: SecretBytes(bytes: secret)
                ),
                domain: 0,
                random: SeededSource(seed: "keyholder forge \(item.id)")
            )
            return (record, Item(id: item.id, attributes: item.attributes, secret: secret, protection: .always))
        }

        /// The dropped-group hole (threat model §3.13.1): the field, its limited stanzas and its
        /// records dropped, then (second variant) `always` records of domain 0 that claim the group
        /// under the dropped items' IDs.
        func knownHole(label: String, at: Int, domain: UInt8) throws {
            for forge in [false, true] {
                let what = forge ? ", its items forged in domain 0" : ""
                try add(.groupField, "\(label): field, stanzas and records dropped\(what) (known hole)", by: "BK") {
                    f,
                    c in
                    c.knownHole = true
                    Self.remove([at] + stanzas(ofDomain: domain, in: f), from: &f)
                    _ = dropRecords(ofDomain: domain, from: &f)
                    if forge {
                        for item in items(inDomain: domain) {
                            let (record, planted) = try forgeInDomainZero(item, in: f)
                            f.insert(record)
                            c.planted.append(Planted(item: planted, authorized: false))
                        }
                    }
                }
            }
        }

        /// Every group dropped with its stanzas and records, and the file written as format 1.2
        /// (39-byte index entries), as a holder of `BK` can.
        func downgrade(_ f: inout KeyHolderFile, _ c: inout Case, forge: Bool) throws {
            c.knownHole = true
            Self.remove(
                positions(Self.groupType, in: f)
                    + positions(Self.stanzaType, in: f).filter {
                        limitedStanza(f.fields[$0].value) != nil
                    },
                from: &f
            )
            f.records.removeAll { $0.entry.domain != 0 }
            f.major = 1
            f.minor = 2
            if forge {
                for item in subject.items where item.domain != 0 {
                    let (record, planted) = try forgeInDomainZero(item.item, in: f)
                    f.insert(record)
                    c.planted.append(Planted(item: planted, authorized: false))
                }
            }
        }

        // MARK: - Recipient stanzas

        func stanzas() throws {
            let stanzaAt = positions(Self.stanzaType)
            for (k, at) in stanzaAt.enumerated() {
                let value = pristine.fields[at].value
                let limited = limitedStanza(value)
                let label = limited.map { "limited stanza of \(name(ofDomain: $0))" } ?? "full stanza \(k)"
                for offset in 0..<value.count {
                    for bit in bits(offset) {
                        try add(.stanza, "\(label): bit \(bit) of byte \(offset) flipped", sweep: true) { f, _ in
                            f.fields[at].value[offset] ^= UInt8(1 << bit)
                        }
                    }
                }
                try add(.stanza, "\(label): one byte short") { f, _ in f.fields[at].value.removeLast() }
                try add(.stanza, "\(label): one byte long") { f, _ in f.fields[at].value.append(0) }
                try add(.stanza, "\(label): kind 2") { f, _ in f.fields[at].value[0] = 2 }
                for scope: UInt8 in [0, 1, 2, 3] where scope != value[1] {
                    try add(.stanza, "\(label): scope \(scope)") { f, _ in f.fields[at].value[1] = scope }
                }
                if let limited {
                    for domain in Set([0, unusedDomain, 33] + domains).subtracting([limited]).sorted() {
                        try add(.stanza, "\(label): domain \(domain)") { f, _ in f.fields[at].value[2] = domain }
                    }
                }
                try add(.stanza, "\(label): dropped") { f, _ in Self.remove([at], from: &f) }
                try add(.stanza, "\(label): duplicated") { f, _ in f.fields.insert(f.fields[at], at: at + 1) }
                try add(.stanza, "\(label): moved after every other field") { f, _ in
                    f.fields.append(f.fields.remove(at: at))
                }
                for (j, other) in stanzaAt.enumerated() where j != k {
                    try add(.stanza, "\(label): info of stanza \(j) put in it") { f, _ in
                        f.fields[at].value.replaceSubrange(
                            (value.count - Self.infoByteCount)...,
                            with: pristine.fields[other].value.suffix(Self.infoByteCount)
                        )
                    }
                }
            }
            try add(.stanza, "33 stanzas") { f, _ in
                let last = positions(Self.stanzaType, in: f).last!
                f.fields.insert(contentsOf: Array(repeating: f.fields[last], count: 33 - stanzaAt.count), at: last + 1)
            }
            for limited in subject.limited {
                let stranger = RecipientIdentity.generate(
                    random: SeededSource(seed: "keyholder stranger \(limited.name)")
                )
                for replacing in [false, true] {
                    let what = replacing ? "replaces its own stanza by one" : "adds a stanza"
                    try add(.stanza, "\(limited.name) \(what) wrapping its keys to another key", by: limited.name) {
                        f,
                        _ in
                        let stanza = KeyHolderFile.limitedStanza(
                            wrapping: limited.payload,
                            domain: limited.domain,
                            for: stranger.recipient,
                            vaultID: subject.vaultID,
                            random: SeededSource(seed: "keyholder stanza \(limited.name) \(replacing)")
                        )
                        if replacing, let own = stanzas(ofDomain: limited.domain, in: f).first {
                            f.fields[own].value = stanza
                        } else {
                            f.fields.insert(
                                (type: Self.stanzaType, value: stanza),
                                at: positions(Self.stanzaType, in: f).last! + 1
                            )
                        }
                    }
                }
            }
        }

        // MARK: - Grouped records, sealed with the tamperer's keys

        /// `attributes` with `group` and a service that marks the planted item.
        static func attributes(_ service: String, group: String) -> ItemAttributes {
            var attributes = ItemAttributes(service: service, account: "keyholder")
            attributes.accessGroup = group
            return attributes
        }

        /// Seals `item` with the case's keys in `domain` and puts it in the file, as planted.
        func plant(_ item: Item, domain: UInt8, authorized: Bool, _ f: inout KeyHolderFile, _ c: inout Case) throws {
            let record = try f.seal(
                ItemDraft(
                    id: item.id,
                    protectionClass: item.protection,
                    attributes: item.attributes,
                    secret: SecretBytes(bytes: item.secret)
                ),
                domain: domain,
                random: SeededSource(seed: "keyholder plant \(c.name)")
            )
            f.insert(record)
            c.planted.append(Planted(item: item, authorized: authorized))
        }

        static func newItem(_ name: String, _ attributes: ItemAttributes, _ protection: ProtectionClass) -> Item {
            Item(
                id: ItemID(random: SeededSource(seed: "keyholder item \(name)")),
                attributes: attributes,
                secret: Array("planted-\(name)".utf8),
                protection: protection
            )
        }

        /// The limited readers whose domain is `domain`: those an entry leaving it hides from.
        func hiddenBy(moving id: ItemID, from domain: UInt8) -> Set<ItemID> { domain == 0 ? [] : [id] }

        func records() throws {
            let allGroups = Set(subject.items.map(\.item.attributes.accessGroup)).subtracting([""])
            let keyed = Set(subject.groups.values)
            // A holder of BK alone: always items of domain 0.
            for (domain, group) in subject.groups.sorted(by: { $0.key < $1.key }) {
                try add(.record, "BK plants an always item of domain 0 that claims \(group)", by: "BK") { f, c in
                    try plant(
                        Self.newItem("bk-\(group)", Self.attributes("planted", group: group), .always),
                        domain: 0,
                        authorized: false,
                        &f,
                        &c
                    )
                }
                for item in items(inDomain: domain) {
                    try add(
                        .record,
                        "BK replaces \(item.attributes.service) of \(group) by an always record of domain 0",
                        by: "BK"
                    ) { f, c in
                        let (record, planted) = try forgeInDomainZero(item, in: f)
                        f.insert(record)
                        c.planted.append(Planted(item: planted, authorized: false))
                        c.hidden = [item.id]
                    }
                }
            }
            try add(.record, "BK plants an always item with no group", by: "BK") { f, c in
                try plant(
                    Self.newItem("bk-none", Self.attributes("planted", group: ""), .always),
                    domain: 0,
                    authorized: true,
                    &f,
                    &c
                )
            }
            for group in allGroups.subtracting(keyed).sorted() {
                // A group without a key domain is no key boundary (format-v2 §8.2): BK may write its always items.
                try add(.record, "BK plants an always item of \(group), which has no key domain", by: "BK") { f, c in
                    try plant(
                        Self.newItem("bk-\(group)", Self.attributes("planted", group: group), .always),
                        domain: 0,
                        authorized: true,
                        &f,
                        &c
                    )
                }
            }
            for entry in subject.items where entry.domain == 0 && entry.item.protection == .always {
                var changed = entry.item
                changed = Item(
                    id: changed.id,
                    attributes: changed.attributes,
                    secret: Array("bk-changed".utf8),
                    protection: .always
                )
                try add(.record, "BK changes the always item \(entry.item.attributes.service)", by: "BK") { f, c in
                    try plant(
                        changed,
                        domain: 0,
                        authorized: changed.attributes.accessGroup.isEmpty
                            || !keyed.contains(changed.attributes.accessGroup),
                        &f,
                        &c
                    )
                }
            }
            for entry in subject.items {
                try add(.record, "\(entry.item.attributes.service) deleted", by: "HK+IK") { f, c in
                    f.records.removeAll { $0.entry.itemID == entry.item.id }
                    c.deleted = [entry.item.id]
                }
                try add(.record, "\(entry.item.attributes.service) deleted, with a deletion record", by: "HK+IK") {
                    f,
                    c in
                    f.records.removeAll { $0.entry.itemID == entry.item.id }
                    f.deletions = (f.deletions + [DeletionRecord(itemID: entry.item.id, deletedAt: 1)]).sorted {
                        $0.itemID < $1.itemID
                    }
                    c.deleted = [entry.item.id]
                }
            }
            // Each limited recipient: records of its own domain.
            for limited in subject.limited {
                let own = name(ofDomain: limited.domain)
                let who = limited.name
                for group in (allGroups.union([""])).subtracting([own]).sorted() {
                    try add(
                        .record,
                        "\(who) plants an item of its domain that claims \(group.isEmpty ? "no group" : group)",
                        by: who,
                        keys: limited.keys
                    ) { f, c in
                        try plant(
                            Self.newItem("\(who)-\(group)", Self.attributes("planted", group: group), .whenUnlocked),
                            domain: limited.domain,
                            authorized: false,
                            &f,
                            &c
                        )
                    }
                }
                for entry in subject.items where entry.item.attributes.accessGroup != own {
                    let forged = Item(
                        id: entry.item.id,
                        attributes: entry.item.attributes,
                        secret: Array("\(who)-forged".utf8),
                        protection: entry.item.protection
                    )
                    try add(
                        .record,
                        "\(who) replaces \(entry.item.attributes.service) by a record of its domain",
                        by: who,
                        keys: limited.keys
                    ) { f, c in
                        try plant(forged, domain: limited.domain, authorized: false, &f, &c)
                        c.hidden = hiddenBy(moving: entry.item.id, from: entry.domain)
                    }
                }
                try add(.record, "\(who) plants an item of its own group", by: who, keys: limited.keys) { f, c in
                    try plant(
                        Self.newItem("\(who)-own", Self.attributes("planted", group: own), .whenUnlocked),
                        domain: limited.domain,
                        authorized: true,
                        &f,
                        &c
                    )
                }
                for item in items(inDomain: limited.domain) {
                    let changed = Item(
                        id: item.id,
                        attributes: item.attributes,
                        secret: Array("\(who)-changed".utf8),
                        protection: item.protection
                    )
                    try add(
                        .record,
                        "\(who) changes \(item.attributes.service) of its own group",
                        by: who,
                        keys: limited.keys
                    ) { f, c in
                        try plant(changed, domain: limited.domain, authorized: true, &f, &c)
                    }
                }
                for entry in subject.items where entry.item.attributes.accessGroup != own {
                    var attributes = entry.item.attributes
                    attributes.accessGroup = own
                    try add(
                        .record,
                        "\(who) plants \(entry.item.attributes.service)'s service and account in its own group",
                        by: who,
                        keys: limited.keys
                    ) { f, c in
                        try plant(
                            Self.newItem("\(who)-shadow-\(entry.item.id)", attributes, .whenUnlocked),
                            domain: limited.domain,
                            authorized: true,
                            &f,
                            &c
                        )
                    }
                }
            }
        }

        // MARK: - Index entries

        func index() throws {
            for (position, record) in pristine.records.enumerated() {
                let current = record.entry.domain
                for domain in Set([0, unusedDomain] + domains).subtracting([current]).sorted() {
                    try add(.index, "entry \(position) moved from domain \(current) to \(domain)") { f, c in
                        f.records[position].entry.domain = domain
                        c.hidden = hiddenBy(moving: record.entry.itemID, from: current)
                    }
                }
                try add(.index, "entry \(position): version + 1") { f, _ in f.records[position].entry.version += 1 }
                if record.entry.version > 1 {
                    try add(.index, "entry \(position): version - 1") { f, _ in f.records[position].entry.version -= 1 }
                }
                try add(.index, "entry \(position): lookup tag + 1") { f, _ in f.records[position].entry.tag &+= 1 }
                try add(.index, "entry \(position): a deletion record names it") { f, _ in
                    f.deletions = (f.deletions + [DeletionRecord(itemID: record.entry.itemID, deletedAt: 1)]).sorted {
                        $0.itemID < $1.itemID
                    }
                }
                for (other, second) in pristine.records.enumerated()
                where other > position && second.bytes.count == record.bytes.count {
                    try add(.index, "records \(position) and \(other) exchanged") { f, _ in
                        f.records[position].bytes = second.bytes
                        f.records[other].bytes = record.bytes
                    }
                }
            }
        }

        // MARK: - Versions

        func versions() throws {
            for (major, minor): (UInt16, UInt16) in [(1, 0), (1, 2), (2, 1), (3, 0)] {
                try add(.version, "version set to \(major).\(minor)") { f, _ in
                    f.major = major
                    f.minor = minor
                }
            }
        }
    }
}
