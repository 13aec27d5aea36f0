import Foundation

extension ModelContentsReader {
    // MARK: - Attributes

    private static let attributeHonoured: Set<String> = [
        "name", "attributeType", "optional", "transient", "defaultValueString", "defaultDateTimeInterval", "indexed",
        "elementID", "renamingID", "versionHashModifier", "minValueString", "maxValueString", "minDateTimeInterval",
        "maxDateTimeInterval", "regularExpressionString", "valueTransformerName", "derived", "derivationExpression",
        "composite",
    ]
    private static let attributeKept: Set<String> = [
        "usesScalarValueType", "customClassName", "preserveAfterDeletion", "syncable", "spotlightIndexingEnabled",
        "storedInTruthFile", "allowsExternalBinaryDataStorage", "allowsCloudEncryption",
    ]

    /// Xcode's attribute type names.
    private static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64, "Decimal": .decimal,
        "Double": .double, "Float": .float, "String": .string, "Boolean": .boolean, "Date": .date,
        "Binary": .binaryData, "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
    ]

    /// Types Xcode writes that ObjectStack has no attribute type for: such an attribute is warned of and not loaded.
    private static let unloadedTypes: [String: String] = [
        "Undefined": "Core Data allows it on transient attributes only, for values the app computes",
        "Object ID": "Core Data uses it for expression results, not stored attributes",
        "ObjectID": "Core Data uses it for expression results, not stored attributes",
    ]

    /// The transformer Core Data uses for a transformable attribute that names none.
    static let defaultValueTransformerName = "NSKeyedUnarchiveFromData"

    /// An attribute, or nil for one of a type ObjectStack cannot load (warned of).
    mutating func readAttribute(_ element: ModelXMLElement, entity: String) throws -> AttributeDescription? {
        let metadata = try keep(element, honoured: Self.attributeHonoured, kept: Self.attributeKept)
        let name = try required(element, "name")
        let typeName = try required(element, "attributeType")
        for child in element.children where child.name != "userInfo" {
            try warnUnknown(child, in: "attribute \(entity).\(name)")
        }
        guard let type = Self.attributeTypes[typeName] else {
            if let why = Self.unloadedTypes[typeName] {
                try warn(
                    element,
                    "attribute \(entity).\(name) has type \(typeName), which ObjectStack has no attribute type for "
                        + "(\(why)): not loaded")
                return nil
            }
            throw error(
                element,
                "attribute \(entity).\(name) has type '\(typeName)', which ObjectStack does not support "
                    + "(supported: \(Self.attributeTypes.keys.sorted().joined(separator: ", ")))")
        }
        var derivation: String?
        if try bool(element, "derived") {
            guard let expression = element.attributes["derivationExpression"], !expression.isEmpty else {
                throw error(element, "derived attribute \(entity).\(name) has no derivationExpression")
            }
            derivation = expression
        }
        var transformer: String?
        if type == .transformable {
            transformer =
                element.attributes["valueTransformerName"].flatMap { $0.isEmpty ? nil : $0 }
                ?? Self.defaultValueTransformerName
        }
        let attribute = AttributeDescription(
            name: name,
            type: type,
            isOptional: try bool(element, "optional"),
            isTransient: try bool(element, "transient"),
            defaultValue: try defaultValue(element, type: type, owner: "\(entity).\(name)"),
            valueTransformerName: transformer,
            derivationExpression: derivation,
            renamingIdentifier: renamingIdentifier(element),
            versionHashModifier: element.attributes["versionHashModifier"],
            isIndexed: try bool(element, "indexed"),
            minimumValue: try bound(element, minimum: true, type: type),
            maximumValue: try bound(element, minimum: false, type: type),
            regularExpression: try pattern(element, type: type))
        var kept = metadata
        // A date's range is honoured from the seconds; the strings beside them are how Xcode shows the dates.
        if type == .date {
            for key in ["minValueString", "maxValueString", "defaultValueString"] {
                if let text = element.attributes[key] { kept.attributes[key] = text }
            }
        }
        attribute.modelFileMetadata = kept
        return attribute
    }

    private func defaultValue(_ element: ModelXMLElement, type: AttributeType, owner: String) throws -> StoreValue {
        if let seconds = element.attributes["defaultDateTimeInterval"] {
            guard type == .date, let interval = Double(seconds) else {
                throw error(
                    element, "defaultDateTimeInterval=\"\(seconds)\" of \(owner) is not seconds of a date attribute")
            }
            return .date(Date(timeIntervalSinceReferenceDate: interval))
        }
        guard let text = element.attributes["defaultValueString"] else { return .null }
        let value: StoreValue?
        switch type {
        case .integer16, .integer32, .integer64:
            value = Int64(text).map(StoreValue.integer) ?? Double(text).flatMap { type.coerce(.double($0)) }
        case .double, .float: value = Double(text).map(StoreValue.double)
        case .decimal: value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal)
        case .boolean:
            switch text {
            case "YES", "yes", "true", "TRUE", "1": value = .boolean(true)
            case "NO", "no", "false", "FALSE", "0": value = .boolean(false)
            default: value = nil
            }
        case .string: value = .string(text)
        case .date:
            // Xcode writes defaultDateTimeInterval (read above) beside a date string for display: a string alone
            // is read as seconds when it is a number.
            value = Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .uuid: value = UUID(uuidString: text).map(StoreValue.uuid)
        case .uri: value = URL(string: text).map(StoreValue.uri)
        case .binaryData, .transformable:
            throw error(
                element,
                "\(owner) is a \(type.rawValue) attribute with a default value, which ObjectStack does not support")
        }
        guard let value, type.coerce(value) != nil else {
            throw error(element, "default value '\(text)' of \(owner) is not a valid \(type.rawValue)")
        }
        return value
    }

    /// A minimum or maximum: of the value for numbers, of the length for strings and data, and for dates the
    /// seconds since 2001 of `minDateTimeInterval`/`maxDateTimeInterval` (Xcode's date range, validated at save as
    /// Core Data does).
    private func bound(_ element: ModelXMLElement, minimum: Bool, type: AttributeType) throws -> Double? {
        let name =
            type == .date
            ? (minimum ? "minDateTimeInterval" : "maxDateTimeInterval")
            : (minimum ? "minValueString" : "maxValueString")
        guard let text = element.attributes[name] else { return nil }
        guard type != .boolean, type != .uuid, type != .uri, type != .transformable else {
            throw error(element, "\(name) on a \(type.rawValue) attribute is not supported")
        }
        guard let value = Double(text) else { throw error(element, "\(name)=\"\(text)\" is not a number") }
        return value
    }

    private func pattern(_ element: ModelXMLElement, type: AttributeType) throws -> String? {
        guard let text = element.attributes["regularExpressionString"] else { return nil }
        guard type == .string else {
            throw error(element, "regularExpressionString on a \(type.rawValue) attribute is not supported")
        }
        guard (try? NSRegularExpression(pattern: text)) != nil else {
            throw error(element, "regularExpressionString \"\(text)\" is not a valid regular expression")
        }
        return text
    }

    // MARK: - Relationships

    private static let relationshipHonoured: Set<String> = [
        "name", "destinationEntity", "inverseName", "inverseEntity", "toMany", "ordered", "optional", "minCount",
        "maxCount", "deletionRule", "transient", "elementID", "renamingID", "versionHashModifier",
    ]
    /// `indexed="YES"` needs nothing more: stores index every to-one reference.
    private static let relationshipKept: Set<String> = [
        "indexed", "syncable", "spotlightIndexingEnabled", "storedInTruthFile",
    ]

    private static let deleteRules: [String: DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    /// A relationship.
    mutating func readRelationship(_ element: ModelXMLElement, entity: String) throws -> RelationshipDescription {
        let metadata = try keep(element, honoured: Self.relationshipHonoured, kept: Self.relationshipKept)
        let name = try required(element, "name")
        let owner = "relationship \(entity).\(name)"
        for child in element.children where child.name != "userInfo" {
            try warnUnknown(child, in: owner)
        }
        let destination = try required(element, "destinationEntity")
        guard entityElements[destination] != nil else {
            throw error(element, "\(owner) names unknown destination entity \(destination)")
        }
        let ruleName = element.attributes["deletionRule"] ?? "Nullify"
        guard let rule = Self.deleteRules[ruleName] else {
            throw error(
                element, "\(owner) has unknown delete rule '\(ruleName)' (known: Nullify, Cascade, Deny, No Action)")
        }
        let inverseName = element.attributes["inverseName"]
        if let inverseEntity = element.attributes["inverseEntity"] {
            guard entityElements[inverseEntity] != nil else {
                throw error(element, "\(owner) names unknown inverse entity \(inverseEntity)")
            }
            guard inverseEntity == destination else {
                throw error(element, "\(owner) has inverse entity \(inverseEntity), not its destination \(destination)")
            }
            guard inverseName != nil else {
                throw error(element, "\(owner) names an inverse entity but no inverseName")
            }
        }
        if let named = inverseName {
            let inverseName = named
            guard element.attributes["inverseEntity"] != nil else {
                throw error(element, "\(owner) names inverse \(inverseName) but no inverseEntity")
            }
            guard let inverse = property(inverseName, in: destination), inverse.name == "relationship" else {
                throw error(element, "\(owner) names unknown inverse relationship \(destination).\(inverseName)")
            }
            // Xcode saves an inverse that does not reciprocate with only a build warning ("Misconfigured Inverse"),
            // and real models carry one (artsy's ArtsyFolio): the relationship loads without an inverse.
            if inverse.attributes["inverseName"] != name {
                try warn(
                    element,
                    "\(owner) has inverse \(destination).\(inverseName), whose inverse is "
                        + (inverse.attributes["inverseName"].map { "\($0)" } ?? "not set")
                        + ", not \(name): a misconfigured inverse, loaded without one")
                // The other side keeps its own inverse; this one loads without.
                return try relationship(element, entity: entity, inverse: nil, rule: rule, metadata: metadata)
            }
        }
        return try relationship(element, entity: entity, inverse: inverseName, rule: rule, metadata: metadata)
    }

    private func relationship(
        _ element: ModelXMLElement, entity: String, inverse inverseName: String?, rule: DeleteRule,
        metadata: ModelFileMetadata
    ) throws -> RelationshipDescription {
        let name = try required(element, "name")
        let destination = try required(element, "destinationEntity")
        let isToMany = try bool(element, "toMany")
        let isOrdered = try bool(element, "ordered")
        let relationship = RelationshipDescription(
            name: name,
            destination: destination,
            inverse: inverseName,
            isToMany: isToMany,
            isOrdered: isToMany && isOrdered,
            deleteRule: rule,
            isOptional: try bool(element, "optional"),
            // A to-one is written with maxCount="1" (and sometimes minCount="1" while optional): counts
            // constrain to-many relationships only.
            minCount: isToMany ? try integer(element, "minCount") : 0,
            maxCount: isToMany ? try integer(element, "maxCount") : 0,
            isTransient: try bool(element, "transient"),
            renamingIdentifier: renamingIdentifier(element),
            versionHashModifier: element.attributes["versionHashModifier"])
        relationship.modelFileMetadata = metadata
        return relationship
    }

    /// The element declaring a property of an entity or one of its ancestors.
    func property(_ name: String, in entity: String) -> ModelXMLElement? {
        var current: String? = entity
        var seen: Set<String> = []
        while let entityName = current, seen.insert(entityName).inserted, let element = entityElements[entityName] {
            if let found = element.children.first(where: {
                ["attribute", "relationship", "fetchedProperty"].contains($0.name) && $0.attributes["name"] == name
            }) {
                return found
            }
            current = element.attributes["parentEntity"]
        }
        return nil
    }

    // MARK: - Fetched properties

    mutating func readFetchedProperty(_ element: ModelXMLElement, entity: String) throws -> FetchedPropertyDescription {
        let metadata = try keep(
            element, honoured: ["name"],
            kept: ["optional", "transient", "elementID", "renamingID", "versionHashModifier", "syncable"])
        let name = try required(element, "name")
        let requests = element.children.filter { $0.name == "fetchRequest" }
        for child in element.children where child.name != "fetchRequest" && child.name != "userInfo" {
            try warnUnknown(child, in: "fetched property \(entity).\(name)")
        }
        guard requests.count == 1, let request = requests.first else {
            throw error(
                element, "fetched property \(entity).\(name) needs exactly one <fetchRequest>, has \(requests.count)")
        }
        let template = try readFetchRequest(request, template: false)
        var property = FetchedPropertyDescription(
            name: name, destinationName: template.entityName, predicate: template.predicate)
        property.modelFileMetadata = metadata
        return property
    }

    // MARK: - Indexes and constraints

    /// A `<fetchIndex>`: an index over its property elements, nil when none is an attribute. The sort order is read
    /// but not kept (stores scan an index either way; results are the same).
    mutating func readFetchIndex(_ element: ModelXMLElement, entity: String) throws -> IndexDescription? {
        try check(element, known: ["name"])
        let name = try required(element, "name")
        let owner = "fetch index \(entity).\(name)"
        var attributeNames: [String] = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else {
                try warnUnknown(child, in: owner)
                continue
            }
            try check(child, known: ["property", "expression", "expressionType", "type", "order"])
            let label = child.label
            let type = child.attributes["type"] ?? "Binary"
            switch type {
            case "Binary": break
            case "RTree":
                note(child, "\(owner) has an R-tree element: indexed as a binary index (the same results)")
            default:
                throw ModelFileError(
                    file: file, line: child.line, element: label,
                    reason: "\(owner) has an index element of unknown type '\(type)' (known: Binary, RTree)")
            }
            let order = child.attributes["order"] ?? "ascending"
            guard order == "ascending" || order == "descending" else {
                throw ModelFileError(
                    file: file, line: child.line, element: label, reason: "unknown index order '\(order)'")
            }
            if let expression = child.attributes["expression"], child.attributes["property"] == nil {
                note(
                    child,
                    "\(owner) has an expression element (\(expression)); ObjectStack indexes properties only, so the "
                        + "index covers its property elements")
                continue
            }
            let propertyName = try required(child, "property")
            switch property(propertyName, in: entity)?.name {
            case "attribute"?: attributeNames.append(propertyName)
            case "relationship"?:
                note(
                    child,
                    "\(owner) names relationship \(propertyName); stores index every to-one reference on their own, "
                        + "so the index covers its attributes only")
            default:
                throw ModelFileError(
                    file: file, line: child.line, element: label,
                    reason: "\(owner) names \(propertyName), which is not a property of \(entity)")
            }
        }
        guard !attributeNames.isEmpty else { return nil }
        return IndexDescription(name: name, attributeNames: attributeNames)
    }

    /// The legacy `<compoundIndexes>`: each `<compoundIndex>` becomes an index, as Core Data turns them into
    /// fetch indexes.
    mutating func readCompoundIndexes(_ element: ModelXMLElement, entity: String) throws -> [IndexDescription] {
        try check(element, known: [])
        var indexes: [IndexDescription] = []
        for compound in element.children {
            guard compound.name == "compoundIndex" else {
                try warnUnknown(compound, in: "<compoundIndexes> of \(entity)")
                continue
            }
            let names = try attributeList(compound, itemElement: "index", entity: entity, what: "compound index")
            indexes.append(IndexDescription(name: "compound_" + names.joined(separator: "_"), attributeNames: names))
        }
        return indexes
    }

    mutating func readUniquenessConstraints(_ element: ModelXMLElement, entity: String) throws -> [[String]] {
        try check(element, known: [])
        var constraints: [[String]] = []
        for constraint in element.children {
            guard constraint.name == "uniquenessConstraint" else {
                try warnUnknown(constraint, in: "<uniquenessConstraints> of \(entity)")
                continue
            }
            constraints.append(
                try attributeList(constraint, itemElement: "constraint", entity: entity, what: "uniqueness constraint"))
        }
        return constraints
    }

    /// The attribute names of a compound index or a uniqueness constraint: `<index value=…>` or `<constraint value=…>`.
    private mutating func attributeList(
        _ element: ModelXMLElement, itemElement: String, entity: String, what: String
    ) throws -> [String] {
        try check(element, known: [])
        var names: [String] = []
        for item in element.children {
            guard item.name == itemElement else {
                try warnUnknown(item, in: "<\(element.name)> of \(entity)")
                continue
            }
            try check(item, known: ["value"])
            let name = try required(item, "value")
            switch property(name, in: entity)?.name {
            case "attribute"?: names.append(name)
            case "relationship"?:
                throw error(
                    item, "\(what) of \(entity) names relationship \(name); ObjectStack supports attributes only")
            default: throw error(item, "\(what) of \(entity) names \(name), which is not an attribute of \(entity)")
            }
        }
        guard !names.isEmpty else { throw error(element, "\(what) of \(entity) names no attribute") }
        return names
    }
}
