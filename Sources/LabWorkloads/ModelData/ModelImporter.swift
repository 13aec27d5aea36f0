import Foundation
import ObjectStack

/// Imports pages of objects (`ModelObjectPages`, as `ModelDataService` serves them) into a context, as an app's
/// importer does: each object, and each object a relationship refers to, is found by its key or created.
///
/// An object's key is the attributes of its entity's first uniqueness constraint, or those `keys` names for its
/// entity or its nearest super-entity named there (the key an app would match on; a scenario's `import_key:`); the existing objects of a page are found with one `IN` fetch per
/// entity, never one per object. An object whose entity has no key is known by its `@id` for as long as this
/// importer lives: a second importer creates it again. A reference to an object not imported yet creates it with
/// its key; its own page fills in the rest. Relationships are set from whichever side a page gives them, so the
/// store holds them once every page is imported.
///
/// For example:
/// ```swift
/// try context.performAndWait {
///     let importer = try ModelImporter(context: context)
///     for entity in pages.entityNames {
///         for number in 1...pages.pageCount(of: entity)! { _ = try importer.importPage(pages.page(number, of: entity)!) }
///     }
///     try context.save()
/// }
/// ```
/// The caller saves: a page's objects may need a later page's (a required to-one) before they validate.
/// - Note: Not thread-safe: use it on its context's queue.
public final class ModelImporter {
    /// What imports did.
    public struct Counts: Sendable, Equatable {
        /// Objects created (pages' objects and referenced ones).
        public var inserted = 0
        /// Page objects found: by key in the store, or by id among those this importer made (a reference
        /// created them before their page came).
        public var found = 0
        /// Fetches run to find existing objects.
        public var fetches = 0
        /// Page objects imported, each once, found or created: what an import of every page of a population
        /// leaves in an empty store.
        public var imported = 0

        /// Creates counts.
        public init(inserted: Int = 0, found: Int = 0, fetches: Int = 0, imported: Int = 0) {
            self.inserted = inserted
            self.found = found
            self.fetches = fetches
            self.imported = imported
        }
    }

    /// The context imported into.
    public let context: ManagedObjectContext
    /// Everything imported so far.
    public private(set) var counts = Counts()
    private let keys: [String: [AttributeDescription]]
    /// Where a key is looked for: the entity that declares the constraint (its whole hierarchy), by name.
    private let keyScope: [String: EntityDescription]
    /// The kind of value each transformable attribute's transformer takes, as the generator decided it.
    private let shapes: [ObjectIdentifier: TransformableShape]
    private var byID: [String: ManagedObject] = [:]
    private var byKey: [String: [String: ManagedObject]] = [:]
    /// Key scopes whose stored objects are all in `byKey`: keys of transformable attributes only, which a fetch
    /// cannot match by value, so the scope is read once.
    private var scopesRead: Set<String> = []
    /// ISO 8601 with fractional seconds, as the pages write dates: Foundation's format style, since
    /// `ISO8601DateFormatter` (ICU) costs 70 µs a date on Linux, a hundred times the style, and the import would
    /// measure it rather than the stack.
    private let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// An importer into `context`; `keys` names the attributes an entity's objects are found by, instead of its
    /// uniqueness constraint.
    ///
    /// Registers `SecureCodingValueTransformer` for the model's transformer names nobody registered, as the
    /// generator does.
    /// - Throws: `LabError.invalidScenario` for an unknown entity or attribute in `keys`.
    public init(context: ManagedObjectContext, keys: [String: [String]] = [:]) throws {
        self.context = context
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw LabError(.unsupported, "the importer's context has no coordinator")
        }
        SecureCodingValueTransformer.registerMissing(for: model)
        var resolved: [String: [AttributeDescription]] = [:]
        var scope: [String: EntityDescription] = [:]
        var shapes: [ObjectIdentifier: TransformableShape] = [:]
        for entity in model.entities {
            for attribute in entity.attributes where attribute.type == .transformable {
                if case .success(let shape) = TransformableShape.resolve(attribute) {
                    shapes[ObjectIdentifier(attribute)] = shape
                }
            }
            // A key named for an entity is its sub-entities' too, looked up across the named entity's hierarchy.
            var keyed: EntityDescription? = entity
            while let candidate = keyed, keys[candidate.name] == nil { keyed = candidate.superentity }
            if let keyed, let names = keys[keyed.name] {
                resolved[entity.name] = try names.map { name in
                    guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                        throw LabError(
                            .invalidScenario,
                            "import key \(keyed.name).\(name): \(entity.name) has no stored attribute \(name)")
                    }
                    return attribute
                }
                scope[entity.name] = keyed
            } else if let constraint = entity.applicableUniquenessConstraints.first {
                resolved[entity.name] = constraint.attributes
                scope[entity.name] = constraint.declaring
            }
        }
        for name in keys.keys where model.entitiesByName[name] == nil {
            throw LabError(.invalidScenario, "import key for \(name): the model has no entity \(name)")
        }
        self.keys = resolved
        keyScope = scope
        self.shapes = shapes
    }

    /// Imports one page: finds or creates each of its objects and each object it refers to, and sets their values
    /// and relationships. Call it on the context's queue; the caller saves.
    /// - Returns: what this page did.
    /// - Throws: `LabError.invalidResults` for a page that is not a page of objects of the context's model (naming
    ///   the object and property), and what setting a value throws.
    @discardableResult
    public func importPage(_ data: Data) throws -> Counts {
        try importPage(try Self.decode(data))
    }

    /// A page's JSON, decoded: its entity's name and its objects, as `decode(_:)` reads them.
    public struct Page: @unchecked Sendable {
        // @unchecked: the decoded JSON (Foundation arrays and dictionaries) is never changed after `decode`, and a
        // driver hands it to the context's queue once.
        /// The entity the page's objects are of.
        public let entityName: String
        /// Its objects, as JSON objects.
        let objects: [[String: Any]]
        /// The number of objects.
        public var count: Int { objects.count }
    }

    /// Decodes a page of `ModelDataService` (the JSON a driver fetched), on any thread: the importer's decode
    /// phase, apart from its find-or-create.
    /// - Throws: `LabError.invalidResults` for data that is not a page of objects.
    public static func decode(_ data: Data) throws -> Page {
        guard let page = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entityName = page["entity"] as? String, let objects = page["result"] as? [[String: Any]]
        else {
            throw LabError(.invalidResults, "not a page of objects: expected {\"entity\", \"result\": [...]}")
        }
        return Page(entityName: entityName, objects: objects)
    }

    /// Imports one decoded page (see `importPage(_:)` for data). Call it on the context's queue; the caller saves.
    /// - Returns: what this page did.
    /// - Throws: `LabError.invalidResults` for a page of an entity the model lacks, or an object or value that does
    ///   not fit it (naming the object and property), and what setting a value throws.
    @discardableResult
    public func importPage(_ page: Page) throws -> Counts {
        let before = counts
        let objects = page.objects
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[page.entityName]
        else {
            throw LabError(.invalidResults, "a page of \(page.entityName), which the model does not have")
        }
        try prefetch(objects, entity: entity)
        for object in objects {
            let (managed, existed) = try resolve(object, fallback: entity)
            if existed { counts.found += 1 }
            counts.imported += 1
            try apply(object, to: managed)
        }
        return Counts(
            inserted: counts.inserted - before.inserted, found: counts.found - before.found,
            fetches: counts.fetches - before.fetches, imported: counts.imported - before.imported)
    }

    // MARK: - Finding

    /// The entity an `@id` (`Entity/index`) names, else `fallback`.
    private func entity(of id: String, fallback: EntityDescription) -> EntityDescription {
        let name = id.split(separator: "/").first.map(String.init) ?? ""
        return context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] ?? fallback
    }

    /// Finds, with one fetch per key scope, the stored objects the page's objects and references name by key.
    ///
    /// The fetch matches the key's first attribute that is not transformable (`IN` the page's values); a key of
    /// transformable attributes only reads its scope's objects once.
    private func prefetch(_ objects: [[String: Any]], entity: EntityDescription) throws {
        var wanted:
            [String: (
                scope: EntityDescription, attributes: [AttributeDescription], values: [AttributeValueGenerator.Value]
            )] =
                [:]
        func want(_ reference: [String: Any], _ fallback: EntityDescription) throws {
            guard let id = reference["@id"] as? String, byID[id] == nil else { return }
            let target = self.entity(of: id, fallback: fallback)
            guard let attributes = keys[target.name], let scope = keyScope[target.name],
                !scopesRead.contains(scope.name),
                let tuple = try keyTuple(reference, attributes, where: id), byKey[scope.name]?[tuple.text] == nil
            else { return }
            let column = attributes.firstIndex { $0.type != .transformable }
            wanted[scope.name, default: (scope, attributes, [])].values += column.map { [tuple.values[$0]] } ?? []
        }
        for object in objects {
            try want(object, entity)
            for relationship in entity.relationships where !relationship.isTransient {
                for reference in Self.references(object[relationship.name]) {
                    try want(reference, relationship.destinationEntity)
                }
            }
        }
        for (name, request) in wanted.sorted(by: { $0.key < $1.key }) {
            var fetch = FetchRequest<ManagedObject>(entityName: request.scope.name)
            if let matched = request.attributes.first(where: { $0.type != .transformable }) {
                let values = request.values.compactMap { value -> StoreValue? in
                    if case .store(let stored) = value { return stored }
                    return nil
                }
                fetch.predicate = try FetchPredicate(format: "%K IN %@", matched.name, values)
            } else {
                scopesRead.insert(name)
            }
            fetch.returnsObjectsAsFaults = false
            counts.fetches += 1
            for found in try context.fetch(fetch) {
                let values = request.attributes.map { attribute in
                    AttributeValueGenerator.Value(
                        object: found.value(forKey: attribute.name), attribute,
                        shape: shapes[ObjectIdentifier(attribute)])
                }
                byKey[name, default: [:]][Self.text(values)] = found
            }
        }
    }

    /// The managed object for a page object or reference, found or created; whether it existed.
    private func resolve(_ reference: [String: Any], fallback: EntityDescription) throws -> (ManagedObject, Bool) {
        guard let id = reference["@id"] as? String else {
            throw LabError(.invalidResults, "an object of \(fallback.name) without an @id")
        }
        if let known = byID[id] { return (known, true) }
        let target = entity(of: id, fallback: fallback)
        let keyed = try keys[target.name].flatMap { try keyTuple(reference, $0, where: id) }
        if let keyed, let scope = keyScope[target.name], let found = byKey[scope.name]?[keyed.text] {
            byID[id] = found
            return (found, true)
        }
        guard !target.isAbstract else {
            throw LabError(.invalidResults, "\(id) names abstract entity \(target.name)")
        }
        let made = try context.insertNewObject(forEntityName: target.name)
        counts.inserted += 1
        byID[id] = made
        if let keyed, let attributes = keys[target.name], let scope = keyScope[target.name] {
            for (attribute, value) in zip(attributes, keyed.values) {
                try made.setGeneratedValue(value, forKey: attribute.name)
            }
            byKey[scope.name, default: [:]][keyed.text] = made
        }
        return (made, false)
    }

    /// A reference's key values and their text, nil when a value is missing.
    private func keyTuple(_ reference: [String: Any], _ attributes: [AttributeDescription], where id: String) throws
        -> (values: [AttributeValueGenerator.Value], text: String)?
    {
        var values: [AttributeValueGenerator.Value] = []
        for attribute in attributes {
            guard let json = reference[attribute.name], !(json is NSNull) else { return nil }
            values.append(try value(json: json, attribute, where: id))
        }
        return (values, Self.text(values))
    }

    // MARK: - Values

    /// Sets every attribute and relationship the page object gives, through the setter the populator uses.
    private func apply(_ object: [String: Any], to managed: ManagedObject) throws {
        let id = object["@id"] as? String ?? "?"
        // A derived attribute is computed by the stack when the context saves: the page does not carry it.
        for attribute in managed.entity.attributes where !attribute.isTransient && attribute.derivationExpression == nil
        {
            guard let json = object[attribute.name] else { continue }
            let value = json is NSNull ? nil : try self.value(json: json, attribute, where: id)
            try managed.setGeneratedValue(value, forKey: attribute.name)
        }
        for relationship in managed.entity.relationships where !relationship.isTransient {
            guard let json = object[relationship.name] else { continue }
            let targets = try Self.references(json).map { try resolve($0, fallback: relationship.destinationEntity).0 }
            if relationship.isToMany {
                try managed.setValue(targets, forKey: relationship.name)
            } else {
                try managed.setValue(targets.first, forKey: relationship.name)
            }
        }
    }

    private static func references(_ json: Any?) -> [[String: Any]] {
        if let one = json as? [String: Any] { return [one] }
        return json as? [[String: Any]] ?? []
    }

    /// A JSON value as a value of the attribute, as `ModelObjectPages` wrote it.
    /// - Throws: `LabError.invalidResults` naming the object and attribute when the value does not fit.
    private func value(json: Any, _ attribute: AttributeDescription, where id: String) throws
        -> AttributeValueGenerator.Value
    {
        try AttributeValueGenerator.Value(
            json: json, attribute, shape: shapes[ObjectIdentifier(attribute)], where: id, formatter)
    }

    /// Key values as text that equal values share, whichever way they were read (a missing value as `nil`).
    static func text(_ values: [AttributeValueGenerator.Value?]) -> String {
        values.map { $0?.keyText ?? "nil" }.joined(separator: "|")
    }
}
