import Foundation

/// Memory the process holds, for what objects cost: resident heap bytes after the allocator has given freed memory
/// back. (glibc's `mallinfo2` and `malloc_trim` are in `malloc.h`, which Swift's Glibc module does not
/// import; `malloc_trim` is looked up at run time.)
public enum MallocUsage {
    /// Resident anonymous bytes: the resident pages (`/proc/self/statm`) less the file-backed ones; 0 where they
    /// cannot be read.
    ///
    /// File-backed pages are a store file's pages in the system's cache, mapped in (LMDB maps its whole file):
    /// what a fetch held was counted with the store's pages it happened to touch, which raw LMDB's reads touch
    /// too and which the system can drop at any time.
    public static func bytesInUse() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count > 2, let resident = Int(fields[1]), let shared = Int(fields[2]) else { return 0 }
        return max(resident - shared, 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Gives freed memory back to the system (glibc's `malloc_trim(0)`), so resident memory is close to what
    /// is in use and a run's peak starts from there.
    public static func trim() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
