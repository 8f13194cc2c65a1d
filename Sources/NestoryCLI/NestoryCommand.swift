import ArgumentParser
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres

/// `nestory`: the server and the admin command line in one program.
public struct NestoryCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nestory",
        abstract: "Nestory: a home inventory for insurance.",
        version: NestoryVersion.current,
        subcommands: [Serve.self, Migrate.self, UserCommand.self, HouseholdCommand.self, Demo.self, Stats.self, BarcodeCommand.self, CatalogCommand.self,
                      ReceiptCommand.self, ReportCommand.self, ExportCommand.self, Backup.self, Restore.self, ImportCommand.self,
                      LicenceCommand.self, TokenCommand.self, MCPCommand.self, CopyCommand.self]
    )

    public init() {}
}

/// Options every command that touches data takes.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "The data folder (database and stored files). Also NESTORY_DATA.")
    var dataPath: String = ProcessInfo.processInfo.environment["NESTORY_DATA"] ?? DataFolder.defaultPath

    @Option(name: .customLong("database"), help: "sqlite (the default, in the data folder) or a postgres:// URL. Also NESTORY_DATABASE_URL.")
    var databaseURL: String?

    var folder: DataFolder { DataFolder(path: dataPath) }

    /// What this command's flags set, by settings key.
    var flags: [String: String] {
        var flags = ["data": dataPath]
        if let databaseURL { flags["database.url"] = databaseURL }
        return flags
    }

    /// Opens the database the settings name (either engine).
    func openDatabase(_ mode: AppDatabase.OpenMode) async throws -> OpenDatabase {
        try await settings().openDatabase(mode)
    }

    /// Runs `body` on the database the settings name, closed after; the store's and domain's errors said plainly.
    func withDatabase<T>(_ mode: AppDatabase.OpenMode, _ body: (OpenDatabase) async throws -> T) async throws -> T {
        let database = try await openDatabase(mode)
        do {
            let result = try await reportingErrors { try await body(database) }
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// The settings (the environment, the settings file) with this command's data folder and `flags` over them.
    func settings(_ flags: [String: String] = [:]) async throws -> Settings {
        do { return try await Settings.read(flags: flags.merging(self.flags) { _, own in own }) } catch let error as Settings.Invalid {
            throw CLIError(error.description)
        }
    }
}

/// What is at a path named on the command line, symbolic links followed.
enum PathKind: Equatable {
    case regular, folder, pipe, device
    /// Nothing that can be looked at; `errno` says why (ENOENT: nothing there).
    case absent(errno: Int32)

    init(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { self = .absent(errno: errno); return }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .pipe
        default: self = .device
        }
    }
}

/// A file named on the command line, checked before it is read, so that each command says the same thing: a folder
/// or a device is refused (restore spun without end on a folder, and /dev/zero never ends), and so is a pipe unless
/// the command streams the file.
enum InputFile {
    enum Reading {
        /// Start to end once, through a file handle: a pipe will do (`zcat products.jsonl.gz | nestory catalog import
        /// /dev/stdin`).
        case stream
        /// A file: read twice (a CSV import checks every row, then imports), from its end (a ZIP) or whole by size.
        case file
    }

    static func url(_ path: String, _ reading: Reading) throws -> URL {
        switch PathKind(path) {
        case .regular: break
        case .pipe where reading == .stream: break
        case .absent(ENOENT): throw CLIError("There is no file \(path).")
        case .absent(let error): throw CLIError("\(path) cannot be opened: \(String(cString: strerror(error))).")
        case .folder: throw CLIError("\(path) is a folder: give a file.")
        case .pipe: throw CLIError("\(path) is a pipe: save what it holds to a file and give that.")
        case .device: throw CLIError("\(path) is a device, not a file: give a file.")
        }
        guard access(path, R_OK) == 0 else { throw CLIError("\(path) cannot be read by this user.") }
        return URL(fileURLWithPath: path)
    }
}

/// A file a command writes, named on its command line: a new one in a folder that exists, or a file to replace. A
/// folder, a device or a pipe is refused, and a symbolic link stands for the file it points to: files are written
/// beside their destination and renamed onto it, and as root that replaced /dev/full itself with a regular file, and
/// /dev/stdout (a link to the job's output file) with the export.
enum OutputFile {
    /// `dash`: the command takes `-` for standard output, and says so to whoever names /dev/stdout.
    static func url(_ path: String, dash: Bool = false) throws -> URL {
        switch PathKind(path) {
        case .regular:
            guard let real = realpath(path, nil) else { throw CLIError("\(path) cannot be opened: \(String(cString: strerror(errno))).") }
            defer { free(real) }
            return URL(fileURLWithPath: String(cString: real))
        case .absent:
            let url = URL(fileURLWithPath: path)
            let parent = url.deletingLastPathComponent().path
            guard PathKind(parent) == .folder else { throw CLIError("There is no folder \(parent) to write \(url.lastPathComponent) in.") }
            return url
        case .folder: throw CLIError("\(path) is a folder: give the name of a file to write.")
        case .pipe, .device:
            throw CLIError("\(path) is a device or a pipe, not a file: give the name of a file to write\(dash ? " (or - for standard output)" : "").")
        }
    }
}

/// An error worded for the person at the terminal.
struct CLIError: Error, CustomStringConvertible, LocalizedError {
    let description: String
    init(_ description: String) { self.description = description }
    var errorDescription: String? { description }
}

/// Runs a command body, turning the store's and the domain's errors into clear messages.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw cliError(error) }
}

/// ``reportingErrors(_:)`` for a service call.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw cliError(error) }
}

/// The one place errors become what the command line says.
func cliError(_ error: any Error) -> any Error {
    switch error {
    case let error as StoreError: return CLIError(error.description)
    case let error as DomainError: return CLIError(error.message)
    case let error as BackupError: return CLIError(error.description)
    case let error as PostgresStoreError: return CLIError(error.description)
    default: return error
    }
}

/// Resolves `--household` (a name or an id), or the only household when there is one, on any engine's account store.
func resolveHousehold(_ accounts: any AccountStore, _ selector: String?) async throws -> Household {
    if let selector {
        if let id = HouseholdID(string: selector), let household = try? await accounts.household(id) { return household }
        return try pickHousehold(named: selector, try await accounts.households(named: selector))
    }
    return try onlyHousehold(try await accounts.allHouseholds())
}

private func pickHousehold(named selector: String, _ named: [Household]) throws -> Household {
    switch named.count {
    case 1: return named[0]
    case 0: throw CLIError("There is no household called \(selector).")
    default: throw CLIError("Several households are called \(selector); pass its id instead: \(named.map(\.id.description).joined(separator: ", ")).")
    }
}

private func onlyHousehold(_ all: [Household]) throws -> Household {
    switch all.count {
    case 1: return all[0]
    case 0: throw CLIError("There is no household yet. Create one with `nestory user add` or `nestory demo`.")
    default: throw CLIError("There are \(all.count) households; choose one with --household NAME or ID.")
    }
}
