// vault: generic and internet passwords: what scopes a Keychain's items.

public import VaultFormat

/// The kind of item a ``Keychain`` works on, and the attributes that scope it.
public enum KeychainItemClass: Hashable, Sendable {
    /// Generic passwords of one service (`kSecClassGenericPassword`).
    case genericPassword(service: String)
    /// Internet passwords of one location (`kSecClassInternetPassword`).
    case internetPassword(InternetLocation)

    /// The format's item class.
    public var itemClass: ItemClass {
        switch self {
        case .genericPassword: .genericPassword
        case .internetPassword: .internetPassword
        }
    }

    /// Writes the scoping attributes into `attributes`.
    func apply(to attributes: inout ItemAttributes) {
        switch self {
        case .genericPassword(let service):
            attributes.service = service
        case .internetPassword(let location):
            attributes.server = location.server
            attributes.protocol = location.protocol.rawValue
            attributes.authenticationType = location.authenticationType.rawValue
            attributes.port = location.port
            attributes.path = location.path
            attributes.securityDomain = location.securityDomain
        }
    }

    /// Whether an item of `itemClass` with `attributes` belongs to this scope, whichever spelling
    /// of its key it was written with (L-KC-15).
    func matches(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> Bool {
        guard itemClass == self.itemClass else { return false }
        let stored = attributes.canonicalIdentity(for: itemClass)
        var expected = stored
        apply(to: &expected)
        return expected.canonicalIdentity(for: itemClass) == stored
    }
}

/// Where an internet password is used: server, protocol, authentication type, port, path, security domain.
public struct InternetLocation: Hashable, Sendable {
    /// `kSecAttrServer`, for example `example.com`.
    public var server: String
    /// `kSecAttrProtocol`.
    public var `protocol`: InternetProtocol
    /// `kSecAttrAuthenticationType`.
    public var authenticationType: AuthenticationType
    /// `kSecAttrPort`; 0 for none.
    public var port: UInt16
    /// `kSecAttrPath`.
    public var path: String
    /// `kSecAttrSecurityDomain`.
    public var securityDomain: String

    /// Creates a location.
    public init(
        server: String,
        protocol: InternetProtocol,
        authenticationType: AuthenticationType = .default,
        port: UInt16 = 0,
        path: String = "",
        securityDomain: String = ""
    ) {
        self.server = server
        self.protocol = `protocol`
        self.authenticationType = authenticationType
        self.port = port
        self.path = path
        self.securityDomain = securityDomain
    }
}

/// An internet protocol, stored by name (`kSecAttrProtocol`). New names may be made with `init(rawValue:)`.
public struct InternetProtocol: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let http = Self(rawValue: "http")
    public static let https = Self(rawValue: "https")
    public static let ftp = Self(rawValue: "ftp")
    public static let ftps = Self(rawValue: "ftps")
    public static let ssh = Self(rawValue: "ssh")
    public static let imap = Self(rawValue: "imap")
    public static let imaps = Self(rawValue: "imaps")
    public static let pop3 = Self(rawValue: "pop3")
    public static let pop3s = Self(rawValue: "pop3s")
    public static let smtp = Self(rawValue: "smtp")
    public static let ldap = Self(rawValue: "ldap")
    public static let ldaps = Self(rawValue: "ldaps")
    public static let socks = Self(rawValue: "socks")
    public static let telnet = Self(rawValue: "telnet")
    public static let smb = Self(rawValue: "smb")
}

/// An authentication type, stored by name (`kSecAttrAuthenticationType`).
public struct AuthenticationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let `default` = Self(rawValue: "default")
    public static let httpBasic = Self(rawValue: "httpBasic")
    public static let httpDigest = Self(rawValue: "httpDigest")
    public static let htmlForm = Self(rawValue: "htmlForm")
    public static let ntlm = Self(rawValue: "ntlm")
    public static let msn = Self(rawValue: "msn")
    public static let dpa = Self(rawValue: "dpa")
    public static let rpa = Self(rawValue: "rpa")
}
