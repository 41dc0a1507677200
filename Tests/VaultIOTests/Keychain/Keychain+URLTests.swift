// vault: Keychain(server: URL): the location a URL names.

import Foundation
import Testing
import VaultIO

/// Spec: Spec/library-semantics.md (L-KC-10).
@Suite("Keychain URL")
struct KeychainURLTests {
    @Test func url_givesServerProtocolPortAndPath() throws {
        try withKeychainVault { vault, _ throws in
            let url = try #require(URL(string: "HTTPS://Example.COM:8443/api/v1?q=1#top"))
            let site = try Keychain(server: url, securityDomain: "realm", vault: vault)
            let expected = InternetLocation(
                server: "example.com",
                protocol: .https,
                port: 8443,
                path: "/api/v1",
                securityDomain: "realm"
            )
            #expect(site.itemClass == .internetPassword(expected))
            try site.set("pw", forKey: "alice")
            #expect(try site.attributes(forKey: "alice")?.internetLocation == expected)
        }
    }

    @Test func url_withAndWithoutTrailingSlash_isOneLocation_andMatchesTheStringInitializer() throws {
        try withKeychainVault { vault, _ throws in
            let bare = try Keychain(server: try #require(URL(string: "https://example.com")), vault: vault)
            let slash = try Keychain(server: try #require(URL(string: "https://example.com/")), vault: vault)
            try bare.set("pw", forKey: "alice")
            #expect(try slash.string(forKey: "alice") == "pw")
            let named = Keychain(server: "example.com", protocol: .https, vault: vault)
            #expect(try named.string(forKey: "alice") == "pw")
        }
    }

    @Test func url_unknownScheme_isKeptByName() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = try Keychain(server: try #require(URL(string: "redis://cache.internal:6379")), vault: vault)
            guard case .internetPassword(let location) = keychain.itemClass else {
                Issue.record("not an internet password")
                return
            }
            #expect(location.protocol.rawValue == "redis" && location.port == 6379)
        }
    }

    @Test func url_withoutHostOrScheme_isInvalidParameter() throws {
        try withKeychainVault { vault, _ throws in
            for text in ["file:///etc/passwd", "example.com/path", "/relative"] {
                let url = try #require(URL(string: text))
                #expect(throws: KeychainError.self, "\(text)") { try Keychain(server: url, vault: vault) }
            }
        }
    }
}
