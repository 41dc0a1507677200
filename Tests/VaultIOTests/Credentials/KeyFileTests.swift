// vault: key files are real keys (R-KF-1), hashed as a stream, generated exclusively (issue 9, section 3).

import Foundation
import Glibc
import Testing
import VaultIO

@testable import VaultFormat

@Suite("Key files")
struct KeyFileTests {
    /// The streamed digest is byte for byte the one-shot `BLAKE2b(64, "", keyfile)` of the spec,
    /// whatever the piece sizes.
    @Test(arguments: [0, 1, 31, 32, 64, 4096, 100_000])
    func streamedDigest_equalsOneShotDigest(length: Int) throws {
        let bytes = SystemRandom().bytes(length)
        let oneShot = BLAKE2b.hash(bytes, length: 64)
        for pieceSize in [1, 7, 64, 65_536] {
            let hasher = KeyFileDigest.Hasher()
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + pieceSize, bytes.count)
                bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            let streamed = hasher.finalize()
            #expect(streamed.byteCount == length)
            #expect(streamed.digest.withUnsafeBytes { Array($0) } == oneShot)
        }
        let whole = KeyFileDigest(contents: SecretBytes(bytes: bytes))
        #expect(whole.digest.withUnsafeBytes { Array($0) } == oneShot)
    }

    /// A slot made from raw key-file bytes opens with the streamed digest, and the reverse.
    @Test func streamedDigest_opensSlotMadeFromBytes() throws {
        try withTemporaryDirectory { directory in
            let bytes = SystemRandom().bytes(48)
            let vault = try makeVault(in: directory)
            try vault.write {
                try $0.addKeyslot(.keyFile, credentials: Credentials(keyFile: SecretBytes(bytes: bytes)))
            }
            let hasher = KeyFileDigest.Hasher()
            bytes.withUnsafeBytes { hasher.update($0) }
            let reopened = try Vault(
                path: vault.path,
                credentials: Credentials(keyFileDigest: hasher.finalize()),
                configuration: testConfiguration
            )
            #expect(reopened.openedKeyslot == 1)
        }
    }

    /// R-KF-1: a writer refuses a key file under 32 bytes, for a new vault and for a new slot.
    @Test func writers_refuseKeyFilesUnder32Bytes() throws {
        try withTemporaryDirectory { directory in
            let short = Credentials(keyFile: SecretBytes(bytes: Array("dragon".utf8)))
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try Vault.create(at: directory + "/a.vault", credentials: short, keyslots: [.keyFile])
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/a.vault"))
            let vault = try makeVault(in: directory)
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { try $0.addKeyslot(.keyFile, credentials: short) }
            }
            let thirtyOne = Credentials(keyFile: SecretBytes(bytes: [UInt8](repeating: 1, count: 31)))
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { try $0.addKeyslot(.keyFile, credentials: thirtyOne) }
            }
            #expect(try vault.read { $0.header.keyslots.count } == 1)
            let thirtyTwo = Credentials(keyFile: SecretBytes(bytes: [UInt8](repeating: 1, count: 32)))
            try vault.write { try $0.addKeyslot(.keyFile, credentials: thirtyTwo) }
            #expect(try vault.read { $0.header.keyslots.count } == 2)
        }
    }

    /// Readers still open a slot that an older writer made for a short key file.
    @Test func readers_openSlotsOfShortKeyFiles() throws {
        let random = SystemRandom()
        let master: MasterKey = random.key()
        let vaultID = random.bytes(16)
        let short = Credentials(keyFile: SecretBytes(bytes: Array("dragon".utf8)))
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: short,
            vaultID: vaultID,
            allowShortKeyFile: true
        )
        let keys = KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: vaultID)
        let bytes = try VaultWriter(vaultID: vaultID, created: 0, keyslots: [slot], keys: keys).encode(now: 0)
        let snapshot = try VaultSnapshot.open(bytes, with: short)
        #expect(snapshot.openedKeyslot == 0)
    }

    @Test func generate_writes32RandomBytesWithMode0600_andOpensANewSlot() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/new.key"
            let digest = try KeyFileGenerator.generate(at: path)
            var status = stat()
            #expect(stat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(status.st_size == 32)
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(digest.byteCount == 32)
            #expect(digest.digest.withUnsafeBytes { Array($0) } == BLAKE2b.hash(Array(contents), length: 64))
            let other = try KeyFileGenerator.generate(at: directory + "/other.key")
            #expect(other.digest != digest.digest)

            let vault = try makeVault(in: directory)
            try vault.write { try $0.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: digest)) }
            let reopened = try Vault(
                path: vault.path,
                credentials: Credentials(keyFile: SecretBytes(bytes: Array(contents))),
                configuration: testConfiguration
            )
            #expect(reopened.openedKeyslot == 1)
        }
    }

    /// O_EXCL and O_NOFOLLOW: an existing file or a symbolic link is never written through.
    @Test func generate_neverOverwritesOrFollows() throws {
        try withTemporaryDirectory { directory in
            let existing = directory + "/existing.key"
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
            #expect(throws: VaultIOError(.alreadyExists)) { try KeyFileGenerator.generate(at: existing) }
            #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
            let link = directory + "/link.key"
            let target = directory + "/target"
            #expect(symlink(target, link) == 0)
            #expect(throws: VaultIOError(.alreadyExists)) { try KeyFileGenerator.generate(at: link) }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    /// A failed write leaves no half-made key file behind.
    @Test func generate_removesTheFileWhenAWriteFails() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/fail.key"
            _ = Syscalls.inject(.fsync, errno: EIO) {
                #expect(throws: VaultIOError(.system)) { try KeyFileGenerator.generate(at: path) }
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
