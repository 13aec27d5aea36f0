import FlyingFox
import Foundation

/// A paged JSON web service of any entity's generated objects: a real HTTP server (FlyingFox) on a loopback port,
/// as `PodService` is for pods.
///
/// `GET /objects/ENTITY?page=N` (pages from 1) answers a page of `ModelObjectPages`; `GET /entities` answers
/// `{"entities": [{"name", "number_of_pages"}]}`. An unknown entity or a page past the last answers 404, a missing
/// or malformed page 400, both with a JSON `error`.
///
/// For example:
/// ```swift
/// let service = try await ModelDataService.start(pages: ModelObjectPages(plan: plan, pageSize: 100))
/// defer { Task { await service.stop() } }
/// // GET \(service.baseURL)/objects/Mood?page=1
/// ```
/// - Note: Thread-safe. Pages are encoded before the service starts.
public final class ModelDataService: Sendable {
    /// How long the server may take to start listening, and a request's handler to answer, before either is a
    /// failure (FlyingFox's handler default is 15 s). On a loaded machine the cooperative pool can starve the
    /// server's tasks for tens of seconds (a test run's synchronous tests hold its threads); a late start or a late
    /// page is slow, not broken.
    static let handlerTimeout: TimeInterval = 300

    /// Where the service listens, such as `http://127.0.0.1:41234`.
    public let baseURL: URL
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(baseURL: URL, server: HTTPServer, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.server = server
        self.task = task
    }

    /// Starts serving `pages` on `host` (loopback) and `port` (0: any free port).
    /// - Throws: `LabError.serviceFailed` when the server cannot listen.
    public static func start(pages: ModelObjectPages, host: String = "127.0.0.1", port: UInt16 = 0) async throws
        -> ModelDataService
    {
        let server: HTTPServer
        do {
            // FlyingFox answers 500 when a handler has not responded within its timeout (15 s by default). On a loaded
            // machine the cooperative pool can starve a handler that long; a late page is the lab's to measure, not
            // an error.
            server = HTTPServer(
                address: try .inet(ip4: host, port: port), timeout: Self.handlerTimeout, logger: .disabled)
        } catch {
            throw LabError(.serviceFailed, "cannot listen on \(host):\(port)", cause: error)
        }
        let index = try JSONSerialization.data(
            withJSONObject: [
                "entities": pages.entityNames.map { ["name": $0, "number_of_pages": pages.pageCount(of: $0) ?? 0] }
            ],
            options: [.sortedKeys])
        await server.appendRoute("GET /entities") { _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: index)
        }
        await server.appendRoute("GET /objects/*") { request in respond(to: request, pages: pages) }
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: Self.handlerTimeout)
        } catch {
            task.cancel()
            throw LabError(.serviceFailed, "the model data service did not start on \(host):\(port)", cause: error)
        }
        guard case .ip4(let address, let boundPort)? = await server.listeningAddress,
            let url = URL(string: "http://\(address):\(boundPort)")
        else {
            await server.stop()
            throw LabError(.serviceFailed, "the model data service has no IPv4 address")
        }
        return ModelDataService(baseURL: url, server: server, task: task)
    }

    /// Stops listening, giving clients up to `grace` seconds to close their connections.
    public func stop(grace: Double = 1) async {
        await server.stop(timeout: grace)
        task.cancel()
        _ = await task.result
    }

    private static func respond(to request: HTTPRequest, pages: ModelObjectPages) -> HTTPResponse {
        let json: HTTPHeaders = [.contentType: "application/json"]
        func failure(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
            let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
            return HTTPResponse(statusCode: status, headers: json, body: body)
        }
        let entity = String(request.path.dropFirst("/objects/".count))
        guard let count = pages.pageCount(of: entity) else {
            return failure(
                .notFound, "no entity '\(entity)': expected one of \(pages.entityNames.joined(separator: ", "))")
        }
        guard let text = request.query.first(where: { $0.name == "page" })?.value else {
            return failure(.badRequest, "missing page: ask for /objects/\(entity)?page=N with N from 1 to \(count)")
        }
        guard let number = Int(text), number >= 1 else {
            return failure(.badRequest, "page '\(text)' is not a page number: expected 1 to \(count)")
        }
        guard let page = pages.page(number, of: entity) else {
            return failure(.notFound, "page \(number) is past the last page of \(entity), \(count)")
        }
        return HTTPResponse(statusCode: .ok, headers: json, body: page)
    }
}
