import CVipsShim
import Synchronization

/// What libvips itself says while it works (a warning such as "error in tile 0 x 88" before a damaged
/// picture's load fails with an error of its own). glib would write each one to standard error as a line
/// of its own, outside the server's logs; here they go to one receiver, or nowhere.
///
/// With no receiver (the default, the command line's case) warnings and lesser messages are dropped,
/// since the caller reports the failure itself, and errors and criticals keep glib's default (standard
/// error). Info and debug messages (each colour conversion) stay glib's, shown only when G_MESSAGES_DEBUG
/// asks. Both readers that load libvips (imaging and barcodes) follow the same setting.
public enum LibvipsMessages {
    public enum Level: Sendable, Equatable {
        case error, critical, warning, message
    }

    public typealias Receiver = @Sendable (Level, String) -> Void

    /// Sends libvips' messages to `receiver` from now on (nil drops them again). Does not load libvips.
    public static func send(to receiver: Receiver?) {
        current.withLock { $0 = receiver }
        nv_set_log_sink(receiver == nil ? nil : { level, message in
            guard let receiver = LibvipsMessages.current.withLock({ $0 }) else { return }
            receiver(Level(level), message.map { String(cString: $0) } ?? "")
        })
    }

    private static let current = Mutex<Receiver?>(nil)
}

extension LibvipsMessages.Level {
    init(_ level: nv_log_level) {
        switch level {
        case NV_LOG_ERROR: self = .error
        case NV_LOG_CRITICAL: self = .critical
        case NV_LOG_WARNING: self = .warning
        default: self = .message
        }
    }
}
