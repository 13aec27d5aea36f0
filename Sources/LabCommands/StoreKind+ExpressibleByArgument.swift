import ArgumentParser
import LabWorkloads

/// `--store sqlite|lmdb|memory`: the lab's one store vocabulary on the command line. A value that is not a
/// store is a usage error (exit 2) naming the stores; a verb that needs a file store says so in `validate()`.
extension StoreKind: ExpressibleByArgument {
    /// The store's name in help text (`sqlite`), as scenario files write it.
    public var defaultValueDescription: String { rawValue }
}

extension StoreKind {
    /// Throws a usage error unless the store is a file (sqlite or lmdb): `option` names the flag.
    func requireFile(_ option: String = "--store") throws {
        guard isFile else {
            throw ValidationError(
                "\(option) must be a file store (\(StoreKind.fileStores.map(\.rawValue).joined(separator: " or "))), "
                    + "not \(rawValue)")
        }
    }
}
