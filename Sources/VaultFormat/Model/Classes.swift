// vault: item classes and protection classes.

/// The kind of keychain item: `kSecClassGenericPassword` or `kSecClassInternetPassword`.
///
/// Spec: Spec/format-v1.md, "Index" (item classes).
public enum ItemClass: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// A password for a service and account.
    case genericPassword = 0
    /// A password for a server, with protocol, port, path and security domain.
    case internetPassword = 1

    public var description: String {
        switch self {
        case .genericPassword: "genericPassword"
        case .internetPassword: "internetPassword"
        }
    }
}

/// When an item can be read: the seven accessibility levels of Apple's keychain.
///
/// Spec: Spec/format-v1.md, "Index" (protection classes).
public enum ProtectionClass: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// Readable only while the vault is unlocked.
    case whenUnlocked = 0
    /// Readable after the first unlock until the vault is closed.
    case afterFirstUnlock = 1
    /// Readable on this device without the password, and with the password anywhere.
    case always = 2
    /// ``whenUnlocked``, bound to this device.
    case whenUnlockedThisDeviceOnly = 3
    /// ``afterFirstUnlock``, bound to this device.
    case afterFirstUnlockThisDeviceOnly = 4
    /// ``always``, bound to this device.
    case alwaysThisDeviceOnly = 5
    /// Bound to this device, and only in a vault that has a password keyslot.
    case whenPasscodeSetThisDeviceOnly = 6

    /// Whether the class key also depends on the device secret.
    public var isDeviceBound: Bool { rawValue >= 3 }

    /// Whether the class key derives from the base key rather than the master key.
    public var derivesFromBaseKey: Bool { self == .always || self == .alwaysThisDeviceOnly }

    public var description: String {
        switch self {
        case .whenUnlocked: "whenUnlocked"
        case .afterFirstUnlock: "afterFirstUnlock"
        case .always: "always"
        case .whenUnlockedThisDeviceOnly: "whenUnlockedThisDeviceOnly"
        case .afterFirstUnlockThisDeviceOnly: "afterFirstUnlockThisDeviceOnly"
        case .alwaysThisDeviceOnly: "alwaysThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: "whenPasscodeSetThisDeviceOnly"
        }
    }

    /// Looks a class up by its name (as printed by ``description``).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}
