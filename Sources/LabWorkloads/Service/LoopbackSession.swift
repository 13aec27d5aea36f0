import Foundation
import LabCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP session the lab's clients read its loopback services with: ephemeral and uncached, so every page
/// crosses the socket, as an app's importer's would.
public struct LoopbackSession: Sendable {
    private let session: URLSession

    /// Creates a session of its own.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // As long as the services give a handler (300 s): a page late on a loaded machine is measured, not lost.
        configuration.timeoutIntervalForRequest = 300
        session = URLSession(configuration: configuration)
    }

    /// The body of `url`.
    /// - Throws: `LabError.serviceFailed` on a transport error or a status other than 200.
    public func get(_ url: URL) async throws -> Data {
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(from: url)
        } catch {
            throw LabError(.serviceFailed, "GET \(url.absoluteString) failed", cause: error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let body = String(decoding: data.prefix(200), as: UTF8.self)
            throw LabError(.serviceFailed, "GET \(url.absoluteString) answered \(status): \(body)")
        }
        return data
    }

    /// Cancels what is in flight and closes the connections, so the service can stop at once rather than wait
    /// for an idle keep-alive connection to time out.
    public func invalidate() {
        session.invalidateAndCancel()
    }
}
