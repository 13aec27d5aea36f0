import ArgumentParser
import LabWorkloads

/// `--store sqlite|lmdb|memory`: the lab's one store vocabulary on the command line, the stores `LabStores`
/// declares. A value that is not a store is a usage error (exit 2) naming the stores; a verb that needs a file store
/// says so in `validate()`.
extension StoreKind: ExpressibleByArgument {
    /// The store called `argument`, if `LabStores` declares one.
    public init?(argument: String) {
        guard let store = StoreKind.named(argument) else { return nil }
        self = store
    }

    /// The store's name in help text (`sqlite`), as scenario files write it.
    public var defaultValueDescription: String { name }

    /// Every store's name, for help and usage errors.
    public static var allValueStrings: [String] { StoreKind.all.map(\.name) }
}

extension StoreKind {
    /// Throws a usage error unless the store is a file (sqlite or lmdb): `option` names the flag.
    func requireFile(_ option: String = "--store") throws {
        guard isFile else {
            throw ValidationError(
                "\(option) must be a file store (\(StoreKind.fileStores.map(\.name).joined(separator: " or "))), "
                    + "not \(name)")
        }
    }
}
