// vault: a three-way merge takes nothing from a side older than the ancestor (R-MRG-17).

extension Merger {
    /// R-MRG-17: refuses a three-way merge in which input `side` does not descend from the
    /// ancestor. An older copy committed on a branch (`git checkout <old> -- v.vault`) would
    /// otherwise count, item by item, as "that side changed it back", and undo newer work: a
    /// rotated secret, an added item, a keyslot's KDF, a removed keyslot or recipient.
    ///
    /// A descendant has a higher generation than the ancestor (every write raises it, a merge
    /// writes `max + 1`), or is the ancestor itself; and none of its items is an older version
    /// than the ancestor's: a lower record version that also ranks lower (R-MRG-5), or an item
    /// the ancestor deleted, held in a version no newer than the ancestor and older than the
    /// deletion. A version adopted by a merge keeps its record version (R-MRG-11) and may have a
    /// lower one than the ancestor's, but then it won on rank, which this test allows.
    func checkDescent(of side: Int, from base: MergeInput) throws {
        let input = inputs[side]
        let generation = input.snapshot.header.generation
        let ancestor = base.snapshot.header.generation
        func refusal(_ why: String) -> VaultMergeError {
            VaultMergeError(
                .notDescendant,
                "\(side == 0 ? "ours" : "theirs") does not descend from the ancestor: \(why); it is an older "
                    + "copy of the vault, and a merge never takes a vault back (nothing was merged)"
            )
        }
        if generation < ancestor {
            throw refusal("its generation \(generation) is older than the ancestor's \(ancestor)")
        }
        if generation == ancestor {
            guard input.snapshot.headerBytes == base.snapshot.headerBytes else {
                throw refusal("it has the ancestor's generation \(ancestor) but another header")
            }
            return
        }
        for position in 0..<base.snapshot.index.count {
            guard let held = input.state(base.snapshot.index.itemID(at: position)).position,
                try !same(input, held, base, position),
                try isOlder(input, held, than: base, position)
            else { continue }
            throw refusal("it holds an older version of item \(base.entry(position).itemID) than the ancestor")
        }
        for (id, deletedAt) in base.tombs {
            guard let held = input.state(id).position, input.entry(held).version <= ancestor,
                let version = try plain(input, held), version.draft.attributes.modificationDate <= deletedAt
            else { continue }
            throw refusal("it holds item \(id), which the ancestor deleted, in a version older than the deletion")
        }
    }

    /// Whether the version at `p` of `input` is older than the one at `q` of `base`: a lower
    /// record version and a lower rank; one that cannot be read here is dated by its record
    /// version alone, as R-MRG-13 orders such versions.
    private func isOlder(_ input: MergeInput, _ p: Int, than base: MergeInput, _ q: Int) throws -> Bool {
        guard input.entry(p).version < base.entry(q).version else { return false }
        guard let x = try plain(input, p), let y = try plain(base, q) else { return true }
        return x.rank < y.rank
    }
}
