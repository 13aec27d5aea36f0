import Foundation

/// Reads one model version's XML `contents` file into the parts of a `ManagedObjectModel`.
///
/// The reader knows the vocabulary Xcode writes (surveyed from real models; the DocC article "Model files" lists
/// it). What changes behaviour is honoured; what does not — `<userInfo>`, Spotlight, CloudKit, sync and
/// code-generation flags, tool versions — is kept as written in `ModelFileMetadata`; diagram layout
/// (`<elements>`) is skipped. An XML attribute or element it does not know, and a feature it loads only in part,
/// is a `ModelFileWarning` (strict reading: a `ModelFileError`). A value it cannot read, a reference to an entity
/// or property that does not exist, and a feature the stack cannot load at all throw a `ModelFileError` naming
/// the file, the element and its line.
struct ModelContentsReader {
    /// The `contents` file, as errors name it.
    let file: String
    /// Classes for entities by entity name; the others get `ManagedObject`.
    let classes: [String: ManagedObject.Type]
    /// Whether a warning refuses the file.
    let options: ModelFileOptions

    var counts = ModelElementCounts()
    var warnings: [ModelFileWarning] = []
    /// Index approximations that change speed, not results: never refused, even under strict reading.
    var notes: [ModelFileWarning] = []
    /// Where each entity ("Entity") and property ("Entity.property") is declared, to put a line on errors
    /// that only building the model finds (an invalid derivation, say).
    private var declarations: [String: (line: Int, label: String)] = [:]
    /// The entities' elements by name, read before any entity so references can be checked in any order.
    var entityElements: [String: ModelXMLElement] = [:]
    /// The model's `<composite>` declarations by name (Xcode 15's composite attributes).
    var compositeElements: [String: ModelXMLElement] = [:]

    init(file: String, classes: [String: ManagedObject.Type], options: ModelFileOptions = .lenient) {
        self.file = file
        self.classes = classes
        self.options = options
    }

    /// What a version declares, ready for `ManagedObjectModel.init(entities:configurations:fetchRequestTemplates:)`,
    /// and what the `<model>` element says besides.
    struct Contents {
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var fetchRequestTemplates: [FetchRequestTemplate] = []
        /// `userDefinedModelVersionIdentifier`, when not empty.
        var versionIdentifier: String?
        /// The `<model>` element's other attributes (tool versions, language, CloudKit and SwiftData flags).
        var modelMetadata = ModelFileMetadata()
        /// Each configuration's attributes (`usedWithCloudKit`), by configuration name.
        var configurationMetadata: [String: ModelFileMetadata] = [:]
    }

    // MARK: - Vocabulary

    static let modelAttributes: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "macOSVersion", "iOSVersion", "name", "usedWithCloudKit", "usedWithSwiftData",
    ]

    /// Reads a parsed `contents` document.
    mutating func read(_ root: ModelXMLElement) throws -> Contents {
        guard root.name == "model" else {
            throw error(root, "the root element is <\(root.name)>, not <model>: not a Core Data model file")
        }
        var contents = Contents()
        contents.modelMetadata = try keep(
            root, honoured: ["userDefinedModelVersionIdentifier"], kept: Self.modelAttributes)
        contents.versionIdentifier = root.attributes["userDefinedModelVersionIdentifier"].flatMap {
            $0.isEmpty ? nil : $0
        }
        for child in root.children where child.name == "entity" {
            let name = try required(child, "name")
            guard entityElements.updateValue(child, forKey: name) == nil else {
                throw error(child, "entity \(name) is declared twice")
            }
        }
        for child in root.children where child.name == "composite" {
            compositeElements[try required(child, "name")] = child
        }
        for child in root.children {
            switch child.name {
            case "entity": contents.entities.append(try readEntity(child))
            case "fetchRequest":
                contents.fetchRequestTemplates.append(try readFetchRequest(child, template: true))
                counts.fetchRequests += 1
            case "configuration":
                let (name, members, metadata) = try readConfiguration(child)
                guard contents.configurations.updateValue(members, forKey: name) == nil else {
                    throw error(child, "configuration \(name) is declared twice")
                }
                if !metadata.isEmpty { contents.configurationMetadata[name] = metadata }
                counts.configurations += 1
            case "composite": try readComposite(child)
            case "elements": continue  // diagram layout
            default: try warnUnknown(child, in: "<model>")
            }
        }
        return contents
    }

    // MARK: - Entities

    private static let entityHonoured: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "elementID", "renamingID", "versionHashModifier",
    ]
    private static let entityKept: Set<String> = [
        "codeGenerationType", "syncable", "coreSpotlightDisplayNameExpression",
    ]

    private mutating func readEntity(_ element: ModelXMLElement) throws -> EntityDescription {
        let metadata = try keep(element, honoured: Self.entityHonoured, kept: Self.entityKept)
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
        var composites: [CompositeAttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var indexes: [IndexDescription] = []
        var constraints: [[String]] = []
        for child in element.children {
            let key = "\(name).\(child.attributes["name"] ?? "")"
            switch child.name {
            case "attribute":
                declarations[key] = (child.line, child.label)
                counts.attributes += 1
                if child.attributes["attributeType"] == "Composite" {
                    composites.append(try readCompositeAttribute(child, entity: name))
                } else if let attribute = try readAttribute(child, entity: name) {
                    attributes.append(attribute)
                }
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
            case "userInfo": continue  // read by keep(_:honoured:kept:)
            default:
                try warnUnknown(child, in: "entity \(name)")
            }
        }
        let entity = EntityDescription(
            name: name,
            managedObjectClass: classes[name] ?? ManagedObject.self,
            parent: parent,
            isAbstract: isAbstract,
            attributes: attributes,
            compositeAttributes: composites,
            relationships: relationships,
            uniquenessConstraints: constraints,
            indexes: indexes,
            renamingIdentifier: renamingIdentifier(element),
            versionHashModifier: element.attributes["versionHashModifier"],
            fetchedProperties: fetchedProperties,
            representedClassName: element.attributes["representedClassName"])
        entity.modelFileMetadata = metadata
        return entity
    }

    private mutating func readConfiguration(
        _ element: ModelXMLElement
    ) throws -> (String, [String], ModelFileMetadata) {
        let metadata = try keep(element, honoured: ["name"], kept: ["usedWithCloudKit"])
        let name = try required(element, "name")
        var members: [String] = []
        for child in element.children {
            guard child.name == "memberEntity" else {
                try warnUnknown(child, in: "configuration \(name)")
                continue
            }
            try check(child, known: ["name"])
            let member = try required(child, "name")
            guard entityElements[member] != nil else {
                throw error(child, "configuration \(name) names unknown entity \(member)")
            }
            members.append(member)
        }
        return (name, members, metadata)
    }

    /// An entity's attribute of type `Composite`: the `<composite>` it names, its elements read as attributes (an
    /// element of type `Composite` as a nested composite).
    mutating func readCompositeAttribute(_ element: ModelXMLElement, entity: String, depth: Int = 0) throws
        -> CompositeAttributeDescription
    {
        let metadata = try keep(element, honoured: Self.compositeHonoured, kept: Self.compositeKept)
        let name = try required(element, "name")
        let owner = "\(entity).\(name)"
        guard let compositeName = element.attributes["composite"], !compositeName.isEmpty else {
            throw error(element, "composite attribute \(owner) names no composite (composite=\"…\")")
        }
        guard let definition = compositeElements[compositeName] else {
            throw error(
                element,
                "composite attribute \(owner) names composite \(compositeName), which the model does not declare")
        }
        guard depth < 16 else {
            throw error(
                element,
                "composite attribute \(owner) nests composites more than 16 deep (a composite that contains itself?)")
        }
        var elements: [AttributeDescription] = []
        var nested: [CompositeAttributeDescription] = []
        for child in definition.children where child.name == "attribute" {
            if child.attributes["attributeType"] == "Composite" {
                nested.append(try readCompositeAttribute(child, entity: owner, depth: depth + 1))
            } else if let attribute = try readAttribute(child, entity: owner) {
                elements.append(attribute)
            }
        }
        let composite = CompositeAttributeDescription(
            name: name, elements: elements, composites: nested, isOptional: try bool(element, "optional"),
            isTransient: try bool(element, "transient"), renamingIdentifier: renamingIdentifier(element),
            versionHashModifier: element.attributes["versionHashModifier"])
        composite.modelFileMetadata = metadata
        return composite
    }

    private static let compositeHonoured: Set<String> = [
        "name", "attributeType", "composite", "optional", "transient", "elementID", "renamingID", "versionHashModifier",
    ]
    private static let compositeKept: Set<String> = ["syncable", "usesScalarValueType", "spotlightIndexingEnabled"]

    /// A `<composite>`: the attributes a composite attribute groups. Checked for the vocabulary here; its elements
    /// are read with each attribute that names it (`readCompositeAttribute`).
    private mutating func readComposite(_ element: ModelXMLElement) throws {
        try check(element, known: ["name"])
        for child in element.children where child.name != "attribute" && child.name != "userInfo" {
            try warnUnknown(child, in: "composite \(element.attributes["name"] ?? "")")
        }
    }

    // MARK: - Fetch requests

    private static let templateHonoured: Set<String> = [
        "name", "entity", "predicateString", "resultType", "includeSubentities", "includesPendingChanges",
        "returnObjectsAsFaults", "returnDistinctResults", "fetchLimit", "fetchBatchSize", "includePropertyValues",
    ]

    /// A `<fetchRequest>`: a template under `<model>`, or (`template` false) the request of a fetched property,
    /// which Xcode writes with a name, an entity and a predicate only.
    ///
    /// Absent flags take NSFetchRequest's defaults (sub-entities, pending changes, property values and faults
    /// included; no limit, no batches).
    mutating func readFetchRequest(_ element: ModelXMLElement, template: Bool) throws -> FetchRequestTemplate {
        let metadata = try keep(
            element, honoured: template ? Self.templateHonoured : ["name", "entity", "predicateString"], kept: [])
        let name = try required(element, "name")
        let entity = try required(element, "entity")
        guard entityElements[entity] != nil else {
            throw error(element, "fetch request \(name) names unknown entity \(entity)")
        }
        for child in element.children where child.name != "userInfo" {
            try warnUnknown(child, in: "fetch request \(name)")
        }
        let resultType: FetchResultType
        switch element.attributes["resultType"] ?? "0" {
        case "0": resultType = .managedObject
        case "1": resultType = .managedObjectID
        case "2": resultType = .dictionary
        case "4": resultType = .count
        case let other: throw error(element, "fetch request \(name) has unknown resultType '\(other)'")
        }
        var request = FetchRequestTemplate(
            name: name,
            entityName: entity,
            predicate: try predicate(element, owner: "fetch request \(name)"),
            resultType: resultType,
            includesSubentities: try bool(element, "includeSubentities", default: true),
            includesPendingChanges: try bool(element, "includesPendingChanges", default: true),
            returnsObjectsAsFaults: try bool(element, "returnObjectsAsFaults", default: true),
            returnsDistinctResults: try bool(element, "returnDistinctResults"),
            fetchLimit: try integer(element, "fetchLimit"),
            fetchBatchSize: try integer(element, "fetchBatchSize"),
            includesPropertyValues: try bool(element, "includePropertyValues", default: true))
        request.modelFileMetadata = metadata
        return request
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

    /// Warns of (strict: refuses) an XML attribute outside `known`.
    mutating func check(_ element: ModelXMLElement, known: Set<String>) throws {
        _ = try keep(element, honoured: known, kept: [])
    }

    /// The element's `kept` attributes and its `<userInfo>` entries; every attribute outside `honoured` and
    /// `kept` is warned of (strict: refused) and kept too, so nothing written is lost.
    mutating func keep(
        _ element: ModelXMLElement, honoured: Set<String>, kept: Set<String>
    ) throws -> ModelFileMetadata {
        var metadata = ModelFileMetadata()
        for name in element.attributes.keys.sorted() where !honoured.contains(name) {
            let value = element.attributes[name] ?? ""
            if !kept.contains(name) {
                try warn(
                    element, "unknown attribute \(name)=\"\(value)\" on <\(element.name)>: not read, kept as written")
            }
            metadata.attributes[name] = value
        }
        for userInfo in element.children where userInfo.name == "userInfo" {
            try check(userInfo, known: [])
            for entry in userInfo.children {
                guard entry.name == "entry" else {
                    try warnUnknown(entry, in: "<userInfo>")
                    continue
                }
                try check(entry, known: ["key", "value"])
                if let key = entry.attributes["key"] { metadata.userInfo[key] = entry.attributes["value"] ?? "" }
            }
        }
        return metadata
    }

    /// A warning on an element: collected, or under strict reading thrown as a `ModelFileError`.
    mutating func warn(_ element: ModelXMLElement, _ message: String) throws {
        guard !options.isStrict else {
            throw ModelFileError(
                file: file, line: element.line, element: element.label, reason: message + " (strict reading)")
        }
        warnings.append(ModelFileWarning(file: file, line: element.line, element: element.label, message: message))
    }

    /// A note on an element: an index loaded in part (a relationship, expression or R-tree element), which changes
    /// how fast a fetch runs, never what it returns; strict reading does not refuse it.
    mutating func note(_ element: ModelXMLElement, _ message: String) {
        notes.append(ModelFileWarning(file: file, line: element.line, element: element.label, message: message))
    }

    /// Warns of (strict: refuses) an element the reader does not know, which is skipped.
    mutating func warnUnknown(_ element: ModelXMLElement, in owner: String) throws {
        try warn(element, "unknown element <\(element.name)> in \(owner): skipped")
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
}
