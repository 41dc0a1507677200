// vaulttool secret-service: properties of Spec/secret-service.md §3, and the signals that follow changes.

import CSecretService
import Glibc
import VaultIO

extension SecretServiceProvider {
    func property(_ path: String, _ interface: String, _ name: String, _ w: MessageWriter) throws(BusError) {
        switch (object(at: path), name) {
        case (.service, "Collections"): try w.objectPaths(collections.map(\.objectPath))
        case (.collection(let c), "Items"): try w.objectPaths(try c.items().map { itemPath(c, $0.id) })
        case (.collection(let c), "Label"): try w.string(String(c.source.path.split(separator: "/").last ?? ""))
        case (.collection(let c), "Locked"): try w.bool(c.isLocked)
        case (.collection, "Created"): try w.uint64(0)
        case (.collection(let c), "Modified"):
            var st = stat()
            try w.uint64(stat(c.source.path, &st) == 0 ? UInt64(max(0, st.st_mtim.tv_sec)) : 0)
        case (.item(let c, _), "Locked"): try w.bool(c.isLocked)
        case (.item, "Attributes"): try w.stringMap(try servedItem(path).1.map)
        case (.item, "Label"): try w.string(try servedItem(path).1.attributes.label)
        case (.item, "Type"): try w.string(try servedItem(path).1.map["xdg:schema"] ?? "")
        case (.item, "Created"): try w.uint64(UInt64(max(0, try servedItem(path).1.attributes.creationDate / 1000)))
        case (.item, "Modified"):
            try w.uint64(UInt64(max(0, try servedItem(path).1.attributes.modificationDate / 1000)))
        default: throw .invalidArgs("no property \(interface).\(name)")
        }
    }

    func setProperty(_ path: String, _ name: String, _ r: MessageReader) throws(BusError) {
        guard case .item = object(at: path) else {
            throw .notSupported("a collection's label is its vault's file name")
        }
        let (c, item) = try servedItem(path)
        switch name {
        case "Label":
            let label = try r.string()
            try rewrite(c, item.id) { $0.label = label }
        case "Attributes":
            let map = try r.stringMap()
            let (itemClass, identity) = try SecretAttributes.identity(of: map)
            // The item keeps its ID and path, as clients holding it expect, even when its
            // identity changes (another item with the new identity makes the write fail).
            try rewrite(c, item.id, itemClass: itemClass) { a in
                a.takeIdentity(of: identity)
                SecretAttributes.setPreserved(SecretAttributes.mapTag, SecretAttributes.encode(map), in: &a)
            }
        default: throw .invalidArgs("property \(name) is read-only")
        }
        emit(c.objectPath, "org.freedesktop.Secret.Collection", "ItemChanged", path)
    }

    // MARK: Signals

    /// Sends signal `member` with one object path argument.
    func emit(_ path: String, _ interface: String, _ member: String, _ argument: String) {
        signal(path, interface, member) { w throws(BusError) in try w.objectPath(argument) }
    }

    func signal(_ path: String, _ interface: String, _ member: String, _ body: (MessageWriter) throws(BusError) -> Void)
    {
        guard let bus else { return }
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_signal(bus, &m, path, interface, member) >= 0, let m else { return }
        defer { sd_bus_message_unref(m) }
        guard (try? body(MessageWriter(m))) != nil else { return }
        _ = sd_bus_send(bus, m, nil)
    }

    func propertiesChanged(_ path: String, _ interface: String, _ names: [String]) {
        guard let bus else { return }
        var pointers = names.map { strdup($0) } + [nil]
        defer { for p in pointers { free(p) } }
        _ = sd_bus_emit_properties_changed_strv(bus, path, interface, &pointers)
    }

    // MARK: Prompts (R-SS-16)

    /// Completes every started prompt whose collections now open, and dismisses expired ones.
    func completePrompts() {
        let now = monotonicMilliseconds()
        for (path, p) in prompts {
            if now >= p.deadline {
                complete(path, p, dismissed: true)
            } else if p.started, p.collections.allSatisfy({ !$0.isLocked }) {
                complete(path, p, dismissed: false)
                for c in p.collections {
                    propertiesChanged(c.objectPath, "org.freedesktop.Secret.Collection", ["Locked", "Items"])
                }
            }
        }
    }

    /// Whether a started prompt waits for the agent.
    var promptsPending: Bool { prompts.values.contains(where: \.started) }

    func complete(_ path: String, _ p: Prompt, dismissed: Bool) {
        prompts[path] = nil
        stopAskpass(p)
        signal(path, "org.freedesktop.Secret.Prompt", "Completed") { w throws(BusError) in
            try w.bool(dismissed)
            try w.open("v", "ao")
            try w.objectPaths(dismissed ? [] : p.objects)
            try w.close()
        }
    }

    /// A unique name left the bus: its sessions and prompts end with it (R-SS-9).
    func forget(_ name: String) {
        for (path, s) in sessions where s.owner == name {
            s.cipher.close()
            sessions[path] = nil
        }
        for (path, p) in prompts where p.owner == name { complete(path, p, dismissed: true) }
        callerUIDs[name] = nil
        callerRefusals[name] = nil
    }
}
