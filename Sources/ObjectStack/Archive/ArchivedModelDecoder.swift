import Foundation

/// Builds a `ManagedObjectModel` from a keyed archive of an `NSManagedObjectModel`: the model cache Core Data keeps
/// in a SQLite store (`Z_MODELCACHE`) and the model copies a mapping model holds.
///
/// The archive holds each entity with its properties (inherited ones repeated in every sub-entity, which is how
/// the declaring entity is told apart: a property its parent also has is inherited), uniqueness constraints,
/// indexes, configurations and fetch request templates. Expressions and predicates are turned back into format
/// strings (`ArchivedExpression`). What has no counterpart here is reported in `notes`, not refused: a fetched
/// property or template whose predicate does not read, a composite attribute.
struct ArchivedModelDecoder {
    let archive: KeyedArchive
    /// What the decoder left out, one sentence each.
    private(set) var notes: [String] = []

    init(archive: KeyedArchive) {
        self.archive = archive
    }

    /// Core Data's `NSAttributeType` codes.
    static let attributeTypes: [Int64: AttributeType] = [
        100: .integer16, 200: .integer32, 300: .integer64, 400: .decimal, 500: .double, 600: .float, 700: .string,
        800: .boolean, 900: .date, 1000: .binaryData, 1100: .uuid, 1200: .uri, 1800: .transformable,
    ]
    /// Core Data's `NSDeleteRule` codes.
    static let deleteRules: [Int64: DeleteRule] = [0: .noAction, 1: .nullify, 2: .cascade, 3: .deny]
    /// `NSFlagsKey` bit seen set on every attribute whose model file says `preserveAfterDeletion="YES"`.
    static let preserveAfterDeletionFlag: Int64 = 16

    /// What a model is built from.
    struct Contents {
        var entities: [EntityDescription]
        var configurations: [String: [String]]
        var fetchRequestTemplates: [FetchRequestTemplate]
    }

    /// Decodes the model's entities, configurations and templates.
    /// - Throws: `KeyedArchive.Error` when the archive is not a model.
    mutating func decode() throws -> Contents {
        let root = try archive.root()
        guard root.className == "NSManagedObjectModel" else {
            throw KeyedArchive.Error("the archive's root is \(root.className ?? "?"), not an NSManagedObjectModel")
        }
        guard let entityEntries = root.object("NSEntities")?.entries else {
            throw KeyedArchive.Error("the model has no entities")
        }
        var objects: [(name: String, object: KeyedArchive.Object)] = []
        for (name, value) in entityEntries {
            guard let entity = archive.object(value) else { continue }
            objects.append((name, entity))
        }
        objects.sort { $0.name < $1.name }
        var entities: [EntityDescription] = []
        for (name, object) in objects {
            entities.append(try entity(name, object))
        }
        var configurations: [String: [String]] = [:]
        for (name, value) in root.object("NSConfigurations")?.entries ?? [] {
            let members = (archive.object(value)?.elements ?? []).compactMap { member -> String? in
                if let entity = archive.object(member), entity.className == "NSEntityDescription" {
                    return entity.string("NSEntityName")
                }
                if let entity = archive.object(member) { return entity.stringValue }
                if case .string(let text) = archive.resolved(member) { return text }
                return nil
            }
            configurations[name] = members.sorted()
        }
        var templates: [FetchRequestTemplate] = []
        for (name, value) in root.object("NSFetchRequestTemplates")?.entries ?? [] {
            guard let request = archive.object(value) else { continue }
            if let template = fetchRequestTemplate(name, request) { templates.append(template) }
        }
        return Contents(entities: entities, configurations: configurations, fetchRequestTemplates: templates)
    }

    // MARK: - Entities

    private mutating func entity(_ name: String, _ object: KeyedArchive.Object) throws -> EntityDescription {
        let parent = object.object("NSSuperentity")
        let parentName = parent?.string("NSEntityName")
        let inherited = Set((parent?.object("NSProperties")?.entries ?? []).map(\.key))
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetched: [FetchedPropertyDescription] = []
        let properties = (object.object("NSProperties")?.entries ?? []).sorted { $0.key < $1.key }
        for (propertyName, value) in properties where !inherited.contains(propertyName) {
            guard let property = archive.object(value) else { continue }
            switch property.className {
            case "NSAttributeDescription"?, "NSDerivedAttributeDescription"?:
                if let attribute = try attribute(propertyName, property, entity: name) { attributes.append(attribute) }
            case "NSRelationshipDescription"?:
                relationships.append(try relationship(propertyName, property, entity: name))
            case "NSFetchedPropertyDescription"?:
                if let property = fetchedProperty(propertyName, property, entity: name) { fetched.append(property) }
            case let other:
                notes.append("property \(name).\(propertyName) of class \(other ?? "?") is not read")
            }
        }
        let entity = EntityDescription(
            name: name, parent: parentName, isAbstract: object.boolean("NSIsAbstract") ?? false,
            attributes: attributes, relationships: relationships,
            uniquenessConstraints: nameLists(object, "NSUniqueTuples"),
            indexes: indexes(object, entity: name),
            renamingIdentifier: renamingIdentifier(object, name: name),
            versionHashModifier: object.string("NSVersionHashModifier"),
            fetchedProperties: fetched,
            representedClassName: object.string("NSClassNameForEntity"))
        entity.modelFileMetadata.userInfo = userInfo(object)
        return entity
    }

    /// The renaming identifier, nil when it is the name (the archive repeats the name when none was set).
    private func renamingIdentifier(_ object: KeyedArchive.Object, name: String) -> String? {
        guard let identifier = object.string("NSRenamingIdentifier"), identifier != name else { return nil }
        return identifier
    }

    private func userInfo(_ object: KeyedArchive.Object) -> [String: String] {
        var info: [String: String] = [:]
        for (key, value) in object.object("NSUserInfo")?.entries ?? [] {
            switch archive.resolved(value) {
            case .string(let text): info[key] = text
            case .reference: info[key] = archive.object(value)?.stringValue
            default: break
            }
        }
        return info
    }

    /// Lists of property names (uniqueness constraints, compound indexes): names, or property descriptions.
    private func nameLists(_ object: KeyedArchive.Object, _ key: String) -> [[String]] {
        (object.object(key)?.elements ?? []).compactMap { list in
            let names = (archive.object(list)?.elements ?? []).compactMap { element -> String? in
                if case .string(let text) = archive.resolved(element) { return text }
                guard let item = archive.object(element) else { return nil }
                return item.stringValue ?? item.string("NSPropertyName")
            }
            return names.isEmpty ? nil : names
        }
    }

    /// Compound indexes and fetch indexes, named as the model-file reader names them.
    private func indexes(_ object: KeyedArchive.Object, entity: String) -> [IndexDescription] {
        var indexes = nameLists(object, "NSCompoundIndexes").map {
            IndexDescription(name: "compound_" + $0.joined(separator: "_"), attributeNames: $0)
        }
        let attributeNames = Set(
            (object.object("NSProperties")?.entries ?? []).compactMap { name, value -> String? in
                let className = archive.object(value)?.className
                return className == "NSAttributeDescription" || className == "NSDerivedAttributeDescription"
                    ? name : nil
            })
        for value in object.object("NSFetchIndexDescriptions")?.elements ?? [] {
            guard let index = archive.object(value), let name = index.string("NSIndexName") else { continue }
            let names = (index.object("NSIndexElements")?.elements ?? []).compactMap { element in
                archive.object(element)?.string("NSPropertyName")
            }.filter(attributeNames.contains)
            if !names.isEmpty { indexes.append(IndexDescription(name: name, attributeNames: names)) }
        }
        return indexes
    }

    // MARK: - Properties

    private mutating func attribute(_ name: String, _ object: KeyedArchive.Object, entity: String) throws
        -> AttributeDescription?
    {
        let code = object.integer("NSAttributeType") ?? 0
        guard let type = Self.attributeTypes[code] else {
            notes.append("attribute \(entity).\(name) has attribute type \(code), which ObjectStack has no type for")
            return nil
        }
        var derivation: String?
        if object.className == "NSDerivedAttributeDescription", let expression = object.object("NSDerivationExpression")
        {
            derivation = try ArchivedExpression.derivationFormat(expression)
        }
        var transformer: String?
        if type == .transformable {
            transformer =
                object.string("NSValueTransformerName").flatMap { $0.isEmpty ? nil : $0 }
                ?? ModelContentsReader.defaultValueTransformerName
        }
        let flags = object.integer("NSFlagsKey") ?? 0
        let attribute = AttributeDescription(
            name: name, type: type, isOptional: object.boolean("NSIsOptional") ?? false,
            isTransient: object.boolean("NSIsTransient") ?? false,
            defaultValue: defaultValue(object, type: type),
            valueTransformerName: transformer, derivationExpression: derivation,
            renamingIdentifier: renamingIdentifier(object, name: name),
            versionHashModifier: object.string("NSVersionHashModifier"),
            isIndexed: object.boolean("NSIsIndexed") ?? false,
            preservesValueInHistoryOnDeletion: flags & Self.preserveAfterDeletionFlag != 0)
        attribute.modelFileMetadata.userInfo = userInfo(object)
        return attribute
    }

    /// The archived default value, converted to the attribute's type; nil (no default) for one that does not read.
    private func defaultValue(_ object: KeyedArchive.Object, type: AttributeType) -> StoreValue {
        guard let value = object["NSDefaultValue"] else { return .null }
        let plain = archive.resolved(value)
        var candidate: StoreValue
        switch plain {
        case .integer(let number): candidate = .integer(number)
        case .real(let number): candidate = .double(number)
        case .boolean(let flag): candidate = .boolean(flag)
        case .string(let text): candidate = .string(text)
        case .data(let data): candidate = .data(data)
        case .date(let date): candidate = .date(date)
        case .reference:
            guard let inner = archive.object(value) else { return .null }
            if let text = inner.stringValue {
                candidate = .string(text)
            } else if case .real(let seconds)? = inner.plain("NS.time") {
                candidate = .date(Date(timeIntervalSinceReferenceDate: seconds))
            } else if case .data(let bytes)? = inner.plain("NS.uuidbytes"), bytes.count == 16 {
                candidate = .uuid(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
            } else if let data = inner.dataValue {
                candidate = .data(data)
            } else {
                return .null
            }
        default: return .null
        }
        if type == .decimal, case .string(let text) = candidate,
            let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        {
            candidate = .decimal(decimal)
        }
        return type.coerce(candidate) ?? .null
    }

    private func relationship(_ name: String, _ object: KeyedArchive.Object, entity: String) throws
        -> RelationshipDescription
    {
        let destination =
            object.string("_NSDestinationEntityName") ?? object.object("NSDestinationEntity")?.string("NSEntityName")
        guard let destination else {
            throw KeyedArchive.Error("relationship \(entity).\(name) has no destination entity")
        }
        let inverse =
            object.string("_NSInverseRelationshipName")
            ?? object.object("NSInverseRelationship")?.string("NSPropertyName")
        let maxCount = Int(object.integer("NSMaxCount") ?? 0)
        let relationship = RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: maxCount != 1,
            isOrdered: maxCount != 1 && (object.boolean("NSIsOrdered") ?? false),
            deleteRule: Self.deleteRules[object.integer("NSDeleteRule") ?? 1] ?? .nullify,
            isOptional: object.boolean("NSIsOptional") ?? false,
            // As the model-file reader reads them: counts constrain to-many relationships only.
            minCount: maxCount == 1 ? 0 : Int(object.integer("NSMinCount") ?? 0),
            maxCount: maxCount == 1 ? 0 : maxCount,
            isTransient: object.boolean("NSIsTransient") ?? false,
            renamingIdentifier: renamingIdentifier(object, name: name),
            versionHashModifier: object.string("NSVersionHashModifier"))
        relationship.modelFileMetadata.userInfo = userInfo(object)
        return relationship
    }

    private mutating func fetchedProperty(_ name: String, _ object: KeyedArchive.Object, entity: String)
        -> FetchedPropertyDescription?
    {
        let request = object.object("NSFetchRequest")
        guard
            let destination = object.string("_NSFetchRequestEntityName")
                ?? request?.object("NSEntity")?.string("NSEntityName")
        else {
            notes.append("fetched property \(entity).\(name) names no entity: not read")
            return nil
        }
        guard let predicate = request?.object("NSPredicate") else {
            return FetchedPropertyDescription(name: name, destinationName: destination)
        }
        do {
            let format = try ArchivedExpression.predicateFormat(predicate)
            return FetchedPropertyDescription(
                name: name, destinationName: destination, predicate: try FetchPredicate(format: format))
        } catch {
            notes.append("fetched property \(entity).\(name): its predicate does not read (\(error)): not read")
            return nil
        }
    }

    private mutating func fetchRequestTemplate(_ name: String, _ request: KeyedArchive.Object)
        -> FetchRequestTemplate?
    {
        guard let entityName = request.object("NSEntity")?.string("NSEntityName") ?? request.string("NSEntityName")
        else {
            notes.append("fetch request template \(name) names no entity: not read")
            return nil
        }
        var predicate: FetchPredicate?
        if let archived = request.object("NSPredicate") {
            do {
                predicate = try FetchPredicate(format: try ArchivedExpression.predicateFormat(archived))
            } catch {
                notes.append("fetch request template \(name): its predicate does not read (\(error)): not read")
                return nil
            }
        }
        let resultTypes: [Int64: FetchResultType] = [0: .managedObject, 1: .managedObjectID, 2: .dictionary, 4: .count]
        return FetchRequestTemplate(
            name: name, entityName: entityName, predicate: predicate,
            resultType: resultTypes[request.integer("NSResultType") ?? 0] ?? .managedObject,
            fetchLimit: Int(request.integer("NSFetchLimit") ?? 0),
            fetchBatchSize: Int(request.integer("NSBatchSize") ?? 0))
    }
}

extension ManagedObjectModel {
    /// Decodes a model from a keyed archive of an `NSManagedObjectModel`, such as the model cache of a store Core
    /// Data wrote (`Z_MODELCACHE`, once inflated) or a model copy in a mapping model.
    ///
    /// For example:
    /// ```swift
    /// let model = try ManagedObjectModel(archivedModel: cacheData)
    /// ```
    /// Entities, attributes (their types, optionality, defaults, derivations, transformer names), relationships,
    /// uniqueness constraints, indexes, configurations, fetched properties and fetch request templates are read; a
    /// property of a kind ObjectStack has no counterpart for is left out.
    /// - Throws: `KeyedArchive.Error` when the data is not an archived model; `ObjectStackError` when the model
    ///   it describes does not build.
    public convenience init(archivedModel data: Data) throws {
        var decoder = ArchivedModelDecoder(archive: try KeyedArchive(data: data))
        let contents = try decoder.decode()
        try self.init(
            entities: contents.entities, configurations: contents.configurations,
            fetchRequestTemplates: contents.fetchRequestTemplates)
    }
}
