// vault reliability, suite 6 on format 3: every bit flip and truncation of format-3 files.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 6 on format 3 (`tamper-v3`).
///
/// Format 3 has no fixtures folder here yet, so the suite writes its own files with the library:
/// `history` (a vault with items of the master scope, the base scope and an access group's scope,
/// then in-place commits that change, delete and add items, then an uncommitted tail of 300 bytes:
/// both slots hold complete commits, the heap holds waste) and `rewritten` (the same items after a
/// rekey, a full rewrite: slot 1 empty, nothing to fall back to). Every bit of every byte is
/// flipped (quick: one bit per byte, rotating), and the file is cut at every length (quick: every
/// 7th). Each variant is opened with the password and read whole (every item and secret, then
/// `verify`), and must end in a typed error, the current commit, or the previous commit with the
/// note (R3-SLT-4); any other read is a silent wrong answer. The regions come from the pristine
/// file's layout (`Format3Layout`), and each has its expected outcomes:
///
/// | Region | Expected |
/// |---|---|
/// | current slot, bytes 0-479 | the previous commit with the note, or (slot 0's magic, major, length: R3-SLT-1) a typed error; headerCorrupt without a previous commit |
/// | current slot's MAC | headerAuthentication (R3-SLT-5: no fallback once a key is held) |
/// | other slot (the previous commit's, or empty) | the current commit with the note (a damaged slot; its MAC bytes too, R3-SLT-4) |
/// | the current commit's appended bytes | the previous commit with the note (R3-SLT-3) |
/// | header chunk, root, nodes, records of older commits | headerCorrupt, indexCorrupt, indexCorrupt, recordCorrupt |
/// | waste, uncommitted tail | the current commit (R3-SLT-6) |
/// | cut inside the current commit | the previous commit with the note, or truncated |
enum Tamper3 {
    /// What one read of a variant gave.
    enum Outcome: Hashable, CustomStringConvertible {
        case current, currentWithNote, previousWithNote
        case error(String)
        /// A read that is neither commit, or the previous one without the note.
        case silentWrong(String)

        var description: String {
            switch self {
            case .current: "current"
            case .currentWithNote: "current+note"
            case .previousWithNote: "previous+note"
            case .error(let code): code
            case .silentWrong(let what): "SILENT WRONG: \(what)"
            }
        }
    }

    enum Region: String, CaseIterable {
        case slot = "current slot", mac = "current slot's MAC", otherSlot = "other slot"
        case otherMAC = "other slot's MAC", appended = "appended bytes", header = "header chunk", root, node
        case record, waste, tail = "uncommitted tail", truncation
    }

    struct Subject {
        let name: String
        let bytes: [UInt8]
        let current: VaultState
        let previous: VaultState?
        let layouts: [Format3Layout]
    }

    static let detection: Set<String> = ["notAVault", "unsupportedVersion", "structure", "truncated", "headerCorrupt"]

    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        let subjects: [Subject]
        do {
            subjects = try makeSubjects()
        } catch {
            tally.fail("tamper-v3: making the files failed: \(error)")
            printResult("tamper-v3", tally, [:])
            return tally
        }
        print("Tamper matrix, format 3: every bit flipped and every truncation of files written by the library")
        var total: [Region: [String: Int]] = [:]
        var variants = 0, silent = 0, unexpected = 0
        for subject in subjects {
            let layout = subject.layouts[0]
            let previous = subject.layouts.count > 1 ? subject.layouts[1] : nil
            print(
                "  \(subject.name): \(subject.bytes.count) bytes, current commit generation \(layout.generation) in slot \(layout.slotIndex)"
                    + (previous.map { ", previous generation \($0.generation) in slot \($0.slotIndex)" }
                        ?? ", no previous commit")
                    + ", appended \(layout.appended.count) bytes, \(layout.chunks.count) chunks"
            )
            var counts: [Region: [String: Int]] = [:]
            func record(_ region: Region, _ what: @autoclosure () -> String, _ bytes: [UInt8]) {
                variants += 1
                let outcome = read(bytes, subject)
                counts[region, default: [:]][outcome.description, default: 0] += 1
                if case .silentWrong = outcome {
                    silent += 1
                    tally.fail("tamper-v3: \(subject.name): \(what()) (\(region.rawValue)): \(outcome)")
                } else if !expected(region, subject).contains(outcome.description) {
                    unexpected += 1
                    tally.fail(
                        "tamper-v3: \(subject.name): \(what()) (\(region.rawValue)) gave \(outcome), expected \(expected(region, subject).sorted())"
                    )
                }
            }
            var bytes = subject.bytes
            for offset in 0..<bytes.count {
                let region = self.region(offset, subject)
                for bit in mode == .full ? Array(0..<8) : [offset % 8] {
                    bytes[offset] ^= UInt8(1 << bit)
                    record(region, "flip of bit \(bit) at \(offset)", bytes)
                    bytes[offset] ^= UInt8(1 << bit)
                }
            }
            for length in stride(from: 0, to: bytes.count, by: mode == .full ? 1 : 7) {
                record(.truncation, "cut to \(length) bytes", Array(bytes.prefix(length)))
            }
            for region in Region.allCases {
                guard let codes = counts[region] else { continue }
                print(
                    "    \(region.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)) "
                        + codes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                )
                for (code, n) in codes { total[region, default: [:]][code, default: 0] += n }
            }
        }
        let fallbacks = total.values.reduce(0) { $0 + ($1["previous+note"] ?? 0) }
        let notes = total.values.reduce(0) { $0 + ($1["current+note"] ?? 0) }
        let typed = total.values.reduce(0) { sum, codes in
            sum + codes.filter { !["current", "current+note", "previous+note"].contains($0.key) }.values.reduce(0, +)
        }
        printResult(
            "tamper-v3",
            tally,
            [
                "files": subjects.count, "variants": variants, "typed_errors": typed, "previous_with_note": fallbacks,
                "current_with_note": notes, "current": variants - typed - fallbacks - notes - silent,
                "silent_wrong": silent, "unexpected": unexpected,
            ]
        )
        return tally
    }

    /// Opens `bytes` with the password and reads it whole, then says which commit it was.
    static func read(_ bytes: [UInt8], _ subject: Subject) -> Outcome {
        let state: VaultState
        do {
            let snapshot = try VaultSnapshot.open(bytes, with: .password(password))
            state = try self.state(of: snapshot, length: bytes.count)
        } catch let error as VaultFormatError {
            return .error(error.code.name)
        } catch {
            return .silentWrong("a non-format error: \(error)")
        }
        if state == subject.current { return state.note ? .currentWithNote : .current }
        if let previous = subject.previous, state == previous {
            return state.note ? .previousWithNote : .silentWrong("the previous commit without the note")
        }
        return .silentWrong("read as \(state), neither commit")
    }

    static func state(of snapshot: VaultSnapshot, length: Int) throws -> VaultState {
        var state = try vault_reliability.state(of: snapshot)
        state.note = snapshot.skippedIncompleteCommit
        return state
    }

    /// The region of `offset` in the pristine file.
    static func region(_ offset: Int, _ subject: Subject) -> Region {
        let current = subject.layouts[0]
        if offset < 1024 {
            let inCurrent = offset / 512 == current.slotIndex
            let mac = offset % 512 >= 480
            let otherEmpty =
                subject.layouts.count == 1
                && subject.bytes[(1 - current.slotIndex) * 512..<(2 - current.slotIndex) * 512].allSatisfy { $0 == 0 }
            if inCurrent { return mac ? .mac : .slot }
            return mac && !otherEmpty ? .otherMAC : .otherSlot
        }
        if current.appended.contains(offset) { return .appended }
        if let chunk = current.chunks.first(where: { $0.range.contains(offset) }) {
            return Region(rawValue: chunk.kind == "header" ? "header chunk" : chunk.kind)!
        }
        return offset < (current.appended.upperBound) ? .waste : .tail
    }

    /// What a variant in `region` may read as.
    static func expected(_ region: Region, _ subject: Subject) -> Set<String> {
        let fallback = subject.previous != nil
        switch region {
        case .slot: return detection.union(fallback ? ["previous+note"] : [])
        case .mac: return ["headerAuthentication"]
        // Slot 0 alone decides whether the file is format 3 (R3-SLT-1).
        case .otherSlot: return detection.union(["current+note"])
        // A reader with HK checks the other slot's MAC when the current commit is in place, and
        // notes a mismatch (R3-SLT-4): the newest commit may have been cut off.
        case .otherMAC: return ["current+note"]
        case .appended: return ["previous+note"]
        case .header: return ["headerCorrupt"]
        case .root, .node: return ["indexCorrupt"]
        case .record: return ["recordCorrupt"]
        case .waste, .tail: return ["current"]
        case .truncation: return Set(["truncated", "notAVault", "current"]).union(fallback ? ["previous+note"] : [])
        }
    }

    // MARK: - The files

    static func makeSubjects() throws -> [Subject] {
        let directory = makeTemporaryDirectory("tamper3")
        defer { removeTree(directory) }
        let path = directory + "/" + vaultName
        let vault = try Vault.create(at: path, credentials: .password(password), configuration: Format.v3.configuration)
        let runner = RecipientIdentity.generate()
        try vault.write { txn in
            for n in 0..<3 { try txn.set(draft("master-\(n)", text: "secret of master item \(n)")) }
            for n in 0..<2 {
                var item = draft("base-\(n)", text: "secret of always item \(n)")
                item.protectionClass = .always
                try txn.set(item)
            }
            for n in 0..<2 {
                var item = draft("deploy-\(n)", text: "secret of deploy item \(n)")
                item.attributes.accessGroup = "deploy"
                try txn.set(item)
            }
        }
        try vault.write { try $0.addRecipient(runner.recipient, name: "runner", limitedTo: "deploy") }
        try vault.write { try $0.set(draft("master-0", text: "master item 0, changed")) }
        try vault.write { _ = try $0.remove(id: itemID("master-1")) }
        let beforeLast = try openState(path)
        try vault.write { try $0.set(draft("master-3", text: "secret of master item 3, added last")) }
        var history = readBytes(path)!
        let committed = history.count
        history += fillerSecret(300, seed: 21)
        let historySubject = try subject("history", history, previous: beforeLast)
        guard historySubject.layouts.count == 2, historySubject.layouts[0].appended.upperBound == committed else {
            throw VaultFormatError(.invalidParameter, "the history file does not hold two complete commits")
        }
        try vault.write { txn in _ = try txn.rekey(RekeyOptions(credentials: [.password(password)])) }
        let rewritten = try subject("rewritten", readBytes(path)!, previous: nil)
        guard rewritten.layouts.count == 1 else {
            throw VaultFormatError(.invalidParameter, "the rewritten file holds more than one commit")
        }
        return [historySubject, rewritten]
    }

    static func subject(_ name: String, _ bytes: [UInt8], previous: VaultState?) throws -> Subject {
        let snapshot = try VaultSnapshot.open(bytes, with: .password(password))
        let current = try state(of: snapshot, length: bytes.count)
        guard !current.note else { throw VaultFormatError(.invalidParameter, "\(name) reads with a note") }
        return Subject(
            name: name,
            bytes: bytes,
            current: current,
            previous: previous,
            layouts: try Format3Layout.commits(of: bytes, keys: snapshot.keys)
        )
    }
}
