// vault: a reader opened on a format-3 vault while writers commit in place.

import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("VaultFileReader")
struct VaultFileReaderTests {
    /// A format-3 vault holding one item, and its generation.
    func vault(in directory: String) throws -> (Vault, UInt64) {
        let vault = try makeVault(in: directory)
        try vault.write { try $0.set(makeDraft(service: "first")) }
        return (vault, try vault.read { $0.header.generation })
    }

    /// Found by the reliability suite's concurrent readers (RELIABILITY.md, suite 5): the reader
    /// measured the file's length when it opened the file and read the commit slots later. Two
    /// in-place commits in between put both slots past that length, and the open failed with
    /// `truncated` ("the file ends before its last commit").
    @Test func open_afterTwoCommitsSinceTheFileWasOpened_readsTheGenerationOpened() throws {
        try withTemporaryDirectory { directory in
            let (vault, generation) = try vault(in: directory)
            let reader = try VaultFileReader(path: directory + "/test.vault")
            try vault.write { try $0.set(makeDraft(service: "second")) }
            try vault.write { try $0.set(makeDraft(service: "third")) }
            let snapshot = try reader.open(with: .password(testPassword))
            #expect(snapshot.header.generation == generation)
            #expect(!snapshot.skippedIncompleteCommit)
            #expect(try snapshot.items(includeSecrets: true).map(\.attributes.service) == ["first"])
            _ = try snapshot.verify()
        }
    }

    /// The same race with one commit: the newer slot named bytes past the length measured, so the
    /// reader took the older slot and reported a torn commit (the note, which makes
    /// `vaulttool verify` exit 4) that never happened.
    @Test func open_afterOneCommitSinceTheFileWasOpened_reportsNoTornCommit() throws {
        try withTemporaryDirectory { directory in
            let (vault, generation) = try vault(in: directory)
            let reader = try VaultFileReader(path: directory + "/test.vault")
            try vault.write { try $0.set(makeDraft(service: "second")) }
            let snapshot = try reader.open(with: .password(testPassword))
            #expect(snapshot.header.generation == generation)
            #expect(!snapshot.skippedIncompleteCommit)
        }
    }

    /// A reader opened after the commits reads the newest generation (the slots it reads at open).
    @Test func open_afterCommits_readsTheNewest() throws {
        try withTemporaryDirectory { directory in
            let (vault, generation) = try vault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "second")) }
            let snapshot = try VaultFileReader(path: directory + "/test.vault").open(with: .password(testPassword))
            #expect(snapshot.header.generation == generation + 1)
            #expect(try snapshot.items(includeSecrets: true).count == 2)
        }
    }

    /// Readers open the file again and again on two threads while a writer commits in place in a
    /// loop, one new item per commit. Every other reader waits, after opening, for two more
    /// commits before it reads the head: each must read a complete generation, no older than the
    /// commits finished before it opened, with no torn commit noted and an item per commit.
    @Test func open_whileAWriterCommitsInPlace_readsCompleteGenerations() throws {
        try withTemporaryDirectory { directory in
            let (vault, base) = try vault(in: directory)
            let path = directory + "/test.vault"
            let race = RaceCounters()
            let finished = DispatchSemaphore(value: 0)

            let writer = Thread {
                defer {
                    race.writerDone.store(true, ordering: .releasing)
                    finished.signal()
                }
                while race.readersStarted.load(ordering: .acquiring) < 2 { sched_yield() }
                // At least 100 commits, and on until 20 readers have waited for two of them.
                var commit = 0
                while commit < 100 || (race.racedOpens.load(ordering: .acquiring) < 20 && commit < 2_000) {
                    commit += 1
                    do {
                        try vault.write { [commit] in try $0.set(makeDraft(service: "commit-\(commit)")) }
                    } catch {
                        race.failures.withLock { $0.append("commit \(commit): \(error)") }
                        return
                    }
                    race.committed.store(commit, ordering: .releasing)
                }
            }
            let readers = (0..<2).map { thread in
                Thread {
                    defer { finished.signal() }
                    var attempt = 0
                    while !race.writerDone.load(ordering: .acquiring) {
                        attempt += 1
                        let waits = attempt.isMultiple(of: 2)
                        let before = race.committed.load(ordering: .acquiring)
                        do {
                            let reader = try VaultFileReader(path: path)
                            if waits {
                                while race.committed.load(ordering: .acquiring) < before + 2,
                                    !race.writerDone.load(ordering: .acquiring)
                                {
                                    sched_yield()
                                }
                            }
                            let raced = waits && race.committed.load(ordering: .acquiring) >= before + 2
                            let snapshot = try reader.open(with: .password(testPassword))
                            let generation = snapshot.header.generation
                            let items = try snapshot.index.entries.count
                            if generation < base + UInt64(before) || snapshot.skippedIncompleteCommit
                                || items != Int(generation - base) + 1
                            {
                                race.failures.withLock {
                                    $0.append(
                                        "reader \(thread), open \(attempt) after commit \(before): generation "
                                            + "\(generation), \(items) items, torn commit noted: "
                                            + "\(snapshot.skippedIncompleteCommit)"
                                    )
                                }
                            }
                            race.opens.add(1, ordering: .relaxed)
                            if raced { race.racedOpens.add(1, ordering: .releasing) }
                        } catch {
                            race.failures.withLock { $0.append("reader \(thread), open \(attempt): \(error)") }
                        }
                        if attempt == 1 { race.readersStarted.add(1, ordering: .releasing) }
                    }
                }
            }
            writer.start()
            for reader in readers { reader.start() }
            for _ in 0..<3 { finished.wait() }

            #expect(race.failures.withLock { Array($0.prefix(5)) } == [])
            #expect(race.racedOpens.load(ordering: .acquiring) >= 20)
            #expect(race.opens.load(ordering: .acquiring) > race.racedOpens.load(ordering: .acquiring))
            let commits = race.committed.load(ordering: .acquiring)
            #expect(try vault.read { $0.header.generation } == base + UInt64(commits))
        }
    }
}

/// What the writer and the readers of the race share.
private final class RaceCounters: Sendable {
    /// How many commits the writer has finished.
    let committed = Atomic<Int>(0)
    let writerDone = Atomic<Bool>(false)
    let readersStarted = Atomic<Int>(0)
    /// Opens that read the head after at least two commits made since the file was opened.
    let racedOpens = Atomic<Int>(0)
    let opens = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
}
