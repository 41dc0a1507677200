// vault reliability, suite 8 (library part): file modes, and no plaintext in vault files.

import Foundation
import Glibc
import Synchronization
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 8, library part (scripts/reliability-hygiene.sh checks the vaulttool process).
///
/// - With umask 000, the vault, its lock file, the temporary file of a whole-file commit (a
///   format-3 rekey; seen at its first write through `Syscalls.observe`) and a created
///   device-secret file are mode 0600.
/// - No service, account, other text attribute, secret or password (4 bytes or longer, the
///   `strings` default) occurs anywhere in the bytes of any fixture or of a freshly written
///   vault (a raw substring search, stricter than `strings`).
enum Hygiene {
    static func run(_ mode: Mode, fixtures: String) -> Tally {
        let tally = Tally()
        print("Secret hygiene (library): file modes with umask 000, plaintext search")
        let oldMask = umask(0)
        defer { umask(oldMask) }
        let directory = makeTemporaryDirectory("hygiene")
        defer { removeTree(directory) }
        let path = directory + "/" + vaultName
        let secretText = "hygiene-secret-7d1f0c"
        let service = "hygiene-service-4b2a"
        let account = "hygiene-account-93e6"
        let temporaryModes = Mutex<[mode_t]>([])
        let lockedBefore = lockedKiB()
        var lockedWhileOpen = 0
        do {
            var configuration = fastConfiguration
            configuration.deviceSecretPath = directory + "/device.secret"
            configuration.deviceSecretCreation = .ifMissing
            let vault = try Vault.create(at: path, credentials: .password(password), configuration: configuration)
            try Syscalls.observe({ call in
                guard call == .write else { return }
                for name in temporaryFiles(in: directory) {
                    var info = stat()
                    if stat(directory + "/" + name, &info) == 0 {
                        temporaryModes.withLock { $0.append(info.st_mode & 0o7777) }
                    }
                }
            }) {
                // A format-3 commit writes in place; a rekey writes the whole file through a
                // temporary file (Spec/format-v3.md R3-WR-5), whose mode is checked. The item is
                // written after it, in place, so that the plaintext search reads that commit.
                try vault.write { txn in _ = try txn.rekey(RekeyOptions(credentials: [.password(password)])) }
                try vault.write { txn in
                    var attributes = ItemAttributes(service: service, account: account)
                    attributes.label = "hygiene-label-51aa"
                    attributes.comment = "hygiene-comment-0c0c"
                    try txn.set(
                        ItemDraft(
                            id: itemID(service),
                            attributes: attributes,
                            secret: SecretBytes(bytes: Array(secretText.utf8))
                        )
                    )
                }
            }
            // The vault's keys live in sodium_malloc memory, which is mlock()ed: VmLck grows while it is open.
            lockedWhileOpen = lockedKiB()
            withExtendedLifetime(vault) {}
        } catch {
            tally.fail("hygiene: could not create the vault: \(error)")
            return tally
        }
        print(
            "  locked memory (VmLck of this process): \(lockedBefore) kB before, \(lockedWhileOpen) kB with a vault open"
        )
        tally.check(
            lockedWhileOpen > lockedBefore,
            "hygiene: opening a vault locked no memory (keys not in mlock()ed pages)"
        )
        var modes: [String: mode_t] = [:]
        for name in names(in: directory) {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0 { modes[name] = info.st_mode & 0o7777 }
        }
        let seenTemp = temporaryModes.withLock { $0 }
        tally.check(!seenTemp.isEmpty, "hygiene: never saw the temporary file")
        for (name, mode) in modes { tally.check(mode == 0o600, "hygiene: \(name) has mode \(String(mode, radix: 8))") }
        for mode in seenTemp {
            tally.check(mode == 0o600, "hygiene: the temporary file has mode \(String(mode, radix: 8))")
        }
        print(
            "  modes (umask 000): "
                + modes.sorted { $0.key < $1.key }.map { "\($0.key) \(String($0.value, radix: 8))" }.joined(
                    separator: ", "
                )
                + ", temporary file " + Set(seenTemp).map { String($0, radix: 8) }.joined(separator: "/")
        )

        // Fresh vault: no plaintext.
        let fresh = [secretText, service, account, "hygiene-label-51aa", "hygiene-comment-0c0c", password]
        var hits = 0
        for name in names(in: directory) where name != "device.secret" {
            let bytes = readBytes(directory + "/" + name) ?? []
            for needle in fresh where contains(bytes, Array(needle.utf8)) {
                hits += 1
                tally.fail("hygiene: '\(needle)' is readable in \(name)")
            }
        }
        print("  fresh vault: \(fresh.count) known strings searched, \(hits) found")

        // Every fixture: no attribute text, secret or password of the items its cases list.
        var needlesByFile: [String: Set<String>] = [:]
        if let data = FileManager.default.contents(atPath: fixtures + "/manifest.json"),
            let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = manifest["cases"] as? [[String: Any]]
        {
            for c in cases {
                guard let file = c["file"] as? String else { continue }
                var needles = needlesByFile[file, default: []]
                if let credentials = c["credentials"] as? [String: Any], let p = credentials["password"] as? String {
                    needles.insert(p)
                }
                var items = (c["items"] as? [[String: Any]]) ?? []
                if let list = c["itemsFile"] as? String,
                    let data = FileManager.default.contents(atPath: fixtures + "/" + list),
                    let more = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
                {
                    items += more
                }
                for item in items {
                    if let secret = item["secret"] as? String { needles.insert(secret) }
                    for case let value as String in (item["attributes"] as? [String: Any] ?? [:]).values {
                        needles.insert(value)
                    }
                }
                needlesByFile[file] = needles
            }
        } else {
            tally.fail("hygiene: cannot read \(fixtures)/manifest.json")
        }
        var fixtureHits = 0, fixtureFiles = 0, searchedTotal = 0
        for (file, needles) in needlesByFile.sorted(by: { $0.key < $1.key }) where file.hasSuffix(".vault") {
            fixtureFiles += 1
            let bytes = readBytes(fixtures + "/" + file) ?? []
            for needle in needles where needle.utf8.count >= 4 {
                searchedTotal += 1
                if contains(bytes, Array(needle.utf8)) {
                    fixtureHits += 1
                    tally.fail("hygiene: '\(needle)' is readable in fixture \(file)")
                }
            }
        }
        print(
            "  fixtures: \(fixtureFiles) vault files, \(searchedTotal) (file, string) pairs of 4+ bytes from the manifest: \(fixtureHits) found"
        )
        printResult(
            "hygiene-library",
            tally,
            [
                "locked_kB": lockedWhileOpen - lockedBefore,
                "modes_0600": modes.values.allSatisfy { $0 == 0o600 } && seenTemp.allSatisfy { $0 == 0o600 },
                "plaintext_hits": hits + fixtureHits, "fixtures": fixtureFiles,
            ]
        )
        return tally
    }

    /// VmLck of this process, in kB.
    static func lockedKiB() -> Int {
        let status = String(decoding: readBytes("/proc/self/status") ?? [], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmLck:") }) else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }

    /// Whether `needle` occurs in `haystack` (memchr for the first byte, then memcmp).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                var at = 0
                let last = h.count - n.count
                while at <= last {
                    guard let hit = memchr(h.baseAddress! + at, Int32(n[0]), last - at + 1) else { return false }
                    let offset = h.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, n.baseAddress!, n.count) == 0 { return true }
                    at = offset + 1
                }
                return false
            }
        }
    }
}
