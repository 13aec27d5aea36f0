import Foundation
import LabCore
import ObjectStack

/// What `stacklab model PATH` prints: every version of an Xcode model file, its entities and properties,
/// and what it takes to migrate to each version from the one before.
///
/// For example:
/// ```swift
/// let description = try ModelDescription(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// print(description.text)
/// print(try description.json())
/// ```
public struct ModelDescription: Sendable {
    /// The model file.
    public let url: URL
    /// The readable versions, in version order.
    public let versions: [ModelVersion]
    /// Every version, the skipped ones with their reasons.
    public let list: ModelVersionList

    /// Loads every version of the model at `url`; a version the reader does not read is listed as skipped.
    /// - Parameters:
    ///   - url: the `.xcdatamodeld` bundle or `.xcdatamodel` folder.
    ///   - options: `.strict` refuses what would otherwise be a warning.
    /// - Throws: `ModelFileError` naming the file, element and line of the first problem.
    public init(contentsOf url: URL, options: ModelFileOptions = .lenient) throws {
        self.url = url
        self.list = try ManagedObjectModel.versionList(contentsOf: url, options: options)
        self.versions = list.loaded
    }

    // MARK: - JSON

    /// One version in the JSON output: its name, whether it is current, and the elements its XML declares; for a
    /// skipped version, why instead of counts.
    struct VersionSummary: Encodable {
        let name: String
        let current: Bool
        var entities, attributes, relationships, fetchedProperties, fetchIndexes, uniquenessConstraints: Int?
        var warnings: Int?
        var skipped: String?
    }

    /// `{"versions": [{"name", "current", "entities", "attributes", "relationships", "fetchedProperties",
    /// "fetchIndexes", "uniquenessConstraints", "warnings"}]}`, the counts being the elements each version's XML
    /// declares (a sub-entity's inherited properties are not counted again); a skipped version has `"skipped"`
    /// with the reason instead.
    public func json() throws -> String {
        let summaries = list.entries.map { entry in
            guard let version = entry.version else {
                return VersionSummary(name: entry.name, current: entry.isCurrent, skipped: entry.skipReason)
            }
            let counts = version.declaredCounts
            return VersionSummary(
                name: version.name, current: version.isCurrent, entities: counts.entities,
                attributes: counts.attributes, relationships: counts.relationships,
                fetchedProperties: counts.fetchedProperties, fetchIndexes: counts.fetchIndexes,
                uniquenessConstraints: counts.uniquenessConstraints,
                warnings: version.warnings.isEmpty ? nil : version.warnings.count)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(["versions": summaries]), as: UTF8.self)
    }

    // MARK: - Text

    /// The description for people: per version (the current one marked), each entity with its declared
    /// properties, indexes and constraints, then the migration from the previous version.
    public var text: String {
        var lines = [header]
        for skipped in list.skipped {
            lines.append("")
            lines.append(Self.skippedLine(skipped))
        }
        for position in versions.indices {
            lines.append("")
            lines += describe(position)
        }
        return lines.joined(separator: "\n")
    }

    /// The description of one version (named with or without `.xcdatamodel`), as `text` has it: its entities and
    /// the migration from the readable version before it; a skipped version's reason.
    /// - Throws: `LabError.invalidScenario` for a version the file does not have, listing those it has.
    public func text(version name: String) throws -> String {
        let wanted = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        if let position = versions.firstIndex(where: { $0.name == wanted }) {
            return ([header, ""] + describe(position)).joined(separator: "\n")
        }
        if let skipped = list.skipped.first(where: { $0.name == wanted }) {
            return [header, "", Self.skippedLine(skipped)].joined(separator: "\n")
        }
        throw LabError(
            .invalidScenario,
            "\(url.lastPathComponent) has no version '\(name)'; expected one of "
                + list.entries.map { "'\($0.name)'" }.joined(separator: ", "))
    }

    /// One line per version, in version order: its counts, warnings, and what migrating to it from the readable
    /// version before it takes (a skipped version: why it is skipped).
    ///
    /// For example:
    /// ```
    /// Moody.xcdatamodeld: 6 versions, current: Moody 6
    ///   Moody      3 entities, 19 attributes, 5 relationships; first version
    ///   Moody 2    3 entities, 20 attributes, 5 relationships; from Moody: lightweight (1 change)
    /// ```
    public var summary: String {
        let width = list.entries.map(\.name.count).max() ?? 0
        var lines = [header]
        var previous: ModelVersion?
        for entry in list.entries {
            let name = entry.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = entry.isCurrent ? " *" : "  "
            guard let version = entry.version else {
                lines.append("\(mark) \(name)  skipped: \(entry.skipReason ?? "")")
                continue
            }
            let counts = version.declaredCounts
            var line =
                "\(mark) \(name)  \(counts.entities) entities, \(counts.attributes) attributes, "
                + "\(counts.relationships) relationships"
            if !version.warnings.isEmpty {
                line += ", \(version.warnings.count) warning\(version.warnings.count == 1 ? "" : "s")"
            }
            if let previous {
                let difference = ModelDifference(from: previous.model, to: version.model)
                let changes = "\(difference.changes.count) change\(difference.changes.count == 1 ? "" : "s")"
                line +=
                    "; from \(previous.name): "
                    + (difference.isEmpty
                        ? "no changes"
                        : difference.isLightweightMigratable
                            ? "lightweight (\(changes))"
                            : "not lightweight (\(changes), \(difference.reasonsNotLightweight.count) "
                                + "reason\(difference.reasonsNotLightweight.count == 1 ? "" : "s"))")
            } else {
                line += "; first version"
            }
            lines.append(line)
            previous = version
        }
        lines.append("(* current; `stacklab model PATH --version NAME` describes one version)")
        return lines.joined(separator: "\n")
    }

    /// `NAME: N versions, current: C, S skipped`.
    private var header: String {
        let count = list.entries.count
        return "\(url.lastPathComponent): \(count) version\(count == 1 ? "" : "s")"
            + (list.entries.first(where: \.isCurrent).map { ", current: \($0.name)" } ?? "")
            + (list.skipped.isEmpty ? "" : ", \(list.skipped.count) skipped")
    }

    private static func skippedLine(_ skipped: SkippedModelVersion) -> String {
        "== \(skipped.name)\(skipped.isCurrent ? " (current)" : ""): skipped, \(skipped.reason)"
    }

    /// The lines of the readable version at `position`.
    private func describe(_ position: Int) -> [String] {
        let version = versions[position]
        var lines = ["== \(version.name)\(version.isCurrent ? " (current)" : "")"]
        let counts = version.declaredCounts
        lines.append(
            "   \(counts.entities) entities, \(counts.attributes) attributes, \(counts.relationships) "
                + "relationships, \(counts.fetchedProperties) fetched properties, \(counts.fetchIndexes) fetch indexes, "
                + "\(counts.uniquenessConstraints) uniqueness constraints")
        for entity in version.model.entities { lines += Self.describe(entity) }
        for template in version.model.fetchRequestTemplatesByName.values.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "  fetch request \(template.name): \(template.entityName)"
                    + (template.predicate.map { " where \($0.predicateFormat)" } ?? ""))
        }
        for (name, members) in version.model.configurations.sorted(by: { $0.key < $1.key }) {
            lines.append("  configuration \(name): \(members.joined(separator: ", "))")
        }
        for warning in version.warnings {
            lines.append("  warning: line \(warning.line): <\(warning.element)>: \(warning.message)")
        }
        for note in version.notes { lines.append("  note: line \(note.line): <\(note.element)>: \(note.message)") }
        lines.append(contentsOf: Self.migration(to: version, from: position > 0 ? versions[position - 1] : nil))
        return lines
    }

    private static func describe(_ entity: EntityDescription) -> [String] {
        var header = "  entity \(entity.name)"
        if let parent = entity.superentity { header += " : \(parent.name)" }
        if entity.isAbstract { header += " (abstract)" }
        var lines = [header]
        for attribute in entity.declaredAttributes where attribute.compositeElement == nil {
            lines.append("    attribute \(attribute.name): " + describe(attribute))
        }
        for composite in entity.compositeAttributes {
            lines.append(
                "    composite \(composite.name): \(composite.isOptional ? "optional" : "required")"
                    + (composite.isTransient ? ", transient" : ""))
            for attribute in entity.declaredAttributes
            where attribute.compositeElement?.composite == composite.name {
                let element = attribute.compositeElement!
                let kind =
                    [attribute.type.rawValue, element.isRequired ? "required" : "optional"]
                    + (attribute.defaultValue.isNull ? [] : ["default \(attribute.defaultValue)"])
                lines.append(
                    "      element \(element.path): " + kind.joined(separator: ", ") + " (stored as \(attribute.name))")
            }
        }
        for relationship in entity.declaredRelationships {
            lines.append("    relationship \(relationship.name): " + describe(relationship))
        }
        for property in entity.fetchedProperties {
            lines.append(
                "    fetched property \(property.name): \(property.destinationName)"
                    + (property.predicate.map { " where \($0.predicateFormat)" } ?? ""))
        }
        for index in entity.indexes {
            lines.append("    index \(index.name) (\(index.attributeNames.joined(separator: ", ")))")
        }
        for constraint in entity.uniquenessConstraints {
            lines.append("    unique (\(constraint.joined(separator: ", ")))")
        }
        return lines
    }

    private static func describe(_ attribute: AttributeDescription) -> String {
        var parts = [attribute.type.rawValue, attribute.isOptional ? "optional" : "required"]
        if !attribute.defaultValue.isNull { parts.append("default \(attribute.defaultValue)") }
        if attribute.isTransient { parts.append("transient") }
        if let expression = attribute.derivationExpression { parts.append("derived \(expression)") }
        if let transformer = attribute.valueTransformerName { parts.append("transformer \(transformer)") }
        if attribute.isIndexed { parts.append("indexed") }
        if let identifier = attribute.renamingIdentifier { parts.append("renaming id \(identifier)") }
        return parts.joined(separator: ", ")
    }

    private static func describe(_ relationship: RelationshipDescription) -> String {
        var parts = ["-> \(relationship.destinationName)", relationship.isToMany ? "to-many" : "to-one"]
        if relationship.isOrdered { parts.append("ordered") }
        parts.append(relationship.inverseName.map { "inverse \($0)" } ?? "no inverse")
        parts.append("delete rule \(relationship.deleteRule.rawValue)")
        if !relationship.isOptional { parts.append("required") }
        if relationship.minCount > 0 { parts.append("min \(relationship.minCount)") }
        if relationship.maxCount > 0 { parts.append("max \(relationship.maxCount)") }
        if let identifier = relationship.renamingIdentifier { parts.append("renaming id \(identifier)") }
        return parts.joined(separator: ", ")
    }

    private static func migration(to version: ModelVersion, from previous: ModelVersion?) -> [String] {
        guard let previous else { return ["  migration: first version"] }
        let difference = ModelDifference(from: previous.model, to: version.model)
        guard !difference.isEmpty else { return ["  migration from \(previous.name): no changes"] }
        var lines = ["  migration from \(previous.name):"]
        lines += difference.changes.map { "    \($0)" }
        if difference.isLightweightMigratable {
            lines.append("    lightweight: yes")
        } else {
            lines.append("    lightweight: no")
            lines += difference.reasonsNotLightweight.map { "      - \($0)" }
        }
        return lines
    }
}
