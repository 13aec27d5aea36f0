import ArgumentParser
import LabWorkloads

/// `compare --paired --interleave cell|round`: how two builds take turns; another value is a usage error (exit 2)
/// naming the two.
extension PairedBuildRunner.Interleaving: ExpressibleByArgument {}
