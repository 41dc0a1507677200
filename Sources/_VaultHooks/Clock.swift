// vault hooks: a machine whose clock is wrong, for the reliability suites in `Reliability/`.

import VaultIO

/// The clock VaultIO reads (`Vault.currentTime()`), shifted for the current task only: the sync
/// suite plays replicas whose clocks are an hour apart.
public enum Clock {
    /// Runs `body` with every time VaultIO reads (deletion times, scope counters, merges) shifted
    /// by `milliseconds`.
    public static func skewed<R>(by milliseconds: Int64, during body: () throws -> R) rethrows -> R {
        try Vault.$clockSkew.withValue(milliseconds, operation: body)
    }
}
