import Foundation

/// One mapping of memory, a huge page, that a large fetch packs its chunks of rows into, one after another; it is
/// unmapped when the last chunk packed in it is gone.
///
/// A chunk's own `malloc`ed buffer is fresh memory, and each 4 KiB page of it was a page fault on first touch:
/// over a fetch of 100,000 rows, a tenth of the time. A region is aligned to 2 MiB and asks the kernel for
/// transparent huge pages (`MADV_HUGEPAGE`), so filling it takes one fault per 2 MiB where the kernel has them
/// (and 4 KiB pages where it has not: nothing else changes). A fetch maps one region after another while its
/// estimate of the bytes still to come lasts, the last at what is left of it, rounded to whole pages; pages never
/// written are never resident, so an estimate that is too large costs address space, not memory. A region of a
/// huge page at most bounds what a few rows an app keeps of a large fetch hold on to.
final class PackedRegion: @unchecked Sendable {
    // Immutable once made; the chunks packed in it are written by one packer before they are shared.
    /// The first byte, aligned to `hugePageSize`.
    let base: UnsafeMutableRawPointer
    /// The bytes mapped from `base`.
    let size: Int
    /// The whole mapping, for unmapping it.
    private let mapping: UnsafeMutableRawPointer
    private let mappingSize: Int

    /// The size of a transparent huge page on x86-64 and arm64 with 4 KiB pages.
    static let hugePageSize = 2 << 20

    /// Maps a region of at least `bytes` bytes; nil when the system refuses the mapping (the packer then uses
    /// `malloc`, as for a small fetch).
    init?(bytes: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = (bytes + page - 1) / page * page
        // Map a huge page more than asked, so an aligned start lies inside the mapping.
        let mappingSize = size + Self.hugePageSize
        guard
            let mapping = mmap(nil, mappingSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapping != MAP_FAILED
        else { return nil }
        let address = UInt(bitPattern: mapping)
        let aligned = (address + UInt(Self.hugePageSize) - 1) & ~UInt(Self.hugePageSize - 1)
        base = UnsafeMutableRawPointer(bitPattern: aligned)!
        self.size = size
        self.mapping = mapping
        self.mappingSize = mappingSize
        #if os(Linux)
            _ = madvise(base, size, MADV_HUGEPAGE)
        #endif
    }

    deinit { munmap(mapping, mappingSize) }
}
