import Foundation

// Build tool (run by the EmbedAssets plugin): writes a Swift file that holds each asset file's bytes
// (base64, decoded once at start) and a hash of its content, so the server needs no files beside it
// and browsers can cache each version forever.
//
// Usage: embed-assets OUTPUT.swift FILE...

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first, arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: embed-assets OUTPUT.swift FILE...\n".utf8))
    exit(2)
}

/// FNV-1a, 64 bits: enough to tell versions of one file apart (not a security property).
func fnv1a(_ bytes: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

var entries: [String] = []
for path in arguments.dropFirst().sorted() {
    let url = URL(fileURLWithPath: path)
    guard let data = try? Data(contentsOf: url) else {
        FileHandle.standardError.write(Data("embed-assets: cannot read \(path)\n".utf8))
        exit(1)
    }
    entries.append("        \"\(url.lastPathComponent)\": (hash: \"\(fnv1a(data))\", base64: \"\(data.base64EncodedString())\"),")
}
let source = """
    // Generated at build time by embed-assets from the target's Assets/ folder. Do not edit.
    enum EmbeddedAssets {
        /// Each file's content hash and bytes, by file name.
        static let files: [String: (hash: String, base64: String)] = [
    \(entries.joined(separator: "\n"))
        ]
    }

    """
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("embed-assets: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
