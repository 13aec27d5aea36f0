import Foundation

/// A fetched property: a named, lazily evaluated fetch of another entity, as declared in a model file.
///
/// For example, a `Person` with a fetched property `sameCity` (entity `Person`, predicate
/// `city == $FETCH_SOURCE.city`) gives its request for one person with:
/// ```swift
/// let property = person.entity.fetchedProperties[0]
/// let neighbours = try context.fetch(try property.fetchRequest(for: person))
/// ```
/// Core Data substitutes `$FETCH_SOURCE` (the object the property is read on) when it runs the fetch; so does
/// `fetchRequest(for:)`. `value(forKey:)` does not evaluate fetched properties: ask for the request.
/// - Note: Immutable; safe to share between threads.
public struct FetchedPropertyDescription: Sendable {
    /// The property's name.
    public let name: String
    /// The entity fetched.
    public let destinationName: String
    /// The filter, which may use `$FETCH_SOURCE` and other variables; nil for every object.
    public let predicate: FetchPredicate?
    /// What a model file says about the property that changes no behaviour here, kept as written.
    public var modelFileMetadata = ModelFileMetadata()

    /// Creates a fetched property.
    public init(name: String, destinationName: String, predicate: FetchPredicate? = nil) {
        self.name = name
        self.destinationName = destinationName
        self.predicate = predicate
    }

    /// The fetch this property stands for when read on `source`, with `$FETCH_SOURCE` bound to it.
    /// - Throws: `ObjectStackError` `.invalidArgument` when the predicate uses another unbound variable.
    public func fetchRequest(
        for source: ManagedObject, substitutionVariables: [String: Any] = [:]
    ) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: destinationName)
        var variables = substitutionVariables
        variables["FETCH_SOURCE"] = source
        request.predicate = try predicate?.withSubstitutionVariables(variables)
        return request
    }
}
