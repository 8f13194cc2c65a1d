// nestory-zxing: reads barcodes with zxing-cpp in a process of its own.
//
// Debian 12's zxing-cpp 1.4.0 is built with assertions on, and some pictures make it abort(); in its own process
// that costs one read, never the server. NestoryBarcodesLive starts this program on the first zxing pass and
// talks to it over its standard input and output, one request at a time, all integers little-endian uint32:
//
//   request:  width, height, formats (bit set below), effort, then width*height grey bytes; effort 0: zxing's usual
//             scan; 1: trying harder (more rows), turned and downscaled too; 2: trying harder on the picture as it is
//   response: count, then per symbol: format bit, line count, 8 corner coordinates (x0 y0 .. x3 y3, as int32),
//             text length + UTF-8 text
//
// It exits at the end of its input, or with status 2 on a malformed request.
#define ZX_USE_UTF8 1
#include <ReadBarcode.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>
#include <unistd.h>

namespace {

enum : uint32_t { EAN13 = 1, EAN8 = 2, UPCA = 4, UPCE = 8, CODE128 = 16, QR = 32 };

// Pictures larger than this are refused (the caller's limit is far lower).
constexpr uint64_t maxPixels = 100'000'000;

bool readAll(void *buffer, size_t count) {
    auto *bytes = static_cast<uint8_t *>(buffer);
    while (count > 0) {
        ssize_t got = read(STDIN_FILENO, bytes, count);
        if (got <= 0) return false;
        bytes += got;
        count -= static_cast<size_t>(got);
    }
    return true;
}

bool writeAll(const void *buffer, size_t count) {
    auto *bytes = static_cast<const uint8_t *>(buffer);
    while (count > 0) {
        ssize_t put = write(STDOUT_FILENO, bytes, count);
        if (put <= 0) return false;
        bytes += put;
        count -= static_cast<size_t>(put);
    }
    return true;
}

void put32(std::vector<uint8_t> &out, uint32_t value) {
    for (int i = 0; i < 4; i++) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void putBytes(std::vector<uint8_t> &out, const uint8_t *data, size_t count) {
    put32(out, static_cast<uint32_t>(count));
    out.insert(out.end(), data, data + count);
}

uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }

ZXing::BarcodeFormats zxingFormats(uint32_t bits) {
    ZXing::BarcodeFormats formats;
    if (bits & EAN13) formats |= ZXing::BarcodeFormat::EAN13;
    if (bits & EAN8) formats |= ZXing::BarcodeFormat::EAN8;
    if (bits & UPCA) formats |= ZXing::BarcodeFormat::UPCA;
    if (bits & UPCE) formats |= ZXing::BarcodeFormat::UPCE;
    if (bits & CODE128) formats |= ZXing::BarcodeFormat::Code128;
    if (bits & QR) formats |= ZXing::BarcodeFormat::QRCode;
    return formats;
}

uint32_t formatBit(ZXing::BarcodeFormat format) {
    switch (format) {
    case ZXing::BarcodeFormat::EAN13: return EAN13;
    case ZXing::BarcodeFormat::EAN8: return EAN8;
    case ZXing::BarcodeFormat::UPCA: return UPCA;
    case ZXing::BarcodeFormat::UPCE: return UPCE;
    case ZXing::BarcodeFormat::Code128: return CODE128;
    case ZXing::BarcodeFormat::QRCode: return QR;
    default: return 0;
    }
}

std::vector<uint8_t> answer(const std::vector<uint8_t> &pixels, int width, int height, uint32_t formats, uint32_t effort) {
    ZXing::Results found;
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(zxingFormats(formats));
        hints.setTryHarder(effort != 0);
        hints.setTryRotate(effort == 1);
        hints.setTryDownscale(effort == 1);
        hints.setEanAddOnSymbol(ZXing::EanAddOnSymbol::Ignore);
        found = ZXing::ReadBarcodes(ZXing::ImageView(pixels.data(), width, height, ZXing::ImageFormat::Lum), hints);
    } catch (const std::exception &) {
        found.clear();
    }
    std::vector<uint8_t> out;
    put32(out, 0);
    uint32_t count = 0;
    for (const auto &result : found) {
        uint32_t bit = formatBit(result.format());
        if (!result.isValid() || bit == 0) continue;
        put32(out, bit);
        put32(out, static_cast<uint32_t>(result.lineCount()));
        const auto &position = result.position();
        for (int i = 0; i < 4; i++) {
            put32(out, static_cast<uint32_t>(position[i].x));
            put32(out, static_cast<uint32_t>(position[i].y));
        }
        std::string text = result.text();
        putBytes(out, reinterpret_cast<const uint8_t *>(text.data()), text.size());
        count++;
    }
    for (int i = 0; i < 4; i++) out[i] = static_cast<uint8_t>(count >> (8 * i));
    return out;
}

} // namespace

int main() {
    uint8_t header[16];
    std::vector<uint8_t> pixels;
    while (readAll(header, sizeof header)) {
        uint32_t width = le32(header), height = le32(header + 4), formats = le32(header + 8), effort = le32(header + 12);
        if (width == 0 || height == 0 || static_cast<uint64_t>(width) * height > maxPixels || effort > 2) return 2;
        pixels.resize(static_cast<size_t>(width) * height);
        if (!readAll(pixels.data(), pixels.size())) return 2;
        std::vector<uint8_t> out = answer(pixels, static_cast<int>(width), static_cast<int>(height), formats, effort);
        if (!writeAll(out.data(), out.size())) return 0;
    }
    return 0;
}
