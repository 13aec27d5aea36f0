/// One page of the web service's answer to `/specs?page=N`.
public struct SpecsPage: Codable, Sendable {
    /// How many pages the catalogue has (pages are numbered from 1).
    public var numberOfPages: Int
    /// This page's number.
    public var page: Int
    /// The page's pod specs.
    public var result: [PodSpec]

    enum CodingKeys: String, CodingKey {
        case numberOfPages = "number_of_pages"
        case page
        case result
    }
}
