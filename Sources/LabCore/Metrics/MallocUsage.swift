import Foundation

/// Memory the process holds, for what objects cost: resident bytes after the allocator has given freed memory
/// back. (glibc's `mallinfo2` and `malloc_trim` are in `malloc.h`, which Swift's Glibc module does not
/// import; `malloc_trim` is looked up at run time.)
public enum MallocUsage {
    /// Resident bytes (`/proc/self/statm`); 0 where it cannot be read.
    public static func bytesInUse() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Gives freed memory back to the system (glibc's `malloc_trim(0)`), so resident memory is close to what
    /// is in use and a run's peak starts from there.
    public static func trim() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
