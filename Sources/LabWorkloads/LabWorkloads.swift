// The workloads and strategies are read together with the lab core they plug into: a client of LabWorkloads
// sees the scenario, metric and runner types without importing LabCore itself.
@_exported import LabCore
