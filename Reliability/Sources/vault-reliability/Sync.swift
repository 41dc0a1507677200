// vault reliability: 9. three replicas changed at random and synchronized through a real git
// repository (pull with merge or rebase, the merge driver doing the vault) and through
// Syncthing-style conflict copies merged two-way; they must converge, lose nothing, stay sound.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

enum Sync {
    /// One change a replica acknowledged (its `write` returned).
    struct Acknowledged {
        let time: Int64
        let replica: Int
        let name: String
        let secret: String?  // nil: a deletion
    }

    /// Runs the scenario for each format: both in `--full` (format 1.1 for comparison, the
    /// scenario of the format-2.0 era), format 3 alone in `--quick` unless `--format` names one.
    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        let formats = mode == .quick && option("--format") == nil ? [Format.v3] : selectedFormats
        for format in formats { run(mode, format: format, tally: tally) }
        return tally
    }

    static func run(_ mode: Mode, format: Format, tally: Tally) {
        let suite = format == .v3 ? "sync-v3" : "sync"
        let failuresBefore = tally.failures.count
        let operationsPerReplica = mode == .full ? 1000 : 80
        let directory = makeTemporaryDirectory("sync")
        defer { removeTree(directory) }
        var random = SeededRandom(seed: UInt64(option("--seed") ?? "") ?? 0x5EED_0010)
        var stats = (gitSyncs: 0, rebases: 0, syncthing: 0, conflicts: 0)
        do {
            let replicas = try setUp(directory, format: format)
            var vaults = try replicas.map {
                try Vault(
                    path: $0 + "/" + vaultName,
                    credentials: .password(password),
                    configuration: fastConfiguration
                )
            }
            var log: [Acknowledged] = []
            let names = (0..<60).map { "item-\($0)" }
            for step in 0..<operationsPerReplica * 3 {
                let r = Int(random.next() % 3)
                let roll = random.next() % 100
                if roll < 80 {
                    let name = names[Int(random.next() % UInt64(names.count))]
                    let time = Vault.currentTime()
                    if random.next() % 5 == 0 {
                        let removed = try vaults[r].write { txn in try txn.remove(id: itemID(name)) }
                        if removed { log.append(Acknowledged(time: time, replica: r, name: name, secret: nil)) }
                    } else {
                        let secret = "s\(step)-r\(r)"
                        var item = draft(name, text: secret)
                        item.attributes.modificationDate = time
                        try vaults[r].write { txn in try txn.set(item) }
                        log.append(Acknowledged(time: time, replica: r, name: name, secret: secret))
                    }
                } else if roll < 95 {
                    let rebase = random.next() % 2 == 0
                    try gitSync(replicas[r], rebase: rebase, tally: tally)
                    stats.gitSyncs += 1
                    if rebase { stats.rebases += 1 }
                } else {
                    // Syncthing: another replica's file arrives as a conflict copy, merged in two-way.
                    let s = (r + 1 + Int(random.next() % 2)) % 3
                    let copy = replicas[r] + "/test.sync-conflict-\(step).vault"
                    writeBytes(readBytes(replicas[s] + "/" + vaultName)!, to: copy)
                    let theirs = try VaultFileReader(path: copy).open(with: .password(password))
                    let report = try vaults[r].merge(theirs)
                    stats.conflicts += report.conflicts.count
                    unlink(copy)
                    stats.syncthing += 1
                }
            }
            // Converge: every replica pulls and pushes twice round.
            for _ in 0..<2 {
                for replica in replicas { try gitSync(replica, rebase: false, tally: tally) }
            }
            vaults = try replicas.map {
                try Vault(
                    path: $0 + "/" + vaultName,
                    credentials: .password(password),
                    configuration: fastConfiguration
                )
            }
            let finals = try vaults.map { vault in try vault.read { try $0.items(includeSecrets: true) } }
            let contents = finals.map { items in
                Set(
                    items.map {
                        "\($0.entry.itemID) \($0.attributes.account) \(String(decoding: $0.secret!.copyBytes(), as: UTF8.self))"
                    }
                )
            }
            tally.check(contents[0] == contents[1] && contents[1] == contents[2], "sync (\(format.label)): the replicas did not converge")
            var corrupt = 0
            for vault in vaults {
                do { _ = try vault.read { try $0.verify() } } catch { corrupt += 1 }
            }
            tally.check(corrupt == 0, "sync (\(format.label)): \(corrupt) replicas do not verify")
            // Lost: a version some replica acknowledged, that no later change of the same item
            // (on any replica) replaced, and that the converged vault does not hold (as the item
            // or as a conflict copy).
            let held = Set(
                finals[0].map { "\($0.attributes.service)=\(String(decoding: $0.secret!.copyBytes(), as: UTF8.self))" }
            )
            var lost = 0
            for ack in log {
                guard let secret = ack.secret else { continue }
                if log.contains(where: { $0.name == ack.name && $0.time > ack.time }) { continue }
                if !held.contains("\(ack.name)=\(secret)") {
                    lost += 1
                    tally.fail("sync (\(format.label)): replica \(ack.replica) lost \(ack.name) = \(secret)")
                }
            }
            let copies = finals[0].filter { $0.attributes.account.contains(" (conflict ") }.count
            let verdict = tally.failures.count == failuresBefore ? "PASS" : "FAIL"
            print(
                "RESULT \(suite) \(verdict) format=\(format.rawValue) replicas=3 operations=\(log.count) git_syncs=\(stats.gitSyncs) "
                    + "rebases=\(stats.rebases) syncthing_merges=\(stats.syncthing) items=\(finals[0].count) "
                    + "conflict_copies=\(copies) converged=\(contents[0] == contents[1] && contents[1] == contents[2]) "
                    + "lost=\(lost) corrupt=\(corrupt)"
            )
        } catch {
            tally.fail("sync (\(format.label)): \(error)")
            print("RESULT \(suite) FAIL \(error)")
        }
    }

    /// The driver git runs: `vault-reliability child-git-merge %O %A %B`.
    static func mergeDriver(_ paths: [String]) -> Never {
        do {
            let vault = try Vault(path: paths[1], credentials: .password(password), configuration: fastConfiguration)
            let open = { (path: String) in try VaultFileReader(path: path).open(with: .password(password)) }
            let size = (try? FileManager.default.attributesOfItem(atPath: paths[0])[.size] as? Int) ?? 0
            try vault.merge(try open(paths[2]), base: size == 0 ? nil : try open(paths[0]))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("merge driver: \(error)\n".utf8))
            exit(1)
        }
    }

    /// A bare origin and three clones, each with the driver configured; the vault in the first.
    static func setUp(_ directory: String, format: Format) throws -> [String] {
        let origin = directory + "/origin.git"
        try git(["init", "-q", "--bare", "-b", "main", origin], in: directory)
        let replicas = (0..<3).map { directory + "/r\($0)" }
        try git(["clone", "-q", origin, replicas[0]], in: directory)
        try configure(replicas[0])
        writeBytes(Array("*.vault merge=vault -diff\n".utf8), to: replicas[0] + "/.gitattributes")
        writeBytes(Array("*.lock\n*.sync-conflict-*\n".utf8), to: replicas[0] + "/.gitignore")
        try makeVault(in: replicas[0], items: [], format: format)
        try git(["add", "-A"], in: replicas[0])
        try git(["commit", "-q", "-m", "vault"], in: replicas[0])
        try git(["push", "-q", "origin", "HEAD:main"], in: replicas[0])
        for replica in replicas.dropFirst() {
            try git(["clone", "-q", origin, replica], in: directory)
            try configure(replica)
        }
        return replicas
    }

    static func configure(_ replica: String) throws {
        try git(["config", "merge.vault.driver", "\(selfExecutable) child-git-merge %O %A %B"], in: replica)
        try git(["config", "pull.rebase", "false"], in: replica)
    }

    /// Commit, pull (merge or rebase; the driver merges the vault), push. Retries the push once
    /// after another pull, as a person would; git must never leave a conflict.
    static func gitSync(_ replica: String, rebase: Bool, tally: Tally) throws {
        try git(["add", "-A"], in: replica)
        _ = try? git(["commit", "-q", "-m", "sync"], in: replica)
        try git(["pull", "-q", "--no-edit", rebase ? "--rebase" : "--no-rebase", "origin", "main"], in: replica)
        try git(["push", "-q", "origin", "HEAD:main"], in: replica)
    }

    struct GitFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs git with an isolated configuration; throws when it fails.
    @discardableResult
    static func git(_ arguments: [String], in directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_TERMINAL_PROMPT"] = "0"
        for key in ["GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"] { environment[key] = "reliability" }
        for key in ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"] { environment[key] = "r@example.org" }
        environment["VAULT_TESTING"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw GitFailure(description: "git \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}
