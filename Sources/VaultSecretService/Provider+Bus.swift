// vaulttool secret-service: the session-bus connection, the C callbacks and the event loop.

import CSecretService
import Glibc
import VaultIO

/// Why the provider stopped or could not start (the command maps these to exit statuses, §8).
package enum ProviderExit: Error, Equatable {
    /// A signal, or the name went to another provider.
    case stopped(String)
    /// Another connection owns the name (R-SS-1).
    case nameOwned(String)
    /// The session bus cannot be reached or failed.
    case bus(String)
}

/// The one provider of this process: sd-bus calls back into plain C functions.
nonisolated(unsafe) private var current: SecretServiceProvider?

extension SecretServiceProvider {
    static let busName = "org.freedesktop.secrets"

    /// Connects, takes the name and serves until a signal or the loss of the name.
    package func serve(replace: Bool, started: (String) -> Void) throws(ProviderExit) {
        if let why = vss_load_libraries() {
            throw .bus("cannot load libsystemd and libgcrypt, which the provider needs: \(String(cString: why))")
        }
        var connection: OpaquePointer? = nil
        var r = sd_bus_open_user(&connection)
        if r < 0 { r = sd_bus_default_user(&connection) }
        guard r >= 0, let connection else {
            throw .bus("cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS): \(String(cString: strerror(-r)))")
        }
        bus = connection
        current = self
        defer {
            for s in sessions.values { s.cipher.close() }
            sessions.removeAll()
            sd_bus_flush_close_unref(connection)
            bus = nil
            current = nil
        }
        var callbacks = vss_callbacks(
            method: { m, e in current!.dispatch(m!, e) },
            get: { path, interface, property, reply, e in
                current!.answerProperty(
                    String(cString: path!),
                    String(cString: interface!),
                    String(cString: property!),
                    reply!,
                    e
                )
            },
            set: { path, interface, property, value, e in
                current!.answerSet(String(cString: path!), String(cString: property!), value!, e)
            },
            find: { path, interface in current!.exists(String(cString: path!), String(cString: interface!)) ? 1 : 0 },
            enumerate: { _, nodes in
                let all = current!.nodes()
                let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: all.count + 1)
                for (i, node) in all.enumerated() { array[i] = strdup(node) }
                array[all.count] = nil
                nodes!.pointee = array
                return 0
            }
        )
        guard vss_register_objects(connection, &callbacks) >= 0 else { throw .bus("cannot register the objects") }
        let matched = sd_bus_match_signal(
            connection,
            nil,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameOwnerChanged",
            { m, _, _ in current!.nameOwnerChanged(m!) },
            nil
        )
        guard matched >= 0 else { throw .bus("cannot watch the bus's names") }
        let requested = vss_request_name(connection, Self.busName, replace ? 1 : 0)
        if requested == -EEXIST { throw .nameOwned(owner(connection)) }
        guard requested >= 0 else {
            throw .bus("cannot request \(Self.busName): \(String(cString: strerror(-requested)))")
        }
        let signals = vss_signal_fd()
        defer { if signals >= 0 { close(signals) } }
        started(Self.busName)
        try loop(connection, signals)
    }

    private func owner(_ connection: OpaquePointer) -> String {
        var creds: OpaquePointer? = nil
        let mask = UInt64(SD_BUS_CREDS_PID) | UInt64(SD_BUS_CREDS_EXE) | UInt64(SD_BUS_CREDS_UNIQUE_NAME)
        guard sd_bus_get_name_creds(connection, Self.busName, mask, &creds) >= 0, let creds else {
            return "another provider"
        }
        defer { sd_bus_creds_unref(creds) }
        var unique: UnsafePointer<CChar>? = nil
        var exe: UnsafePointer<CChar>? = nil
        var pid: pid_t = 0
        var text = sd_bus_creds_get_unique_name(creds, &unique) >= 0 && unique != nil ? String(cString: unique!) : "?"
        if sd_bus_creds_get_pid(creds, &pid) >= 0 { text += ", process \(pid)" }
        if sd_bus_creds_get_exe(creds, &exe) >= 0, let exe { text += " (\(String(cString: exe)))" }
        return text
    }

    private func loop(_ connection: OpaquePointer, _ signals: Int32) throws(ProviderExit) {
        while true {
            for c in collections { c.nextMessage() }
            let r = sd_bus_process(connection, nil)
            if r < 0 { throw .bus("the bus connection failed: \(String(cString: strerror(-r)))") }
            if let stop = stopReason { throw .stopped(stop) }
            if r > 0 { continue }
            for c in collections { c.nextMessage() }
            serviceAskpass()
            completePrompts()
            var fds = [
                pollfd(fd: sd_bus_get_fd(connection), events: Int16(sd_bus_get_events(connection)), revents: 0),
                pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
            ]
            fds += askpassDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let timeout: Int32 = promptsPending ? 250 : (prompts.isEmpty ? -1 : 5_000)
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR {
                throw .bus("poll failed: \(String(cString: strerror(errno)))")
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let number = vss_read_signal(signals)
                throw .stopped("signal \(number)")
            }
        }
    }

    // MARK: Callbacks

    private func fail(_ error: BusError, _ e: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        sd_bus_error_set(e, error.name, error.message)
    }

    /// The caller's unique name, after the same-user check (R-SS-27).
    private func checkedCaller(_ m: OpaquePointer) throws(BusError) -> String {
        guard let sender = sd_bus_message_get_sender(m).map({ String(cString: $0) }) else {
            throw .denied("the caller has no bus name")
        }
        if callerUIDs[sender] == nil {
            var creds: OpaquePointer? = nil
            var uid: uid_t = 0
            guard sd_bus_query_sender_creds(m, UInt64(SD_BUS_CREDS_EUID), &creds) >= 0, let creds else {
                throw .denied("the bus does not say who the caller is")
            }
            defer { sd_bus_creds_unref(creds) }
            guard sd_bus_creds_get_euid(creds, &uid) >= 0 else {
                throw .denied("the bus does not say who the caller is")
            }
            callerUIDs[sender] = uid
        }
        guard callerUIDs[sender] == geteuid() else { throw .denied("only this user's programs may use this provider") }
        if let policy = executablePolicy {
            if callerRefusals[sender] == nil { callerRefusals[sender] = refusal(policy, m) }
            if let refusal = callerRefusals[sender] ?? nil { throw .denied(refusal) }
        }
        return sender
    }

    /// R-SS-28: the policy's answer for the sender of `m`, from its process ID and executable.
    private func refusal(_ policy: ExecutablePolicy, _ m: OpaquePointer) -> String? {
        var creds: OpaquePointer? = nil
        var pid: pid_t = 0
        guard sd_bus_query_sender_creds(m, UInt64(SD_BUS_CREDS_PID), &creds) >= 0, let creds else {
            return "the bus does not say which program the caller is"
        }
        defer { sd_bus_creds_unref(creds) }
        var link = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard sd_bus_creds_get_pid(creds, &pid) >= 0, pid > 0,
            case let n = readlink("/proc/\(pid)/exe", &link, link.count - 1), n > 0
        else { return "the bus does not say which program the caller is" }
        let exe = String(decoding: link[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return policy.refusal(pid: pid, executable: exe)
    }

    func dispatch(_ m: OpaquePointer, _ e: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let path = sd_bus_message_get_path(m).map { String(cString: $0) } ?? ""
        let interface = sd_bus_message_get_interface(m).map { String(cString: $0) } ?? ""
        let member = sd_bus_message_get_member(m).map { String(cString: $0) } ?? ""
        var reply: OpaquePointer? = nil
        defer { if let reply { sd_bus_message_unref(reply) } }
        do {
            let caller = try checkedCaller(m)
            try call(path: path, interface: interface, member: member, caller: caller, MessageReader(m)) {
                () throws(BusError) -> MessageWriter in
                if reply == nil, sd_bus_message_new_method_return(m, &reply) < 0 { throw .failed("cannot reply") }
                return MessageWriter(reply!)
            }
            if reply == nil, sd_bus_message_new_method_return(m, &reply) < 0 { throw BusError.failed("cannot reply") }
            let sent = sd_bus_send(nil, reply, nil)
            return sent < 0 ? sent : 1
        } catch let error as BusError {
            return fail(error, e)
        } catch {
            return fail(.failed("\(error)"), e)
        }
    }

    func answerProperty(
        _ path: String,
        _ interface: String,
        _ name: String,
        _ reply: OpaquePointer,
        _ e: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32 {
        do {
            if let bus, let m = sd_bus_get_current_message(bus) { _ = try checkedCaller(m) }
            try property(path, interface, name, MessageWriter(reply))
            return 0
        } catch {
            return fail(error, e)
        }
    }

    func answerSet(_ path: String, _ name: String, _ value: OpaquePointer, _ e: UnsafeMutablePointer<sd_bus_error>?)
        -> Int32
    {
        do {
            if let bus, let m = sd_bus_get_current_message(bus) { _ = try checkedCaller(m) }
            try setProperty(path, name, MessageReader(value))
            return 0
        } catch {
            return fail(error, e)
        }
    }

    func nameOwnerChanged(_ m: OpaquePointer) -> Int32 {
        let r = MessageReader(m)
        guard let name = try? r.string(), let _ = try? r.string(), let new = try? r.string() else { return 0 }
        if name == Self.busName, let bus {
            var unique: UnsafePointer<CChar>? = nil
            if sd_bus_get_unique_name(bus, &unique) >= 0, let unique, new != String(cString: unique) {
                stopReason = "\(Self.busName) went to \(new.isEmpty ? "nobody" : new)"
            }
        } else if name.hasPrefix(":"), new.isEmpty {
            forget(name)
        }
        return 0
    }
}
