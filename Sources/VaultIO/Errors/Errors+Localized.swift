// vault: every error an app sees answers `localizedDescription` with its own sentence.

public import FoundationEssentials
public import VaultFormat

/// Without these, Foundation's `localizedDescription` of our errors read "The operation could not
/// be completed. (VaultIO.KeychainError error 6.)". Each returns the error's `description`: what
/// happened, the file or step where there is one, and what to do where the library can tell.
extension VaultIOError: LocalizedError {
    /// ``description``.
    public var errorDescription: String? { description }
}

extension VaultError: LocalizedError {
    /// The original error's description.
    public var errorDescription: String? { description }
}

extension VaultFormatError: LocalizedError {
    /// ``VaultFormatError/description``.
    public var errorDescription: String? { description }
}
