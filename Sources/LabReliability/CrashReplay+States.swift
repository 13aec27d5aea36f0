import Foundation
import LabCore

extension CrashReplay {
    // MARK: - Planning

    /// State `number` of a plan of `total`: the first quarter (at most one per sync point) are the log cut right
    /// after sync points, spread over them; the others are at random points, a third of them the log cut there with
    /// its last unsynced write torn, two thirds sampled (half of those with a torn page). The same arguments give
    /// the same state.
    public func state(_ number: Int, of total: Int, seed: UInt64) -> CrashState {
        var random = SplitMix64(seed: seed ^ UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
        let atSyncPoints = min(syncPoints.count, total / 4)
        if number < atSyncPoints {
            let point = syncPoints[number * syncPoints.count / atSyncPoints]
            return CrashState(number: number, point: point, kind: .prefix, torn: false, seed: random.next())
        }
        let point = Int(random.next() % UInt64(eventCount + 1))
        if number % 3 == 0 {
            return CrashState(number: number, point: point, kind: .prefix, torn: true, seed: random.next())
        }
        return CrashState(
            number: number, point: point, kind: .sampled, torn: random.next() % 2 == 0, seed: random.next())
    }

    // MARK: - Building

    /// Writes the files of `state` into `folder` (which must exist and hold nothing of the store): every name the
    /// state's folder has, with the bytes its file has.
    /// - Throws: when a file cannot be written.
    public func materialize(_ state: CrashState, in folder: URL) throws {
        let applied = choose(state)
        var files = [[UInt8]](repeating: [], count: fileCount)
        var directory: [String: Int] = [:]
        for (number, file) in baseFiles.enumerated() {
            files[number] = file.contents
            directory[file.name] = number
        }
        for (index, change) in changes.enumerated() where change.event < state.point {
            let ranges = applied[index]
            if ranges?.isEmpty == true { continue }
            switch change.kind {
            case .write(let file, let offset, let dataOffset, let length):
                for range in ranges ?? [offset..<offset + Int64(length)] {
                    let bytes = log.bytes(at: dataOffset + (range.lowerBound - offset), count: range.count)
                    Self.write(bytes, at: range.lowerBound, into: &files[file])
                }
            case .resize(let file, let length):
                let size = Int(length)
                if files[file].count > size {
                    files[file].removeLast(files[file].count - size)
                } else {
                    files[file].append(contentsOf: repeatElement(0, count: size - files[file].count))
                }
            case .extend(let file, let length):
                let size = Int(length)
                if files[file].count < size {
                    files[file].append(contentsOf: repeatElement(0, count: size - files[file].count))
                }
            case .link(let name, let file):
                directory[name] = file
            case .unlink(let name):
                directory[name] = nil
            case .rename(let from, let to):
                if let file = directory.removeValue(forKey: from) { directory[to] = file }
            }
        }
        for (name, file) in directory {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(files[file]).write(to: url)
        }
    }

    /// Writes `bytes` at `offset`, growing the file with zeros to reach it.
    private static func write(_ bytes: Data, at offset: Int64, into file: inout [UInt8]) {
        let start = Int(offset)
        if file.count < start + bytes.count {
            file.append(contentsOf: repeatElement(0, count: start + bytes.count - file.count))
        }
        _ = file.withUnsafeMutableBytes { target in
            bytes.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: target[start..<start + bytes.count]))
        }
    }

    /// What of each change before the state's point is on disk: absent for the whole change, an empty list for
    /// none of it, the byte ranges (file offsets) of a write that are there in part.
    private func choose(_ state: CrashState) -> [Int: [Range<Int64>]] {
        var random = SplitMix64(seed: state.seed)
        var applied: [Int: [Range<Int64>]] = [:]
        let pending = changes.indices.filter {
            changes[$0].event < state.point && changes[$0].durableAfter >= state.point
        }
        switch state.kind {
        case .prefix:
            guard state.torn, let last = pending.last(where: { changes[$0].isWrite }) else { break }
            applied[last] = Self.tear(Self.sectors(of: [changes[last].writtenRange!]), using: &random)
        case .sampled:
            // Names reach the disk in order: some first ones of those pending do.
            let names = pending.filter { changes[$0].isName }
            let kept = Int(random.next() % UInt64(names.count + 1))
            for change in names.dropFirst(kept) { applied[change] = [] }
            for change in pending where !changes[change].isName && !changes[change].isWrite && random.next() % 2 == 0 {
                applied[change] = []
            }
            chooseWrites(pending.filter { changes[$0].isWrite }, torn: state.torn, into: &applied, using: &random)
        }
        return applied
    }

    /// For writes not yet on disk: each page keeps its first few versions since its last sync (any number of them,
    /// independently of other pages), and with `torn` one page's next version comes in part (some of its sectors).
    private func chooseWrites(
        _ writes: [Int], torn: Bool, into applied: inout [Int: [Range<Int64>]], using random: inout SplitMix64
    ) {
        struct Piece {
            let change: Int
            let range: Range<Int64>
        }
        var pages: [[Piece]] = []
        var pageOf: [String: Int] = [:]
        for change in writes {
            guard case .write(let file, _, _, _) = changes[change].kind, let range = changes[change].writtenRange
            else { continue }
            var start = range.lowerBound
            while start < range.upperBound {
                let page = start / Self.pageSize
                let end = min(range.upperBound, (page + 1) * Self.pageSize)
                let key = "\(file)/\(page)"
                if let position = pageOf[key] {
                    pages[position].append(Piece(change: change, range: start..<end))
                } else {
                    pageOf[key] = pages.count
                    pages.append([Piece(change: change, range: start..<end)])
                }
                start = end
            }
        }
        var kept: [Int: [Range<Int64>]] = [:]
        var partial: [(page: Int, next: Int)] = []
        for (position, pieces) in pages.enumerated() {
            let versions = Int(random.next() % UInt64(pieces.count + 1))
            for piece in pieces.prefix(versions) { kept[piece.change, default: []].append(piece.range) }
            if versions < pieces.count { partial.append((position, versions)) }
        }
        if torn, !partial.isEmpty {
            let (page, next) = partial[Int(random.next() % UInt64(partial.count))]
            let piece = pages[page][next]
            kept[piece.change, default: []] += Self.tear(Self.sectors(of: [piece.range]), using: &random)
        }
        for change in writes {
            let ranges = kept[change] ?? []
            if ranges.count == 1, ranges[0] == changes[change].writtenRange { continue }
            applied[change] = ranges
        }
    }

    /// The ranges split at sector boundaries.
    private static func sectors(of ranges: [Range<Int64>]) -> [Range<Int64>] {
        var sectors: [Range<Int64>] = []
        for range in ranges {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, (start / sectorSize + 1) * sectorSize)
                sectors.append(start..<end)
                start = end
            }
        }
        return sectors
    }

    /// Some of `sectors`, neither none nor all (all of one sector: it cannot tear).
    private static func tear(_ sectors: [Range<Int64>], using random: inout SplitMix64) -> [Range<Int64>] {
        guard sectors.count > 1 else { return sectors }
        var mask = (0..<sectors.count).map { _ in random.next() % 2 == 0 }
        let on = mask.filter { $0 }.count
        if on == 0 { mask[Int(random.next() % UInt64(sectors.count))] = true }
        if on == sectors.count { mask[Int(random.next() % UInt64(sectors.count))] = false }
        return sectors.indices.filter { mask[$0] }.map { sectors[$0] }
    }
}

extension CrashReplay.Change {
    /// Whether it writes bytes.
    var isWrite: Bool { writtenRange != nil }

    /// The file offsets a write covers; nil for any other change.
    var writtenRange: Range<Int64>? {
        guard case .write(_, let offset, _, let length) = kind else { return nil }
        return offset..<offset + Int64(length)
    }
}
