import LabCore

/// The startup workload's metrics: a launch's milestones, the watchdog's verdict, and the deadline crossing
/// fitted over store sizes.
extension Metric {
    /// The group of a launch's milestones.
    public static let launchGroup = "launch"
    /// The group of the watchdog's deadline and the crossing fitted to it.
    public static let deadlineGroup = "deadline"
    /// The group of a model file's migration steps.
    public static let migrationStepGroup = "migration steps"

    public static let timeToMainMilliseconds = Metric(
        "time_to_main_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: launchGroup,
        about: "from the moment the parent started the launch process to the launch verb's first line")
    public static let timeToFirstFrameMilliseconds = Metric(
        "time_to_first_frame_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: launchGroup,
        about: "to the first tick of the main queue after the launch handler returned (a sync launch adds the "
            + "store inside the handler): what the watchdog judges")
    public static let timeToStoreReadyMilliseconds = Metric(
        "time_to_store_ready_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: launchGroup,
        about: "to the store being added, after any migration")
    public static let timeToFirstScreenMilliseconds = Metric(
        "time_to_first_screen_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: launchGroup,
        about: "to the first screen's fetch (50 pods sorted by name and version) being done; empty when killed")
    public static let killedByWatchdog = Metric(
        "killed_by_watchdog", unit: .flag, polarity: .lowerIsBetter, group: deadlineGroup,
        about: "true when the first frame had not come within deadline_ms and the parent killed the launch; its "
            + "later columns are then empty (a killed launch is a result, not an error)")
    public static let migrated = Metric(
        "migrated", unit: .flag, polarity: .neutral, group: launchGroup,
        about: "true when opening the store migrated it")
    public static let deadlineMilliseconds = Metric(
        "deadline_ms", unit: .milliseconds, polarity: .neutral, group: deadlineGroup, decimals: 0,
        about: "the watchdog's deadline for the first frame")
    public static let deadlineCrossingObjects = Metric(
        "deadline_crossing_objects", unit: .objects, polarity: .higherIsBetter, group: deadlineGroup,
        about: "the store size at which this cell's launch would reach deadline_ms before its first frame: a "
            + "least-squares line through time_to_first_frame_ms against objects, solved for the deadline")
    public static let crossingFitErrorMilliseconds = Metric(
        "crossing_fit_rmse_ms", unit: .milliseconds, polarity: .neutral, group: deadlineGroup,
        about: "the root mean square of that line's residuals: a worse fit is a less trustworthy crossing, not a "
            + "slower app")

    /// A model file's migration from version `from` to `to` (1 = the file's first version), on its own.
    public static func migrationStep(from: Int, to: Int) -> Metric {
        Metric(
            "migration_\(from)_to_\(to)_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: migrationStepGroup,
            about: "the migration of the seeded store from version \(from) to \(to) on its own")
    }
}
