#include "CBarcodeImageLoader.h"

#include <libdeflate.h>
#include <vips/vips.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"
#include "nestory_native.h"

// g_try_malloc and g_free through libvips' table (glib is loaded with libvips, on first use).
#include "../CVipsShim/nestory_vips_lazy.h"

// The common PNGs (8-bit grey, RGB, grey + alpha, RGBA, and palettes of 1 to 8 bits, not interlaced) decoded
// here: the chunks are walked, the IDAT stream is inflated in one call by libdeflate (about three times as fast
// as zlib's inflate, which was most of libpng's time on the benchmark's photos), and the rows are unfiltered and
// turned to grey in one pass. Anything else (16-bit, interlaced, a gamma or colour profile, a colour-key tRNS,
// or any inconsistency at all, truncation included) returns -1 and is left to libpng and libvips, which give the
// usual results and messages. libdeflate is a dependency of libtiff and so of libvips; it is loaded on first use.

#define NB_DEFLATE_FUNCTIONS(X) X(libdeflate_alloc_decompressor) X(libdeflate_zlib_decompress) X(libdeflate_free_decompressor)
#define NB_DEFLATE_INDEX(name) nb_deflate_index_##name,
enum { NB_DEFLATE_FUNCTIONS(NB_DEFLATE_INDEX) NB_DEFLATE_FUNCTION_COUNT };
#define NB_DEFLATE_NAME(name) #name,
static const char *const nb_deflate_symbols[] = { NB_DEFLATE_FUNCTIONS(NB_DEFLATE_NAME) NULL };
static const char *const nb_deflate_sonames[] = { "libdeflate.so.0", "libdeflate.so", NULL };
static void *nb_deflate_slots[NB_DEFLATE_FUNCTION_COUNT];
static nn_library nb_deflate_library = {
    .label = "libdeflate",
    .sonames = nb_deflate_sonames,
    .symbols = nb_deflate_symbols,
    .slots = nb_deflate_slots,
    .hint = "install libdeflate0 (Debian) or run scripts/install-deps.sh",
};
#define NB_DEFLATE(name) ((__typeof__(&name))nb_deflate_slots[nb_deflate_index_##name])

static uint32_t nb_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int nb_chunk_is(const uint8_t *type, const char *name) { return memcmp(type, name, 4) == 0; }

/// The Paeth filter's predictor for bytes `bpp` onwards, without branches. Inlined with a constant `bpp`.
static inline __attribute__((always_inline)) void nb_paeth(uint8_t *row, const uint8_t *previous, size_t length, size_t bpp) {
    for (size_t x = bpp; x < length; x++) {
        int a = row[x - bpp], b = previous[x], c = previous[x - bpp];
        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        int use_b = -(pb <= pc), use_a = -((pa <= pb) & (pa <= pc));
        int prediction = (a & use_a) | (((b & use_b) | (c & ~use_b)) & ~use_a);
        row[x] = (uint8_t)(row[x] + prediction);
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

/// The pixel of `bpp` (3 or 4) bytes at `p` in the low 16-bit lanes of a vector (memcpy: no read past the row).
static inline __m128i nb_load_pixel(const uint8_t *p, size_t bpp) {
    uint32_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

/// Paeth for 3- and 4-byte pixels, a whole pixel at a time: the channels are independent, so they go side by
/// side in 16-bit lanes and the only chain left is from one pixel to the next. Same results as `nb_paeth`.
static inline __attribute__((always_inline)) void nb_paeth_pixels(uint8_t *row, const uint8_t *previous, size_t length, size_t bpp) {
    const __m128i zero = _mm_setzero_si128(), low_bytes = _mm_set1_epi16(0xff);
    __m128i a = nb_load_pixel(row, bpp), c = nb_load_pixel(previous, bpp);
    for (size_t x = bpp; x + bpp <= length; x += bpp) {
        __m128i b = nb_load_pixel(previous + x, bpp), raw = nb_load_pixel(row + x, bpp);
        __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c), sum = _mm_add_epi16(bc, ac);
        __m128i pa = _mm_max_epi16(bc, _mm_sub_epi16(zero, bc));     // |p - a| = |b - c|
        __m128i pb = _mm_max_epi16(ac, _mm_sub_epi16(zero, ac));     // |p - b| = |a - c|
        __m128i pc = _mm_max_epi16(sum, _mm_sub_epi16(zero, sum));   // |p - c| = |a + b - 2c|
        __m128i use_c = _mm_cmpgt_epi16(pb, pc);                      // b unless pc is smaller
        __m128i b_or_c = _mm_or_si128(_mm_andnot_si128(use_c, b), _mm_and_si128(use_c, c));
        __m128i not_a = _mm_cmpgt_epi16(pa, _mm_min_epi16(pb, pc));   // a when pa <= pb and pa <= pc
        __m128i prediction = _mm_or_si128(_mm_andnot_si128(not_a, a), _mm_and_si128(not_a, b_or_c));
        a = _mm_and_si128(_mm_add_epi16(raw, prediction), low_bytes);
        uint32_t out = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(a, zero));
        memcpy(row + x, &out, bpp);
        c = b;
    }
}

/// Sub (`average` 0) and Average (`average` 1; `previous` NULL for the first row) for 3- and 4-byte pixels, a
/// pixel at a time. The first pixel is already done.
static inline __attribute__((always_inline)) void nb_sub_average_pixels(uint8_t *row, const uint8_t *previous, size_t length, size_t bpp, int average) {
    const __m128i zero = _mm_setzero_si128(), low_bytes = _mm_set1_epi16(0xff);
    __m128i a = nb_load_pixel(row, bpp);
    for (size_t x = bpp; x + bpp <= length; x += bpp) {
        __m128i prediction = a;
        if (average) prediction = _mm_srli_epi16(previous ? _mm_add_epi16(a, nb_load_pixel(previous + x, bpp)) : a, 1);
        a = _mm_and_si128(_mm_add_epi16(nb_load_pixel(row + x, bpp), prediction), low_bytes);
        uint32_t out = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(a, zero));
        memcpy(row + x, &out, bpp);
    }
}
#endif

/// Reverses a row's PNG filter in place. `previous` is the row above, already unfiltered (NULL for the first).
static int nb_unfilter(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t length, size_t bpp) {
    switch (filter) {
    case 0:
        return 0;
    case 1:
#if defined(__SSE2__)
        if (bpp == 3 || bpp == 4) {
            if (bpp == 3) nb_sub_average_pixels(row, NULL, length, 3, 0); else nb_sub_average_pixels(row, NULL, length, 4, 0);
            return 0;
        }
#endif
        for (size_t x = bpp; x < length; x++) row[x] = (uint8_t)(row[x] + row[x - bpp]);
        return 0;
    case 2:
        if (previous)
            for (size_t x = 0; x < length; x++) row[x] = (uint8_t)(row[x] + previous[x]);
        return 0;
    case 3:
        if (previous)
            for (size_t x = 0; x < bpp && x < length; x++) row[x] = (uint8_t)(row[x] + (previous[x] >> 1));
#if defined(__SSE2__)
        if (bpp == 3 || bpp == 4) {
            if (bpp == 3) nb_sub_average_pixels(row, previous, length, 3, 1); else nb_sub_average_pixels(row, previous, length, 4, 1);
            return 0;
        }
#endif
        if (!previous) {
            for (size_t x = bpp; x < length; x++) row[x] = (uint8_t)(row[x] + (row[x - bpp] >> 1));
            return 0;
        }
        for (size_t x = bpp; x < length; x++) row[x] = (uint8_t)(row[x] + ((row[x - bpp] + previous[x]) >> 1));
        return 0;
    case 4:
        if (!previous) {  // Paeth with no row above is Sub.
            for (size_t x = bpp; x < length; x++) row[x] = (uint8_t)(row[x] + row[x - bpp]);
            return 0;
        }
        for (size_t x = 0; x < bpp && x < length; x++) row[x] = (uint8_t)(row[x] + previous[x]);
        // The byte sizes of the common layouts get their own loop: pixels of 3 and 4 bytes a whole pixel at a
        // time with SSE2, single bytes with a constant stride the compiler keeps in registers. The predictor is
        // chosen with masks, not branches, which photos' noise mispredicts.
        switch (bpp) {
        case 1: nb_paeth(row, previous, length, 1); break;
#if defined(__SSE2__)
        case 3: nb_paeth_pixels(row, previous, length, 3); break;
        case 4: nb_paeth_pixels(row, previous, length, 4); break;
#endif
        default: nb_paeth(row, previous, length, bpp); break;
        }
        return 0;
    default:
        return -1;
    }
}

int nb_decode_png_direct(const void *data, size_t length, uint64_t max_pixels,
                         uint8_t **pixels, int *width, int *height, char *error, size_t error_size) {
    static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    const uint8_t *bytes = data;
    if (length < 8 + 25 || memcmp(bytes, signature, 8) != 0) return -1;
    if (nb_be32(bytes + 8) != 13 || !nb_chunk_is(bytes + 12, "IHDR")) return -1;
    const uint8_t *header = bytes + 16;
    uint32_t w = nb_be32(header), h = nb_be32(header + 4);
    unsigned depth = header[8], colour = header[9];
    if (w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff) return -1;
    if (header[10] != 0 || header[11] != 0 || header[12] != 0) return -1;  // compression, filter method, interlace
    unsigned channels;
    switch (colour) {
    case 0: channels = 1; break;
    case 2: channels = 3; break;
    case 3: channels = 1; break;
    case 4: channels = 2; break;
    case 6: channels = 4; break;
    default: return -1;
    }
    if (colour == 3 ? !(depth == 1 || depth == 2 || depth == 4 || depth == 8) : depth != 8) return -1;
    if ((uint64_t)w * h > max_pixels) {
        if (error && error_size) snprintf(error, error_size, "the image is too large (%ux%u)", w, h);
        return 3;
    }

    // The chunks: the palette and its transparency, and the IDAT data (gathered, as it may be split).
    uint8_t palette[256][4];
    unsigned palette_size = 0;
    int has_transparency = 0;
    const uint8_t *trns = NULL;
    size_t trns_length = 0;
    size_t idat_length = 0, idat_chunks = 0;
    const uint8_t *first_idat = NULL;
    int ended = 0;
    for (size_t at = 8 + 25; at + 12 <= length;) {
        uint32_t size = nb_be32(bytes + at);
        const uint8_t *type = bytes + at + 4, *body = bytes + at + 8;
        if (size > length - at - 12) return -1;  // truncated
        if (nb_chunk_is(type, "IDAT")) {
            if (idat_chunks == 0) first_idat = body;
            idat_length += size;
            idat_chunks++;
        } else if (nb_chunk_is(type, "PLTE")) {
            if (size % 3 != 0 || size > 768 || size == 0) return -1;
            palette_size = size / 3;
            for (unsigned i = 0; i < palette_size; i++) {
                palette[i][0] = body[3 * i];
                palette[i][1] = body[3 * i + 1];
                palette[i][2] = body[3 * i + 2];
                palette[i][3] = 255;
            }
        } else if (nb_chunk_is(type, "tRNS")) {
            if (colour != 3) return -1;  // a colour key: left to libpng
            trns = body;
            trns_length = size;
        } else if (nb_chunk_is(type, "gAMA") || nb_chunk_is(type, "cHRM") || nb_chunk_is(type, "iCCP")) {
            return -1;  // libpng converts these to sRGB
        } else if (nb_chunk_is(type, "IEND")) {
            ended = 1;
            break;
        } else if (!(type[0] & 0x20)) {
            return -1;  // an unknown critical chunk
        }
        at += 12 + (size_t)size;
    }
    if (!ended || idat_chunks == 0) return -1;
    if (colour == 3) {
        if (palette_size == 0 || trns_length > palette_size) return -1;
        for (size_t i = 0; i < trns_length; i++) {
            palette[i][3] = trns[i];
            if (trns[i] != 255) has_transparency = 1;
        }
    }

    int status = -1;
    uint8_t *gathered = NULL, *raw = NULL, *grey = NULL;
    struct libdeflate_decompressor *decompressor = NULL;
    if (nb_started() != 0 || nn_load(&nb_deflate_library, NULL, 0) != 0) return -1;

    const uint8_t *stream = first_idat;
    if (idat_chunks > 1) {
        gathered = malloc(idat_length);
        if (gathered == NULL) goto done;
        size_t filled = 0;
        for (size_t at = 8 + 25; at + 12 <= length && filled < idat_length;) {
            uint32_t size = nb_be32(bytes + at);
            if (nb_chunk_is(bytes + at + 4, "IDAT")) {
                memcpy(gathered + filled, bytes + at + 8, size);
                filled += size;
            }
            at += 12 + (size_t)size;
        }
        stream = gathered;
    }

    size_t row_bytes = ((size_t)w * channels * depth + 7) / 8, stride = row_bytes + 1;
    size_t expected = stride * h;
    raw = malloc(expected);
    grey = g_try_malloc((size_t)w * h);
    decompressor = NB_DEFLATE(libdeflate_alloc_decompressor)();
    if (raw == NULL || grey == NULL || decompressor == NULL) goto done;
    size_t produced = 0;
    if (NB_DEFLATE(libdeflate_zlib_decompress)(decompressor, stream, idat_length, raw, expected, &produced) != LIBDEFLATE_SUCCESS ||
        produced != expected)
        goto done;

    // Palettes become a table of greys (on white where transparent); an index past the palette is an error.
    uint8_t table[256];
    uint8_t valid[256] = { 0 };
    if (colour == 3) {
        for (unsigned i = 0; i < palette_size; i++) {
            uint8_t luma = nb_grey(palette[i][0], palette[i][1], palette[i][2]);
            table[i] = has_transparency ? nb_on_white(luma, palette[i][3]) : luma;
            valid[i] = 1;
        }
    }
    size_t bpp = (channels * depth + 7) / 8;
    const uint8_t *previous = NULL;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = raw + (size_t)y * stride + 1;
        if (nb_unfilter(row[-1], row, previous, row_bytes, bpp) != 0) goto done;
        previous = row;
        uint8_t *out = grey + (size_t)y * w;
        switch (colour) {
        case 0:
            memcpy(out, row, w);
            break;
        case 2:
            for (uint32_t x = 0; x < w; x++) out[x] = nb_grey(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
            break;
        case 4:
            for (uint32_t x = 0; x < w; x++) out[x] = nb_on_white(row[2 * x], row[2 * x + 1]);
            break;
        case 6:
            for (uint32_t x = 0; x < w; x++) out[x] = nb_on_white(nb_grey(row[4 * x], row[4 * x + 1], row[4 * x + 2]), row[4 * x + 3]);
            break;
        case 3: {
            unsigned per_byte = 8 / depth, mask = (1u << depth) - 1;
            for (uint32_t x = 0; x < w; x++) {
                unsigned shift = 8 - depth * (x % per_byte + 1);
                unsigned index = (row[x / per_byte] >> shift) & mask;
                if (!valid[index]) goto done;
                out[x] = table[index];
            }
            break;
        }
        }
    }
    *pixels = grey;
    *width = (int)w;
    *height = (int)h;
    grey = NULL;
    status = 0;

done:
    if (decompressor) NB_DEFLATE(libdeflate_free_decompressor)(decompressor);
    free(gathered);
    free(raw);
    g_free(grey);
    return status;
}
