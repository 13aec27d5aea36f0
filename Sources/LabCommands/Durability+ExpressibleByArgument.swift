import ArgumentParser
import ObjectStack

/// `--durability full|normal|off`: a store's durability on the command line; another value is a usage error
/// (exit 2) naming the three.
extension Durability: ExpressibleByArgument {
    /// The durability called `argument`, if there is one.
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    /// Every durability's name, for help and usage errors.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
