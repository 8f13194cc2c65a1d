import CSpawn
#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawn`, talking over pipes: the OCR and barcode workers, and every program the tests
/// and benchmarks start (`nestory` itself, sqlite3, the S3 test server, zbarimg).
///
/// Not Foundation's `Process`: on this toolchain its start lists `/proc/self/fd` into a fixed buffer and reads past it
/// once a process has more than about 1,360 descriptors open (a busy server's connections and database files, or a
/// test process running suites side by side), a crash seen in the test suite and in CI. Here the child gets its
/// standard input, output and error as 0, 1 and 2 and every other descriptor is closed in it
/// (`posix_spawn_file_actions_addclosefrom_np`), so it inherits no socket or database file of the server.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// The write end of the child's standard input.
    public private(set) var input: Int32
    /// The read end of the child's standard output, when it goes to a pipe (the default).
    public let output: Int32?
    /// The read end of the child's standard error, when it goes to a pipe (by default it goes to /dev/null).
    public let errors: Int32?
    private var exitStatus: Int32?

    /// Where the child's standard output or standard error goes.
    public enum Destination: Sendable, Equatable {
        /// A pipe this process reads (``output``, ``errors``): read it, or a child that writes more than a pipe holds
        /// (64 KiB) waits.
        case pipe
        /// /dev/null.
        case discard
        /// Appended to the file at this path, created when missing (a server's log, read by a test).
        case file(String)
    }

    public struct StartFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable` (a path) with `arguments` (not counting the program's name) and `environment` (this
    /// process's when nil); its standard output and standard error go where `output` and `errors` say. `inputCapacity`
    /// asks the pipe to the child's standard input to hold that many bytes (Linux's default is 64 KiB; an unprivileged
    /// process may ask up to `/proc/sys/fs/pipe-max-size`, 1 MiB unless changed): a large request then goes over in one
    /// write, not one 64 KiB piece each time the child wakes up to read. Where the kernel refuses, the pipe keeps its
    /// default (see ``inputCapacity``).
    public init(executable: String, arguments: [String] = [], environment: [String: String]? = nil,
                output outputDestination: Destination = .pipe, errors errorsDestination: Destination = .discard,
                inputCapacity: Int? = nil) throws {
        // A write to a worker that just died must fail with EPIPE, not kill this process.
        Glibc.signal(SIGPIPE, SIG_IGN)
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1], errorPipe: [Int32] = [-1, -1]
        var opened: [Int32] = []
        func closeOpened() { for fd in opened { close(fd) } }
        for (index, wanted) in [true, outputDestination == .pipe, errorsDestination == .pipe].enumerated() where wanted {
            // Close-on-exec, so that no other program started meanwhile keeps a worker's pipe open (pipe2 with
            // O_CLOEXEC is not visible from Swift here; the child closes all but its three anyway).
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                closeOpened()
                throw StartFailed(description: "pipe: \(String(cString: strerror(errno)))")
            }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            if index == 0, let inputCapacity { _ = nestory_pipe_set_capacity(fds[1], Int32(clamping: inputCapacity)) }
            opened += fds
            switch index {
            case 0: toChild = fds
            case 1: fromChild = fds
            default: errorPipe = fds
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        var files: [Int32] = []
        for (target, destination, pipe) in [(Int32(1), outputDestination, fromChild), (2, errorsDestination, errorPipe)] {
            switch destination {
            case .pipe: posix_spawn_file_actions_adddup2(&actions, pipe[1], target)
            case .discard: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                // Opened here, not by the child, so that a path that cannot be opened (a missing folder) is an error
                // naming the path rather than a failed start naming the program.
                let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
                guard fd >= 0 else {
                    let reason = String(cString: strerror(errno))
                    closeOpened()
                    throw StartFailed(description: "\(path): \(reason)")
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                files.append(fd)
                opened.append(fd)
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        guard nestory_spawn_add_closefrom(&actions, 3) == 0 else {
            closeOpened()
            throw StartFailed(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(errno)))")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling (this process ignores SIGPIPE).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let environment = environment ?? Self.currentEnvironment()
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        // The child's ends are its own now (or nothing started): close them here.
        for fd in [toChild[0], fromChild[1], errorPipe[1]] + files where fd >= 0 { close(fd) }
        guard status == 0 else {
            for fd in [toChild[1], fromChild[0], errorPipe[0]] where fd >= 0 { close(fd) }
            throw StartFailed(description: "\(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0] >= 0 ? fromChild[0] : nil
        errors = errorPipe[0] >= 0 ? errorPipe[0] : nil
    }

    deinit {
        closeInput()
        if let output { close(output) }
        if let errors { close(errors) }
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitUntilExit()
        }
    }

    /// How many bytes the pipe to the child's standard input holds (0 once it is closed).
    public var inputCapacity: Int { input >= 0 ? max(0, Int(nestory_pipe_capacity(input))) : 0 }

    /// Whether the child has not exited yet (an exited one is reaped here).
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid || (reaped == -1 && errno == ECHILD) {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends a signal (SIGTERM to ask it to stop, SIGKILL when it hangs); nothing once it is reaped.
    public func signal(_ signal: Int32) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
    }

    /// Waits for the child to exit and reaps it; its wait status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { break }
        }
        exitStatus = status
        return status
    }

    /// Closes the child's standard input (a worker reading requests line by line then ends).
    public func closeInput() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// Writes all of `bytes` to the child's standard input; false if the child is gone.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(input, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads what is there from the child's standard output, up to `maximum` bytes, waiting at most `timeout`
    /// milliseconds for it (-1: no limit). nil when nothing came in time; empty at end of file, or when the output
    /// does not go to a pipe.
    public func read(maximum: Int = 65_536, timeout: Int32) -> [UInt8]? {
        guard let output else { return [] }
        var wait = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&wait, 1, timeout)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            break
        }
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, maximum) }
            if count < 0, errno == EINTR { continue }
            return count <= 0 ? [] : Array(buffer[0..<count])
        }
    }

    /// How a program run to its end went (`run`).
    public struct Finished: Sendable {
        /// The wait status (`waitpid`).
        public let status: Int32
        public let output: [UInt8]
        public let errors: [UInt8]

        /// The exit code, or 128 + the signal that ended it.
        public var exitCode: Int32 { status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs a program to its end: `input` written to it while its output and errors are read (so neither side
    /// waits on a full pipe), then it is reaped.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                           input: [UInt8] = []) throws -> Finished {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment, errors: .pipe)
        var pending = input[...]
        if pending.isEmpty { child.closeInput() } else { _ = fcntl(child.input, F_SETFL, fcntl(child.input, F_GETFL) | O_NONBLOCK) }
        var output: [UInt8] = [], errors: [UInt8] = []
        guard let childOutput = child.output, let childErrors = child.errors else { preconditionFailure("both are pipes") }
        var open: [Int32: Bool] = [childOutput: true, childErrors: true]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.values.contains(true) || child.input >= 0 {
            var fds = open.filter(\.value).keys.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if child.input >= 0 { fds.append(pollfd(fd: child.input, events: Int16(POLLOUT), revents: 0)) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                guard errno == EINTR else { break }
                continue
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == child.input {
                    let written = pending.withUnsafeBytes { Glibc.write(child.input, $0.baseAddress, $0.count) }
                    if written > 0 { pending = pending.dropFirst(written) }
                    if pending.isEmpty || (written < 0 && errno != EAGAIN && errno != EINTR) { child.closeInput() }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else { open[entry.fd] = false; continue }
                if entry.fd == childOutput { output += buffer[0..<count] } else { errors += buffer[0..<count] }
            }
        }
        return Finished(status: child.waitUntilExit(), output: output, errors: errors)
    }

    static func currentEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return environment
    }
}
