import Foundation

/// A size as a person reads it, in decimal units as disks and phones count them: "0 KB", "70 KB" (rounded up, so
/// a file of a few bytes is never "0 KB"), "1.5 MB", "2.25 GB". The web app, the reports and the command line use it.
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        let kilobytes = (max(bytes, 0) + 999) / 1000
        if kilobytes < 1000 { return "\(kilobytes) KB" }
        if bytes < 999_950_000 { return String(format: "%.1f MB", Double(bytes) / 1e6) }
        return String(format: "%.2f GB", Double(bytes) / 1e9)
    }
}
