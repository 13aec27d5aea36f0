import LabWorkloads

/// The engine comparison's operations, one function each: what is set up outside the clock, what is timed, and
/// the check that the implementation read back what was written (a fast wrong answer fails the run).
extension EngineOverheadCell {
    /// `insert`: N pods in one save, on a fresh file each sample.
    func insert() throws -> Samples {
        let rows = rows()
        return try onFreshFiles { engine in
            engine.prepareInsert(rows)
            return try milliseconds { try engine.insert(rows) }
        }
    }

    /// `batch-insert`: ObjectStack's one `BatchInsertRequest` of dictionaries built beforehand (not timed); the raw
    /// side's insert of the same rows, which a batch insert is judged against. A fresh file each sample.
    func batchInsert() throws -> Samples {
        let rows = rows()
        return try onFreshFiles { engine in
            let time: Double
            if let stack = engine as? StackPods {
                let objects = StackPods.batchObjects(rows)
                time = try milliseconds { try stack.batchInsert(objects) }
            } else {
                engine.prepareInsert(rows)
                time = try milliseconds { try engine.insert(rows) }
            }
            try check(try engine.count(downloadsAbove: -1), rows.count, "the pods a batch insert wrote")
            return time
        }
    }

    /// `fetch-all`: all N pods, every value read; also `bytes_per_object`, the heap the materialised results hold.
    ///
    /// The memory is measured in a fetch of its own before the timed ones: measuring it needs the heap trimmed first
    /// (`MallocUsage.trim()`), and a timed fetch after a trim spent part of its time faulting in every page it
    /// allocated: a cost in proportion to the memory an implementation holds, which no other read paid and a
    /// running app does not pay on each fetch.
    func fetchAll() throws -> Samples {
        let rows = rows()
        let expected = rows.reduce(0) { $0 &+ $1.checksum }
        let engine = try seeded(rows)
        defer { engine.close() }
        var measured = Samples()
        do {
            try engine.reopen()
            MallocUsage.trim()
            let before = MallocUsage.bytesInUse()
            let first = try engine.fetchAll()
            let held = MallocUsage.bytesInUse() - before
            try check(first.checksum, expected, "fetch-all")
            measured.metrics[.bytesPerObject] = Double(held) / Double(max(objects, 1))
            withExtendedLifetime(first.held) {}
        }
        measured.times = try sampleReads {
            try engine.reopen()
            var result: (held: Any, checksum: Int) = ([], 0)
            let time = try milliseconds { result = try engine.fetchAll() }
            try check(result.checksum, expected, "fetch-all")
            withExtendedLifetime(result.held) {}
            return time
        }
        return measured
    }

    /// `fetch-by-id`: `lookups` random pods by primary key / object ID, in one read transaction.
    func fetchByID() throws -> Samples {
        let rows = rows()
        var generator = SplitMix64(seed: 7)
        let keys = Array(rows.map { $0.id }.shuffled(using: &generator).prefix(lookups))
        let expected = keys.reduce(0) { $0 &+ rows[Int($1) - 1].checksum }
        let engine = try seeded(rows)
        defer { engine.close() }
        return Samples(
            times: try sampleReads {
                try engine.reopen()
                try engine.prepareLookups(keys)
                var checksum = 0
                let time = try milliseconds { checksum = try engine.fetchByID() }
                try check(checksum, expected, "fetch-by-id")
                return time
            })
    }

    /// `fetch-sorted`: the first 50 pods by name, ties by primary key (a list's first screen).
    func fetchSorted() throws -> Samples {
        let rows = rows()
        let limit = 50
        let first = rows.sorted { ($0.name, $0.id) < ($1.name, $1.id) }.prefix(limit)
        let expected = first.reduce(0) { $0 &+ $1.checksum }
        let engine = try seeded(rows)
        defer { engine.close() }
        return Samples(
            times: try sampleReads {
                try engine.reopen()
                var checksum = 0
                let time = try milliseconds { checksum = try engine.fetchSorted(limit: limit) }
                try check(checksum, expected, "fetch-sorted")
                return time
            })
    }

    /// `update`: every tenth pod changed (two values) and saved, once per sample.
    func update() throws -> Samples {
        let rows = rows()
        let keys = Array(stride(from: Int64(1), through: Int64(objects), by: 10))
        let engine = try seeded(rows)
        defer { engine.close() }
        var measured = Samples()
        for sample in 0..<samples {
            try engine.reopen()
            try engine.prepareUpdate(keys)
            measured.times.append(try milliseconds { try engine.update(round: sample) })
        }
        try engine.reopen()
        // Every sample added one to the downloads of every tenth pod.
        let expected = rows.reduce(0) { $0 &+ $1.checksum } &+ keys.count * samples * 2
        try check(try engine.fetchAll().checksum, expected, "the pods after update")
        return measured
    }

    /// `count`: the pods with more than 2^19 downloads, about half.
    func count() throws -> Samples {
        let rows = rows()
        let expected = rows.filter { $0.downloads > PodRow.countThreshold }.count
        let engine = try seeded(rows)
        defer { engine.close() }
        return Samples(
            times: try sampleReads {
                try engine.reopen()
                var count = 0
                let time = try milliseconds { count = try engine.count(downloadsAbove: PodRow.countThreshold) }
                try check(count, expected, "count")
                return time
            })
    }

    /// `merge` (ObjectStack only): a `changes`-object save, half updates of registered pods, merged into a context
    /// holding the N pods registered and materialised.
    func merge() throws -> Samples {
        try measureSaves { engine, sample in
            try engine.measureMerge(round: sample, changes: changes, registered: objects)
        }
    }

    /// `child-save` (ObjectStack only): the same changes saved by a child context into that context, the
    /// nested-contexts strategy's step.
    func childSave() throws -> Samples {
        try measureSaves { engine, sample in
            try engine.measureChildSave(round: sample, changes: changes, registered: objects)
        }
    }

    /// `import` (ObjectStack only): N pods in saves of `batch_size`, the context reset after each (read
    /// `peak_rss_mb`).
    func importInBatches() throws -> Samples {
        let engine = try stack()
        defer { engine.close() }
        var measured = Samples()
        measured.times.append(try milliseconds { try engine.importInBatches(objects, batchSize: batchSize) })
        try check(try engine.storedCount(), objects, "pods imported")
        return measured
    }

    /// One timed sample per engine on a fresh file of its own, closed after it: `insert` and `batch-insert`.
    private func onFreshFiles(_ sample: (any PodEngine) throws -> Double) throws -> Samples {
        var measured = Samples()
        for index in 0..<samples {
            let engine = try engine(index)
            defer { engine.close() }
            measured.times.append(try sample(engine))
        }
        return measured
    }

    /// A save into a context holding the N pods registered, timed by `save` once per sample: `merge` and
    /// `child-save`.
    private func measureSaves(_ save: (StackPods, Int) throws -> Duration) throws -> Samples {
        let engine = try stack()
        defer { engine.close() }
        try engine.insert(rows())
        try engine.reopen()
        try engine.register(objects)
        var measured = Samples()
        for sample in 0..<samples {
            measured.times.append(try save(engine, sample).milliseconds)
        }
        return measured
    }
}
