import Foundation
import LabCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches pages of `ModelDataService` with URLSession, as an app's importer would (`SpecsClient` is the pods'
/// one).
struct ModelPagesClient: Sendable {
    /// The service's base URL (`http://127.0.0.1:PORT`).
    let baseURL: URL
    private let session: URLSession

    /// Creates a client with its own ephemeral session (no cache: every page crosses the socket).
    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// The body of page `number` (from 1) of `entity`'s objects, as the service sent it.
    /// - Throws: `LabError.serviceFailed` on a transport error or a status other than 200.
    func data(of entity: String, page number: Int) async throws -> Data {
        let url = baseURL.appendingPathComponent("objects").appendingPathComponent(entity).appending(queryItems: [
            URLQueryItem(name: "page", value: String(number))
        ])
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

    /// Closes the session's connections, so the service can stop at once.
    func invalidate() {
        session.invalidateAndCancel()
    }
}
