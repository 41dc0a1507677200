// vault: a three-way merge takes nothing from a side older than the ancestor (R-MRG-17).

extension Merger {
    /// R-MRG-17: refuses a three-way merge in which theirs does not descend from the ancestor
    /// (ours, the file merged into, need not). An older copy committed on a branch (`git checkout
    /// <old> -- v.vault`) would otherwise count, item by item, as "that side changed it back", and
    /// undo newer work: a rotated secret, an added item, a keyslot's KDF, a removed keyslot or
    /// recipient.
    ///
    /// A descendant has a generation at least the ancestor's (every write raises it, a merge
    /// writes `max + 1`); and every state it holds that differs from the
    /// ancestor's is newer than the ancestor's (R-MRG-5's rank, time first): an edit made on top of
    /// the ancestor's version is dated after it, a deletion of it is dated after it, and a version
    /// an earlier merge adopted over it outranked it. A sibling's edit made before the ancestor's
    /// version (a copy from an abandoned branch committed on top of the ancestor) is not.
    func checkTheirsDescends(from base: MergeInput) throws {
        let input = inputs.theirs
        let generation = input.snapshot.header.generation
        let ancestor = base.snapshot.header.generation
        func refusal(_ why: String) -> VaultMergeError {
            VaultMergeError(
                .notDescendant,
                "theirs does not descend from the ancestor: \(why); it is an older copy of the vault, and a merge "
                    + "never takes a vault back (nothing was merged)"
            )
        }
        if generation < ancestor {
            throw refusal("its generation \(generation) is older than the ancestor's \(ancestor)")
        }
        // The same generation as the ancestor is no proof either way: git's virtual ancestor of a
        // criss-cross merge (itself a merge, `max + 1`) can share a branch's number. The items tell.
        if input.snapshot.headerBytes == base.snapshot.headerBytes { return }
        for position in 0..<base.index.count {
            let id = base.index.itemID(at: position)
            switch input.state(id) {
            case .live(let held):
                guard try !same(input, held, base, position), try isOlder(input, held, than: base, position)
                else { continue }
                throw refusal("it holds an older version of item \(id) than the ancestor")
            case .tomb(let deletedAt):
                // A deletion dated before the ancestor's version is not a deletion of it.
                guard let version = try plain(base, position),
                    MergeRank.deletion(at: deletedAt) < version.rank
                else { continue }
                throw refusal("it deletes item \(id) at a time before the ancestor's version of it")
            case .none:
                continue  // proves nothing; resolve() keeps the item (R-MRG-17)
            }
        }
        for (id, deletedAt) in base.tombs {
            guard let held = input.state(id).position, let version = try plain(input, held),
                version.rank < MergeRank.deletion(at: deletedAt)
            else { continue }
            throw refusal("it holds item \(id), which the ancestor deleted, in a version older than the deletion")
        }
    }

    /// Whether the version at `p` of `input` ranks below the one at `q` of `base` (R-MRG-5); one
    /// that cannot be read here is dated by its record version alone, as R-MRG-13 orders such
    /// versions.
    private func isOlder(_ input: MergeInput, _ p: Int, than base: MergeInput, _ q: Int) throws -> Bool {
        guard let x = try plain(input, p), let y = try plain(base, q) else {
            return input.entry(p).version < base.entry(q).version
        }
        return x.rank < y.rank
    }
}
