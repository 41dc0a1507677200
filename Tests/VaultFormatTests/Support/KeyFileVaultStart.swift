// vault tests: the empty vault the access-group suites start from.

@testable import VaultFormat

/// A new vault with one key-file keyslot of a seeded master key, and its writer: where the
/// access-group suites begin before they add items, migrate to 2.0 and add recipients. The
/// master key and vault ID are drawn from `random` first, so the suites' later draws (item IDs)
/// continue the same seeded sequence.
struct KeyFileVaultStart {
    let master: MasterKey
    let vaultID: [UInt8]
    let slot: Keyslot
    var writer: VaultWriter

    init(random: SeededRandom, keyFile: Credentials, deviceSecret: DeviceSecret? = nil) throws {
        master = random.key()
        vaultID = random.bytes(16)
        slot = try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: keyFile,
            vaultID: vaultID
        )
        let keys = KeyHierarchy.keys(master: master, deviceSecret: deviceSecret, vaultID: vaultID)
        writer = try VaultWriter(vaultID: vaultID, created: 0, keyslots: [slot], keys: keys)
    }
}
