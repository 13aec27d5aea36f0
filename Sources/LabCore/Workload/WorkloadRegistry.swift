/// The workloads scenario files can name, by name, in the order `list` and errors give them.
public struct WorkloadRegistry: Sendable {
    /// Every workload, in order.
    public let all: [any Workload]

    /// Loads the model files scenarios name; nil where no workload reads model files.
    public let modelFiles: (any ModelFileLoading)?

    /// The built-in models its workloads run on, by the name scenario files write after `builtin:`; the first is a
    /// scenario's model when it names none.
    public let builtinModels: [String]

    /// Workloads another program of the lab runs, by name, and that program: a scenario naming one is refused
    /// with the program to run it with (`engine-overhead` → `stacklab-bench`), not as an unknown workload.
    public private(set) var elsewhere: [String: String] = [:]

    /// A registry of `workloads`; a later workload of the same name replaces an earlier one. `builtinModels` names
    /// the models the workloads build in code (`builtin:NAME`), the default first.
    public init(
        _ workloads: [any Workload], modelFiles: (any ModelFileLoading)? = nil, builtinModels: [String] = ["default"]
    ) {
        precondition(!builtinModels.isEmpty, "a registry's workloads run on at least one built-in model")
        self.modelFiles = modelFiles
        self.builtinModels = builtinModels
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

    /// The model a scenario that names none runs on: the first built-in model.
    public var defaultModel: ModelReference { .builtin(builtinModels[0]) }

    /// This registry, knowing that `program` runs the workloads `names` (those it holds itself are left out).
    ///
    /// For example, `stacklab` leaves the engine comparison to its own executable:
    /// ```swift
    /// let workloads = WorkloadRegistry.stack.referring(["engine-overhead"], to: "stacklab-bench")
    /// ```
    /// - Parameters:
    ///   - names: Workload names scenario files may give.
    ///   - program: The executable that runs them.
    /// - Returns: The same workloads, with `names` in ``elsewhere``.
    public func referring(_ names: [String], to program: String) -> WorkloadRegistry {
        var registry = self
        for name in names where self[name] == nil { registry.elsewhere[name] = program }
        return registry
    }
}
