import Foundation
import LabCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches pages of the pods web service with URLSession, as an app's importer would.
///
/// `page(_:)` is the whole of it; `data(forPage:)` and `decode(_:page:)` are its two halves, for an importer
/// that times the wait for the service apart from the decoding.
public struct SpecsClient: Sendable {
    /// The service's base URL (`http://127.0.0.1:PORT`).
    public let baseURL: URL
    private let session = LoopbackSession()

    /// Creates a client with its own ephemeral session (no cache: every page crosses the socket).
    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// Page `number` (from 1) of the catalogue.
    /// - Throws: `LabError.serviceFailed` on a transport error, a status other than 200, or JSON that is not a page.
    public func page(_ number: Int) async throws -> SpecsPage {
        try decode(try await data(forPage: number), page: number)
    }

    /// The body of page `number` (from 1), as the service sent it.
    /// - Throws: `LabError.serviceFailed` on a transport error or a status other than 200.
    public func data(forPage number: Int) async throws -> Data {
        let url = url(forPage: number)
        return try await session.get(url)
    }

    /// Decodes the body of page `number`.
    /// - Throws: `LabError.serviceFailed` when it is not a page of specs.
    public func decode(_ data: Data, page number: Int) throws -> SpecsPage {
        do {
            return try JSONDecoder().decode(SpecsPage.self, from: data)
        } catch {
            throw LabError(
                .serviceFailed,
                "GET \(url(forPage: number).absoluteString) answered something that is not a page of specs",
                cause: error)
        }
    }

    /// Cancels what is in flight and closes the session's connections, so the service can stop at once rather
    /// than wait for an idle keep-alive connection to time out.
    public func invalidate() {
        session.invalidate()
    }

    private func url(forPage number: Int) -> URL {
        baseURL.appendingPathComponent("specs").appending(queryItems: [
            URLQueryItem(name: "page", value: String(number))
        ])
    }
}
