import Foundation

/// The API's description, served at `/api/v1/openapi.json`: the file Sources/NestoryWeb/Assets/openapi.json, embedded
/// at build time like the other assets. It is the contract: a test compares its paths with the router's routes both
/// ways, and the HTTP tests check every /api/v1 answer against its schemas (OpenAPIDocumentTests, Support.swift).
enum OpenAPI {
    static let document: String = {
        guard let entry = EmbeddedAssets.files["openapi.json"], let bytes = Data(base64Encoded: entry.base64) else {
            fatalError("openapi.json was not embedded at build time (Sources/NestoryWeb/Assets/)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }()
}
