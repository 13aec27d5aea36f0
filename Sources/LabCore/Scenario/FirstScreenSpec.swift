import Foundation

/// A scenario's `first_screen:` as written: the fetch the app's first screen makes, for workloads on a model
/// file. The lab core only reads it; the stack side checks it against the model and fills in what is missing.
///
/// ```yaml
/// first_screen:
///   entity: Mood
///   sort: [-date, name]   # a leading '-' sorts descending
///   predicate: "rating > 2"
///   limit: 50
/// ```
public struct FirstScreenSpec: Sendable, Hashable, Decodable {
    /// The entity listed; nil: the root entity with the most objects.
    public var entity: String?
    /// Sort keys in order, `-key` for descending; nil: the entity's first indexed attribute, else its first.
    public var sort: [String]?
    /// A predicate format string; nil: every object.
    public var predicate: String?
    /// Rows on the screen; nil: 50.
    public var limit: Int?

    /// The keys `first_screen:` may have.
    public static let keys = ["entity", "sort", "predicate", "limit"]

    /// Creates a first screen; every part left nil is inferred.
    public init(entity: String? = nil, sort: [String]? = nil, predicate: String? = nil, limit: Int? = nil) {
        self.entity = entity
        self.sort = sort
        self.predicate = predicate
        self.limit = limit
    }

    private enum CodingKeys: String, CodingKey {
        case entity, sort, predicate, limit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decodeIfPresent(String.self, forKey: .entity)
        // `sort: name` is as natural as `sort: [name]`.
        if let keys = try? container.decodeIfPresent([String].self, forKey: .sort) {
            sort = keys
        } else {
            sort = try container.decodeIfPresent(String.self, forKey: .sort).map { [$0] }
        }
        predicate = try container.decodeIfPresent(String.self, forKey: .predicate)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
    }
}
