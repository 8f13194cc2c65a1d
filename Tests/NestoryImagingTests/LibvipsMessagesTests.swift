import Foundation
import NestoryImaging
@testable import NestoryImagingLive
import Synchronization
import Testing

// libvips' own messages go to the receiver the server sets, not to standard error as glib's lines.
extension ImagingTests {
    final class Heard: Sendable {
        let messages = Mutex<[(LibvipsMessages.Level, String)]>([])
    }

    @Test func libvipsWarningAboutADamagedPictureReachesTheReceiver() async throws {
        let heard = Heard()
        LibvipsMessages.send { level, message in heard.messages.withLock { $0.append((level, message)) } }
        defer { LibvipsMessages.send(to: nil) }
        let whole = try Fixtures.jpeg(width: 400, height: 300, in: folder, pixel: Fixtures.textured)
        await expectError("image_unreadable") { () throws(ImagingError) in _ = try await imaging.derive(from: Data(whole.prefix(whole.count / 2))) }
        // libjpeg's complaint about the data ending early, as libvips words it ("error in tile 0 x 88" or the like).
        let warnings = heard.messages.withLock { $0.filter { $0.0 == .warning }.map(\.1) }
        #expect(warnings.contains { !$0.isEmpty }, "\(heard.messages.withLock { $0 })")
    }
}
