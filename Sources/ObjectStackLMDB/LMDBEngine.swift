import CLMDB

/// Facts about the LMDB library this build links (liblmdb through the `CLMDB` system module).
///
/// The LMDB store itself arrives with its own issue; the lab records this version with every result.
public enum LMDBEngine {
    /// The linked LMDB version, such as "0.9.24".
    public static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
