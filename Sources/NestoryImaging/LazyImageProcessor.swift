import Foundation

/// Starts the real processor on first use, so a server that is not receiving photos does not pay
/// for the image library's memory (libvips adds about 25 MB once started).
public final class LazyImageProcessor: ImageProcessing, @unchecked Sendable {
    public let limits: ImagingLimits
    private let make: @Sendable () throws(ImagingError) -> any ImageProcessing
    private let lock = NSLock()
    private var started: (any ImageProcessing)?

    public init(limits: ImagingLimits, make: @escaping @Sendable () throws(ImagingError) -> any ImageProcessing) {
        self.limits = limits
        self.make = make
    }

    private func processor() throws(ImagingError) -> any ImageProcessing {
        lock.lock()
        defer { lock.unlock() }
        if let started { return started }
        let made = try make()
        started = made
        return made
    }

    public func probe(_ original: Data) async throws(ImagingError) -> ImageInfo {
        try await processor().probe(original)
    }

    public func derive(from original: Data) async throws(ImagingError) -> DerivedImages {
        try await processor().derive(from: original)
    }
}
