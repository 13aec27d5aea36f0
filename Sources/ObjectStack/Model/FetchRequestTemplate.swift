import Foundation

/// A named fetch request stored in a model (Xcode's fetch request templates).
///
/// For example, with a template `byName` whose predicate is `name == $NAME`:
/// ```swift
/// let request: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
///     withName: "byName", substitutionVariables: ["NAME": "Ada"])
/// ```
/// - Note: Immutable; safe to share between threads.
public struct FetchRequestTemplate: Sendable {
    /// The template's name.
    public let name: String
    /// The entity fetched.
    public let entityName: String
    /// The filter, which may use `$VARIABLES`; nil for every object.
    public let predicate: FetchPredicate?
    /// What the request returns.
    public let resultType: FetchResultType
    /// Whether objects of sub-entities match too.
    public let includesSubentities: Bool
    /// Whether unsaved changes of the context are matched too.
    public let includesPendingChanges: Bool
    /// Whether objects come back as faults.
    public let returnsObjectsAsFaults: Bool
    /// For dictionary results: whether equal rows are returned once.
    public let returnsDistinctResults: Bool
    /// The most objects a request returns (0: no limit), Xcode's "Fetch Limit".
    public let fetchLimit: Int
    /// How many objects a request materialises at a time (0: all), Xcode's "Batch Size".
    public let fetchBatchSize: Int
    /// Xcode's "Include Property Values", kept as written: requests here always fetch the values (a
    /// dictionary or object result needs them; an ID result ignores them).
    public let includesPropertyValues: Bool
    /// What a model file says about the template that changes no behaviour here, kept as written.
    public var modelFileMetadata = ModelFileMetadata()

    /// Creates a template.
    public init(
        name: String,
        entityName: String,
        predicate: FetchPredicate? = nil,
        resultType: FetchResultType = .managedObject,
        includesSubentities: Bool = true,
        includesPendingChanges: Bool = true,
        returnsObjectsAsFaults: Bool = true,
        returnsDistinctResults: Bool = false,
        fetchLimit: Int = 0,
        fetchBatchSize: Int = 0,
        includesPropertyValues: Bool = true
    ) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
        self.resultType = resultType
        self.includesSubentities = includesSubentities
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.returnsDistinctResults = returnsDistinctResults
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
        self.includesPropertyValues = includesPropertyValues
    }

    /// A request built from the template, with its `$VARIABLES` replaced by the given values.
    /// - Throws: `ObjectStackError` `.invalidArgument` when a variable has no value, or when `Result` does not
    ///   match the template's result type (a dictionary template asks for `[String: Any]`).
    public func fetchRequest<Result: FetchRequestResult>(
        substitutionVariables: [String: Any] = [:]
    ) throws -> FetchRequest<Result> {
        guard Result.fetchResultType == resultType else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "fetch request template \(name) returns \(resultType), not \(Result.self)")
        }
        var request = FetchRequest<Result>(entityName: entityName)
        request.predicate = try predicate?.withSubstitutionVariables(substitutionVariables)
        request.includesSubentities = includesSubentities
        request.includesPendingChanges = includesPendingChanges
        request.returnsObjectsAsFaults = returnsObjectsAsFaults
        request.returnsDistinctResults = returnsDistinctResults
        request.fetchLimit = fetchLimit
        request.fetchBatchSize = fetchBatchSize
        return request
    }
}
