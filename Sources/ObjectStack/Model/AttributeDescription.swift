import Foundation

/// An attribute of an entity: its name, type, optionality, default and storage options.
///
/// For example:
/// ```swift
/// let name = AttributeDescription(name: "name", type: .string, isOptional: false)
/// let rating = AttributeDescription(name: "rating", type: .double, defaultValue: 0)
/// ```
/// - Note: Immutable once its model is built; safe to share between threads.
public final class AttributeDescription: @unchecked Sendable {
    // What the model's build sets is `@exclusivity(unchecked)`: a built model is immutable, and the runtime's
    // access bookkeeping on every read of these fields showed in profiles of reading objects' values.
    // @unchecked: `index` and `entity` are set once while the model is built, before it is published.

    /// The attribute's name, the key used by `value(forKey:)` and in predicates.
    public let name: String
    /// The attribute's type.
    public let type: AttributeType
    /// Whether a nil value is valid at save.
    public let isOptional: Bool
    /// Whether the value lives only in memory and is never stored.
    public let isTransient: Bool
    /// The value a newly inserted object gets, already of the attribute's type.
    @exclusivity(unchecked) public private(set) var defaultValue: StoreValue
    /// For `.transformable`: the name of the registered transformer.
    public let valueTransformerName: String?
    /// For a derived attribute: the expression computed at save (`books.@count`, `author.name`).
    public let derivationExpression: String?
    /// The attribute's former name, for migration.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// Whether the attribute is indexed on its own.
    public let isIndexed: Bool
    /// The smallest valid value at save: of the number for numeric attributes, of the length for strings
    /// and binary data (Xcode's "Minimum" validation).
    public let minimumValue: Double?
    /// The largest valid value at save, as `minimumValue`.
    public let maximumValue: Double?
    /// A regular expression a string value must match in full at save.
    public let regularExpression: String?
    /// Whether persistent history keeps the attribute's value in the tombstone of a deleted object (Core Data's
    /// `preservesValueInHistoryOnDeletion`; a model file's `preserveAfterDeletion="YES"`).
    public var preservesValueInHistoryOnDeletion: Bool {
        preservesValueInHistory || modelFileMetadata.preservesValueInHistoryOnDeletion
    }
    private let preservesValueInHistory: Bool
    /// What a model file says about the attribute that changes no behaviour here (user info, Spotlight,
    /// CloudKit and code-generation flags), kept as written; set by the model-file reader.
    @exclusivity(unchecked) public internal(set) var modelFileMetadata = ModelFileMetadata()
    /// The attribute's `<userInfo>` entries from its model file.
    public var userInfo: [String: String] { modelFileMetadata.userInfo }

    /// The attribute's position in its entity's `properties` (the same in every sub-entity).
    @exclusivity(unchecked) public internal(set) var index: Int = -1
    /// The position of its value in a stored row, or nil when transient.
    @exclusivity(unchecked) public internal(set) var storedIndex: Int?
    /// The bound derivation, set when the model is built.
    @exclusivity(unchecked) var derivation: Derivation?
    /// For an attribute that stores an element of a composite attribute (`location.x`): which composite and
    /// element; nil for any other attribute.
    @exclusivity(unchecked) public internal(set) var compositeElement: CompositeElement?

    /// Creates an attribute.
    /// - Parameters:
    ///   - name: the attribute's name, the key used by `value(forKey:)` and in predicates.
    ///   - type: the attribute's type.
    ///   - isOptional: whether a nil value is valid at save.
    ///   - isTransient: whether the value lives only in memory and is never stored.
    ///   - defaultValue: converted to the attribute's type when the model is built.
    ///   - valueTransformerName: for `.transformable`, the name of the registered transformer.
    ///   - derivationExpression: for a derived attribute, the expression computed at save (`books.@count`).
    ///   - renamingIdentifier: the attribute's former name, for migration.
    ///   - versionHashModifier: changes the version hash without changing the schema.
    ///   - isIndexed: whether the attribute is indexed on its own.
    ///   - minimumValue: the smallest valid value at save (a number, or a length for strings and binary data).
    ///   - maximumValue: the largest valid value at save, as `minimumValue`.
    ///   - regularExpression: a regular expression a string value must match in full at save.
    ///   - preservesValueInHistoryOnDeletion: whether persistent history keeps the value in a deleted object's
    ///     tombstone (Xcode's `preserveAfterDeletion`).
    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        defaultValue: StoreValue = .null,
        valueTransformerName: String? = nil,
        derivationExpression: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        isIndexed: Bool = false,
        minimumValue: Double? = nil,
        maximumValue: Double? = nil,
        regularExpression: String? = nil,
        preservesValueInHistoryOnDeletion: Bool
    ) {
        self.preservesValueInHistory = preservesValueInHistoryOnDeletion
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.valueTransformerName = valueTransformerName
        self.derivationExpression = derivationExpression
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.isIndexed = isIndexed
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.regularExpression = regularExpression
    }

    /// Creates an attribute whose value persistent history does not keep in a deleted object's tombstone.
    /// - Parameters:
    ///   - name: the attribute's name, the key used by `value(forKey:)` and in predicates.
    ///   - type: the attribute's type.
    ///   - isOptional: whether a nil value is valid at save.
    ///   - isTransient: whether the value lives only in memory and is never stored.
    ///   - defaultValue: converted to the attribute's type when the model is built.
    ///   - valueTransformerName: for `.transformable`, the name of the registered transformer.
    ///   - derivationExpression: for a derived attribute, the expression computed at save (`books.@count`).
    ///   - renamingIdentifier: the attribute's former name, for migration.
    ///   - versionHashModifier: changes the version hash without changing the schema.
    ///   - isIndexed: whether the attribute is indexed on its own.
    ///   - minimumValue: the smallest valid value at save (a number, or a length for strings and binary data).
    ///   - maximumValue: the largest valid value at save, as `minimumValue`.
    ///   - regularExpression: a regular expression a string value must match in full at save.
    public convenience init(
        name: String,
        type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        defaultValue: StoreValue = .null,
        valueTransformerName: String? = nil,
        derivationExpression: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        isIndexed: Bool = false,
        minimumValue: Double? = nil,
        maximumValue: Double? = nil,
        regularExpression: String? = nil
    ) {
        self.init(
            name: name, type: type, isOptional: isOptional, isTransient: isTransient, defaultValue: defaultValue,
            valueTransformerName: valueTransformerName, derivationExpression: derivationExpression,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier, isIndexed: isIndexed,
            minimumValue: minimumValue, maximumValue: maximumValue, regularExpression: regularExpression,
            preservesValueInHistoryOnDeletion: false)
    }

    /// Converts the default value to the attribute's type; called once when the model is built.
    func resolveDefault(entityName: String) throws {
        guard !defaultValue.isNull else { return }
        guard let coerced = type.coerce(defaultValue) else {
            throw ObjectStackError.invalidModel(
                "default value \(defaultValue) of \(entityName).\(name) is not a \(type.rawValue)")
        }
        defaultValue = coerced
    }

    /// The text the entity's version hash is computed from.
    var versionHashText: String {
        "A:\(name):\(type.rawValue):\(isOptional):\(isTransient):\(versionHashModifier ?? "")"
    }
}
