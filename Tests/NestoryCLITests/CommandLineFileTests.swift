import Foundation
import NestoryChildProcess
import Testing

/// Every command that reads a file named on its command line refuses a folder, a device and (unless it streams) a
/// pipe with one line, at once: `restore` spun without end on a folder, and /dev/zero is never read to its end.
@Suite struct InputFileTests {
    static let commands: [[String]] = [["import", "csv"], ["restore"], ["barcode", "read"], ["receipt", "read"], ["catalog", "import"]]

    /// The command under `timeout`, so a command that never ends fails the test instead of hanging the suite.
    func run(_ arguments: [String], folder: CLI.Folder) throws -> ChildProcess.Finished {
        var environment = ProcessInfo.processInfo.environment
        environment["NESTORY_DATA"] = folder.path
        return try ChildProcess.run("/usr/bin/timeout", ["60", CLI.binary.path] + arguments, environment: environment)
    }

    @Test(arguments: commands)
    func aFolderOrADeviceIsRefusedAtOnce(command: [String]) throws {
        let folder = CLI.Folder()
        try FileManager.default.createDirectory(atPath: folder.path + "/photos", withIntermediateDirectories: true)
        let onFolder = try run(command + [folder.path + "/photos"], folder: folder)
        #expect(onFolder.exitCode == 1 && onFolder.errorText == "Error: \(folder.path)/photos is a folder: give a file.\n", "\(command): \(onFolder.errorText)")
        let onDevice = try run(command + ["/dev/zero"], folder: folder)
        #expect(onDevice.exitCode == 1 && onDevice.errorText == "Error: /dev/zero is a device, not a file: give a file.\n", "\(command): \(onDevice.errorText)")
        let missing = try run(command + [folder.path + "/none.csv"], folder: folder)
        #expect(missing.exitCode == 1 && missing.errorText == "Error: There is no file \(folder.path)/none.csv.\n", "\(command): \(missing.errorText)")
    }

    @Test func aPipeIsReadWhereTheCommandStreamsAndRefusedWhereItReadsTwice() throws {
        let folder = CLI.Folder()
        let line = Array(#"{"code":"4006381333931","product_name":"Pencil"}"#.utf8) + [0x0A]
        var environment = ProcessInfo.processInfo.environment
        environment["NESTORY_DATA"] = folder.path
        #expect(try CLI.run(["migrate", "--data", folder.path]).status == 0)
        let catalog = try ChildProcess.run(CLI.binary.path, ["catalog", "import", "/dev/stdin"], environment: environment, input: line)
        #expect(catalog.exitCode == 0 && catalog.outputText.hasPrefix("Imported 1 product in"), "\(catalog.outputText) \(catalog.errorText)")
        let csv = try ChildProcess.run(CLI.binary.path, ["import", "csv", "/dev/stdin"], environment: environment, input: Array("name\nLamp\n".utf8))
        #expect(csv.exitCode == 1 && csv.errorText == "Error: /dev/stdin is a pipe: save what it holds to a file and give that.\n", "\(csv.errorText)")
    }
}

/// Every command that writes a file named on its command line refuses a folder, a pipe or a device, and a folder that
/// does not exist, before it opens the database: a backup renamed its archive onto /dev/full and, as root, replaced it.
@Suite struct OutputFileTests {
    static let commands: [[String]] = [["backup"], ["export", "csv"], ["report", "inventory", "--out"]]

    @Test(arguments: commands)
    func aFolderAPipeOrAMissingFolderIsRefused(command: [String]) throws {
        let folder = CLI.Folder()
        try FileManager.default.createDirectory(atPath: folder.path + "/out", withIntermediateDirectories: true)
        #expect(mkfifo(folder.path + "/pipe", 0o600) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["NESTORY_DATA"] = folder.path
        func run(_ path: String) throws -> ChildProcess.Finished {
            try ChildProcess.run("/usr/bin/timeout", ["60", CLI.binary.path] + command + [path], environment: environment)
        }
        let onFolder = try run(folder.path + "/out")
        #expect(onFolder.exitCode == 1 && onFolder.errorText == "Error: \(folder.path)/out is a folder: give the name of a file to write.\n",
                "\(command): \(onFolder.errorText)")
        let onPipe = try run(folder.path + "/pipe")
        let dash = command.first == "export" ? " (or - for standard output)" : ""
        #expect(onPipe.exitCode == 1 && onPipe.errorText == "Error: \(folder.path)/pipe is a device or a pipe, not a file: give the name of a file to write\(dash).\n",
                "\(command): \(onPipe.errorText)")
        var status = stat()
        #expect(lstat(folder.path + "/pipe", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe is still a pipe")
        let nowhere = try run(folder.path + "/missing/file.out")
        #expect(nowhere.exitCode == 1 && nowhere.errorText == "Error: There is no folder \(folder.path)/missing to write file.out in.\n",
                "\(command): \(nowhere.errorText)")
    }

    /// An export or a report that cannot finish (here the file-size limit stops it part way) leaves the file that was
    /// there before as it was: the new one is written beside it and renamed onto it only when whole.
    @Test(arguments: [(["export", "json"], "A file could not be written: {}: File too large."),
                      (["report", "inventory", "--undocumented", "--out"],
                       "The PDF could not be written: writing the file failed (is the disk full, or the folder not writable?).")])
    func aFileThatCannotBeFinishedLeavesThePreviousOneWhole(command: [String], message: String) throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "200", "--seed", "2"]).status == 0)
        let destination = folder.path + "/written"
        #expect(try CLI.run(command + [destination, "--data", folder.path]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: destination))
        #expect(before.count > 64 * 1024, "the file is larger than the limit below")
        let limited = try ChildProcess.run("/bin/sh", ["-c", "ulimit -f 64; exec \"$@\"", "sh", CLI.binary.path] + command + [destination, "--data", folder.path])
        // Stopped by the limit (the process does not die of SIGXFSZ: its write fails with EFBIG), not for another reason.
        let expected = "Error: " + message.replacingOccurrences(of: "{}", with: destination) + "\n"
        #expect(limited.exitCode == 1 && limited.errorText == expected, "\(limited.exitCode): \(limited.errorText)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("partial") }.isEmpty)
    }

    /// `-` is standard output, for a pipe: the same bytes as the file, and the count on standard error.
    @Test(arguments: ["csv", "json"])
    func anExportToStandardOutput(format: String) throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "12", "--seed", "4"]).status == 0)
        #expect(try CLI.run(["export", format, folder.path + "/file", "--data", folder.path]).status == 0)
        let piped = try CLI.run(["export", format, "-", "--data", folder.path])
        #expect(piped.status == 0 && piped.stderr == "Wrote 12 items to standard output.\n", "\(piped.stderr)")
        // Decoded by hand: String(contentsOfFile:) drops the CSV's byte-order mark.
        let file = String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder.path + "/file")), as: UTF8.self)
        if format == "csv" {
            #expect(piped.stdout == file && piped.stdout.hasPrefix("\u{FEFF}id,name,"))
        } else {
            // The JSON says when it was exported: the same but for that instant.
            let strip = { (text: String) in text.replacingOccurrences(of: #""exportedAt"\s*:\s*"[^"]*""#, with: "", options: .regularExpression) }
            #expect(strip(piped.stdout) == strip(file) && piped.stdout.count > 1000)
        }
    }

    /// A symbolic link stands for its file: the file is replaced and the link stays a link (renaming onto the link
    /// replaced /dev/stdout, a link, with the export).
    @Test func aLinkIsFollowedNotReplaced() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "3", "--seed", "5"]).status == 0)
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder.path + "/target.csv"))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.csv", withDestinationPath: "target.csv")
        #expect(try CLI.run(["export", "csv", folder.path + "/link.csv", "--data", folder.path]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path + "/link.csv") == "target.csv")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder.path + "/target.csv")), as: UTF8.self).hasPrefix("\u{FEFF}id,name,"))
    }
}
