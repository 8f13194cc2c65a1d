import Foundation

/// A test double for ``ImageProcessing`` that fails loudly: any call the test did not set up stops
/// the test process with the name of the call, so a test can never pass by accident on an
/// unexpected photo operation.
///
/// ```swift
/// let imaging = ImageProcessingMock(derive: { _ in throw .unsupportedFormat })
/// ```
public struct ImageProcessingMock: ImageProcessing {
    public var limits: ImagingLimits
    public var onProbe: (@Sendable (Data) async throws(ImagingError) -> ImageInfo)?
    public var onDerive: (@Sendable (Data) async throws(ImagingError) -> DerivedImages)?

    public init(
        limits: ImagingLimits = ImagingLimits(),
        probe: (@Sendable (Data) async throws(ImagingError) -> ImageInfo)? = nil,
        derive: (@Sendable (Data) async throws(ImagingError) -> DerivedImages)? = nil
    ) {
        self.limits = limits
        self.onProbe = probe
        self.onDerive = derive
    }

    public func probe(_ original: Data) async throws(ImagingError) -> ImageInfo {
        guard let onProbe else {
            fatalError("ImageProcessingMock.probe(\(original.count) bytes) was called, but the test did not set it up")
        }
        return try await onProbe(original)
    }

    public func derive(from original: Data) async throws(ImagingError) -> DerivedImages {
        guard let onDerive else {
            fatalError("ImageProcessingMock.derive(from: \(original.count) bytes) was called, but the test did not set it up")
        }
        return try await onDerive(original)
    }
}
