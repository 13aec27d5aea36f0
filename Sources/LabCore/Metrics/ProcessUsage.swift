import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's CPU time and peak memory. Both are per process: every run of `stacklab run` shares one
/// process (and the in-process web service), so a run's CPU time is a difference of two readings, and its
/// peak memory is the process's peak since `resetPeak()` (Linux `clear_refs`), including what earlier runs
/// left allocated.
public enum ProcessUsage {
    /// The metrics `body` returns, with the process's CPU time over it (unless `body` reported the CPU time of
    /// its measured phase itself) and the peak memory since it began. On the main actor, as the runs are.
    @MainActor
    public static func measuring(_ body: () async throws -> [Metric: Double]) async rethrows -> [Metric: Double] {
        resetPeak()
        let cpuBefore = cpuMilliseconds()
        var metrics = try await body()
        let cpu = cpuMilliseconds() - cpuBefore
        metrics[.cpuMilliseconds] = metrics[.cpuMilliseconds] ?? cpu
        metrics[.peakMemoryMegabytes] = peakMegabytes()
        return metrics
    }

    /// User plus system CPU time of the whole process, in milliseconds.
    public static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
        return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }

    /// Time the process's threads spent ready to run but waiting for a core, summed over the threads alive now,
    /// in milliseconds (the second field of each `/proc/self/task/*/schedstat`); nil where the kernel does not
    /// keep it. A thread that has exited takes its share with it.
    public static func runQueueMilliseconds() -> Double? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        var total: Double = 0
        var read = false
        for thread in threads {
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(thread)/schedstat", encoding: .utf8) else {
                continue
            }
            let fields = text.split(separator: " ")
            guard fields.count > 1, let nanoseconds = Double(fields[1]) else { continue }
            total += nanoseconds / 1e6
            read = true
        }
        return read ? total : nil
    }

    /// Resets the kernel's peak resident set size (VmHWM) to the current size; false where the kernel refuses.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// The peak resident set size in megabytes: VmHWM from /proc/self/status, or ru_maxrss where that is missing.
    public static func peakMegabytes() -> Double {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
        {
            return kilobytes / 1_024
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        return Double(usage.ru_maxrss) / 1_024
    }

    /// The bytes of every file under `directory` (a run's store files); 0 when it does not exist.
    public static func diskBytes(under directory: URL) -> Int64 {
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { return 0 }
        var total: Int64 = 0
        for case let url as URL in enumerator {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
        }
        return total
    }
}

#if canImport(Glibc)
    /// Glibc imports `RUSAGE_SELF` as an enum case; `getrusage` takes its raw value.
    private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
    private let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif
