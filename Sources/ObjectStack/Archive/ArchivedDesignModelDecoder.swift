import Foundation

/// Reads the outline of a model from a keyed archive of Xcode's model editor (`XDPMModel`), as a mapping model's
/// `xcmapping.xml` keeps its source and destination models (`sourcemodeldata`, `destinationmodeldata`).
///
/// The archive is Xcode's editing form, not an `NSManagedObjectModel`: a package (`XDModelPackage`) of entities
/// (`XDPMEntity`, by name), each owning its attributes (`XDPMAttribute`) and relationships (`XDPMRelationship`) by
/// name, a parent given as a generalization (`XDUMLGeneralizationImp`, `_general`), and the Core Data settings of
/// each element as the values of its stereotypes' properties (`XD_PRK_destination`, `XD_PRK_isToMany`,
/// `XD_PSK_isAbstract`…). Read from the eight mapping models of `shared/coredata-stores`; only names and how the
/// entities connect are taken.
enum ArchivedDesignModelDecoder {
    /// The outline of the archived model.
    /// - Throws: `KeyedArchive.Error` when the data is not an archive of Xcode's model editor.
    static func outline(_ data: Data) throws -> ModelOutline {
        let archive = try KeyedArchive(data: data)
        let root = try archive.root()
        guard root.className == "XDPMModel" else {
            throw KeyedArchive.Error("the archived model is a \(root.className ?? "?"), not Xcode's XDPMModel")
        }
        guard let package = root.object("_xd_rootPackage") else {
            throw KeyedArchive.Error("the archived model has no package of entities")
        }
        var entities: [ModelOutline.Entity] = []
        for object in classes(in: package) {
            entities.append(try entity(object))
        }
        guard !entities.isEmpty else { throw KeyedArchive.Error("the archived model has no entities") }
        return ModelOutline(entities: entities)
    }

    /// The entities of a package and of the packages inside it.
    private static func classes(in package: KeyedArchive.Object) -> [KeyedArchive.Object] {
        let own = (package.object("XDBucketForClassesstorage")?.entries ?? []).compactMap {
            package.archive.object($0.value)
        }
        let nested = (package.object("XDBucketForPackagesstorage")?.entries ?? []).compactMap {
            package.archive.object($0.value)
        }
        return own + nested.flatMap(classes(in:))
    }

    private static func entity(_ object: KeyedArchive.Object) throws -> ModelOutline.Entity {
        guard let name = object.string("_name") else { throw KeyedArchive.Error("an archived entity has no name") }
        let generalizations = object.object("XDBucketForGeneralizationsstorage")?.elements ?? []
        let parent = generalizations.lazy.compactMap { object.archive.object($0)?.object("_general")?.string("_name") }
            .first
        var attributes: [String] = []
        var relationships: [ModelOutline.Relationship] = []
        for (propertyName, value) in object.object("XDBucketForOwnedAttributesstorage")?.entries ?? [] {
            guard let property = object.archive.object(value) else { continue }
            switch property.className {
            case "XDPMAttribute"?:
                attributes.append(propertyName)
            case "XDPMRelationship"?:
                let settings = stereotypeValues(of: property)
                guard let destination = settings["XD_PRK_destination"].flatMap(object.archive.object)?.string("_name")
                else {
                    throw KeyedArchive.Error("the archived relationship \(name).\(propertyName) has no destination")
                }
                let toMany = settings["XD_PRK_isToMany"].map { object.archive.resolved($0) } == .boolean(true)
                relationships.append(
                    ModelOutline.Relationship(name: propertyName, destinationName: destination, isToMany: toMany))
            default:
                // Fetched properties: a mapping model maps attributes and relationships only.
                continue
            }
        }
        let abstract = stereotypeValues(of: object)["XD_PSK_isAbstract"].map { object.archive.resolved($0) }
        return ModelOutline.Entity(
            name: name, parentName: parent, isAbstract: abstract == .boolean(true), attributeNames: attributes,
            relationships: relationships)
    }

    /// An element's Core Data settings: each property of each of its stereotypes, with the value it holds.
    private static func stereotypeValues(of element: KeyedArchive.Object) -> [String: KeyedArchive.Value] {
        var values: [String: KeyedArchive.Value] = [:]
        for (_, value) in element.object("XDBucketForStereotypesstorage")?.entries ?? [] {
            guard let stereotype = element.archive.object(value) else { continue }
            for (key, property) in stereotype.object("XDBucketForOwnedAttributesstorage")?.entries ?? [] {
                if let setting = element.archive.object(property)?["_default"] { values[key] = setting }
            }
        }
        return values
    }
}
