import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab serve`: the paged pods web service the import workload reads.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the paged JSON catalogue of pod specs on loopback: GET /specs?page=N.")
    @Option(help: "The loopback address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port).") var port: UInt16 = 8080
    @Option(help: "Pods in the synthetic catalogue.") var objects = 10_000
    @Option(help: "Seed of the synthetic catalogue.") var seed: UInt64 = 1
    @Option(help: "Pods per page.") var pageSize = 500
    @Option(help: "A catalogue file (JSON Lines or TSV with a header row) instead of the synthetic one.")
    var catalog: String?

    func validate() throws {
        guard objects >= 0, pageSize > 0 else {
            throw ValidationError("--objects must not be negative; --page-size positive")
        }
        guard host.hasPrefix("127.") || host == "localhost" else {
            throw ValidationError("--host must be a loopback address (127.x.x.x)")
        }
    }

    func run() async throws {
        let catalogue: Catalogue
        let service: PodService
        do {
            catalogue =
                try catalog.map { try Catalogue.load(URL(fileURLWithPath: $0)) }
                ?? .synthetic(count: objects, seed: seed)
            service = try await PodService.start(catalogue: catalogue, pageSize: pageSize, host: host, port: port)
        } catch {
            throw failure(verb: "serve", "\(error)")
        }
        print(
            "serving \(catalogue.specs.count) pod specs in \(service.pageCount) pages at "
                + "\(service.baseURL.absoluteString)/specs?page=1")
        try await service.wait()
    }
}
