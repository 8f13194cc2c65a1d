import Foundation
import NestoryChildProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ChildProcessTests {
    /// Everything the child wrote until it closed its output.
    func drain(_ child: ChildProcess) -> String {
        var bytes: [UInt8] = []
        while let chunk = child.read(timeout: 10_000), !chunk.isEmpty { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theChildTalksOverItsPipesWithTheEnvironmentItIsGiven() throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "read line; echo \"$GREETING $line\"; echo oops >&2"],
                                     environment: ["GREETING": "hello"], errors: .pipe)
        #expect(Array("world\n".utf8).withUnsafeBytes { child.write($0) })
        #expect(drain(child) == "hello world\n")
        var errors = [UInt8](repeating: 0, count: 64)
        let count = read(try #require(child.errors), &errors, 64)
        #expect(String(decoding: errors[0..<max(0, count)], as: UTF8.self) == "oops\n")
        #expect(child.waitUntilExit() == 0)
        #expect(!child.isRunning)
    }

    /// A server under test writes its log to a file the test reads, and its output nowhere; a file is appended to.
    @Test func outputAndErrorsGoToDevNullOrAFile() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-process-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        try "before\n".write(toFile: log, atomically: true, encoding: .utf8)
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2"], output: .discard, errors: .file(log))
        #expect(child.output == nil && child.errors == nil)
        #expect(child.read(timeout: 1_000) == [])
        #expect(child.waitUntilExit() == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "before\nerr\n")
        let created = log + ".new"
        defer { try? FileManager.default.removeItem(atPath: created) }
        #expect(try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo made >&2"], errors: .file(created)).waitUntilExit() == 0)
        #expect(try String(contentsOfFile: created, encoding: .utf8) == "made\n")
        // A file that cannot be opened is an error naming it, and nothing starts.
        let unreachable = log + ".missing/child.log"
        #expect {
            _ = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo started > \(log).started"], errors: .file(unreachable))
        } throws: { error in
            "\(error)" == "\(unreachable): No such file or directory"
        }
        #expect(!FileManager.default.fileExists(atPath: log + ".started"))
    }

    /// Foundation's Process crashed starting a program once this many descriptors were open; here the child starts,
    /// and inherits none of them (only its 0, 1, 2, and the one `ls` opens to list the folder).
    @Test func manyOpenDescriptorsAreNeitherAProblemNorInherited() throws {
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        for _ in 0..<2_500 {
            let fd = open("/dev/null", O_RDONLY)
            guard fd >= 0 else { break }
            opened.append(fd)
        }
        #expect(opened.count >= 2_000, "the test needs at least 2,000 descriptors (ulimit -n)")
        let child = try ChildProcess(executable: "/bin/ls", arguments: ["/proc/self/fd"])
        #expect(drain(child).split(separator: "\n").sorted() == ["0", "1", "2", "3"])
        #expect(child.waitUntilExit() == 0)
    }

    @Test func aSilentChildTimesOutAndCanBeKilled() throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(child.read(timeout: 100) == nil)
        #expect(child.isRunning)
        child.signal(SIGKILL)
        let status = child.waitUntilExit()
        #expect(status & 0x7f == SIGKILL)
        #expect(!child.isRunning)
    }

    /// A pipe asked to hold 1 MiB takes a whole 1 MiB request while the child reads nothing; the default takes 64 KiB.
    @Test func theInputPipeHoldsWhatItWasAskedTo() throws {
        let request = [UInt8](repeating: 7, count: 1 << 20)
        func accepted(_ child: ChildProcess) -> Int {
            defer { child.signal(SIGKILL); child.waitUntilExit() }
            _ = fcntl(child.input, F_SETFL, fcntl(child.input, F_GETFL) | O_NONBLOCK)
            return request.withUnsafeBytes { Glibc.write(child.input, $0.baseAddress, $0.count) }
        }
        let asked = try ChildProcess(executable: "/bin/sleep", arguments: ["30"], inputCapacity: 1 << 20)
        #expect(asked.inputCapacity == 1 << 20)
        #expect(accepted(asked) == 1 << 20)
        let plain = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(plain.inputCapacity == 65_536)
        #expect(accepted(plain) == 65_536)
    }

    @Test func aMissingProgramIsAClearError() {
        #expect(throws: ChildProcess.StartFailed.self) { try ChildProcess(executable: "/nonexistent/worker") }
    }

    /// More input and output than a pipe holds, both ways at once: neither side waits forever.
    @Test func runPassesLargeInputAndOutputWithoutDeadlock() throws {
        let input = Array(repeating: UInt8(ascii: "x"), count: 1_000_000)
        let finished = try ChildProcess.run("/bin/sh", ["-c", "cat; echo done >&2; exit 3"], input: input)
        #expect(finished.output == input)
        #expect(finished.errorText == "done\n")
        #expect(finished.exitCode == 3)
        let killed = try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"])
        #expect(killed.exitCode == 128 + SIGKILL)
    }
}
