import FlyingFox
import Foundation
import LabCore

#if canImport(Glibc)
    import Glibc
#endif

/// The paged JSON web service of pod specs: a real HTTP server (FlyingFox) on a loopback port.
///
/// `GET /specs?page=N` (pages from 1) answers `{"number_of_pages": …, "page": N, "result": [...]}`; a page past
/// the last answers 404, a missing or malformed page 400, both with a JSON `error`.
///
/// For example:
/// ```swift
/// let service = try await PodService.start(catalogue: .synthetic(count: 1_000, seed: 1), pageSize: 100)
/// defer { Task { await service.stop() } }
/// let page = try await SpecsClient(baseURL: service.baseURL).page(1)
/// ```
/// - Note: Thread-safe. Pages are encoded once at start, so serving costs the lab little CPU of its own.
public final class PodService: Sendable {
    /// How long the server may take to start listening, and a request's handler to answer, before either is a
    /// failure (FlyingFox's handler default is 15 s). On a loaded machine the cooperative pool can starve the
    /// server's tasks for tens of seconds (a test run's synchronous tests hold its threads); a late start or a late
    /// page is slow, not broken.
    static let handlerTimeout: TimeInterval = 300

    /// Where the service listens, such as `http://127.0.0.1:41234`.
    public let baseURL: URL
    /// Pages the service serves.
    public let pageCount: Int
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(baseURL: URL, pageCount: Int, server: HTTPServer, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.pageCount = pageCount
        self.server = server
        self.task = task
    }

    /// Starts serving `catalogue` in pages of `pageSize` on `host` (loopback) and `port` (0: any free port).
    /// - Throws: `LabError.serviceFailed` when the server cannot listen.
    public static func start(catalogue: Catalogue, pageSize: Int, host: String = "127.0.0.1", port: UInt16 = 0)
        async throws
        -> PodService
    {
        precondition(pageSize > 0, "pageSize must be positive")
        let pages = try encodePages(catalogue, pageSize: pageSize)
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
        await server.appendRoute("GET /specs") { request in respond(to: request, pages: pages) }
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: Self.handlerTimeout)
        } catch {
            task.cancel()
            if case .failure(let failure) = await task.result {
                throw LabError(.serviceFailed, "the pods service did not start on \(host):\(port)", cause: failure)
            }
            throw LabError(.serviceFailed, "the pods service did not start on \(host):\(port)", cause: error)
        }
        guard case .ip4(let address, let boundPort)? = await server.listeningAddress,
            let url = URL(string: "http://\(address):\(boundPort)")
        else {
            await server.stop()
            throw LabError(.serviceFailed, "the pods service has no IPv4 address")
        }
        disableNagle(listeningOn: boundPort)
        return PodService(baseURL: url, pageCount: pages.count, server: server, task: task)
    }

    /// Stops listening and closes open connections, giving clients up to `grace` seconds to close theirs first.
    /// An idle keep-alive connection is only closed by the grace running out, so a caller whose clients are
    /// done passes 0.
    public func stop(grace: Double = 1) async {
        await server.stop(timeout: grace)
        task.cancel()
        _ = await task.result
    }

    /// Waits until the server stops (for `stacklab serve`).
    public func wait() async throws {
        try await task.value
    }

    /// Sets `TCP_NODELAY` on the socket listening on `port`; on Linux the connections it accepts inherit it.
    ///
    /// FlyingFox writes a response's header and body separately and has no option for this, so with Nagle's
    /// algorithm on, the last segment of every page waited for the client's delayed ACK: 40 ms of idle time
    /// per page that no production web server adds. The socket is found among this process's descriptors;
    /// if it is not found the service still works, only slower.
    private static func disableNagle(listeningOn port: UInt16) {
        #if os(Linux)
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
                return
            }
            for descriptor in descriptors.compactMap(Int32.init) {
                var listening: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else {
                    continue
                }
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let named = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                guard named == 0, Int32(address.sin_family) == AF_INET, UInt16(bigEndian: address.sin_port) == port
                else { continue }
                var on: Int32 = 1
                _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
        #endif
    }

    // MARK: - Requests

    private static func encodePages(_ catalogue: Catalogue, pageSize: Int) throws -> [Data] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try (1...catalogue.pageCount(pageSize: pageSize)).map { number in
            try encoder.encode(catalogue.page(number, pageSize: pageSize))
        }
    }

    private static func respond(to request: HTTPRequest, pages: [Data]) -> HTTPResponse {
        let json: HTTPHeaders = [.contentType: "application/json"]
        func failure(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
            let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
            return HTTPResponse(statusCode: status, headers: json, body: body)
        }
        guard let text = request.query.first(where: { $0.name == "page" })?.value else {
            return failure(.badRequest, "missing page: ask for /specs?page=N with N from 1 to \(pages.count)")
        }
        guard let page = Int(text), page >= 1 else {
            return failure(.badRequest, "page '\(text)' is not a page number: expected 1 to \(pages.count)")
        }
        guard page <= pages.count else {
            return failure(.notFound, "page \(page) is past the last page, \(pages.count)")
        }
        return HTTPResponse(statusCode: .ok, headers: json, body: pages[page - 1])
    }
}
