// vault hooks: a Secret Service provider on the session bus, for the dispatcher's fuzz target
// (Fuzz/Sources/FuzzSecretService; Spec/secret-service.md).

import Dispatch
import Glibc
import Synchronization
import VaultIO
import VaultSecretService

/// Starts `vaulttool secret-service`'s provider in this process, for a fuzz target that calls it
/// over a real bus.
public enum SecretServiceFuzzing {
    /// Why a provider could not start or stopped, as its command would say it.
    public struct Stopped: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates a vault at `vaultPath` (the smallest Argon2id work) and serves it, unlocked with
    /// `password`, on the session bus `DBUS_SESSION_BUS_ADDRESS` names, on a thread of its own.
    /// Returns once the provider owns `org.freedesktop.secrets`.
    ///
    /// - Returns: A test for "the provider still serves": `nil`, or why it stopped.
    public static func startProvider(vaultPath: String, password: String) throws -> @Sendable () -> String? {
        let configuration = VaultConfiguration.insecureForTesting()
        _ = try Vault.create(at: vaultPath, credentials: .password(password), configuration: configuration)
        let source = CollectionSource(
            path: vaultPath,
            name: "fuzz",
            isStandard: false,
            credentials: .password(password),
            configuration: configuration
        )
        nonisolated(unsafe) let provider = SecretServiceProvider([source])
        let ready = DispatchSemaphore(value: 0)
        let stopped = Mutex<String?>(nil)
        Thread.detach {
            do {
                try provider.serve(replace: false) { _ in ready.signal() }
                stopped.withLock { $0 = "the provider returned" }
            } catch {
                stopped.withLock { $0 = "\(error)" }
            }
            ready.signal()
        }
        ready.wait()
        if let why = stopped.withLock({ $0 }) { throw Stopped(description: why) }
        return { stopped.withLock { $0 } }
    }
}

/// A detached POSIX thread: the provider's loop blocks in poll(2), which a Dispatch worker must not.
private enum Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let started = pthread_create(
            &thread,
            nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            },
            box
        )
        precondition(started == 0, "cannot start the provider's thread")
        pthread_detach(thread)
    }
}
