import Foundation
import ObjectStack

/// The import workload: pages of pod specs fetched from the web service with URLSession, each imported by
/// find-or-create in a background context in batches, saved and brought into the main context, while the main
/// context fetches the first screen at `ui_fetch_hz`.
///
/// With `reimport: true` the catalogue is imported once unmeasured, then a revision of it (same names and
/// versions, new summaries and downloads) is imported and measured: every object is updated, none inserted.
enum ImportWorkload {
    @MainActor
    static func run(_ session: RunSession) async throws -> WorkloadOutcome {
        let catalogue: Catalogue
        if let path = session.text("catalog") {
            catalogue = try Catalogue.load(URL(fileURLWithPath: path))
        } else {
            catalogue = .synthetic(count: session.integer("objects"), seed: session.seed)
        }
        let pageSize = session.integer("page_size"), batchSize = session.integer("batch_size")
        let stack = session.stack
        let background = try stack.newBackgroundContext()
        if session.flag("reimport") {
            _ = try await importAll(catalogue, pageSize: pageSize, batchSize: batchSize, into: background, stack: stack)
            await stack.drainMainQueue()
        }
        let measured = session.flag("reimport")
            ? Catalogue(specs: Catalogue.synthetic(count: catalogue.specs.count, seed: session.seed, revision: 1).specs)
            : catalogue
        let target = session.text("catalog") != nil && session.flag("reimport") ? catalogue : measured

        let (counts, wall) = try await session.measure { _ in
            let counts = try await importAll(target, pageSize: pageSize, batchSize: batchSize, into: background, stack: stack)
            await stack.drainMainQueue()
            return counts
        }
        return WorkloadOutcome(
            wallMilliseconds: wall, objects: counts.inserted + counts.updated + counts.unchanged,
            storedObjects: try await stack.storedCount())
    }

    /// Serves the catalogue, fetches every page and imports it; the service lives for this import only.
    @MainActor
    static func importAll(
        _ catalogue: Catalogue, pageSize: Int, batchSize: Int, into context: ManagedObjectContext, stack: LabStack
    ) async throws -> PodImporter.Counts {
        let service = try await PodService.start(catalogue: catalogue, pageSize: pageSize)
        let client = SpecsClient(baseURL: service.baseURL)
        let resets = context !== stack.main
        var total = PodImporter.Counts()
        do {
            var number = 1
            var pages = 1
            repeat {
                let page = try await client.page(number)
                pages = page.numberOfPages
                let specs = page.result
                total = total + (try await context.perform {
                    try PodImporter.importSpecs(
                        specs, batchSize: batchSize, into: context, save: stack.save, resetAfterSave: resets)
                })
                number += 1
            } while number <= pages
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
        return total
    }
}
