import Foundation

/// Reads an Xcode mapping model (`NAME.xcmappingmodel/xcmapping.xml`) into a ``MappingModel``.
///
/// The file is Core Data's XML store format holding Xcode's editing objects: one `XDDEVMAPPINGMODEL`
/// (`sourcemodelpath`, `destinationmodelpath`, the two models archived in Xcode's editing form), an
/// `XDDEVENTITYMAPPING` per entity mapping (`sourcename`, `destinationname`, `mappingtypename` — `Undefined` as
/// Xcode writes it —, `mappingnumber`, `migrationpolicyclassname`, `autogenerateexpression`) and an
/// `XDDEVATTRIBUTEMAPPING` or `XDDEVRELATIONSHIPMAPPING` per property mapping (`name`, `valueexpressiondata`, a
/// keyed archive of an `NSExpression`; a relationship's `sourcekeypath` and `sourcemappingname`). What Xcode leaves
/// implicit is filled in as its compiled mapping models hold it (see ``MappingModel``); every error names the file,
/// the mapping and the property.
struct MappingModelFileReader {
    let url: URL
    private let file: URL
    private var notes: [String] = []

    init(url: URL) {
        self.url = url
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
        } else {
            file = url
        }
    }

    private static let entityMappingType = "XDDEVENTITYMAPPING"
    private static let attributeMappingType = "XDDEVATTRIBUTEMAPPING"
    private static let relationshipMappingType = "XDDEVRELATIONSHIPMAPPING"
    private static let mappingModelType = "XDDEVMAPPINGMODEL"

    /// The attributes of an entity mapping read here; another one is noted, or refused when it could change which
    /// objects migrate (a filter or source expression this reader does not know).
    private static let entityMappingKeys: Set<String> = [
        "name", "sourcename", "destinationname", "mappingtypename", "mappingnumber", "migrationpolicyclassname",
        "autogenerateexpression", "userinfo", "userinfodata", "sourcefilterpredicatestring",
        "filterpredicatestring", "filterpredicatedata", "sourceexpressiondata",
    ]
    private static let propertyMappingKeys: Set<String> = [
        "name", "valueexpressiondata", "autogenerateexpression", "sourcekeypath", "sourcemappingname", "userinfo",
        "userinfodata",
    ]

    // MARK: - Reading

    /// Reads the mapping model.
    /// - Throws: `ObjectStackError(.invalidMappingModel)` naming the file and what is wrong.
    mutating func read() throws -> MappingModel {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw failure("there is no readable xcmapping.xml", at: nil)
        }
        let document: XMLStoreDocument
        do {
            document = try XMLStoreDocument(data: data)
        } catch let error as XMLStoreDocument.Failure {
            throw failure(error.reason, at: error.line)
        }
        let roots = document.objects.filter { $0.type == Self.mappingModelType }
        guard roots.count == 1, let root = roots.first else {
            throw failure(
                roots.isEmpty
                    ? "it holds no \(Self.mappingModelType) object: not a mapping model"
                    : "it holds \(roots.count) \(Self.mappingModelType) objects; a mapping model has one",
                at: roots.dropFirst().first?.line)
        }
        let sourceOutline = try outline(root, "sourcemodeldata", side: "source")
        let destinationOutline = try outline(root, "destinationmodeldata", side: "destination")
        var records: [XMLStoreDocument.Object] = []
        for id in root.relationships["entitymappings"] ?? [] {
            guard let record = document.object(id), record.type == Self.entityMappingType else {
                throw failure("the mapping model lists \(id) among its entity mappings, which is none", at: root.line)
            }
            records.append(record)
        }
        // Xcode numbers the mappings in the order it runs them; the list's order is the file's.
        records = records.enumerated().sorted {
            ($0.element.integer("mappingnumber") ?? Int.max, $0.offset)
                < ($1.element.integer("mappingnumber") ?? Int.max, $1.offset)
        }.map(\.element)
        let names = records.map {
            $0.string("name")
                ?? EntityMapping.defaultName(source: $0.string("sourcename"), destination: $0.string("destinationname"))
        }
        if let duplicate = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw failure("two entity mappings are named \(duplicate)", at: root.line)
        }
        var context = Context(
            records: records, names: names, source: sourceOutline, destination: destinationOutline)
        var mappings: [EntityMapping] = []
        for (record, name) in zip(records, names) {
            mappings.append(try entityMapping(record, name: name, document: document, context: &context))
        }
        let referenced = Set(
            records.flatMap {
                ($0.relationships["attributemappings"] ?? []) + ($0.relationships["relationshipmappings"] ?? [])
            })
        for orphan in document.objects
        where [Self.attributeMappingType, Self.relationshipMappingType].contains(orphan.type)
            && !referenced.contains(orphan.id)
        {
            notes.append(
                "the property mapping \(orphan.string("name") ?? orphan.id) (line \(orphan.line)) belongs to no "
                    + "entity mapping: left out")
        }
        var model = MappingModel(entityMappings: mappings)
        model.url = url
        model.sourceModelPath = root.string("sourcemodelpath")
        model.destinationModelPath = root.string("destinationmodelpath")
        model.sourceOutline = sourceOutline
        model.destinationOutline = destinationOutline
        model.notes = notes
        return model
    }

    /// What the entity mappings need of each other while they are read.
    private struct Context {
        let records: [XMLStoreDocument.Object]
        let names: [String]
        let source: ModelOutline
        let destination: ModelOutline
    }

    private func outline(_ root: XMLStoreDocument.Object, _ key: String, side: String) throws -> ModelOutline {
        guard root.string(key) != nil else {
            throw failure("the mapping model keeps no copy of its \(side) model (\(key))", at: root.line)
        }
        guard let data = root.data(key) else {
            throw failure("the \(side) model's copy (\(key)) is not base 64", at: root.line)
        }
        do {
            return try ArchivedDesignModelDecoder.outline(data)
        } catch {
            throw failure("the \(side) model's copy (\(key)) does not read: \(error)", at: root.line)
        }
    }

    // MARK: - Entity mappings

    private mutating func entityMapping(
        _ record: XMLStoreDocument.Object, name: String, document: XMLStoreDocument, context: inout Context
    ) throws -> EntityMapping {
        let source = record.string("sourcename")
        let destination = record.string("destinationname")
        if let source, context.source.entity(named: source) == nil {
            throw failure(
                "the entity mapping \(name) maps from \(source), an entity its source model does not have",
                at: record.line)
        }
        if let destination, context.destination.entity(named: destination) == nil {
            throw failure(
                "the entity mapping \(name) maps to \(destination), an entity its destination model does not have",
                at: record.line)
        }
        for key in record.attributes.keys.sorted() where !Self.entityMappingKeys.contains(key) {
            if key.contains("predicate") || key.contains("expression") {
                throw failure(
                    "the entity mapping \(name) has '\(key)', which this reader does not know and which may decide "
                        + "what migrates", at: record.line)
            }
            notes.append("the entity mapping \(name) has '\(key)', which this reader does not know: left out")
        }
        let policy = record.string("migrationpolicyclassname").flatMap {
            let trimmed = $0.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed == "NSEntityMigrationPolicy" ? nil : trimmed
        }
        var mapping = EntityMapping(
            name: name, kind: try kind(record, name: name, source: source, destination: destination, policy: policy),
            sourceEntityName: source, destinationEntityName: destination, entityMigrationPolicyClassName: policy,
            userInfo: try userInfo(record, owner: "the entity mapping \(name)"))
        mapping.filterPredicate = try filterPredicate(record, name: name)
        for (key, type, label) in [
            ("attributemappings", Self.attributeMappingType, "attribute"),
            ("relationshipmappings", Self.relationshipMappingType, "relationship"),
        ] {
            for id in record.relationships[key] ?? [] {
                guard let property = document.object(id), property.type == type else {
                    throw failure(
                        "the entity mapping \(name) lists \(id) among its \(label) mappings, which is none",
                        at: record.line)
                }
                if type == Self.attributeMappingType {
                    mapping.attributeMappings.append(try attributeMapping(property, of: mapping, context: context))
                } else {
                    mapping.relationshipMappings.append(
                        try relationshipMapping(property, of: mapping, context: context))
                }
            }
        }
        mapping.attributeMappings.sort { $0.name < $1.name }
        mapping.relationshipMappings.sort { $0.name < $1.name }
        return mapping
    }

    /// The mapping's kind: as written, or (for Xcode's `Undefined`) from its source, destination and policy.
    private func kind(
        _ record: XMLStoreDocument.Object, name: String, source: String?, destination: String?, policy: String?
    ) throws -> EntityMappingKind {
        let written = (record.string("mappingtypename") ?? "Undefined").lowercased()
            .replacingOccurrences(of: "entitymappingtype", with: "")
            .replacingOccurrences(of: "ns", with: "", options: .anchored)
        if written != "undefined" {
            guard let kind = EntityMappingKind(rawValue: written) else {
                throw failure(
                    "the entity mapping \(name) has the mapping type '\(record.string("mappingtypename") ?? "")'; "
                        + "known types are " + EntityMappingKind.allCases.map(\.rawValue).joined(separator: ", "),
                    at: record.line)
            }
            return kind
        }
        if policy != nil { return .custom }
        if source == nil { return .add }
        if destination == nil { return .remove }
        return .copy
    }

    private func filterPredicate(_ record: XMLStoreDocument.Object, name: String) throws -> FetchPredicate? {
        if record.bool("autogenerateexpression") == false, record.string("sourceexpressiondata") != nil {
            throw failure(
                "the entity mapping \(name) has a source expression of its own (sourceexpressiondata), which is not "
                    + "supported: only the source entity's instances, optionally filtered, are migrated",
                at: record.line)
        }
        var format = record.string("sourcefilterpredicatestring") ?? record.string("filterpredicatestring")
        if format == nil, record.string("filterpredicatedata") != nil {
            do {
                let archive = try KeyedArchive(data: record.data("filterpredicatedata") ?? Data())
                format = try ArchivedExpression.predicateFormat(try archive.root())
            } catch {
                throw failure("the filter predicate of \(name) does not read: \(error)", at: record.line)
            }
        }
        guard let format, format != "TRUEPREDICATE" else { return nil }
        do {
            return try FetchPredicate(format: format)
        } catch {
            throw failure("the filter predicate '\(format)' of \(name) does not parse: \(error)", at: record.line)
        }
    }

    private func userInfo(_ record: XMLStoreDocument.Object, owner: String) throws -> [String: String] {
        guard let key = ["userinfo", "userinfodata"].first(where: { record.string($0) != nil }) else { return [:] }
        do {
            let archive = try KeyedArchive(data: record.data(key) ?? Data())
            let root = try archive.root()
            var info: [String: String] = [:]
            for (name, value) in root.entries ?? [] {
                switch archive.resolved(value) {
                case .string(let text): info[name] = text
                case .integer(let number): info[name] = String(number)
                case .real(let number): info[name] = String(number)
                case .boolean(let flag): info[name] = flag ? "YES" : "NO"
                case .reference: info[name] = archive.object(value)?.stringValue
                default: continue
                }
            }
            return info
        } catch {
            throw failure("the user info of \(owner) does not read: \(error)", at: record.line)
        }
    }

    // MARK: - Property mappings

    private mutating func attributeMapping(
        _ record: XMLStoreDocument.Object, of mapping: EntityMapping, context: Context
    ) throws -> PropertyMapping {
        let name = try propertyName(record, of: mapping)
        if let destination = mapping.destinationEntityName,
            !context.destination.attributeNames(of: destination).contains(name)
        {
            throw failure(
                "\(mapping.name) maps the attribute \(name), which \(destination) does not have in the destination "
                    + "model", at: record.line)
        }
        var expression = try writtenExpression(record, of: mapping, property: name)
        if expression == nil, let source = mapping.sourceEntityName,
            context.source.attributeNames(of: source).contains(name)
        {
            expression = PropertyExpression(node: .variable("source", [name]))
        }
        return PropertyMapping(
            name: name, valueExpression: expression,
            userInfo: try userInfo(record, owner: "\(mapping.name).\(name)"))
    }

    private mutating func relationshipMapping(
        _ record: XMLStoreDocument.Object, of mapping: EntityMapping, context: Context
    ) throws -> PropertyMapping {
        let name = try propertyName(record, of: mapping)
        var destinationRelationship: ModelOutline.Relationship?
        if let destination = mapping.destinationEntityName {
            destinationRelationship = context.destination.relationship(name, of: destination)
            guard destinationRelationship != nil else {
                throw failure(
                    "\(mapping.name) maps the relationship \(name), which \(destination) does not have in the "
                        + "destination model", at: record.line)
            }
        }
        var expression = try writtenExpression(record, of: mapping, property: name)
        if expression == nil {
            expression = try impliedRelationshipExpression(
                record, name: name, of: mapping, target: destinationRelationship?.destinationName, context: context)
        }
        return PropertyMapping(
            name: name, valueExpression: expression,
            userInfo: try userInfo(record, owner: "\(mapping.name).\(name)"))
    }

    private mutating func propertyName(_ record: XMLStoreDocument.Object, of mapping: EntityMapping) throws -> String {
        guard let name = record.string("name") else {
            throw failure("\(mapping.name) has a property mapping without a name", at: record.line)
        }
        for key in record.attributes.keys.sorted() where !Self.propertyMappingKeys.contains(key) {
            notes.append("\(mapping.name).\(name) has '\(key)', which this reader does not know: left out")
        }
        return name
    }

    /// The value expression the author wrote (`valueexpressiondata`), which wins over what Xcode would generate.
    private func writtenExpression(_ record: XMLStoreDocument.Object, of mapping: EntityMapping, property: String)
        throws -> PropertyExpression?
    {
        guard record.string("valueexpressiondata") != nil else { return nil }
        let format: String
        do {
            let archive = try KeyedArchive(data: record.data("valueexpressiondata") ?? Data())
            format = try ArchivedExpression.format(try archive.root())
        } catch {
            throw failure(
                "the value expression of \(mapping.name).\(property) does not read: \(error)", at: record.line)
        }
        do {
            return try PropertyExpression(format: format)
        } catch {
            throw failure(
                "the value expression '\(format)' of \(mapping.name).\(property) does not parse: \(error)",
                at: record.line)
        }
    }

    /// What Xcode's compiled mapping model holds for a relationship mapping with no expression written: the
    /// destination objects made from the source objects the key path (`sourcekeypath`, else the same-named source
    /// relationship) reaches, through the named mapping (`sourcemappingname`, else the one that maps the related
    /// entity), or through every mapping of the related entity's hierarchy when it has sub-entities.
    private mutating func impliedRelationshipExpression(
        _ record: XMLStoreDocument.Object, name: String, of mapping: EntityMapping, target: String?,
        context: Context
    ) throws -> PropertyExpression? {
        guard let source = mapping.sourceEntityName else { return nil }
        let manager = PredicateExpression.variable(MappingExpressionScope.manager, [])
        func call(_ selector: String, _ first: String, _ instances: PredicateExpression) -> PropertyExpression {
            PropertyExpression(
                node: .call(receiver: manager, selector: selector, arguments: [.constant(.string(first)), instances]))
        }
        /// The mapping that makes `target`'s instances from `related`'s: the named one, else one from `related`,
        /// preferably to `target`.
        func mappingName(from related: String?) -> String? {
            if let named = record.string("sourcemappingname") { return named }
            let candidates = zip(context.records, context.names).filter { record, _ in
                related == nil || record.string("sourcename") == related
            }
            return (candidates.first { $0.0.string("destinationname") == target } ?? candidates.first)?.1
        }
        if let keyPath = record.string("sourcekeypath") {
            let instances: PropertyExpression
            do {
                instances = try PropertyExpression(format: keyPath)
            } catch {
                throw failure(
                    "the source key path '\(keyPath)' of \(mapping.name).\(name) does not parse: \(error)",
                    at: record.line)
            }
            let related = context.source.relationship(name, of: source)?.destinationName
            guard let through = mappingName(from: related) else {
                notes.append("\(mapping.name).\(name): no entity mapping makes its objects; left empty")
                return nil
            }
            return call(
                ExpressionMethod.MigrationFunction.destinationInstancesForEntityMapping, through, instances.node)
        }
        guard let relationship = context.source.relationship(name, of: source) else { return nil }
        let instances = PredicateExpression.variable("source", [name])
        if !context.source.subentityNames(of: relationship.destinationName).isEmpty {
            return call(ExpressionMethod.MigrationFunction.destinationInstancesForSourceRelationship, name, instances)
        }
        guard let through = mappingName(from: relationship.destinationName) else {
            notes.append(
                "\(mapping.name).\(name): no entity mapping maps \(relationship.destinationName), the source objects' "
                    + "entity; left empty")
            return nil
        }
        return call(ExpressionMethod.MigrationFunction.destinationInstancesForEntityMapping, through, instances)
    }

    // MARK: - Errors

    private func failure(_ reason: String, at line: Int?) -> ObjectStackError {
        let place = line.map { "\(file.path):\($0)" } ?? file.path
        return ObjectStackError(code: .invalidMappingModel, message: "\(place): \(reason)")
    }
}
