import ArgumentParser
import Foundation
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryDomain

/// `nestory barcode ...`: barcodes from the command line.
struct BarcodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "barcode",
        abstract: "Read barcodes (EAN-13, EAN-8, UPC-A, UPC-E, Code 128, QR) from photos.",
        subcommands: [Read.self]
    )

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every code found in an image as JSON; exit with status 1 when there is none.")

        @Argument(help: "A photo of the barcode (PNG, JPEG, WebP, HEIC...).")
        var image: String

        @Option(help: "Only look inside this part of the picture: x,y,width,height as fractions (0-1) of its size.")
        var region: String?

        func run() throws {
            let area = try region.map(Self.parseRegion)
            let url = try InputFile.url(image, .file)
            let data: Data
            do { data = try Data(contentsOf: url) } catch { throw CLIError("\(image) cannot be read: \(error.localizedDescription)") }
            let codes: [DecodedBarcode]
            do {
                codes = try BarcodeReader().decode(imageData: data, region: area)
            } catch {
                throw CLIError("\(image): \(error.message)")
            }
            guard !codes.isEmpty else {
                throw CLIError("No barcode found in \(image). Try a sharper, closer photo, or type the number by hand.")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(codes.map(DecodedBarcode.JSON.init)), as: UTF8.self))
        }

        static func parseRegion(_ text: String) throws -> BarcodeRegion {
            guard let region = BarcodeRegion(parsing: text) else {
                throw ValidationError("--region takes x,y,width,height as fractions of the picture, e.g. 0.1,0.3,0.8,0.4.")
            }
            return region
        }
    }
}
