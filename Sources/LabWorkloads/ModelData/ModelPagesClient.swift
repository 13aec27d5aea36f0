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
    private let session = LoopbackSession()

    /// Creates a client with its own ephemeral session (no cache: every page crosses the socket).
    init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// The body of page `number` (from 1) of `entity`'s objects, as the service sent it.
    /// - Throws: `LabError.serviceFailed` on a transport error or a status other than 200.
    func data(of entity: String, page number: Int) async throws -> Data {
        let url = baseURL.appendingPathComponent("objects").appendingPathComponent(entity).appending(queryItems: [
            URLQueryItem(name: "page", value: String(number))
        ])
        return try await session.get(url)
    }

    /// Closes the session's connections, so the service can stop at once.
    func invalidate() {
        session.invalidate()
    }
}
