import Foundation
import LabCore
import ObjectStack

/// The import workload: pages of pod specs fetched from the web service with URLSession, each imported by
/// find-or-create in a background context in batches, saved and brought into the main context, while the main
/// context fetches the first screen at `ui_fetch_hz`.
///
/// The measured phase is what an app does: from the first page request to the last merge done on the main
/// queue. Starting and stopping the web service is the lab's business and happens outside it (a stop that
/// waited for URLSession's idle keep-alive connection once added a second to every run). `ImportPhases` says
/// where the phase's time went.
///
/// With `reimport: true` the catalogue is imported once unmeasured, then a revision of it (same names and
/// versions, new summaries and downloads) is imported and measured: every object is updated, none inserted.
///
/// On a model file the service is `ModelDataService`, serving the scenario's population entity by entity in pages
/// of `page_size`, and `ModelImporter` finds or creates each object by the key `import_key:` names for its entity,
/// else by its uniqueness constraint (an entity with neither is created), wiring relationships from either side; the
/// context saves once, after the last page, since a page's objects may need a later page's. The phases are the
/// pods': waiting for the service, decoding each page's JSON, the importer's find-or-create on the context's queue,
/// the one save, the merges. With `reimport` the pages are imported once unmeasured, then again in a fresh
/// importer: objects with a key are found, not duplicated.
struct ImportWorkload: StackWorkload {
    let name = "import"
    let acceptsModelFiles = true
    let readsImportKeys = true
    /// Every strategy, the extension's included.
    let strategies = StackStrategies.declarations
    /// The session's metrics, then where the wall time went (the importer's phases), then the change-to-screen
    /// latencies and the extension's throughput.
    let metrics: [Metric] = Metric.session + ImportPhases.metrics + Metric.todaysStrategies
    /// How long, how fast, and what the UI felt; `run --wide` adds where the time went (the phases) and the CPU.
    let headlineMetrics: [Metric] = [
        .wallMilliseconds, .objectsPerSecond, .mainMaxStallMilliseconds, .fetchP99Milliseconds,
        .mergeTotalMilliseconds,
    ]
    /// The stack workloads' charts, the first screen's fetch latency beside the stall (a strategy can keep the main
    /// thread free yet make its fetches wait), how soon a commit reaches the screen (with `newest_first`), and where
    /// each cell's wall time went.
    let charts: [ChartSpec] =
        stackCharts + [
            .lines(
                .metric(Metric.fetchP99Milliseconds.name), against: .swept, series: ["strategy"], panels: ["store"],
                xLog: true, yLog: true, yLabel: "first-screen fetch p99 (ms)"),
            .lines(
                .metric(Metric.changeToScreenP99Milliseconds.name), against: .swept, series: ["strategy"],
                panels: ["store"], xLog: true, yLabel: "commit to first screen, p99 (ms)"),
            .stack(group: Metric.importPhaseGroup, panels: ["store"], title: "where the wall time went"),
        ]

    /// Creates the workload.
    init() {}

    var parameters: [ParameterSpec] {
        stackParameters + [
            ParameterSpec(
                "objects", .integer(minimum: 1), default: .integer(10_000), quick: .integer(1_500),
                help: "pods in the catalogue (ignored with `catalog`)"),
            ParameterSpec("page_size", .integer(minimum: 1), default: .integer(500), help: "pods per service page"),
            ParameterSpec(
                "batch_size", .integer(minimum: 1), default: .integer(500),
                help: "pods per find-or-create batch (one IN fetch and one save each)"),
            ParameterSpec(
                "catalog", .text, default: nil,
                help: "a catalogue file (JSON Lines or TSV) instead of the synthetic one"),
            ParameterSpec(
                "reimport", .boolean, default: .boolean(false),
                help: "import a revised catalogue a second time and measure that (updates, no inserts)"),
            ParameterSpec(
                "write_rate", .integer(minimum: 0), default: .integer(0),
                help: "pods a second the import saves at, a steady trickle (0: as fast as it goes); the pods "
                    + "service's pages still come as asked"),
            ParameterSpec(
                "durability", .choice(Durability.allCases.map(\.rawValue)), default: nil,
                help: "full, normal or off: what each save promises across a power cut (the store's durability "
                    + "option; unset, the store's default: SQLite normal, LMDB full), so the import's cost of each "
                    + "shows beside the others"),
            ParameterSpec(
                "newest_first", .boolean, default: .boolean(false),
                help: "serve the catalogue in descending name order, so each save's pods top the first screen, and "
                    + "time each commit's way to the screen (change_to_screen_*); the phase then ends when the "
                    + "first screen shows the last commit"),
        ]
    }

    @MainActor
    func run(_ session: RunSession) async throws -> WorkloadOutcome {
        let inAnotherProcess = session.stack.strategy.writesInAnotherProcess
        if let modelFile = session.modelFile {
            guard !inAnotherProcess else {
                throw LabError(.unsupported, "the extension strategy imports the built-in pods only, not a model file")
            }
            return try await run(session, on: modelFile)
        }
        var catalogue: Catalogue
        if let path = session.text("catalog") {
            catalogue = try Catalogue.load(URL(fileURLWithPath: path))
        } else {
            catalogue = .synthetic(count: session.integer("objects"), seed: session.seed)
        }
        let newestFirst = session.flag("newest_first")
        if newestFirst { catalogue = Catalogue(specs: catalogue.specs.sorted { $0.name > $1.name }) }
        if inAnotherProcess { return try await runExtension(session, catalogue: catalogue) }
        let pageSize = session.integer("page_size")
        let batchSize = session.integer("batch_size")
        let stack = session.stack
        let background = try stack.newBackgroundContext()
        if session.flag("reimport") {
            _ = try await Self.withService(catalogue, pageSize: pageSize) { client in
                try await Self.importPages(
                    from: client, batchSize: batchSize, into: background, stack: stack,
                    phases: ImportPhases(clock: session.run.clock), since: session.run.clock.nowMilliseconds()
                ).counts
            }
        }
        let measured =
            session.flag("reimport")
            ? Catalogue(specs: Catalogue.synthetic(count: catalogue.specs.count, seed: session.seed, revision: 1).specs)
            : catalogue
        var target = session.text("catalog") != nil && session.flag("reimport") ? catalogue : measured
        if newestFirst { target = Catalogue(specs: target.specs.sorted { $0.name > $1.name }) }

        let phases = ImportPhases(clock: session.run.clock)
        let screen = newestFirst ? ChangeToScreen() : nil
        var committed: (@Sendable (ArraySlice<PodSpec>) -> Void)?
        if let screen {
            session.firstScreenShown = { screen.shown(topName: $0) }
            committed = { batch in screen.committed(smallestName: batch.lazy.map(\.name).min() ?? "") }
        }
        let ((counts, importerSpan), wall) = try await Self.withService(target, pageSize: pageSize) { client in
            try await session.measure { start in
                let (counts, finished) = try await Self.importPages(
                    from: client, batchSize: batchSize, into: background, stack: stack, phases: phases, since: start,
                    pace: WritePace(rate: Double(session.integer("write_rate"))), committed: committed)
                try await screen?.waitUntilShown()
                return (counts, finished - start)
            }
        }
        // The hop back to the main actor after the importer finished (the main queue may be busy with a fetch), and
        // with newest_first the wait for the first screen to show the last commit.
        phases.record(.queueWait, milliseconds: max(0, wall - importerSpan))
        return WorkloadOutcome(
            wallMilliseconds: wall, objects: counts.inserted + counts.updated + counts.unchanged,
            storedObjects: try await stack.storedCount(), metrics: phases.metrics.merging(screen?.metrics ?? [:]) { $1 }
        )
    }

    /// The `extension` strategy: another process imports the catalogue into the store file while the app shows the
    /// first screen and merges the extension's history. The measured phase runs from the go to the extension to
    /// the app's main context having merged the last transaction (and, with `newest_first`, the first screen
    /// showing it); the phases are not split, since the import's steps run in the other process.
    @MainActor
    func runExtension(_ session: RunSession, catalogue: Catalogue) async throws -> WorkloadOutcome {
        guard !session.flag("reimport") else {
            throw LabError(.unsupported, "the extension strategy does not run with reimport")
        }
        let stack = session.stack
        let screen = session.flag("newest_first") ? ChangeToScreen() : nil
        if let screen { session.firstScreenShown = { screen.shown(topName: $0) } }
        let service = try await PodService.start(catalogue: catalogue, pageSize: session.integer("page_size"))
        let child: ExtensionProcess
        do {
            child = try ExtensionProcess(
                executable: StartupLauncher.defaultExecutable, store: stack.store, url: stack.storeLocation,
                service: service.baseURL, batchSize: session.integer("batch_size"),
                writeRate: Double(session.integer("write_rate")),
                durability: stack.storeOptions[Durability.option].flatMap(Durability.init(rawValue:))
            ) { nanoseconds, name in screen?.committed(smallestName: name, at: nanoseconds) }
        } catch {
            await service.stop(grace: 0)
            throw LabError(.workloadFailed, "could not start the extension process: \(error)")
        }
        do {
            try await child.waitUntilReady()
            let (done, wall) = try await session.measure { _ in
                child.go()
                let done = try await child.waitUntilDone()
                try await stack.catchUp()
                try await screen?.waitUntilShown()
                return done
            }
            await service.stop(grace: 0)
            var metrics = screen?.metrics ?? [:]
            if done.milliseconds > 0 {
                metrics[.extensionObjectsPerSecond] = Double(done.objects) / (done.milliseconds / 1_000)
            }
            return WorkloadOutcome(
                wallMilliseconds: wall, objects: done.objects, storedObjects: try await stack.storedCount(),
                metrics: metrics)
        } catch {
            child.stop()
            await service.stop(grace: 0)
            throw error
        }
    }

    /// The import on a model file: every entity's pages fetched from `ModelDataService` and imported by
    /// `ModelImporter` in a background context, saved once and merged into the main context.
    @MainActor
    func run(_ session: RunSession, on modelFile: ModelFileRun) async throws -> WorkloadOutcome {
        let stack = session.stack
        let pages = try ModelObjectPages(plan: modelFile.plan, pageSize: session.integer("page_size"))
        let background = try stack.newBackgroundContext()
        let service = try await ModelDataService.start(pages: pages)
        let client = ModelPagesClient(baseURL: service.baseURL)
        defer { client.invalidate() }
        do {
            let clock = session.run.clock
            if session.flag("reimport") {
                _ = try await Self.importModelPages(
                    pages, from: client, into: background, stack: stack, keys: modelFile.file.importKeys,
                    phases: ImportPhases(clock: clock), since: clock.nowMilliseconds())
            }
            let phases = ImportPhases(clock: clock)
            let ((counts, importerSpan), wall) = try await session.measure { start in
                let (counts, finished) = try await Self.importModelPages(
                    pages, from: client, into: background, stack: stack, keys: modelFile.file.importKeys,
                    phases: phases, since: start)
                return (counts, finished - start)
            }
            // The hop back to the main actor after the importer finished, as for the pods.
            phases.record(.queueWait, milliseconds: max(0, wall - importerSpan))
            client.invalidate()
            await service.stop(grace: 0)
            return WorkloadOutcome(
                wallMilliseconds: wall, objects: counts.imported,
                storedObjects: try await modelFile.storedTotal(stack), metrics: phases.metrics)
        } catch {
            client.invalidate()
            await service.stop(grace: 0)
            throw error
        }
    }

    /// Fetches every page of every entity and imports it into `context` with one importer (finding objects by
    /// `keys`, else their uniqueness constraints), saves once, and waits for the main queue's merges: the pods'
    /// driver (`importPages`) on a model file, each step's time from `start` going to its phase, so the phases
    /// cover the import without gaps (find-or-create is the importer's page, save the one save and its reset).
    /// - Returns: what the import did, and when it finished (the caller's hop back to its queue comes after).
    nonisolated static func importModelPages(
        _ pages: ModelObjectPages, from client: ModelPagesClient, into context: ManagedObjectContext, stack: LabStack,
        keys: [String: [String]] = [:], phases: ImportPhases, since start: Double
    ) async throws -> (counts: ModelImporter.Counts, finished: Double) {
        let clock = phases.clock
        // The importer lives on the context's queue: every use below is inside the context's perform.
        nonisolated(unsafe) var importer: ModelImporter?
        var total = ModelImporter.Counts()
        // The hop from the caller's queue to the driver's.
        var now = phases.record(.queueWait, since: start)
        for entity in pages.entityNames {
            let count = pages.pageCount(of: entity) ?? 0
            guard count > 0 else { continue }
            for number in 1...count {
                let data = try await client.data(of: entity, page: number)
                now = phases.record(.serviceWait, since: now)
                let page = try ModelImporter.decode(data)
                let handedOff = phases.record(.decode, since: now)
                let (counts, began, ended) = try await context.perform {
                    let began = clock.nowMilliseconds()
                    if importer == nil { importer = try ModelImporter(context: context, keys: keys) }
                    let counts = try importer!.importPage(page)
                    return (counts, began, phases.record(.findOrCreate, since: began))
                }
                phases.record(.queueWait, milliseconds: began - handedOff)
                now = phases.record(.queueWait, since: ended)
                total.inserted += counts.inserted
                total.found += counts.found
                total.fetches += counts.fetches
                total.imported += counts.imported
            }
        }
        let (began, ended) = try await context.perform {
            let began = clock.nowMilliseconds()
            try stack.save(context)
            if context !== stack.main { context.reset() }
            return (began, phases.record(.save, since: began))
        }
        phases.record(.queueWait, milliseconds: began - now)
        now = phases.record(.queueWait, since: ended)
        // The merges the save queued on the main queue are part of the import: the UI has the objects once they ran.
        try await stack.catchUp()
        return (total, phases.record(.mergeWait, since: now))
    }

    /// Serves `catalogue` for the length of `body`, which gets a client of the service. The client is done when
    /// `body` returns, so the service stops without waiting for its idle connections.
    @MainActor
    static func withService<T>(
        _ catalogue: Catalogue, pageSize: Int, _ body: (SpecsClient) async throws -> T
    ) async throws -> T {
        let service = try await PodService.start(catalogue: catalogue, pageSize: pageSize)
        let client = SpecsClient(baseURL: service.baseURL)
        do {
            let value = try await body(client)
            client.invalidate()
            await service.stop(grace: 0)
            return value
        } catch {
            client.invalidate()
            await service.stop(grace: 0)
            throw error
        }
    }

    /// Fetches every page and imports it into `context`, then waits until the main queue has merged every save:
    /// the importer as an app runs it, driven off the main thread (an app's network callbacks do not come on
    /// the main queue), handing each page to its context's queue. Each step's time from `start` goes to its
    /// phase, so the phases cover the import without gaps.
    /// - Returns: what the import did, and when it finished (the caller's hop back to its queue comes after).
    nonisolated static func importPages(
        from client: SpecsClient, batchSize: Int, into context: ManagedObjectContext, stack: LabStack,
        phases: ImportPhases,
        since start: Double, pace: WritePace = WritePace(rate: 0),
        committed: (@Sendable (ArraySlice<PodSpec>) -> Void)? = nil
    ) async throws -> (counts: PodImporter.Counts, finished: Double) {
        var pace = pace
        let clock = phases.clock
        // The compare trials' test hook: nil unless its variable is set.
        let slowdown = ImportSlowdown()
        let resets = context !== stack.main
        var total = PodImporter.Counts()
        var number = 1
        var pages = 1
        // The hop from the caller's queue to the driver's.
        var now = phases.record(.queueWait, since: start)
        repeat {
            let data = try await client.data(forPage: number)
            now = phases.record(.serviceWait, since: now)
            let page = try client.decode(data, page: number)
            pages = page.numberOfPages
            // Unpaced, a page goes to the context's queue in one hop; paced, each save's specs wait for their turn
            // (the wait counts as waiting for the service: a trickle is data that comes slowly).
            let parts = pace.parts(of: page.result, batchSize: batchSize)
            var handedOff = phases.record(.decode, since: now)
            for specs in parts {
                if pace.isPaced {
                    try await pace.waitForSave(of: specs.count)
                    handedOff = phases.record(.serviceWait, since: handedOff)
                }
                let (counts, began, ended) = try await context.perform {
                    let began = clock.nowMilliseconds()
                    let counts =
                        stack.strategy.importsWithBatchInserts
                        ? try PodImporter.batchInsertSpecs(
                            specs, batchSize: batchSize, into: context, phases: phases, committed: committed)
                        : try PodImporter.importSpecs(
                            specs, batchSize: batchSize, into: context, save: stack.save, resetAfterSave: resets,
                            phases: phases, committed: committed)
                    return (counts, began, clock.nowMilliseconds())
                }
                phases.record(.queueWait, milliseconds: began - handedOff)
                now = phases.record(.queueWait, since: ended)
                handedOff = now
                total = total + counts
            }
            number += 1
        } while number <= pages
        // The merges the saves queued on the main queue are part of the import: the UI has the pods once they ran.
        try await stack.catchUp()
        // The test hook's share of everything the import did, the merges after the last save included.
        slowdown?.burnShare()
        return (total, phases.record(.mergeWait, since: now))
    }
}
