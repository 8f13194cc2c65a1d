import ArgumentParser
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStore

/// `nestory`: the server and the admin command line in one program.
public struct NestoryCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nestory",
        abstract: "Nestory: a home inventory for insurance.",
        version: NestoryVersion.current,
        subcommands: [Serve.self, Migrate.self, UserCommand.self, Demo.self, Stats.self, BarcodeCommand.self, CatalogCommand.self,
                      ReceiptCommand.self, ReportCommand.self, ExportCommand.self, Backup.self, Restore.self, ImportCommand.self,
                      LicenceCommand.self, TokenCommand.self, MCPCommand.self, CopyCommand.self]
    )

    public init() {}
}

/// Options every command that touches data takes.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "The data folder (database and stored files). Also NESTORY_DATA.")
    var dataPath: String = ProcessInfo.processInfo.environment["NESTORY_DATA"] ?? DataFolder.defaultPath

    var folder: DataFolder { DataFolder(path: dataPath) }

    /// Opens the folder's database with photos and files kept where the settings say (`storage.blobs` and
    /// `storage.s3.*`, from the environment or the settings file; the data folder by default), so every command
    /// reads, adds and removes them where the server does.
    func open(_ mode: AppDatabase.OpenMode) throws -> AppDatabase {
        let settings: Settings
        do { settings = try Settings.readWaiting(flags: ["data": dataPath]) } catch let error as Settings.Invalid { throw CLIError(error.description) }
        return try reportingErrors { try AppDatabase.open(folder, mode: mode, blobBackend: settings.blobBackend) }
    }

    /// ``open(_:)`` for an asynchronous command (Swift picks this one there): the settings are read without waiting on a thread.
    func open(_ mode: AppDatabase.OpenMode) async throws -> AppDatabase {
        let settings: Settings
        do { settings = try await Settings.read(flags: ["data": dataPath]) } catch let error as Settings.Invalid { throw CLIError(error.description) }
        return try reportingErrors { try AppDatabase.open(folder, mode: mode, blobBackend: settings.blobBackend) }
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
    default: return error
    }
}

/// Resolves `--household` (a name or an id), or the only household when there is one.
func resolveHousehold(_ database: AppDatabase, _ selector: String?) throws -> Household {
    if let selector {
        if let id = HouseholdID(string: selector), let household = try? database.household(id) { return household }
        let named = try database.households(named: selector)
        switch named.count {
        case 1: return named[0]
        case 0: throw CLIError("There is no household called \(selector).")
        default: throw CLIError("Several households are called \(selector); pass its id instead: \(named.map(\.id.description).joined(separator: ", ")).")
        }
    }
    let all = try database.allHouseholds()
    switch all.count {
    case 1: return all[0]
    case 0: throw CLIError("There is no household yet. Create one with `nestory user add` or `nestory demo`.")
    default: throw CLIError("There are \(all.count) households; choose one with --household NAME or ID.")
    }
}
