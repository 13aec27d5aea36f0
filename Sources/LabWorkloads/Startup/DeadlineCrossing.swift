import LabCore

/// Where a launch would pass its watchdog deadline: a least-squares line through time to first frame against
/// store size, over the runs of one store, migration and mode at every size it ran, solved for the deadline.
///
/// The time to first frame is what the watchdog waits for; a launch it killed has no such time (only that it
/// was past the deadline), so killed launches are left out of the fit. The fit's error is the root mean square
/// of its residuals, in milliseconds, so a reader can tell an extrapolation from a straight line through noise.
public struct DeadlineCrossing: Equatable, Sendable {
    /// Pods at which the fitted first-frame time reaches the deadline; nil when the time does not grow with size.
    public let objects: Double?
    /// Root mean square of the fit's residuals, in milliseconds.
    public let rmseMilliseconds: Double

    /// The crossing of `points` (pods, first-frame milliseconds) with `deadline` ms; nil with fewer than two sizes.
    public init?(points: [(objects: Double, milliseconds: Double)], deadline: Double) {
        guard Set(points.map(\.objects)).count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.map(\.objects).reduce(0, +) / n
        let meanY = points.map(\.milliseconds).reduce(0, +) / n
        let sxx = points.map { ($0.objects - meanX) * ($0.objects - meanX) }.reduce(0, +)
        let sxy = points.map { ($0.objects - meanX) * ($0.milliseconds - meanY) }.reduce(0, +)
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        let squares = points.map { point -> Double in
            let residual = point.milliseconds - (intercept + slope * point.objects)
            return residual * residual
        }
        rmseMilliseconds = (squares.reduce(0, +) / n).squareRoot()
        objects = slope > 0 ? max(0, (deadline - intercept) / slope) : nil
    }

    /// Sets `deadline_crossing_objects` and `crossing_fit_rmse_ms` on every successful startup run, from the
    /// runs that share its parameters but the store size.
    static func add(to results: inout [RunResult]) {
        func group(_ result: RunResult) -> [String] {
            result.cell.parameters.filter { $0.key != "objects" }.map { "\($0.key)=\($0.value)" }.sorted()
        }
        var points: [[String]: [(objects: Double, milliseconds: Double)]] = [:]
        for result in results where result.error == nil && result.metrics[.killedByWatchdog] != 1 {
            guard let objects = result.metrics[.objects], let frame = result.metrics[.timeToFirstFrameMilliseconds]
            else { continue }
            points[group(result), default: []].append((objects, frame))
        }
        for index in results.indices where results[index].error == nil {
            guard let deadline = results[index].metrics[.deadlineMilliseconds],
                let crossing = DeadlineCrossing(points: points[group(results[index])] ?? [], deadline: deadline)
            else { continue }
            results[index].metrics[.deadlineCrossingObjects] = crossing.objects
            results[index].metrics[.crossingFitErrorMilliseconds] = crossing.rmseMilliseconds
        }
    }
}
