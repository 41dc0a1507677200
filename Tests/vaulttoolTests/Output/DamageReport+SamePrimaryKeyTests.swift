// vaulttool tests: a format-3 item that a holder of the base key alone plants with the primary key
// of a master-scope item (security review of format 3, Spec/format-v3.md R-IDX-6), driving the
// built binary.

import Foundation
import Testing

@testable import VaultFormat

@Suite("Same primary key in two scopes CLI")
struct SamePrimaryKeyCLITests {
    /// What a holder of `BK` alone (a device keyslot, a background process) writes: in the base
    /// scope, the only scope it can write, an `always` item with the primary key of the owner's
    /// `whenUnlocked` item `db`/`ci` (the lookup tag, which `LK` computes, confirms the guessed
    /// service and account), a later modification date, and the lowest item ID. The owner's item
    /// and the master scope are left as they are.
    private func plant(_ w: Workspace) throws -> ItemID {
        let path = w.file("v.vault")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: .password(Workspace.password)))
        writer.keys = try #require(KeyHolderRewrite.baseKeyHolder(of: writer.keys, vaultID: writer.header.vaultID))
        let id = ItemID(bytes: [UInt8](repeating: 0, count: ItemID.byteCount))
        var attributes = ItemAttributes(service: "db", account: "ci")
        attributes.modificationDate = Int64(Date().timeIntervalSince1970 * 1_000) + 86_400_000
        try writer.insertRaw(
            try RecordCodec.seal(
                ItemDraft(
                    id: id,
                    protectionClass: .always,
                    attributes: attributes,
                    secret: SecretBytes(utf8: "forged")
                ),
                version: 7,
                vaultID: writer.header.vaultID,
                keys: writer.keys,
                domain: 0,
                random: SystemRandom()
            )
        )
        guard case .inPlace(let commit) = try writer.encodeGeneration(now: 0) else {
            throw VaultFormatError(.invalidParameter, "a base-key holder cannot rewrite the whole file")
        }
        try Data(commit.applied(to: file)).write(to: URL(fileURLWithPath: path))
        return id
    }

    /// R-IDX-6: before the fix `get` printed the planted secret (the newest of two matches) and
    /// `set` wrote the owner's new secret into the planted `always` item, which the base-key holder
    /// reads. Two items with one primary key now answer for neither, and nothing is written.
    @Test func plantedDuplicate_answersNoLookup_andTakesNoWrite() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("db-secret", ["--service", "db", "--account", "ci"])
        let planted = try plant(w)

        let get = try w.run(["get", "--password-file", "pw", "--service", "db", "--account", "ci", "v.vault"])
        #expect(get.status == 4, "\(get.stdout) \(get.stderr)")
        #expect(!get.stdout.contains("forged"))
        #expect(get.stderr.contains(planted.description) && get.stderr.contains("same primary key"))

        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "db", "--account", "ci", "v.vault"],
            stdin: "rotated"
        )
        #expect(set.status == 4, "\(set.stdout) \(set.stderr)")
        // The base-key holder's view: its planted item did not receive the owner's new secret.
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))))
        let owner = try VaultSnapshot.open(file, with: .password(Workspace.password))
        let base = try VaultSnapshot.open(
            headerBytes: try VaultHead.read(file).bytes,
            fileLength: file.count,
            source: InMemoryFile(file),
            keys: try #require(KeyHolderRewrite.baseKeyHolder(of: owner.keys, vaultID: owner.header.vaultID)),
            openedKeyslot: 0
        )
        let index = try base.index
        let position = try #require((0..<index.count).first { index.itemID(at: $0) == planted })
        let seen = try base.item(at: position, includeSecret: true).secret?.withUnsafeBytes {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(seen == "forged")

        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 4)
    }
}
