// vault: what inspect reads from a vault without a credential, and what a credential adds.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("VaultInspection")
struct VaultInspectionTests {
    @Test func init_readsTheHeaderWithoutACredential() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "db")) }
            var inspection = try VaultInspection(path: vault.path)
            #expect(inspection.structure.ok)
            // Format 3 counts items in its encrypted root: a credential gives the count.
            #expect(inspection.items == nil && inspection.sizes?.committed != nil && !inspection.authenticated)
            #expect(try inspection.authenticate(with: vault.read { $0 }))
            #expect(inspection.items == 1 && inspection.deletions == 0)
            #expect(inspection.sizes?.live != nil && inspection.authenticated)
            #expect(inspection.keyslots.map(\.kind) == ["password"])
            #expect(inspection.vaultID?.count == 32)
            #expect(inspection.writable == true)
            // The test KDF is below the floor: the keyslot is weak, and a warning says how to raise it.
            #expect(inspection.keyslots[0].weak)
            #expect(inspection.warnings.first?.hasPrefix("keyslot #0 uses weak Argon2id parameters") == true)
        }
    }

    @Test func init_foreignFile_isAStructureErrorNotAThrow() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/junk"
            try Data(repeating: 0x41, count: 200).write(to: URL(fileURLWithPath: path))
            let inspection = try VaultInspection(path: path)
            #expect(!inspection.structure.ok)
            #expect(inspection.structure.error?.code == VaultFormatError.Code.notAVault.name)
            #expect(inspection.format == nil)
        }
    }

    @Test func authenticate_onlyTheHeaderThatWasRead() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var inspection = try VaultInspection(path: vault.path)
            let before = try vault.read { $0 }
            try vault.write { try $0.set(makeDraft(service: "later")) }
            let changed = inspection.authenticate(with: try vault.read { $0 })
            #expect(!changed && !inspection.authenticated)
            let same = inspection.authenticate(with: before)
            #expect(same && inspection.authenticated)
        }
    }
}
