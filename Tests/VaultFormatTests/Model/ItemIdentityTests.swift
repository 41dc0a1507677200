// VaultFormat tests: the canonical spelling of an item's key (Spec/library-semantics.md, L-KC-15).

import Testing
import VaultFormat

private func internet(
    _ server: String,
    protocol: String = "",
    authenticationType: String = "",
    port: UInt16 = 0,
    path: String = ""
) -> ItemAttributes {
    var a = ItemAttributes(account: "alice")
    (a.server, a.protocol, a.authenticationType, a.port, a.path) = (server, `protocol`, authenticationType, port, path)
    return a.canonicalIdentity(for: .internetPassword)
}

@Suite("Item identity: canonical spelling (L-KC-15)")
struct ItemIdentityTests {
    @Test func serverAndProtocol_areLowerCased_andTheAuthenticationTypeDefaults() {
        let a = internet("GitHub.COM", protocol: "HTTPS")
        #expect(a.server == "github.com")
        #expect(a.protocol == "https")
        #expect(a.authenticationType == ItemAttributes.defaultAuthenticationType)
        #expect(internet("h", authenticationType: "htmlForm").authenticationType == "htmlForm")
    }

    @Test func aServerGivenAsURL_givesProtocolPortAndPath_onlyWhereNotSet() {
        let a = internet("HTTPS://bob:secret@Example.org:8443/api/v1?x=1#top")
        #expect((a.server, a.protocol, a.port, a.path) == ("example.org", "https", 8443, "/api/v1"))
        let given = internet("https://example.org:8443/api", protocol: "ssh", port: 22, path: "/other")
        #expect((given.server, given.protocol, given.port, given.path) == ("example.org", "ssh", 22, "/other"))
        let v6 = internet("http://[::1]:8080/")
        #expect((v6.server, v6.port, v6.path) == ("[::1]", 8080, ""))
        #expect(internet("FE80::2").server == "[fe80::2]")  // as URL.host() gives it: brackets restored
    }

    @Test func theRootPath_isNoPath_andPortsAreNotFilledIn() {
        #expect(internet("h", path: "/").path == "")
        #expect(internet("h", path: "/x/").path == "/x/")
        #expect(internet("https://h").port == 0)
        #expect(internet("https://h:0").server == "h:0")  // port 0 is no port: the text stays
    }

    @Test func textThatIsNotAURL_staysAServerName() {
        #expect(internet("1http://x").server == "1http://x")  // a scheme starts with a letter
    }

    /// Rules 5 and 6: `host:port` without a scheme, and a fully qualified name's final dot.
    @Test func hostAndPortWithoutAScheme_areSplit_andAFinalDotIsDropped() {
        let a = internet("Host:8080")
        #expect((a.server, a.port) == ("host", 8080))
        #expect(internet("host:8080", port: 22).server == "host:8080")  // a port field set: kept as given
        #expect(internet("host:0").server == "host:0")  // not a port: the text stays
        #expect(internet("host:0443").server == "host:0443")  // a leading zero: kept, to read back as written
        #expect(internet("host:99999").server == "host:99999")
        #expect((internet("[::1]:8443").server, internet("[::1]:8443").port) == ("[::1]", 8443))
        #expect((internet("fe80::1:8443").server, internet("fe80::1:8443").port) == ("[fe80::1:8443]", 0))
        #expect(internet("GitHub.com.").server == "github.com")
        #expect(internet("https://github.com.:8443/").server == "github.com")
        #expect(internet(".").server == ".")
        let old = internet("h:8443", protocol: "https")
        #expect(old == old.canonicalIdentity(for: .internetPassword))  // idempotent
    }

    @Test func sameIdentity_comparesCanonicalKeys_andGenericPasswordsByteForByte() {
        var a = ItemAttributes(account: "alice")
        (a.server, a.authenticationType) = ("GitHub.com", "")
        var b = ItemAttributes(account: "alice")
        (b.server, b.authenticationType) = ("https://github.com/", "default")
        b.protocol = ""
        var c = a
        c.protocol = "https"
        #expect(c.hasSameIdentity(as: b, itemClass: .internetPassword))
        #expect(!a.hasSameIdentity(as: b, itemClass: .internetPassword))  // b names a protocol, a none
        let generic = ItemAttributes(service: "Svc", account: "alice")
        #expect(generic.canonicalIdentity(for: .genericPassword) == generic)
        #expect(
            !generic.hasSameIdentity(as: ItemAttributes(service: "svc", account: "alice"), itemClass: .genericPassword)
        )
    }

    @Test func olderSpellings_nameTheEmptyAuthenticationType() {
        let canonical = internet("h")
        var old = canonical
        old.authenticationType = ""
        #expect(
            canonical.olderSpellings(for: .internetPassword) == [
                PrimaryKey(itemClass: .internetPassword, attributes: old)
            ]
        )
        #expect(internet("h", authenticationType: "ntlm").olderSpellings(for: .internetPassword).isEmpty)
        #expect(ItemAttributes(service: "s").olderSpellings(for: .genericPassword).isEmpty)
    }

    /// The canonical identity of a canonical identity is itself, also where one rule leaves what
    /// another applies to (a final dot after a port, two final dots, a scheme's port with a dot).
    @Test(arguments: [
        "registry.example:5000.", "reg..", "reg...", "reg:5000..", "https://reg:5000../x", "HTTPS://Host.:8443./",
        "github.com:443.", "::1", "[::1]:80.", "h:0443.", "a:\u{301}//b", "x://y://z", "host:99999.",
    ])
    func canonicalIdentity_isAFixedPoint(_ server: String) {
        let once = internet(server)
        #expect(once.canonicalIdentity(for: .internetPassword) == once, "\(server) -> \(once.server)")
    }

    @Test func aFinalDotAfterAPort_leavesThePortToSplit() {
        let a = internet("registry.example:5000.")
        #expect((a.server, a.port) == ("registry.example", 5000))
        #expect(internet("github.com:443.").server == internet("github.com:443").server)
        #expect(internet("reg..").server == "reg")
    }

    /// A registry location, as docker's helpers and the Secret Service's docker schema give it: the
    /// fields joined give the canonical text back, and nothing a URL parser would drop is lost.
    @Test(
        arguments: [
            ("https://Index.Docker.IO/v1/", "https", "index.docker.io", 0, "/v1/"),
            ("registry.example:5000", "", "registry.example", 5000, ""),
            ("localhost:5000/v2/", "", "localhost", 5000, "/v2/"),
            ("HTTP://[::1]:8080/", "http", "[::1]", 8080, ""),
            ("host:0443", "", "host:0443", 0, ""),  // a leading zero is no port: the text stays
            ("https://bob@host/x?y#z", "https", "bob@host", 0, "/x?y#z"),
            ("github.com.", "", "github.com", 0, ""),
            ("registry.example:5000.", "", "registry.example", 5000, ""),  // the dot, then the port
            ("", "", "", 0, ""),
        ] as [(String, String, String, UInt16, String)]
    )
    func aRegistryLocation_splitsIntoCanonicalFields(
        _ location: String,
        _ scheme: String,
        _ server: String,
        _ port: UInt16,
        _ path: String
    ) {
        let a = ItemAttributes(internetPasswordAt: location)
        #expect((a.protocol, a.server, a.port, a.path) == (scheme, server, port, path))
        #expect(a == a.canonicalIdentity(for: .internetPassword))
    }
}
