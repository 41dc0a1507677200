// vault: what a non-throwing setter does with a write it could not make (L-KC-16).

import Glibc

extension Keychain {
    /// Called when a subscript or `@KeychainStored` assignment could not be stored: the error, and
    /// the key whose value was not written (never the value).
    public typealias SetterFailureHandler = @Sendable (_ error: KeychainError, _ key: String) -> Void

    /// How many times a non-throwing setter tries a write that fails with
    /// ``KeychainError/lockTimeout``, each attempt waiting up to the lock timeout.
    static let setterAttempts = 3

    /// A copy whose non-throwing setters (subscripts, ``KeychainStored``) report a write they
    /// could not make to `handler` instead of writing a line to standard error.
    ///
    /// A setter retries a write that failed because another writer held the lock
    /// (``KeychainError/lockTimeout``), up to three lock timeouts in all; any other failure is
    /// reported at once. The handler runs on the thread that assigned; `nil` restores the default.
    ///
    /// ```swift
    /// let keychain = Keychain(service: "com.example", vault: vault).onSetterFailure { error, key in
    ///     logger.error("could not store \(key): \(error)")
    /// }
    /// keychain["token"] = token
    /// ```
    ///
    /// - Parameter handler: Gets the error and the key.
    public func onSetterFailure(_ handler: SetterFailureHandler?) -> Keychain {
        with(\.setterFailureHandler, handler)
    }

    /// Reports a setter's failed write to the handler, or as one line on standard error.
    func reportSetterFailure(_ error: KeychainError, forKey key: String) {
        if let setterFailureHandler {
            setterFailureHandler(error, key)
            return
        }
        let line =
            "vault: a keychain assignment to \(String(reflecting: key)) (service \(String(reflecting: service))) "
            + "was not stored: \(error); use try keychain.set(_:forKey:) to handle the error\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}
