// vault agent: after `lock`, no copy of a vault's master key or base key is left anywhere in
// the agent's memory (Spec/agent.md, sections 3 and 4), checked the way the security review
// did: as root, reading every readable region of `/proc/<pid>/mem`.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Agent memory after lock")
struct AgentMemoryScanTests {
    /// Before the fix, two copies of MK and one of BK stayed in the agent's heap after `lock`:
    /// intermediates of building and reading frames that were never overwritten. The scan runs
    /// from the test process against a real `vaulttool agent --foreground` process (never in a
    /// forked child of the test process); it needs root, since the agent is non-dumpable.
    @Test(.enabled(if: geteuid() == 0, "reading another process's memory needs root"))
    func afterLock_theAgentsMemoryHoldsNoCopyOfTheKeys() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let snapshot = try VaultFileReader(path: w.file("v.vault")).open(with: .password(Workspace.password))
        let master = try #require(snapshot.keys.master).secret.copyBytes()
        let base = try #require(snapshot.keys.base).secret.copyBytes()
        #expect(master.count == 32 && base.count == 32)

        let agent = try AgentCommandTests.RunningAgent(in: w)
        let env = agent.environment
        let pid = agent.process.processIdentifier
        // Twice: the second `add` replaces the keys held for the vault.
        for _ in 0..<2 {
            #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env).status == 0)
        }
        // Every path a key travels: `add` (unlock), `keys` replies (get, set), `status`.
        for _ in 0..<3 {
            let get = try w.run(["get", "--service", "db", "v.vault"], environment: env)
            #expect(get.stdout == "s3cret", "\(get.stderr)")
        }
        let set = try w.run(["set", "--service", "web", "--account", "a", "v.vault"], stdin: "w1", environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try w.run(["agent", "--status", "--socket", agent.socket]).status == 0)

        // Positive control: while the vault is unlocked the keys are found (in guarded memory),
        // so the scan can see them at all.
        let held = try MemoryScan(pid: pid).count(of: [master, base])
        #expect(held[0] >= 1, "MK not found while held: the scan does not see the agent's memory")
        #expect(held[1] >= 1, "BK not found while held: the scan does not see the agent's memory")

        let lock = try w.run(["lock", "v.vault"], environment: env)
        #expect(lock.stdout == "The agent dropped the keys of 1 vault.\n", "\(lock.stderr)")
        let left = try MemoryScan(pid: pid).find([master, base])
        #expect(left[0].isEmpty, "copies of the master key left in the agent after lock: \(left[0])")
        #expect(left[1].isEmpty, "copies of the base key left in the agent after lock: \(left[1])")
    }

    /// `rekey` replaces the keys the agent holds (Spec/agent.md, section 1: the agent never keeps
    /// a revoked master key): the old MK is gone from its memory at once, before any `lock`.
    @Test(.enabled(if: geteuid() == 0, "reading another process's memory needs root"))
    func afterRekey_theAgentsMemoryHoldsNoCopyOfTheRevokedMasterKey() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        func masterKey() throws -> [UInt8] {
            let snapshot = try VaultFileReader(path: w.file("v.vault")).open(with: .password(Workspace.password))
            return try #require(snapshot.keys.master).secret.copyBytes()
        }
        let old = try masterKey()
        let agent = try AgentCommandTests.RunningAgent(in: w)
        let env = agent.environment
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env).status == 0)
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).stdout == "s3cret")
        #expect(try MemoryScan(pid: agent.process.processIdentifier).count(of: [old])[0] >= 1)

        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"], environment: env)
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let new = try masterKey()
        #expect(new != old)
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).stdout == "s3cret")
        let found = try MemoryScan(pid: agent.process.processIdentifier).find([old, new])
        #expect(found[0].isEmpty, "copies of the revoked master key left in the agent after rekey: \(found[0])")
        #expect(found[1].count >= 1, "the new master key is not held: the scan does not see the agent's memory")
    }
}

/// Reads another process's readable memory regions (`/proc/<pid>/maps`, `/proc/<pid>/mem`).
struct MemoryScan {
    let pid: Int32

    /// How many times each needle occurs in the process's readable regions.
    func count(of needles: [[UInt8]]) throws -> [Int] { try find(needles).map(\.count) }

    /// Where each needle occurs: its address, and the `maps` line of the region it is in.
    func find(_ needles: [[UInt8]]) throws -> [[String]] {
        let maps = try Self.contents(of: "/proc/\(pid)/maps")
        let descriptor = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0, "open /proc/\(pid)/mem: errno \(errno)")
        defer { close(descriptor) }
        var hits = [[String]](repeating: [], count: needles.count)
        let overlap = (needles.map(\.count).max() ?? 1) - 1
        let chunkSize = 1 << 20
        var chunk = [UInt8](repeating: 0, count: chunkSize + overlap)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            // The kernel's own pages ([vvar], [vsyscall]) cannot be read this way.
            if fields.count >= 6, fields[5] == "[vvar]" || fields[5] == "[vsyscall]" || fields[5] == "[vvar_vclock]" {
                continue
            }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16)
            else { continue }
            var offset = start
            var carried = 0  // bytes kept from the previous chunk, so a key across a boundary is found
            while offset < end {
                let wanted = Int(min(UInt64(chunkSize), end - offset))
                let got = chunk.withUnsafeMutableBytes {
                    pread(descriptor, $0.baseAddress! + carried, wanted, off_t(offset))
                }
                guard got > 0 else { break }
                let filled = carried + got
                for (index, needle) in needles.enumerated() {
                    for at in occurrences(of: needle, in: chunk, count: filled) {
                        hits[index].append("0x\(String(offset - UInt64(carried) + UInt64(at), radix: 16)) in \(line)")
                    }
                }
                // Keep the last `overlap` bytes, which a needle may straddle; a needle wholly
                // inside them was counted already and cannot be counted again, being shorter.
                carried = min(overlap, filled)
                if carried > 0 {
                    chunk.withUnsafeMutableBytes { buffer in
                        let base = buffer.baseAddress!
                        memmove(base, base + filled - carried, carried)
                    }
                }
                offset += UInt64(got)
            }
        }
        return hits
    }

    /// The whole of a /proc file, read to its end (its size is reported as 0, and a read by
    /// size would stop early).
    private static func contents(of path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0, "open \(path): errno \(errno)")
        defer { close(descriptor) }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            bytes += buffer[..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The offsets in `haystack[..<count]` where `needle` starts.
    private func occurrences(of needle: [UInt8], in haystack: [UInt8], count: Int) -> [Int] {
        guard let first = needle.first else { return [] }
        var found = [Int]()
        haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                let start = hay.baseAddress!
                var position = 0
                // memchr for the first byte, memcmp for the rest (Glibc's Swift overlay has no memmem).
                while count - position >= pin.count,
                    let hit = memchr(start + position, Int32(first), count - position - pin.count + 1)
                {
                    let at = start.distance(to: UnsafeRawPointer(hit))
                    if memcmp(start + at, pin.baseAddress!, pin.count) == 0 { found.append(at) }
                    position = at + 1
                }
            }
        }
        return found
    }
}
