import CCrypto
import Foundation
import ObjectStack

/// Core Data's own version hashes of a model version's entities (32 bytes each), with the digest and checksum Core
/// Data keeps beside them in a store's metadata.
///
/// For example:
/// ```swift
/// // From the compiled model an app ships (its .momd's VersionInfo.plist), or from a store Core Data wrote:
/// let hashes = try CoreDataVersionHashes(versionInfoAt: momdURL, version: "Moody 4")
/// let same = try CoreDataVersionHashes(storeAt: storeWrittenAtMoody4)
/// ```
/// Core Data opens a store as current only when its `NSStoreModelVersionHashes` equal its model's, and the function
/// that computes them is undocumented, so ObjectStack cannot compute them from a model file: it takes them from
/// where Core Data wrote them. The digest (`NSStoreModelVersionHashesDigest`, framework 977 on) is the base64 of the
/// SHA-512 of every entity's UTF-8 name followed by its hash, in byte order of the names; the checksum
/// (`NSStoreModelVersionChecksumKey`, framework 1327 on) the base64 of the SHA-256 of the hashes alone, in the same
/// order (both reproduced on every store of the project's shared data that has them).
public struct CoreDataVersionHashes: Sendable, Hashable {
    /// Each entity's hash, by entity name.
    public let hashes: [String: Data]

    /// Hashes given by entity name.
    public init(hashes: [String: Data]) {
        self.hashes = hashes
    }

    /// The hashes Core Data recorded in a store it wrote (`Z_METADATA.Z_PLIST`'s `NSStoreModelVersionHashes`).
    /// - Throws: `StoreError` when the file is not a store in Core Data's layout, or ObjectStack wrote its hashes.
    public init(storeAt url: URL) throws {
        let file = try CoreDataStoreFile(url: url)
        guard !file.isWrittenByObjectStack else {
            throw StoreError(
                code: .incompatibleModel,
                message: "ObjectStack wrote this store's version hashes, not Core Data: they cannot stand for Core "
                    + "Data's", url: url)
        }
        hashes = file.coreDataVersionHashes
    }

    /// The hashes of one version in a compiled model's `VersionInfo.plist` (the `.momd` folder Xcode builds, or the
    /// plist itself), under `NSManagedObjectModel_VersionHashes`.
    /// - Throws: `StoreError` `.ioFailure` when the plist does not read, `.incompatibleModel` when it has no such
    ///   version (naming the ones it has).
    public init(versionInfoAt url: URL, version: String) throws {
        let plistURL =
            url.hasDirectoryPath || url.pathExtension == "momd" ? url.appendingPathComponent("VersionInfo.plist") : url
        guard let data = try? Data(contentsOf: plistURL),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let versions = plist["NSManagedObjectModel_VersionHashes"] as? [String: Any]
        else {
            throw StoreError(
                code: .ioFailure,
                message:
                    "\(plistURL.path) is not a compiled model's VersionInfo.plist (no NSManagedObjectModel_VersionHashes)"
            )
        }
        guard let entities = versions[version] as? [String: Any] else {
            throw StoreError(
                code: .incompatibleModel,
                message: "\(plistURL.lastPathComponent) has no version \(version) (versions: "
                    + versions.keys.sorted().joined(separator: ", ") + ")")
        }
        hashes = entities.compactMapValues { $0 as? Data }
    }

    /// The entity names in byte order, as the digest and checksum take them.
    private var orderedNames: [String] {
        hashes.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each name (UTF-8) and its hash.
    public var digest: String {
        var bytes = Data()
        for name in orderedNames {
            bytes.append(contentsOf: Array(name.utf8))
            bytes.append(hashes[name]!)
        }
        return Self.sha(bytes, length: Int(SHA512_DIGEST_LENGTH)) { SHA512($0, $1, $2) }.base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the hashes.
    public var checksum: String {
        var bytes = Data()
        for name in orderedNames { bytes.append(hashes[name]!) }
        return Self.sha(bytes, length: Int(SHA256_DIGEST_LENGTH)) { SHA256($0, $1, $2) }.base64EncodedString()
    }

    private static func sha(
        _ data: Data, length: Int,
        _ function: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    ) -> Data {
        var output = [UInt8](repeating: 0, count: length)
        data.withUnsafeBytes { input in
            _ = function(input.bindMemory(to: UInt8.self).baseAddress, input.count, &output)
        }
        return Data(output)
    }

    /// Whether the hashes are for the entities of `model` (the same names).
    public func covers(_ model: ManagedObjectModel) -> Bool {
        Set(hashes.keys) == Set(model.entities.map(\.name))
    }

    /// The store option that gives a new (or migrated) store these hashes: its value for
    /// `SQLiteStore.coreDataVersionHashesOption`.
    public var optionValue: String {
        let plist =
            (try? PropertyListSerialization.data(fromPropertyList: hashes, format: .binary, options: 0)) ?? Data()
        return plist.base64EncodedString()
    }

    /// Hashes read back from `optionValue`; nil for text that is not one.
    public init?(optionValue: String) {
        guard let data = Data(base64Encoded: optionValue),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return nil }
        hashes = plist.compactMapValues { $0 as? Data }
    }
}
