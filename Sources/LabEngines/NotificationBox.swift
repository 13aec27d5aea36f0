import Foundation

/// Holds the last notification an observer received.
final class NotificationBox: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Notification?

    func store(_ notification: Notification) { lock.withLock { value = notification } }
    var notification: Notification? { lock.withLock { value } }
}
