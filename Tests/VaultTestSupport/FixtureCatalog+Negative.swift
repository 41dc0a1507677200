// vault: fixtures that must be refused, each with one defect.

import VaultFormat

extension FixtureCatalog {
    static func negative(_ c: inout Builder) throws {
        let m = try FixtureMaker(seed: "base_for_damage", slots: [.password(password)])
        for n in 0..<3 {
            try m.add(service: "damage", account: "item-\(n)", secret: "secret number \(n)!")
        }
        let good = try m.bytes()
        let credentials = Credentials.password(password)
        let snapshot = try VaultSnapshot.open(good, with: credentials)
        let headerLength = Surgery.headerLength(good)
        let records = snapshot.recordsOffset
        let goodIndex = try snapshot.index
        func record(_ position: Int) -> Range<Int> {
            let start = records + goodIndex.offsets[position]
            return start..<start + goodIndex.entries[position].recordLength
        }

        // Identification and versioning.
        var bad = good
        bad[1] = 0x57
        c.failure("header_bad_magic", file: c.file("header_bad_magic.vault", bad), .notAVault, "one magic byte changed")
        c.failure(
            "not_a_vault",
            file: c.file("not_a_vault.txt", Array("This is a plain text file, not a vault.\n".utf8)),
            .notAVault,
            "a foreign file"
        )
        bad = good
        Surgery.poke(&bad, at: 8, value: 2, size: 2)
        c.failure(
            "header_future_major",
            file: c.file("header_future_major.vault", bad),
            .unsupportedVersion,
            "major version 2: needs a newer version (R-HDR-2)"
        )
        let critical = try FixtureMaker(seed: "critical", slots: [.password(password)])
        critical.setUnknownFields([VaultHeader.UnknownField(type: 0x8123, value: [1, 2, 3])])
        c.failure(
            "header_unknown_critical",
            file: c.file("header_unknown_critical.vault", try critical.bytes()),
            .unsupportedFeature,
            "unknown critical field 0x8123 (R-FLD-2)"
        )
        bad = good
        Surgery.poke(&bad, at: 12, value: 2_000_000, size: 4)
        c.failure(
            "header_length_too_large",
            file: c.file("header_length_too_large.vault", bad),
            .structure,
            "header length over 1 MiB (R-HDR-4)"
        )

        // Truncation at several points, and trailing data.
        c.failure(
            "truncated_preamble",
            file: c.file("truncated_preamble.vault", Array(good[0..<10])),
            .truncated,
            "the file ends inside the 16-byte preamble"
        )
        c.failure(
            "truncated_header",
            file: c.file("truncated_header.vault", Array(good[0..<headerLength - 20])),
            .truncated,
            "the file ends inside the header"
        )
        c.failure(
            "truncated_index",
            file: c.file("truncated_index.vault", Array(good[0..<headerLength + 30])),
            .truncated,
            "the file ends inside the index (R-FILE-1)"
        )
        c.failure(
            "truncated_last_byte",
            file: c.file("truncated_last_byte.vault", Array(good.dropLast())),
            .truncated,
            "the last byte is missing (R-FILE-1)"
        )
        c.failure(
            "trailing_data",
            file: c.file("trailing_data.vault", good + [0]),
            .structure,
            "one byte after the last record (R-FILE-1)"
        )

        // Flipped bytes.
        c.failure(
            "header_flipped_byte",
            file: c.file("header_flipped_byte.vault", Surgery.flip(good, at: 20 + 6)),
            .headerCorrupt,
            "a bit of the vault ID flipped: checksum mismatch (R-HDR-5)"
        )
        bad = good
        let generation = Surgery.fieldOffset(good, type: 0x8003)
        Surgery.poke(&bad, at: generation, value: 99, size: 8)
        Surgery.fixChecksum(&bad)
        c.failure(
            "header_edited_checksum_fixed",
            file: c.file("header_edited_checksum_fixed.vault", bad),
            .headerAuthentication,
            "generation edited and checksum recomputed: the MAC fails (R-HDR-6)"
        )
        let slot = Surgery.fieldOffset(good, type: 0x8004)
        c.failure(
            "keyslot_flipped_byte",
            file: c.file("keyslot_flipped_byte.vault", Surgery.flip(good, at: slot + 90)),
            .headerCorrupt,
            "a bit of the wrapped key flipped: checksum mismatch, not a wrong password"
        )
        bad = good
        Surgery.poke(&bad, at: slot + 3, value: 64, size: 4)
        Surgery.fixChecksum(&bad)
        c.failure(
            "keyslot_kdf_downgrade",
            file: c.file("keyslot_kdf_downgrade.vault", bad),
            .wrongCredential,
            "KDF memory lowered to 64 KiB and checksum recomputed: the derived key differs, nothing opens (rationale)"
        )
        c.failure(
            "index_flipped_byte",
            file: c.file("index_flipped_byte.vault", Surgery.flip(good, at: headerLength + 40)),
            .indexCorrupt,
            "a bit of the index flipped (R-IDX-1)"
        )
        c.failure(
            "record_flipped_attributes",
            file: c.file("record_flipped_attributes.vault", Surgery.flip(good, at: record(1).upperBound - 30)),
            .recordCorrupt,
            "a bit of a record's attributes flipped (R-REC-1)"
        )
        c.failure(
            "record_flipped_secret",
            file: c.file("record_flipped_secret.vault", Surgery.flip(good, at: record(0).lowerBound + 30)),
            .recordCorrupt,
            "a bit of a record's secret flipped (R-REC-1)"
        )
        c.failure(
            "end_flipped_byte",
            file: c.file("end_flipped_byte.vault", Surgery.flip(good, at: good.count - 1)),
            .recordCorrupt,
            "the last byte of the file flipped"
        )

        // Records moved around.
        bad = good
        bad.replaceSubrange(record(1), with: good[record(0)])
        c.failure(
            "record_duplicated",
            file: c.file("record_duplicated.vault", bad),
            .recordCorrupt,
            "the first record copied over the second (same length)"
        )
        bad = good
        bad.replaceSubrange(record(0), with: good[record(1)])
        bad.replaceSubrange(record(1), with: good[record(0)])
        c.failure(
            "record_reordered",
            file: c.file("record_reordered.vault", bad),
            .recordCorrupt,
            "two records of the same length swapped"
        )
        bad = good
        bad.removeSubrange(record(1))
        c.failure(
            "record_deleted",
            file: c.file("record_deleted.vault", bad),
            .truncated,
            "one record's bytes removed, header untouched"
        )
        let index = Surgery.fieldOffset(bad, type: 0x8005)
        Surgery.poke(&bad, at: index + 32, value: UInt64(snapshot.header.recordsLength - record(1).count), size: 8)
        Surgery.fixChecksum(&bad)
        c.failure(
            "record_deleted_header_patched",
            file: c.file("record_deleted_header_patched.vault", bad),
            .headerAuthentication,
            "one record removed and the records length patched: the MAC fails"
        )

        try transplanted(&c)
        try kdfLimits(&c)
    }

    /// A record swapped in from another vault, and a record rolled back to an older version.
    static func transplanted(_ c: inout Builder) throws {
        let id = ItemID(bytes: SeededRandom(seed: "vault fixtures v1 shared id").bytes(16))
        let attributes = ItemAttributes(service: "transplant", account: "same-id")
        func single(_ seed: String) throws -> [UInt8] {
            let m = try FixtureMaker(seed: seed, slots: [.password(password)])
            try m.add(attributes: attributes, secret: Array("sixteen bytes!!!".utf8), id: id)
            return try m.bytes()
        }
        var target = try single("transplant_target")
        let donor = try single("transplant_donor")
        let start = Surgery.recordsOffset(target)
        target.replaceSubrange(start..<target.count, with: donor[Surgery.recordsOffset(donor)...])
        c.failure(
            "record_from_other_vault",
            file: c.file("record_from_other_vault.vault", target),
            .recordCorrupt,
            "a record with the same item ID, class, version and lengths taken from another vault"
        )

        let m = try FixtureMaker(seed: "rollback", slots: [.password(password)])
        try m.add(service: "rollback", account: "a", secret: "version one of a")
        let first = try m.bytes()
        try m.reopen(first, with: .password(password))
        var changed = ItemDraft(
            id: m.drafts[0].id,
            attributes: m.drafts[0].attributes,
            secret: SecretBytes(utf8: "version two of a")
        )
        changed.attributes.modificationDate += 60_000
        try m.update(changed)
        var second = try m.bytes(minutes: 120)
        let from = Surgery.recordsOffset(first)
        let to = Surgery.recordsOffset(second)
        precondition(first.count - from == second.count - to)
        second.replaceSubrange(to..<second.count, with: first[from...])
        c.failure(
            "record_rolled_back",
            file: c.file("record_rolled_back.vault", second),
            .recordCorrupt,
            "generation 2 with the record of generation 1 put back (R-REC-3)"
        )
    }

    /// KDF parameters outside the ceilings are refused before Argon2 runs.
    static func kdfLimits(_ c: inout Builder) throws {
        let m = try FixtureMaker(seed: "kdf_limits", slots: [.password(password)])
        let good = try m.bytes()
        let slot = Surgery.fieldOffset(good, type: 0x8004)
        let cases: [(String, Int, UInt64, String)] = [
            ("kdf_memory_too_large", 3, 4_194_304, "4 GiB of memory: over the 1 GiB ceiling"),
            ("kdf_iterations_too_large", 7, 1_000_000, "a million passes"),
            ("kdf_lanes_zero", 11, 0, "zero lanes"),
            ("kdf_work_too_large", 3, 1_048_576, "1 GiB with 16 passes: over the memory x passes ceiling"),
        ]
        for (name, offset, value, comment) in cases {
            var bad = good
            Surgery.poke(&bad, at: slot + offset, value: value, size: 4)
            if name == "kdf_work_too_large" { Surgery.poke(&bad, at: slot + 7, value: 16, size: 4) }
            Surgery.fixChecksum(&bad)
            c.failure(name, file: c.file(name + ".vault", bad), .kdfRejected, comment + " (R-KS-2)")
        }
    }
}
