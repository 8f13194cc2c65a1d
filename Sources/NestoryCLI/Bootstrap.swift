import Foundation
import NestoryBackup
import NestoryReportsLive
import NestoryStore
import NestoryStoreInterfaces

/// The pieces `serve` and the commands build the same way from one engine's stores and this server's data folder.
extension Settings {
    /// `secrets.key` as the key providers' API keys are sealed with; nil: the data folder's own `secrets.key`.
    func secretKeys() throws -> SecretKeys? {
        try secretsKey.map { .key(try SecretBox(base64Key: $0)) }
    }
}

extension Stores {
    /// Reports and exports from these stores, photos drawn from the display renditions in the data folder.
    func reportMaker(folder: DataFolder) -> ReportGenerator {
        let renditions = RenditionCache(folder: folder)
        return ReportGenerator(stores: self, files: files, displayRendition: { renditions.url(for: $0, .display) })
    }

    /// Backups of these stores' households (work files in the data folder's tmp/, its reports/ folder).
    func backupMaker(folder: DataFolder, secrets: SecretKeys?) -> BackupWriter {
        BackupWriter(archive: archive, valuations: valuations, blobs: files, folder: folder, secrets: secrets)
    }
}
