import Foundation
import PackagePlugin

/// Embeds the files of a target's `Assets/` folder (its stylesheet and script) into the target as
/// generated Swift, with a hash of each file's content for cache-busting URLs. The folder is excluded
/// from the target's sources in Package.swift; its files are real files to edit, lint and diff.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL.appending(path: "Assets")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) assets into \(target.name)",
                executable: try context.tool(named: "embed-assets").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
