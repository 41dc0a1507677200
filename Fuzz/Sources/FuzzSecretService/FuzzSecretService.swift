// vault fuzz target: the Secret Service provider's method dispatcher (Spec/secret-service.md),
// over a real bus. Run under dbus-run-session (scripts/fuzz.sh does).
//
// One provider serves a fresh vault for the whole run, on a thread of its own. Each input is a
// new client connection making up to 16 calls: a method of the provider's tables (or a property
// call, or an interface sd-bus answers) on a path a reply gave (collections, items, sessions,
// prompts) or on one that does not exist, with the declared signature filled from the input,
// or (one call in eight) another signature. Every call must be answered, with a reply or a D-Bus
// error, within 10 s, and the provider must still serve afterwards: a crash, a hang or a stop
// is a finding. After each input the client deletes every item and unlocks the collection, so
// that inputs start from the same state (the vault keeps a deletion record per deleted item).

import CSystemdBus
import FuzzSupport
import Glibc
import _VaultHooks

nonisolated(unsafe) private var alive: (@Sendable () -> String?)?
/// The provider's unique name, where every call goes.
nonisolated(unsafe) private var destination = ""
/// The run's directory (the vault and the askpass program), removed at exit.
nonisolated(unsafe) private var scratch = ""
/// FUZZ_SS_TRACE=1 prints each call and its answer: to read what a finding's input does.
private let tracing = getenv("FUZZ_SS_TRACE").map { String(cString: $0) } == "1"

/// Ends a run that cannot start: a setup problem, not a finding (no crash, no backtrace).
private func cannotRun(_ why: String) -> Never {
    let line = "FuzzSecretService: \(why)\n"
    _ = write(2, line, line.utf8.count)
    exit(2)
}

private func setUp() {
    // Its calls delete every item they find: never on a desktop's own bus, only on the private
    // one scripts/fuzz.sh starts and marks.
    guard getenv("FUZZ_SS_PRIVATE_BUS").map({ String(cString: $0) }) == "1",
        let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0
    else {
        cannotRun("needs a private bus: dbus-run-session -- env FUZZ_SS_PRIVATE_BUS=1 ...")
    }
    var template = Array("/tmp/vault-fuzz-ss.XXXXXX".utf8CString)
    guard let directory = mkdtemp(&template).map({ String(cString: $0) }) else { cannotRun("mkdtemp failed") }
    // Prompts ask this program, which answers the vault's password (R-SS-16).
    let askpass = directory + "/askpass"
    let script = "#!/bin/sh\nprintf fuzz-pw\n"
    let fd = open(askpass, O_WRONLY | O_CREAT | O_EXCL, 0o700)
    precondition(fd >= 0 && write(fd, script, script.utf8.count) == script.utf8.count)
    close(fd)
    setenv("VAULT_ASKPASS", askpass, 1)
    setenv("VAULT_TESTING", "1", 1)  // the smallest Argon2id work, said to be for tests
    scratch = directory
    atexit {
        for name in ["askpass", "fuzz.vault"] { unlink(scratch + "/" + name) }
        rmdir(scratch)
    }
    do {
        alive = try SecretServiceFuzzing.startProvider(vaultPath: directory + "/fuzz.vault", password: "fuzz-pw")
    } catch {
        cannotRun("the provider did not start: \(error)")
    }
    // Calls go to the provider's unique name: were the well-known name to pass to another
    // provider, they would fail instead of reaching it.
    var bus: OpaquePointer? = nil
    guard sd_bus_open_user(&bus) >= 0, let bus, let owner = ownerOf(bus) else {
        cannotRun("cannot find the provider's unique name")
    }
    destination = owner
    sd_bus_flush_close_unref(bus)
}

/// The unique name that owns org.freedesktop.secrets, through the bus's GetNameOwner.
private func ownerOf(_ bus: OpaquePointer) -> String? {
    var m: OpaquePointer? = nil
    guard
        sd_bus_message_new_method_call(
            bus,
            &m,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetNameOwner"
        ) >= 0, let m
    else { return nil }
    defer { sd_bus_message_unref(m) }
    guard "org.freedesktop.secrets".withCString({ sd_bus_message_append_basic(m, CChar(115), $0) }) >= 0 else {
        return nil
    }
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var reply: OpaquePointer? = nil
    guard sd_bus_call(bus, m, 5_000_000, &error, &reply) >= 0, let reply else { return nil }
    defer { sd_bus_message_unref(reply) }
    var name: UnsafePointer<CChar>? = nil
    guard sd_bus_message_read_basic(reply, CChar(115), &name) > 0, let name else { return nil }
    return String(cString: name)
}

/// One call; nil when sd-bus refused to build it (a value its rules forbid), else the reply's
/// object paths. A missing answer ends the run.
private func call(
    _ bus: OpaquePointer,
    _ path: String,
    _ method: Method,
    _ signature: String,
    _ input: inout InputReader,
    _ known: KnownPaths
) -> [String]? {
    var m: OpaquePointer? = nil
    let made = sd_bus_message_new_method_call(
        bus,
        &m,
        destination,
        path,
        method.interface,
        method.member
    )
    guard made >= 0, let m else { return nil }
    defer { sd_bus_message_unref(m) }
    guard append(signature[...], to: m, &input, known) else {
        if tracing { print("\(method.member)(\(signature)) on \(path): not built (sd-bus refused a value)") }
        return nil
    }
    var error = sd_bus_error()
    var reply: OpaquePointer? = nil
    let r = sd_bus_call(bus, m, 10_000_000, &error, &reply)
    defer {
        sd_bus_error_free(&error)
        sd_bus_message_unref(reply)
    }
    if r == -ETIMEDOUT || (r < 0 && error.name.map { String(cString: $0) } == "org.freedesktop.DBus.Error.NoReply") {
        fatalError("no answer to \(method.interface).\(method.member) on \(path) within 10 s")
    }
    if let why = alive?() { fatalError("the provider stopped: \(why)") }
    let found = r >= 0 && reply != nil ? objectPaths(in: reply!) : []
    if tracing {
        let answer = r >= 0 ? "ok \(found)" : error.name.map { String(cString: $0) } ?? "errno \(-r)"
        print("\(method.member)(\(signature)) on \(path): \(answer)")
    }
    return found
}

/// Back to the starting state: no items, the collection unlocked.
private func tidy(_ bus: OpaquePointer) {
    var known = KnownPaths()
    var none = InputReader([])
    let search = Method(target: .service, interface: service, member: "SearchItems", signature: "a{ss}")
    for path in call(bus, "/org/freedesktop/secrets", search, "a{ss}", &none, known) ?? [] {
        let delete = Method(target: .item, interface: item, member: "Delete", signature: "")
        _ = call(bus, path, delete, "", &none, known)
    }
    let unlock = Method(target: .service, interface: service, member: "Unlock", signature: "ao")
    known.collections = ["/org/freedesktop/secrets/collection/fuzz"]
    var one = InputReader([1, 0])  // an array of one path: the collection
    for prompt in (call(bus, "/org/freedesktop/secrets", unlock, "ao", &one, known) ?? [])
    where prompt.contains("/prompt/") {
        var empty = InputReader([])
        let answer = Method(
            target: .prompt,
            interface: "org.freedesktop.Secret.Prompt",
            member: "Prompt",
            signature: "s"
        )
        _ = call(bus, prompt, answer, "s", &empty, known)
        // The askpass program answers within a few milliseconds; the provider unlocks when it does.
        for _ in 0..<200 where isLocked(bus) { usleep(10_000) }
    }
}

private func isLocked(_ bus: OpaquePointer) -> Bool {
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var locked: Int32 = 0
    let r = sd_bus_get_property_trivial(
        bus,
        destination,
        "/org/freedesktop/secrets/collection/fuzz",
        collection,
        "Locked",
        &error,
        CChar(98),
        &locked
    )
    return r >= 0 && locked != 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if alive == nil { setUp() }
    var input = InputReader(Array(UnsafeBufferPointer(start: data, count: size)))
    var bus: OpaquePointer? = nil
    guard sd_bus_open_user(&bus) >= 0, let bus else { fatalError("cannot connect to the session bus") }
    defer { sd_bus_flush_close_unref(bus) }
    var known = KnownPaths()
    for _ in 0..<16 where !input.atEnd {
        let method = methods[Int(input.byte()) % methods.count]
        let path = known.pick(method.target, &input)
        let signature =
            input.byte() & 7 == 7
            ? input.word(["", "s", "o", "ay", "a{ss}", "a{sv}", "(oayays)", "ao", "sv", "v", "b", "u", "aoo"])
            : method.signature
        for found in call(bus, path, method, signature, &input, known) ?? [] { known.learn(found) }
    }
    tidy(bus)
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzSecretService_main`; hand control to libFuzzer.
@_cdecl("FuzzSecretService_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
