// VaultSecretService tests: which collections are served, under which names (R-SS-6) and credentials (R-SS-3).

import Foundation
import Testing
import VaultIO

@testable import VaultSecretService

@Suite("CollectionSource")
struct CollectionSourceTests {
    @Test func collectionName_keepsLettersDigitsAndUnderscores() {
        #expect(CollectionSource.collectionName("/home/a/team-secrets.vault") == "team_secrets")
        #expect(CollectionSource.collectionName("2024.vault") == "_2024")
        #expect(CollectionSource.collectionName("/x/.vault") == "_")
    }

    @Test func choosing_namesTwinsApartAndReadsNamedCredentialsOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ss-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(repeating: 5, count: 32).write(to: URL(fileURLWithPath: directory + "/key"))
        var sources = CredentialSources()
        sources.keyFile = directory + "/key"
        var located: [String?] = []
        let chosen = try CollectionSource.choosing(
            ["/a/app.vault", "/b/app.vault", nil],
            locate: { vault in
                located.append(vault)
                return (vault ?? "/home/std/default.vault", vault == nil)
            },
            credentials: sources,
            configuration: { VaultConfiguration() },
            deviceSecretFailed: { _, _ in Issue.record("no device secret is used") }
        )
        #expect(chosen.map(\.name) == ["app", "app_2", "login"])
        #expect(chosen.allSatisfy { $0.credentials?.keyFileDigest?.byteCount == 32 })
        #expect(located.count == 3)
    }
}
