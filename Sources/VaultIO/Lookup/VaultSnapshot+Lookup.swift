// vault: finding the one item a query names, as `vaulttool get`, references and apps do.

extension VaultSnapshot {
    /// Every readable item that matches `query`, in index order, skipping items the keys held
    /// cannot open.
    ///
    /// - Throws: The first ``ItemDamage`` of an item that may match; the source's read error.
    public func items(matching query: ItemQuery, includeSecrets: Bool = false) throws -> [DecodedItem] {
        try scanItems(matching: query, into: ItemCollector.self, includeSecrets: includeSecrets).items
    }

    /// Reads every item once and hands each one matching `query` to a `Sink`: the scan of
    /// ``scanItems(into:itemClass:includeSecrets:salvage:where:mayMatch:)`` with the query's rule.
    public func scanItems<Sink: ItemSink>(
        matching query: ItemQuery,
        into sink: Sink.Type,
        includeSecrets: Bool = false,
        salvage: Bool = false
    ) throws -> ItemScan<Sink> {
        try scanItems(
            matchingCanonical: query.canonicalized(),
            into: sink,
            includeSecrets: includeSecrets,
            salvage: salvage
        )
    }

    /// ``scanItems(matching:into:includeSecrets:salvage:)`` for a query already canonical.
    private func scanItems<Sink: ItemSink>(
        matchingCanonical query: ItemQuery,
        into sink: Sink.Type,
        includeSecrets: Bool,
        salvage: Bool
    ) throws -> ItemScan<Sink> {
        let select: @Sendable (DecodedItem) -> Bool = { query.matches($0) }
        let matches = query.isEmpty ? nil : select
        return try scanItems(
            into: sink,
            includeSecrets: includeSecrets,
            salvage: salvage,
            where: matches,
            mayMatch: { query.mayMatch($0) }
        )
    }

    /// Exactly one item matching `query`: the item `vaulttool get` prints for the same attributes.
    ///
    /// - When the query names a whole primary key (a service or a server, and an account), the
    ///   item is first looked up by its lookup tag, one decryption instead of one per item.
    /// - A query that names no access group prefers the default group and never takes an item of
    ///   a group with its own key domain (format 2.0): a recipient limited to `deploy` can plant
    ///   `bank/ci` there, and it must not answer for the default group's `bank/ci`. For a
    ///   recipient limited to one group, that group is its default.
    /// - Several matches that are one identity in several spellings (L-KC-15) answer with the
    ///   canonical one, else the most recently modified.
    ///
    /// - Throws: ``VaultIOError`` ``VaultIOError/Code/itemNotFound`` (the reason says when items
    ///   the keys cannot read might have matched, or which keyed group holds a match),
    ///   ``VaultIOError/Code/ambiguousItem``, ``VaultIOError/Code/deviceSecretRequired``;
    ///   ``ItemDamage`` for a damaged item that may match.
    ///
    /// Spec: Spec/cli.md, "Selecting items".
    public func item(matching query: ItemQuery, includeSecret: Bool) throws -> DecodedItem {
        let query = query.canonicalized()
        if let item = try exactMatch(query, includeSecret: includeSecret) { return item }
        let scan = try scanItems(
            matchingCanonical: query,
            into: ItemCollector.self,
            includeSecrets: includeSecret,
            salvage: false
        )
        let found = try Self.unnamedGroupRule(
            scan.items,
            groupNamed: query.accessGroup != nil,
            ownDomain: keys.limitedDomain
        )
        guard let first = found.first else {
            throw VaultIOError(.itemNotFound, reason: noMatch(unavailable: scan.unavailable))
        }
        if found.count == 1 { return first }
        try Self.checkPrimaryKeys(found)
        guard let item = Self.oneIdentity(found) else {
            throw VaultIOError(.ambiguousItem, reason: "\(found.count) items match")
        }
        return item
    }

    /// `item` and the items `query` matches that are its identity in other spellings (L-KC-15,
    /// written by older writers; ``itemsSpelledSeveralWays()``): what to remove so that no copy is
    /// left to answer a later lookup for it.
    ///
    /// ```swift
    /// let item = try snapshot.item(matching: query, includeSecret: false)
    /// let all = try snapshot.spellings(of: item, matching: query)
    /// ```
    ///
    /// - Throws: The first ``ItemDamage`` of an item that may match; the source's read error.
    public func spellings(of item: DecodedItem, matching query: ItemQuery) throws -> [DecodedItem] {
        guard item.entry.itemClass == .internetPassword else { return [item] }
        let copies = try items(matching: query).filter {
            $0.entry.itemID != item.entry.itemID
                && $0.attributes.hasSameIdentity(as: item.attributes, itemClass: .internetPassword)
        }
        return [item] + copies
    }

    /// Whether items of a `…ThisDeviceOnly` class are out of reach because the keys hold no device
    /// secret: a lookup that found nothing may have missed one of them.
    ///
    /// - Throws: The index's error.
    public var lacksDeviceSecretForItems: Bool {
        get throws {
            guard keys.deviceSecret == nil else { return false }
            let index = try index
            return (0..<index.count).contains { index.entry(at: $0).protectionClass.isDeviceBound }
        }
    }

    /// R-IDX-6: two matches with the same primary key (not two spellings of one identity, L-KC-15)
    /// are damage, not a choice: the most recently modified would be whichever the writer without
    /// the master key dated later.
    ///
    /// - Throws: ``ItemDamage`` (`recordCorrupt`) naming the second item.
    static func checkPrimaryKeys(_ items: [DecodedItem]) throws {
        var seen: [PrimaryKey: ItemID] = [:]
        for item in items {
            let key = PrimaryKey(itemClass: item.entry.itemClass, attributes: item.attributes)
            if let first = seen[key] {
                throw ItemDamage(
                    entry: item.entry,
                    attributes: item.attributes,
                    error: VaultFormatError.samePrimaryKey(first, item.entry.itemID)
                )
            }
            seen[key] = item.entry.itemID
        }
    }

    /// The item that answers when several items match and all are one identity written in several
    /// spellings (L-KC-15): the one in the canonical spelling, else the most recently modified;
    /// `nil` when the matches are different items.
    static func oneIdentity(_ items: [DecodedItem]) -> DecodedItem? {
        guard items.count > 1, let first = items.first else { return nil }
        let itemClass = first.entry.itemClass
        let key = PrimaryKey(itemClass: itemClass, attributes: first.attributes.canonicalIdentity(for: itemClass))
        guard
            items.allSatisfy({
                $0.entry.itemClass == itemClass
                    && $0.attributes.hasSameIdentity(as: first.attributes, itemClass: itemClass)
            })
        else { return nil }
        return items.dropFirst().reduce(first) { kept, item in
            kept.attributes.answers(for: key, before: item.attributes, itemClass: itemClass) ? kept : item
        }
    }

    /// The default-group preference of ``item(matching:includeSecret:)``.
    static func unnamedGroupRule(_ items: [DecodedItem], groupNamed: Bool, ownDomain: UInt8?) throws(VaultIOError)
        -> [DecodedItem]
    {
        guard !groupNamed else { return items }
        let inDefault = items.filter { $0.attributes.accessGroup.isEmpty || $0.entry.domain == ownDomain }
        if !inDefault.isEmpty { return inDefault }
        let unkeyed = items.filter { $0.entry.domain == 0 }
        if unkeyed.isEmpty, let keyed = items.first {
            throw VaultIOError(
                .itemNotFound,
                reason: "no item matches in the default access group; an item of a group with its own keys matches, "
                    + "and a lookup that names no group never takes it",
                accessGroup: keyed.attributes.accessGroup
            )
        }
        return unkeyed
    }

    /// The sentence for "nothing matches", which says when items could not be searched because
    /// the keys held do not open them.
    func noMatch(unavailable: [IndexEntry]) -> String {
        let deviceBound = unavailable.filter { $0.protectionClass.isDeviceBound }.count
        guard deviceBound > 0, keys.deviceSecret == nil else {
            // A base-scope keyslot or a recipient limited to one access group (format 2.0)
            // cannot read the other items' attributes, so they cannot be matched either.
            let unreadable = unavailable.count
            guard unreadable > 0 else { return "no item matches" }
            return "no item matches among the items this credential opens; \(unreadable) other "
                + "item\(unreadable == 1 ? "" : "s") cannot be read with it (another access group, or a "
                + "protection class its keyslot does not reach)"
        }
        return "no item matches among the items this credential opens; \(deviceBound) "
            + "ThisDeviceOnly item\(deviceBound == 1 ? "" : "s") cannot be searched without this machine's "
            + "device secret"
    }

    /// The one item whose primary key the query names, found by lookup tag, or `nil` when the
    /// query does not name a primary key, nothing is found, or both a synchronizable and a
    /// non-synchronizable item match (the search then decides).
    private func exactMatch(_ query: ItemQuery, includeSecret: Bool) throws -> DecodedItem? {
        guard let account = query.account, query.id == nil else { return nil }
        let itemClass = query.itemClass ?? (query.hasInternetFields ? .internetPassword : .genericPassword)
        var key = ItemAttributes(service: query.service ?? "", account: account)
        key.accessGroup = query.accessGroup ?? ""
        switch itemClass {
        case .genericPassword:
            guard query.service != nil, !query.hasInternetFields else { return nil }
        case .internetPassword:
            guard let server = query.server, query.service == nil else { return nil }
            key.server = server
            key.protocol = query.protocol ?? ""
            key.authenticationType = query.authenticationType ?? ItemAttributes.defaultAuthenticationType
            key.port = query.port ?? 0
            key.path = query.path ?? ""
            key.securityDomain = query.securityDomain ?? ""
        }
        var found: [(location: ItemLocation, item: DecodedItem)] = []
        for synchronizable in [false, true] {
            key.synchronizable = synchronizable
            let canonical = key.canonicalIdentity(for: itemClass)
            let primaryKey = PrimaryKey(itemClass: itemClass, attributes: canonical)
            // The canonical spelling answers first; an older one only when it is absent (L-KC-15).
            let foundBefore = found.count
            let tags = ([primaryKey] + canonical.olderSpellings(for: itemClass)).map(keys.lookupTag)
            for (step, tag) in tags.enumerated() where step == 0 || found.count == foundBefore {
                for location in try locations(ofTag: tag) {
                    let item: DecodedItem
                    do {
                        item = try self.item(at: location, includeSecret: false)
                    } catch let error as VaultFormatError
                        where error.code == .foreignDevice || error.code == .keyUnavailable
                    {
                        let entry = location.entry
                        if entry.protectionClass.isDeviceBound && keys.deviceSecret == nil {
                            throw VaultIOError(
                                .deviceSecretRequired,
                                reason: "item \(entry.itemID) exists but is \(entry.protectionClass): it needs "
                                    + "this machine's device secret"
                            )
                        }
                        return nil
                    }
                    guard item.attributes.hasSameIdentity(as: canonical, itemClass: itemClass) else { continue }
                    guard query.matches(item) else { return nil }
                    found.append((location, item))
                }
            }
        }
        guard found.count == 1, let (location, item) = found.first else { return nil }
        guard includeSecret else { return item }
        return try self.item(at: location, includeSecret: true)
    }
}

extension VaultSnapshot {
    /// The internet passwords that are one identity written in several spellings (L-KC-15): old
    /// writers' copies beside the canonical one. Each group is in answer order (the item a lookup
    /// takes first, then the others); groups are ordered by that item's ID. Items the keys cannot
    /// open are not read.
    ///
    /// A lookup answers with the first of a group and a remove removes the whole group, so the
    /// others are stale copies (perhaps of a secret rotated since): `verify` reports them.
    public func itemsSpelledSeveralWays() throws -> [[DecodedItem]] {
        let scan = try scanItems(into: ItemCollector.self, itemClass: .internetPassword)
        var groups: [PrimaryKey: [DecodedItem]] = [:]
        for item in scan.items {
            let canonical = item.attributes.canonicalIdentity(for: .internetPassword)
            groups[PrimaryKey(itemClass: .internetPassword, attributes: canonical), default: []].append(item)
        }
        return groups.filter { $0.value.count > 1 }
            .map { key, items in
                items.sorted { $0.attributes.answers(for: key, before: $1.attributes, itemClass: .internetPassword) }
            }
            .sorted { $0[0].entry.itemID < $1[0].entry.itemID }
    }
}
