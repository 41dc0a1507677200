// vault: the format `migrate` moves a vault to when none is named, as the CLI shows it before
// migrating and the library plans it.

import Testing
import VaultFormat
import VaultIO

@Suite("Migration targets")
struct MigrationTargetTests {
    /// Format 1.x moves to format 1's newest minor; 2.0 and 3.0 stay in their own major; the
    /// plan of a dry run agrees with what the header says.
    @Test(arguments: [(1, 1), (1, 2), (2, 0), (3, 0)])
    func defaultMigrationTarget_isTheDryRunsTarget(format: (major: Int, minor: Int)) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try vault.write { txn in
                if format >= (1, 2) { _ = try txn.upgradeToVersion12() }
                if format.major >= 2 { _ = try txn.upgradeToVersion2() }
                if format.major >= 3 { _ = try txn.upgradeToVersion3() }
            }
            let header = try VaultFileReader(path: vault.path).header()
            #expect((Int(header.major), Int(header.minor)) == (format.major, format.minor))
            let expected: (UInt16, UInt16) =
                format.major >= 2 ? (UInt16(format.major), 0) : (VaultHeader.currentMajor, UInt16(format.minor))
            #expect(header.defaultMigrationTarget == expected)
            let session = try CredentialSession(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration11
            )
            let report = try session.migrate(
                MigrationOptions(dryRun: true),
                credentials: .password(testPassword)
            )
            #expect(report.plan.toVersion == header.defaultMigrationTarget)
        }
    }
}
