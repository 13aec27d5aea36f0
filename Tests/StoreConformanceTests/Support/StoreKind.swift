import Foundation
import ObjectStack

/// The stores the conformance suite runs on. A store issue adds its case here and nothing else.
enum StoreKind: String, CaseIterable, CustomTestStringConvertibleShim, Sendable {
    case inMemory

    var type: StoreType {
        switch self {
        case .inMemory: return .inMemory
        }
    }

    /// A fresh location for a new store of this kind.
    func newLocation() -> URL {
        switch self {
        case .inMemory: return URL(string: "memory://conformance-\(UUID().uuidString)")!
        }
    }
}

/// Swift Testing prints arguments with `description`; this keeps the test names short ("inMemory").
protocol CustomTestStringConvertibleShim: CustomStringConvertible, RawRepresentable where RawValue == String {}
extension CustomTestStringConvertibleShim {
    var description: String { rawValue }
}
