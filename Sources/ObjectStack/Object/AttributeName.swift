import Foundation
import Synchronization

/// The name an `@Attribute` property gives its attribute, in one word: the address of the name's literal.
///
/// A wrapper that stored its name as a `String` took 16 bytes of every object for each typed property (half of a
/// fetched `Pod`). A literal's address is fixed for the life of the process and the same for every object made
/// by the same code, so it identifies the name, and each entity keeps the slots its typed properties' names
/// lead to by address (`TypedSlotCache`). A one-character literal, which `StaticString` holds as a scalar rather
/// than at an address, is kept as the scalar with the top bit set (no user-space address has it); a name given
/// as a `String` is copied once into a table of names that lives as long as the process.
@usableFromInline
struct AttributeName: Sendable, Equatable {
    @usableFromInline let bits: UInt

    @inlinable static var scalarTag: UInt { 1 << (UInt.bitWidth - 1) }

    @usableFromInline
    init(bits: UInt) { self.bits = bits }

    /// The name of a literal: its address, which costs nothing to take when an object is made.
    @inlinable
    init(_ literal: StaticString) {
        self.init(
            bits: literal.hasPointerRepresentation
                ? UInt(bitPattern: literal.utf8Start) : Self.scalarTag | UInt(literal.unicodeScalar.value))
    }

    /// The name of a string, copied into the process-wide table of names the first time it is seen.
    @usableFromInline
    init(interning name: String) {
        bits = Self.interned.withLock { table in
            if let known = table[name] { return known }
            // A NUL-terminated copy that is never freed: names are few, and every object made since holds it.
            let copy = strdup(name)!
            let address = UInt(bitPattern: copy)
            table[name] = address
            return address
        }
    }

    // A LockedValue, not a Synchronization.Mutex: ThreadSanitizer does not see the Mutex's futex and reports races.
    private static let interned = LockedValue<[String: UInt]>([:])

    /// The name as a string.
    var string: String {
        if bits & Self.scalarTag != 0 {
            return String(Character(Unicode.Scalar(UInt32(truncatingIfNeeded: bits & ~Self.scalarTag))!))
        }
        return String(cString: UnsafePointer<CChar>(bitPattern: bits)!)
    }
}
