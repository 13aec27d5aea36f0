import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches pages of the pods web service with URLSession, as an app's importer would.
public struct SpecsClient: Sendable {
    /// The service's base URL (`http://127.0.0.1:PORT`).
    public let baseURL: URL
    private let session: URLSession

    /// Creates a client with its own ephemeral session (no cache: every page crosses the socket).
    public init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Page `number` (from 1) of the catalogue.
    /// - Throws: `LabError.serviceFailed` on a transport error, a status other than 200, or JSON that is not a page.
    public func page(_ number: Int) async throws -> SpecsPage {
        let url = baseURL.appendingPathComponent("specs").appending(queryItems: [URLQueryItem(name: "page", value: String(number))])
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
        do {
            return try JSONDecoder().decode(SpecsPage.self, from: data)
        } catch {
            throw LabError(.serviceFailed, "GET \(url.absoluteString) answered something that is not a page of specs", cause: error)
        }
    }
}
