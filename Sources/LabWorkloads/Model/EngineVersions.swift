import ObjectStackLMDB
import ObjectStackSQLite

/// The versions of the engines this build links, by store name: for `stacklab versions` and each result's
/// environment sidecar.
public enum EngineVersions {
    /// `sqlite` and `lmdb` → their library versions.
    public static var all: [String: String] {
        ["sqlite": SQLiteEngine.version, "lmdb": LMDBEngine.version]
    }
}
