// vault: git-diff's secret fingerprints of grouped items are keyed by the record's own domain
// (Spec/cli.md R-GD-3), so a holder of the base key alone cannot test a guess.

import Testing

@testable import VaultFormat

@Suite("Fingerprints of grouped items (R-GD-3, format 2.0)")
struct GroupFingerprintTests {
    /// Before, the fingerprint of a grouped `always` item was keyed with domain 0's `always`
    /// key, which derives from `BK`: a base-key holder, who cannot decrypt the item, computed the
    /// fingerprint of `hunter2` and matched it against the `git-diff` output.
    @Test func groupedAlwaysItem_fingerprint_isNotComputableWithTheBaseKey() throws {
        let team = try AccessGroupForgeryTests.Team()
        let owner = try VaultSnapshot.open(team.file, with: AccessGroupForgeryTests.Team.owner)
        let secret = SecretBytes(utf8: "hunter2")
        let id = ItemID(random: SeededRandom(seed: "fp"))
        let fingerprinter = SecretFingerprinter(keys: owner.keys, vaultID: team.vaultID)
        let grouped = try fingerprinter.fingerprint(of: secret, itemID: id, protection: .always, domain: 1)
        let domainZero = try fingerprinter.fingerprint(of: secret, itemID: id, protection: .always, domain: 0)
        #expect(grouped != domainZero)
        let baseOnly = VaultKeys(
            master: nil,
            base: KeyHierarchy.baseKey(from: team.master),
            deviceSecret: nil,
            vaultID: team.vaultID
        )
        let guesser = SecretFingerprinter(keys: baseOnly, vaultID: team.vaultID)
        #expect(try guesser.fingerprint(of: secret, itemID: id, protection: .always) == domainZero)
        #expect(throws: VaultFormatError(.keyUnavailable)) {
            try guesser.fingerprint(of: secret, itemID: id, protection: .always, domain: 1)
        }
    }
}
