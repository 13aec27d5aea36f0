import Foundation

/// Reads one model version's XML `contents` file into the parts of a `ManagedObjectModel`.
///
/// Every element and attribute Xcode writes is recognised; one the reader does not know, a value it cannot
/// read, a reference to an entity or property that does not exist, and a feature the stack does not support
/// throw a `ModelFileError` naming the file, the element and its line. What carries no model meaning is
/// read and left: diagram layout (`<elements>`), `<userInfo>`, `syncable`, `codeGenerationType`,
/// `usesScalarValueType`, `customClassName`, `preserveAfterDeletion` and the tool versions on `<model>`.
/// A fetch index's sort order is read but not kept (stores scan an index either way; results are the same).
struct ModelContentsReader {
    /// The `contents` file, as errors name it.
    let file: String
    /// Classes for entities by entity name; the others get `ManagedObject`.
    let classes: [String: ManagedObject.Type]

    var counts = ModelElementCounts()
    var warnings: [ModelFileWarning] = []
    /// Where each entity ("Entity") and property ("Entity.property") is declared, to put a line on errors
    /// that only building the model finds (an invalid derivation, say).
    private var declarations: [String: (line: Int, label: String)] = [:]
    /// The entities' elements by name, read before any entity so references can be checked in any order.
    var entityElements: [String: ModelXMLElement] = [:]

    init(file: String, classes: [String: ManagedObject.Type]) {
        self.file = file
        self.classes = classes
    }

    /// What a version declares, ready for `ManagedObjectModel.init(entities:configurations:fetchRequestTemplates:)`.
    struct Contents {
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var fetchRequestTemplates: [FetchRequestTemplate] = []
    }

    /// Reads a parsed `contents` document.
    mutating func read(_ root: ModelXMLElement) throws -> Contents {
        guard root.name == "model" else {
            throw error(root, "the root element is <\(root.name)>, not <model>: not a Core Data model file")
        }
        for child in root.children where child.name == "entity" {
            let name = try required(child, "name")
            guard entityElements.updateValue(child, forKey: name) == nil else {
                throw error(child, "entity \(name) is declared twice")
            }
        }
        var contents = Contents()
        for child in root.children {
            switch child.name {
            case "entity": contents.entities.append(try readEntity(child))
            case "fetchRequest":
                try check(child, known: Self.fetchRequestAttributes)
                contents.fetchRequestTemplates.append(try readFetchRequest(child))
                counts.fetchRequests += 1
            case "configuration":
                let (name, members) = try readConfiguration(child)
                guard contents.configurations.updateValue(members, forKey: name) == nil else {
                    throw error(child, "configuration \(name) is declared twice")
                }
                counts.configurations += 1
            case "elements": continue  // diagram layout
            default: throw error(child, "unknown element <\(child.name)> in <model>")
            }
        }
        return contents
    }

    // MARK: - Entities

    private static let entityAttributes: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "elementID", "renamingID",
        "versionHashModifier", "codeGenerationType", "syncable",
    ]

    private mutating func readEntity(_ element: ModelXMLElement) throws -> EntityDescription {
        try check(element, known: Self.entityAttributes)
        let name = try required(element, "name")
        declarations[name] = (element.line, element.label)
        let parent = element.attributes["parentEntity"]
        if let parent, entityElements[parent] == nil {
            throw error(element, "entity \(name) names unknown parent entity \(parent)")
        }
        let isAbstract = try bool(element, "isAbstract")
        counts.entities += 1
        if isAbstract { counts.abstractEntities += 1 }
        if parent != nil { counts.subentities += 1 }

        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var indexes: [IndexDescription] = []
        var constraints: [[String]] = []
        for child in element.children {
            let key = "\(name).\(child.attributes["name"] ?? "")"
            switch child.name {
            case "attribute":
                declarations[key] = (child.line, child.label)
                attributes.append(try readAttribute(child, entity: name))
                counts.attributes += 1
            case "relationship":
                declarations[key] = (child.line, child.label)
                relationships.append(try readRelationship(child, entity: name))
                counts.relationships += 1
            case "fetchedProperty":
                declarations[key] = (child.line, child.label)
                fetchedProperties.append(try readFetchedProperty(child, entity: name))
                counts.fetchedProperties += 1
            case "fetchIndex":
                if let index = try readFetchIndex(child, entity: name) { indexes.append(index) }
                counts.fetchIndexes += 1
            case "compoundIndexes":
                indexes += try readCompoundIndexes(child, entity: name)
            case "uniquenessConstraints":
                let read = try readUniquenessConstraints(child, entity: name)
                constraints += read
                counts.uniquenessConstraints += read.count
            case "userInfo":
                try checkUserInfo(child)
            default:
                throw error(child, "unknown element <\(child.name)> in entity \(name)")
            }
        }
        return EntityDescription(
            name: name,
            managedObjectClass: classes[name] ?? ManagedObject.self,
            parent: parent,
            isAbstract: isAbstract,
            attributes: attributes,
            relationships: relationships,
            uniquenessConstraints: constraints,
            indexes: indexes,
            renamingIdentifier: renamingIdentifier(element),
            versionHashModifier: element.attributes["versionHashModifier"],
            fetchedProperties: fetchedProperties,
            representedClassName: element.attributes["representedClassName"])
    }

    private mutating func readConfiguration(_ element: ModelXMLElement) throws -> (String, [String]) {
        try check(element, known: ["name"])
        let name = try required(element, "name")
        var members: [String] = []
        for child in element.children {
            guard child.name == "memberEntity" else {
                throw error(child, "unknown element <\(child.name)> in configuration \(name)")
            }
            try check(child, known: ["name"])
            let member = try required(child, "name")
            guard entityElements[member] != nil else {
                throw error(child, "configuration \(name) names unknown entity \(member)")
            }
            members.append(member)
        }
        return (name, members)
    }

    // MARK: - Fetch requests

    static let fetchRequestAttributes: Set<String> = [
        "name", "entity", "predicateString", "resultType", "includeSubentities", "includePropertyValues",
        "includesPendingChanges", "returnObjectsAsFaults", "returnDistinctResults",
    ]

    /// A `<fetchRequest>`: a template under `<model>`, or the request of a fetched property.
    ///
    /// Absent flags take NSFetchRequest's defaults (sub-entities, pending changes and faults included).
    mutating func readFetchRequest(_ element: ModelXMLElement) throws -> FetchRequestTemplate {
        let name = try required(element, "name")
        let entity = try required(element, "entity")
        guard entityElements[entity] != nil else {
            throw error(element, "fetch request \(name) names unknown entity \(entity)")
        }
        for child in element.children where child.name != "userInfo" {
            throw error(child, "unknown element <\(child.name)> in fetch request \(name)")
        }
        let resultType: FetchResultType
        switch element.attributes["resultType"] ?? "0" {
        case "0": resultType = .managedObject
        case "1": resultType = .managedObjectID
        case "2": resultType = .dictionary
        case "4": resultType = .count
        case let other: throw error(element, "fetch request \(name) has unknown resultType '\(other)'")
        }
        return FetchRequestTemplate(
            name: name,
            entityName: entity,
            predicate: try predicate(element, owner: "fetch request \(name)"),
            resultType: resultType,
            includesSubentities: try bool(element, "includeSubentities", default: true),
            includesPendingChanges: try bool(element, "includesPendingChanges", default: true),
            returnsObjectsAsFaults: try bool(element, "returnObjectsAsFaults", default: true),
            returnsDistinctResults: try bool(element, "returnDistinctResults"))
    }

    func predicate(_ element: ModelXMLElement, owner: String) throws -> FetchPredicate? {
        guard let text = element.attributes["predicateString"], !text.isEmpty else { return nil }
        do {
            return try FetchPredicate(format: text)
        } catch let failure as ObjectStackError {
            throw ModelFileError(
                file: file, line: element.line, element: element.label,
                reason: "\(owner) has a predicate that does not parse: \(failure.message)", cause: failure)
        }
    }

    // MARK: - Errors from building the model

    /// An error of `ManagedObjectModel.init` as a model file error, on the line of the property or entity
    /// it names.
    func error(building failure: any Error) -> ModelFileError {
        let message = (failure as? ObjectStackError)?.message ?? "\(failure)"
        // The longest declared name the message mentions: "Book.author" before "Book".
        let culprit = declarations.keys
            .filter {
                message.range(of: "\\b\(NSRegularExpression.escapedPattern(for: $0))\\b", options: .regularExpression)
                    != nil
            }
            .max { $0.count < $1.count }
        let place = culprit.flatMap { declarations[$0] }
        return ModelFileError(
            file: file, line: place?.line, element: place?.label ?? "model", reason: message, cause: failure)
    }

    // MARK: - Attribute access

    /// An error on an element.
    func error(_ element: ModelXMLElement, _ reason: String) -> ModelFileError {
        ModelFileError(file: file, line: element.line, element: element.label, reason: reason)
    }

    /// Rejects an XML attribute the reader does not know, so nothing is silently dropped.
    func check(_ element: ModelXMLElement, known: Set<String>) throws {
        for name in element.attributes.keys.sorted() where !known.contains(name) {
            throw error(element, "unknown attribute \(name)=\"\(element.attributes[name] ?? "")\" on <\(element.name)>")
        }
    }

    func required(_ element: ModelXMLElement, _ name: String) throws -> String {
        guard let value = element.attributes[name], !value.isEmpty else {
            throw error(element, "<\(element.name)> has no \(name)")
        }
        return value
    }

    /// A `YES`/`NO` attribute; absent means `defaultValue`.
    func bool(_ element: ModelXMLElement, _ name: String, default defaultValue: Bool = false) throws -> Bool {
        switch element.attributes[name] {
        case nil: return defaultValue
        case "YES"?: return true
        case "NO"?: return false
        case let other?: throw error(element, "\(name)=\"\(other)\" is neither YES nor NO")
        }
    }

    /// A whole-number attribute; absent means `defaultValue`.
    func integer(_ element: ModelXMLElement, _ name: String, default defaultValue: Int = 0) throws -> Int {
        guard let text = element.attributes[name] else { return defaultValue }
        guard let value = Int(text), value >= 0 else { throw error(element, "\(name)=\"\(text)\" is not a count") }
        return value
    }

    /// The renaming identifier: Xcode's "Renaming ID" field, written as `elementID` (`renamingID` is
    /// accepted too, in case a tool writes Core Data's property name).
    func renamingIdentifier(_ element: ModelXMLElement) -> String? {
        element.attributes["renamingID"] ?? element.attributes["elementID"]
    }

    func checkUserInfo(_ element: ModelXMLElement) throws {
        for entry in element.children {
            guard entry.name == "entry" else { throw error(entry, "unknown element <\(entry.name)> in <userInfo>") }
            try check(entry, known: ["key", "value"])
        }
    }
}
