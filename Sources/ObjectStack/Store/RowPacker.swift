import Foundation

/// Packs rows a store reads into one buffer per chunk, as `RowSnapshot`s that decode a value when it is read.
///
/// A store begins a row with its field count, appends its values in `storedIndex` order (strings as their UTF-8
/// bytes, straight from the engine's buffer), ends it with its version, and after a chunk of rows calls
/// `finish()`: the rows' bytes go into one allocation that the chunk's snapshots share. The packer then starts
/// over, keeping its scratch space, so a store reuses one packer for a whole fetch.
///
/// For example:
/// ```swift
/// let packer = RowPacker()
/// packer.beginRow(fieldCount: 2)
/// packer.appendString(bytes)          // an UnsafeRawBufferPointer of UTF-8
/// packer.appendInteger(42)
/// packer.endRow(version: 1)
/// let rows = packer.finish()          // [RowSnapshot], one per row
/// ```
/// - Note: Not thread-safe: one packer per read.
public final class RowPacker {
    /// The buffer rows are packed into; nil after `finish()` until the next row begins (a fetch of one chunk never
    /// allocates a second buffer).
    // Unchecked exclusivity: a packer is used by one read on one thread, and the runtime's access checks on
    // every appended row were a twentieth of packing one.
    @exclusivity(unchecked) private var scratch: UnsafeMutableRawPointer!
    /// The bytes `scratch` has room for.
    @exclusivity(unchecked) private var capacity: Int
    /// The size of a new chunk's own buffer: what the last one grew to.
    @exclusivity(unchecked) private var chunkCapacity: Int
    /// The region chunks are packed into while it has room (`packInRegions(bytes:)`), and the bytes used of it.
    @exclusivity(unchecked) private var region: PackedRegion?
    @exclusivity(unchecked) private var regionUsed = 0
    /// The bytes still expected, for the regions not mapped yet.
    @exclusivity(unchecked) private var regionBudget = 0
    /// Whether `scratch` lies in `region` (it is then not the packer's to free or grow).
    @exclusivity(unchecked) private var inRegion = false
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var rowStart = 0
    @exclusivity(unchecked) private var fieldCount = 0
    @exclusivity(unchecked) private var field = 0
    @exclusivity(unchecked) private var slotsStart = 0
    @exclusivity(unchecked) private var rowOffsets: [Int] = []
    @exclusivity(unchecked) private var versions: [Int64] = []
    @exclusivity(unchecked) private var extras: [StoreValue] = []

    /// A packer with room for about `bytes` bytes of rows before it grows.
    public init(capacity bytes: Int = 4096) {
        capacity = max(bytes, 64)
        chunkCapacity = capacity
        scratch = Self.allocate(capacity)
    }

    deinit { if !inRegion { free(scratch) } }

    /// A buffer from `malloc` (8-byte aligned, as the rows' slots need): a finished chunk's buffer is handed to
    /// its storage and trimmed with `realloc`, not copied.
    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        guard let buffer = malloc(bytes) else { fatalError("RowPacker: out of memory for \(bytes) bytes") }
        return buffer
    }

    /// The rows ended since the last `finish()`.
    public var rowCount: Int { rowOffsets.count }

    /// The bytes the chunk `finish()` returned last holds.
    private(set) var finishedBytes = 0

    /// Packs the next chunks, about `bytes` bytes in all, one after another in `PackedRegion`s of a huge page
    /// each, so their memory is faulted in huge pages; a region is mapped when the last is full, and goes when the
    /// last row packed in it does. Chunks beyond `bytes` get buffers of their own, as does everything when the
    /// system refuses a mapping.
    func packInRegions(bytes: Int) {
        regionBudget = bytes
    }

    /// Maps the next region: a huge page, or what is left of the budget. False, with no region, when nothing is
    /// left or the system refuses.
    private func mapRegion() -> Bool {
        guard regionBudget > 0, let next = PackedRegion(bytes: min(regionBudget, PackedRegion.hugePageSize)) else {
            region = nil
            regionBudget = 0
            return false
        }
        regionBudget -= next.size
        region = next
        regionUsed = 0
        return true
    }

    /// A buffer for the next chunk: the rest of the region while it has room (or a new region while the budget
    /// lasts), or one of its own.
    private func startBuffer() {
        if (region.map { $0.size - regionUsed } ?? 0) < 4096 { _ = mapRegion() }
        if let region, region.size - regionUsed >= 4096 {
            scratch = region.base + regionUsed
            capacity = region.size - regionUsed
            inRegion = true
        } else {
            capacity = chunkCapacity
            scratch = Self.allocate(capacity)
            inRegion = false
        }
    }

    /// Starts a row of `count` fields; each must then be appended, in order, before `endRow(version:)`.
    public func beginRow(fieldCount count: Int) {
        if scratch == nil { startBuffer() }
        used = (used + 7) & ~7
        rowStart = used
        fieldCount = count
        field = 0
        slotsStart = PackedRowStorage.slotsStart(fieldCount: count)
        reserve(slotsStart + 8 * count)
        scratch.storeBytes(of: UInt32(truncatingIfNeeded: count), toByteOffset: rowStart, as: UInt32.self)
        scratch.storeBytes(of: 0, toByteOffset: rowStart + 4, as: UInt32.self)
        used = rowStart + slotsStart + 8 * count
    }

    /// Appends a nil value.
    @inline(__always)
    public func appendNull() { put(.null, 0) }

    /// Appends an integer.
    @inline(__always)
    public func appendInteger(_ value: Int64) { put(.integer, UInt64(bitPattern: value)) }

    /// Appends a double.
    @inline(__always)
    public func appendDouble(_ value: Double) { put(.double, value.bitPattern) }

    /// Appends a Boolean.
    @inline(__always)
    public func appendBoolean(_ value: Bool) { put(value ? .trueValue : .falseValue, 0) }

    /// Appends a date, as seconds since the reference date.
    @inline(__always)
    public func appendDate(timeIntervalSinceReferenceDate interval: Double) { put(.date, interval.bitPattern) }

    /// Appends a string given as UTF-8 bytes (invalid sequences read back repaired, as `String(decoding:as:)`
    /// repairs them).
    public func appendString(utf8 bytes: UnsafeRawBufferPointer) {
        let offset = used - rowStart
        guard offset < 1 << 32, bytes.count < 1 << 32 else {
            put(.extra, UInt64(extras.count))
            extras.append(.string(String(decoding: bytes, as: UTF8.self)))
            return
        }
        reserve(bytes.count)
        if let source = bytes.baseAddress { (scratch + used).copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        put(.string, UInt64(offset) | UInt64(bytes.count) << 32)
    }

    /// Appends a string.
    public func appendString(_ value: String) {
        var value = value
        value.withUTF8 { appendString(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Appends any value: numbers, strings and UUIDs packed, the rest kept whole.
    public func append(_ value: StoreValue) {
        switch value {
        case .null: appendNull()
        case .integer(let v): appendInteger(v)
        case .double(let v): appendDouble(v)
        case .boolean(let v): appendBoolean(v)
        case .date(let v): appendDate(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate)
        case .string(let v): appendString(v)
        case .uuid(let v):
            let offset = used - rowStart
            reserve(16)
            withUnsafeBytes(of: v.uuid) { (scratch + used).copyMemory(from: $0.baseAddress!, byteCount: 16) }
            used += 16
            put(.uuid, UInt64(offset))
        case .decimal, .data, .uri, .objectID:
            put(.extra, UInt64(extras.count))
            extras.append(value)
        }
    }

    /// Ends the row begun last; fields not appended read as nil.
    public func endRow(version: Int64) {
        while field < fieldCount { appendNull() }
        rowOffsets.append(rowStart)
        versions.append(version)
    }

    /// The rows ended since the last call, sharing one buffer; the packer is then empty, ready for the next chunk.
    public func finish() -> [RowSnapshot] {
        guard !rowOffsets.isEmpty else { return [] }
        let storage: PackedRowStorage
        if inRegion, let region {
            // The chunk shares the region; the next one starts after it, 8-byte aligned as rows are.
            storage = PackedRowStorage(in: region, at: scratch, extras: extras)
            regionUsed += (used + 7) & ~7
            inRegion = false
        } else {
            // The chunk keeps the packer's buffer, trimmed to what it holds; the packer starts a new one.
            storage = PackedRowStorage(adopting: realloc(scratch, max(used, 8)) ?? scratch, extras: extras)
        }
        scratch = nil
        finishedBytes = used
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(rowOffsets.count)
        for index in rowOffsets.indices {
            rows.append(RowSnapshot(packed: storage, offset: rowOffsets[index], version: versions[index]))
        }
        used = 0
        rowOffsets.removeAll(keepingCapacity: true)
        versions.removeAll(keepingCapacity: true)
        extras = []
        return rows
    }

    @inline(__always)
    private func put(_ tag: PackedRowStorage.Tag, _ slot: UInt64) {
        precondition(field < fieldCount, "RowPacker: more values than the row's \(fieldCount) fields")
        scratch.storeBytes(
            of: tag.rawValue, toByteOffset: rowStart + PackedRowStorage.tagsStart + field, as: UInt8.self)
        scratch.storeBytes(of: slot, toByteOffset: rowStart + slotsStart + 8 * field, as: UInt64.self)
        field += 1
    }

    private func reserve(_ more: Int) {
        guard used + more > capacity else { return }
        if inRegion {
            // The region is full: the chunk so far moves to the next region, or to a buffer of its own when the
            // budget is spent or the chunk would not fit. The full region is held until its bytes are copied.
            let full = region
            if mapRegion(), let next = region, next.size >= used + more {
                next.base.copyMemory(from: scratch, byteCount: used)
                scratch = next.base
                capacity = next.size
                withExtendedLifetime(full) {}
                return
            }
            let size = max(chunkCapacity, (used + more) * 2)
            let own = Self.allocate(size)
            own.copyMemory(from: scratch, byteCount: used)
            withExtendedLifetime(full) {}
            scratch = own
            capacity = size
            inRegion = false
            return
        }
        let grown = max(capacity * 2, used + more)
        guard let bigger = realloc(scratch, grown) else { fatalError("RowPacker: out of memory for \(grown) bytes") }
        scratch = bigger
        capacity = grown
        chunkCapacity = max(chunkCapacity, grown)
    }
}
