import Foundation

/// The order of a fetched results controller: the request's sort keys, then the order a fresh fetch gives
/// rows that tie on every key (saved objects by primary key, then unsaved ones by their temporary key).
///
/// It uses `ValueComparison`, the one comparison every store sorts with, so the controller's order is the
/// order `fetch(_:)` returns.
struct FetchedResultsOrder {
    let sortKeys: [BoundSortKey]
    /// Whether the first sort key also names the sections.
    let isSectioned: Bool

    /// Orders two entries by their key values, ties by object ID.
    @inline(__always)
    func compare(_ a: [StoreValue], _ aID: ManagedObjectID, _ b: [StoreValue], _ bID: ManagedObjectID)
        -> ComparisonResult
    {
        let byKeys = ValueComparison.compareSortKeys(a, b, sortKeys)
        if byKeys != .orderedSame { return byKeys }
        if aID === bID { return .orderedSame }
        // Permanent IDs before temporary ones, then by key: what a fetch with unsaved inserts returns.
        return ValueComparison.order(.objectID(aID), .objectID(bID)) ?? .orderedSame
    }

    /// Orders an entry against a target's key values and ID.
    @inline(__always)
    func compare(_ entry: FetchedEntry, to keys: [StoreValue], _ id: ManagedObjectID) -> ComparisonResult {
        let byKeys = ValueComparison.compareSortKeys(entry.keys, keys, sortKeys)
        if byKeys != .orderedSame { return byKeys }
        // Only a tie reads the entry's object: in a binary search over many objects, loading each probed
        // object (and its ID) would cost a cache miss per probe for nothing.
        let entryID = entry.object.objectID
        if entryID === id { return .orderedSame }
        return ValueComparison.order(.objectID(entryID), .objectID(id)) ?? .orderedSame
    }

    /// Which key leads the order within a section: the second when the first names sections (it is equal
    /// throughout a section), else the first.
    var leadIndex: Int { isSectioned && sortKeys.count > 1 ? 1 : 0 }

    /// The leading key's value of an entry's keys.
    func lead(of keys: [StoreValue]) -> StoreValue {
        keys[leadIndex]
    }

    /// Orders two leading values as their sort key does (within one section: the first difference, if any).
    @inline(__always)
    func compareLeads(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        let key = sortKeys[leadIndex]
        let result = ValueComparison.sortOrder(a, b, caseInsensitive: key.caseInsensitive)
        if key.ascending || result == .orderedSame { return result }
        return result == .orderedAscending ? .orderedDescending : .orderedAscending
    }

    /// Whether two sets of key values order the same (so an object changing from one to the other stays put).
    func sameKeys(_ a: [StoreValue], _ b: [StoreValue]) -> Bool {
        ValueComparison.compareSortKeys(a, b, sortKeys) == .orderedSame
    }

    /// The section value of an entry's keys: the first key's value, or one shared value when unsectioned.
    func sectionValue(_ keys: [StoreValue]) -> StoreValue {
        isSectioned ? keys[0] : .null
    }

    /// Orders two section values as the first sort key orders them.
    func compareSections(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        guard isSectioned else { return .orderedSame }
        let result = ValueComparison.sortOrder(a, b, caseInsensitive: false)
        if sortKeys[0].ascending || result == .orderedSame { return result }
        return result == .orderedAscending ? .orderedDescending : .orderedAscending
    }

    /// The name of a section: the value as text, "" for nil (as Core Data names a nil section).
    static func sectionName(of value: StoreValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number):
            // As NSNumber prints it: whole numbers without a fraction.
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        case .decimal(let number): return "\(number)"
        case .boolean(let flag): return flag ? "1" : "0"
        case .date(let date): return date.description
        case .data(let data): return data.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        case .objectID(let id): return id.uriRepresentation().absoluteString
        }
    }
}
