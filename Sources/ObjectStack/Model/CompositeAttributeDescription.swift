import Foundation

/// An attribute whose value is a dictionary of named elements, each an attribute of its own type: Core Data's
/// `NSCompositeAttributeDescription` (Xcode 15, iOS 17), declared in a model file by a `<composite>` element.
///
/// For example:
/// ```swift
/// let location = CompositeAttributeDescription(
///     name: "location",
///     elements: [
///         AttributeDescription(name: "x", type: .double, isOptional: false, defaultValue: .double(0)),
///         AttributeDescription(name: "y", type: .double),
///     ])
/// let item = EntityDescription(name: "Item", compositeAttributes: [location])
/// // try item.setValue(["x": 1.5, "y": 2.0], forKey: "location")
/// // FetchPredicate(format: "location.x > 1"), SortKey("location.y")
/// ```
/// Each element is stored as an attribute of its own, named by its key path (`location.x`), so every store
/// filters, sorts and migrates it as it does any attribute; `ManagedObject.value(forKey: "location")` reads the
/// elements back as a dictionary (nil when none is set), and `setValue(_:forKey:)` writes them. An element may
/// itself be a composite (`location.area.width`). A required element is required when the composite has a value
/// (and always when the composite itself is required): a missing one fails the save naming it.
/// - Note: Immutable once its model is built; safe to share between threads.
public final class CompositeAttributeDescription: @unchecked Sendable {
    /// The attribute's name.
    public let name: String
    /// The elements, each an attribute description of its own type (named without the composite's name).
    public let elements: [AttributeDescription]
    /// The elements that are composites themselves.
    public let composites: [CompositeAttributeDescription]
    /// Whether a nil composite (no element set) is valid at save.
    public let isOptional: Bool
    /// Whether the value lives only in memory and is never stored.
    public let isTransient: Bool
    /// The attribute's former name, for migration.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// What a model file says about the attribute that changes no behaviour here; set by the model-file reader.
    public internal(set) var modelFileMetadata = ModelFileMetadata()

    /// Creates a composite attribute.
    public init(
        name: String, elements: [AttributeDescription], composites: [CompositeAttributeDescription] = [],
        isOptional: Bool = true, isTransient: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil
    ) {
        self.name = name
        self.elements = elements
        self.composites = composites
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
    }

    /// The element names, nested ones as key paths (`area.width`), in declaration order.
    public var elementPaths: [String] {
        elements.map(\.name) + composites.flatMap { inner in inner.elementPaths.map { inner.name + "." + $0 } }
    }

    /// The attributes that store the elements, one per leaf element, named by key path from the entity
    /// (`location.x`), optional as attributes (the composite's own rules decide at save), each knowing its
    /// composite and whether the element is required.
    func storageAttributes(prefix: String = "") -> [AttributeDescription] {
        let path = prefix + name
        var attributes: [AttributeDescription] = []
        for element in elements {
            let stored = AttributeDescription(
                name: path + "." + element.name, type: element.type, isOptional: true,
                isTransient: isTransient || element.isTransient, defaultValue: element.defaultValue,
                valueTransformerName: element.valueTransformerName,
                renamingIdentifier: element.renamingIdentifier.map { path + "." + $0 }
                    ?? renamingIdentifier.map { $0 + "." + element.name },
                versionHashModifier: element.versionHashModifier, isIndexed: element.isIndexed,
                minimumValue: element.minimumValue, maximumValue: element.maximumValue,
                regularExpression: element.regularExpression)
            stored.compositeElement = CompositeElement(
                composite: String(path.split(separator: ".").first ?? Substring(path)),
                path: String(
                    (path + "." + element.name).split(separator: ".").dropFirst().joined(separator: ".")),
                isRequired: !element.isOptional)
            stored.modelFileMetadata = element.modelFileMetadata
            attributes.append(stored)
        }
        for inner in composites { attributes += inner.storageAttributes(prefix: path + ".") }
        return attributes
    }
}

/// Where a stored attribute sits in a composite attribute: the composite's name, the element's key path inside
/// it, and whether the element is required.
public struct CompositeElement: Sendable, Hashable {
    /// The entity's composite attribute the element belongs to (`location`).
    public let composite: String
    /// The element's key path inside the composite (`x`, `area.width`).
    public let path: String
    /// Whether the element must have a value when the composite has one.
    public let isRequired: Bool

    /// Creates an element's place.
    public init(composite: String, path: String, isRequired: Bool) {
        self.composite = composite
        self.path = path
        self.isRequired = isRequired
    }
}
