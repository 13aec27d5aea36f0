/// What a model file says about an entity, a property or a fetch request that changes no behaviour in
/// ObjectStack, kept as written: the `<userInfo>` entries and the XML attributes that configure Xcode's code
/// generation, Spotlight, CloudKit, iCloud sync or persistent history.
///
/// For example, for `<attribute name="photo" attributeType="Binary" allowsExternalBinaryDataStorage="YES">`:
/// ```swift
/// let photo = entity.attributesByName["photo"]!
/// photo.modelFileMetadata.allowsExternalBinaryDataStorage   // true
/// photo.modelFileMetadata.attributes["allowsExternalBinaryDataStorage"]   // "YES"
/// ```
/// The typed accessors carry Core Data's property names (`isIndexedBySpotlight` for `spotlightIndexingEnabled`,
/// `isStoredInExternalRecord` for `storedInTruthFile`); an attribute the reader does not know is kept here too,
/// besides its warning.
public struct ModelFileMetadata: Sendable, Hashable {
    /// The `<userInfo>` entries, by key.
    public var userInfo: [String: String]
    /// The XML attributes kept as written, by name.
    public var attributes: [String: String]

    /// Creates metadata.
    public init(userInfo: [String: String] = [:], attributes: [String: String] = [:]) {
        self.userInfo = userInfo
        self.attributes = attributes
    }

    /// Whether nothing is kept.
    public var isEmpty: Bool { userInfo.isEmpty && attributes.isEmpty }

    /// Whether the XML attribute `name` is `YES`.
    public func flag(_ name: String) -> Bool { attributes[name] == "YES" }

    // MARK: - Core Data's names

    /// `spotlightIndexingEnabled`: Core Data's `isIndexedBySpotlight` (Core Spotlight integration).
    public var isIndexedBySpotlight: Bool { flag("spotlightIndexingEnabled") }
    /// `storedInTruthFile`: Core Data's `isStoredInExternalRecord` (macOS Spotlight external record files).
    public var isStoredInExternalRecord: Bool { flag("storedInTruthFile") }
    /// `allowsExternalBinaryDataStorage`: large data may live beside the store; stores here keep it in the row.
    public var allowsExternalBinaryDataStorage: Bool { flag("allowsExternalBinaryDataStorage") }
    /// `allowsCloudEncryption`: CloudKit encrypts the value (NSPersistentCloudKitContainer only).
    public var allowsCloudEncryption: Bool { flag("allowsCloudEncryption") }
    /// `preserveAfterDeletion`: Core Data's `preservesValueInHistoryOnDeletion` (tombstones in persistent history).
    public var preservesValueInHistoryOnDeletion: Bool { flag("preserveAfterDeletion") }
    /// `usesScalarValueType`: Xcode's generated class uses a scalar (`Int64`) rather than `NSNumber`.
    public var usesScalarValueType: Bool { flag("usesScalarValueType") }
    /// `customClassName`: Core Data's `attributeValueClassName`, the generated property's class.
    public var attributeValueClassName: String? { attributes["customClassName"] }
    /// `codeGenerationType` of an entity: `class`, `category` or none (manual).
    public var codeGenerationType: String? { attributes["codeGenerationType"] }
    /// `syncable`: the iCloud-era sync flag Xcode still writes; no meaning since iOS 10.
    public var isSyncable: Bool { flag("syncable") }
}
