/// The workloads scenario files can name, by name, in the order `list` and errors give them.
public struct WorkloadRegistry: Sendable {
    /// Every workload, in order.
    public let all: [any Workload]

    /// Loads the model files scenarios name; nil where no workload reads model files.
    public let modelFiles: (any ModelFileLoading)?

    /// A registry of `workloads`; a later workload of the same name replaces an earlier one.
    public init(_ workloads: [any Workload], modelFiles: (any ModelFileLoading)? = nil) {
        self.modelFiles = modelFiles
        var seen: [String: Int] = [:]
        var all: [any Workload] = []
        for workload in workloads {
            if let index = seen[workload.name] {
                all[index] = workload
            } else {
                seen[workload.name] = all.count
                all.append(workload)
            }
        }
        self.all = all
    }

    /// The workload called `name`, if any.
    public subscript(name: String) -> (any Workload)? { all.first { $0.name == name } }

    /// The names, in order.
    public var names: [String] { all.map(\.name) }
}
