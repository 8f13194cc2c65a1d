import CVipsShim
import Foundation
import NestoryImaging
@testable import NestoryImagingLive
import Testing

// Memory, leaks and concurrency.
extension ImagingTests {
    @Test func repeatedDerivationsLeakNothing() async throws {
        let photo = try Fixtures.jpeg(width: 1400, height: 1000, in: folder, pixel: Fixtures.textured)
        let truncated = Data(photo.prefix(photo.count / 2))
        // Warm up: libvips' thread pool, glib's type system and malloc's arenas.
        for _ in 0..<5 { _ = try imaging.deriveBlocking(from: photo) }
        let objects = nv_live_objects()
        let tracked = nv_tracked_mem()
        let allocations = nv_tracked_allocs()
        let resident = Fixtures.residentBytes()

        var outputBytes = 0
        for _ in 0..<100 {
            let derived = try imaging.deriveBlocking(from: photo)
            outputBytes += derived.display.data.count + derived.thumbnail.data.count
            #expect(throws: ImagingError.self) { try imaging.deriveBlocking(from: truncated) }
        }

        // libvips keeps a few pixel buffers per worker thread and frees them lazily, so the counters
        // move a little either way; a leak per image would move them by 100 images' worth (the decoded
        // display image alone is 4 MB, and each image makes dozens of objects).
        #expect(nv_live_objects() <= objects + 8, "libvips objects leaked: \(objects) → \(nv_live_objects())")
        #expect(nv_tracked_mem() <= tracked + 16_000_000, "libvips-tracked memory leaked: \(tracked) → \(nv_tracked_mem())")
        #expect(nv_tracked_allocs() <= allocations + 64)
        // Had the encoded buffers leaked, resident memory would have grown by all of them. Resident memory
        // is process-wide and other suites run beside this one (their allocations moved it by up to ~6 MB
        // in CI), so the run is long enough that a leak (≈40 MB) stands far above that noise.
        #expect(outputBytes > 30_000_000)
        let growth = Fixtures.residentBytes() - resident
        #expect(growth < outputBytes / 2, "resident memory grew by \(growth) bytes over \(outputBytes) bytes of output")
    }

    @Test func concurrentUploadsGetTheirOwnImages() async throws {
        let sizes = [(640, 480), (480, 640), (800, 200), (300, 900), (1000, 1000), (350, 250), (1200, 400), (420, 420)]
        var photos: [Data] = []
        for (width, height) in sizes {
            photos.append(try Fixtures.jpeg(width: width, height: height, in: folder, pixel: Fixtures.textured))
        }
        let imaging = self.imaging
        try await withThrowingTaskGroup(of: (Int, DerivedImages).self) { group in
            for _ in 0..<3 {
                for (index, photo) in photos.enumerated() {
                    group.addTask { (index, try await imaging.derive(from: photo)) }
                }
            }
            for try await (index, derived) in group {
                let (width, height) = sizes[index]
                #expect(derived.original.width == width && derived.original.height == height)
                #expect(max(derived.thumbnail.width, derived.thumbnail.height) == min(320, max(width, height)))
                #expect(derived.display.width == width && derived.display.height == height)
            }
        }
    }

    @Test func jobSlotsLetOnlyTheirCountThrough() async throws {
        let slots = JobSlots(2)
        await slots.acquire()
        await slots.acquire()
        let passed = Flag()
        let third = Task {
            await slots.acquire()
            await passed.set()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await passed.value == false, "a third job started while two held the slots")
        await slots.release()
        await third.value
        #expect(await passed.value)
    }

    actor Flag {
        var value = false
        func set() { value = true }
    }

    @Test func theMockFailsOnlyOnWhatATestSetUp() async throws {
        let info = ImageInfo(format: .png, width: 10, height: 20, byteCount: 3)
        let mock = ImageProcessingMock(probe: { data throws(ImagingError) in
            guard data.count == 3 else { throw .unsupportedFormat }
            return info
        })
        #expect(try await mock.probe(Data([1, 2, 3])) == info)
        await expectError("image_unsupported_format") { () throws(ImagingError) in _ = try await mock.probe(Data()) }
        // An unset call stops the process (fatalError): it is not exercised here.
    }
}
