import Foundation

/// The capture screen's counters (issue 16): what happened, never to what or whom. A counter is a
/// household, a UTC day, one of these names and a number: no ids, names, images or free text.
public enum CaptureEvent: String, CaseIterable, Sendable, Codable {
    case scanOpen = "scan_open"
    case capturePhoto = "capture_photo"
    case pickGallery = "pick_gallery"
    case permissionDenied = "permission_denied"
    case openSettings = "open_settings"
    case scanRetry = "scan_retry"
    case scanDisabled = "scan_disabled"
    /// A request the page could not send was put in its offline queue.
    case queued
    /// A queued request was sent again (with its idempotency key).
    case replayed

    /// How the owner reads it in Settings.
    public var label: String {
        switch self {
        case .scanOpen: "Scan opened"
        case .capturePhoto: "Photo captured"
        case .pickGallery: "Gallery picked"
        case .permissionDenied: "Permission denied"
        case .openSettings: "Settings opened"
        case .scanRetry: "Retry"
        case .scanDisabled: "Scanning disabled"
        case .queued: "Queued"
        case .replayed: "Replayed"
        }
    }

    /// Most increments one household may add to one counter in one day: the counters stay cheap however a
    /// page (or a script) misbehaves.
    public static let dailyCap = 10_000
}

/// One counter's value for one day.
public struct CaptureCount: Hashable, Sendable {
    public let day: CalendarDate
    public let event: CaptureEvent
    public let count: Int

    public init(day: CalendarDate, event: CaptureEvent, count: Int) {
        self.day = day
        self.event = event
        self.count = count
    }
}
