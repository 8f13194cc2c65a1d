#include "CBarcodeImageLoader.h"

#include <png.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

#include "loader_internal.h"
#include "nestory_native.h"

// libvips is loaded on first use (through CVipsShim's table), not at process start.
#include "../CVipsShim/nestory_vips_lazy.h"

static pthread_once_t nb_once = PTHREAD_ONCE_INIT;
static int nb_init_status = 0;
static char nb_load_error[512];

static void nb_init(void) {
    if (nv_vips_load(nb_load_error, sizeof nb_load_error) != 0) {
        nb_init_status = -2;
        return;
    }
    nb_init_status = VIPS_INIT("nestory-barcodes") == 0 ? 0 : -1;
}

__attribute__((visibility("hidden"))) int nb_started(void) {
    pthread_once(&nb_once, nb_init);
    return nb_init_status;
}

static void nb_message(char *error, size_t error_size, const char *prefix) {
    if (error == NULL || error_size == 0) return;
    const char *detail = vips_error_buffer();
    snprintf(error, error_size, "%s%s%s", prefix, detail && *detail ? ": " : "", detail ? detail : "");
    size_t n = strlen(error);
    while (n > 0 && (error[n - 1] == '\n' || error[n - 1] == ' ')) error[--n] = '\0';
    vips_error_clear();
}

// The PNGs png_direct.c leaves (a gamma or colour profile, a colour key, interlacing, or anything it finds
// inconsistent) through libpng's simplified API, on the caller's thread: libvips decodes PNGs on a worker
// thread behind its pipeline, which cost about a quarter of the load on the benchmark's small photos, and
// ignores gamma. libpng is a dependency of libvips, so it is installed wherever libvips is; it is loaded on
// first use like the rest.
#define NB_PNG_FUNCTIONS(X) X(png_image_begin_read_from_memory) X(png_image_finish_read) X(png_image_free)
#define NB_PNG_INDEX(name) nb_png_index_##name,
enum { NB_PNG_FUNCTIONS(NB_PNG_INDEX) NB_PNG_FUNCTION_COUNT };
#define NB_PNG_NAME(name) #name,
static const char *const nb_png_symbols[] = { NB_PNG_FUNCTIONS(NB_PNG_NAME) NULL };
static const char *const nb_png_sonames[] = { "libpng16.so.16", "libpng16.so", NULL };
static void *nb_png_slots[NB_PNG_FUNCTION_COUNT];
static nn_library nb_png_library = {
    .label = "libpng",
    .sonames = nb_png_sonames,
    .symbols = nb_png_symbols,
    .slots = nb_png_slots,
    .hint = "install libpng16-16 (Debian) or run scripts/install-deps.sh",
};
#define NB_PNG(name) ((__typeof__(&name)) nb_png_slots[nb_png_index_##name])

/// Decodes an 8-bit PNG to grey. Returns 0 on success, 3 when it is too large (with a message), and -1 for
/// anything else (16-bit, corrupt, libpng missing): the caller then reads it through libvips, which gives the
/// usual messages.
static int nb_load_png_gray(const void *data, size_t length, uint64_t max_pixels,
                            uint8_t **pixels, int *width, int *height, char *error, size_t error_size) {
    static const unsigned char signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    if (length < sizeof signature || memcmp(data, signature, sizeof signature) != 0) return -1;
    if (nn_load(&nb_png_library, NULL, 0) != 0) return -1;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!NB_PNG(png_image_begin_read_from_memory)(&image, data, length)) return -1;
    // 16-bit PNGs (libpng would treat them as linear light) stay with libvips.
    if (image.format & PNG_FORMAT_FLAG_LINEAR) {
        NB_PNG(png_image_free)(&image);
        return -1;
    }
    if ((uint64_t)image.width * (uint64_t)image.height > max_pixels) {
        if (error && error_size) snprintf(error, error_size, "the image is too large (%ux%u)", image.width, image.height);
        NB_PNG(png_image_free)(&image);
        return 3;
    }
    int colour = (image.format & PNG_FORMAT_FLAG_COLOR) != 0, alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    // Transparency (an alpha channel, or a palette or grey with tRNS) is read as 8-bit, non-premultiplied
    // values and put on white paper below, as the libvips path does; libpng's own composition works in linear
    // light, which changed reads on the benchmark.
    image.format = colour ? (alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB) : (alpha ? PNG_FORMAT_GA : PNG_FORMAT_GRAY);
    size_t w = image.width, h = image.height, channels = (colour ? 3 : 1) + (alpha ? 1 : 0);
    uint8_t *buffer = g_try_malloc(w * h * channels);
    if (buffer == NULL) {
        NB_PNG(png_image_free)(&image);
        return -1;
    }
    if (!NB_PNG(png_image_finish_read)(&image, NULL, buffer, 0, NULL)) {
        NB_PNG(png_image_free)(&image);  // finish_read frees on failure too; freeing twice is safe
        g_free(buffer);
        return -1;
    }
    // In place: pixel i's grey is written at i, after pixel i's channels at channels × i have been read.
    if (colour || alpha) {
        for (size_t i = 0; i < w * h; i++) {
            const uint8_t *p = buffer + channels * i;
            uint8_t grey = colour ? nb_grey(p[0], p[1], p[2]) : p[0];
            buffer[i] = alpha ? nb_on_white(grey, p[channels - 1]) : grey;
        }
    }
    *pixels = buffer;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

/// Whether `loader` (the class name vips_foreign_find_load_buffer gives) decodes one of the accepted formats: JPEG,
/// PNG, HEIF, WebP, the four loader families the imaging module leaves unblocked.
static int nb_accepted_loader(const char *loader) {
    static const char *const accepted[] = { "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadHeif", "VipsForeignLoadWebp", NULL };
    if (loader == NULL) return 0;
    for (const char *const *family = accepted; *family; family++) {
        if (strncmp(loader, *family, strlen(*family)) == 0) return 1;
    }
    return 0;
}

/// Replaces *image with out, dropping the reference to the old image.
static void nb_swap(VipsImage **image, VipsImage *out) {
    g_object_unref(*image);
    *image = out;
}

int nb_load_gray(const void *data, size_t length, uint64_t max_pixels,
                 uint8_t **pixels, int *width, int *height,
                 char *error, size_t error_size) {
    *pixels = NULL;
    *width = 0;
    *height = 0;
    int started = nb_started();
    if (started == -2) {
        if (error && error_size) snprintf(error, error_size, "%s", nb_load_error);
        return 4;
    }
    if (started != 0) {
        nb_message(error, error_size, "libvips could not start");
        return 4;
    }
    if (data != NULL) {
        int status = nb_decode_png_direct(data, length, max_pixels, pixels, width, height, error, error_size);
        if (status >= 0) return status;
        status = nb_load_png_gray(data, length, max_pixels, pixels, width, height, error, error_size);
        if (status >= 0) return status;
    }
    // Only the formats photos come in (those the imaging module lets libvips decode); anything else
    // libvips might sniff (ImageMagick's loader matches some random bytes) is not an image here, whether or
    // not the imaging module has blocked its loader in this process.
    const char *loader = data == NULL || length == 0 ? NULL : vips_foreign_find_load_buffer(data, length);
    if (!nb_accepted_loader(loader)) {
        vips_error_clear();
        if (error && error_size) snprintf(error, error_size, "not a recognised image format");
        return 1;
    }
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_RANDOM, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (image == NULL) {
        nb_message(error, error_size, "the image could not be read");
        return 2;
    }
    if ((uint64_t)vips_image_get_width(image) * (uint64_t)vips_image_get_height(image) > max_pixels) {
        if (error && error_size) snprintf(error, error_size, "the image is too large (%dx%d)",
                                          vips_image_get_width(image), vips_image_get_height(image));
        g_object_unref(image);
        return 3;
    }

    // Fast path for the usual photos (8/16-bit grey, grey+alpha, RGB, RGBA): decode once into memory and
    // convert here, without a libvips pipeline and its worker threads (about half the time on small images).
    VipsBandFormat source_format = vips_image_get_format(image);
    int bands = vips_image_get_bands(image);
    VipsInterpretation interpretation = vips_image_get_interpretation(image);
    if ((source_format == VIPS_FORMAT_UCHAR || source_format == VIPS_FORMAT_USHORT) && bands >= 1 && bands <= 4 &&
        interpretation != VIPS_INTERPRETATION_CMYK && interpretation != VIPS_INTERPRETATION_LAB &&
        interpretation != VIPS_INTERPRETATION_LABS && interpretation != VIPS_INTERPRETATION_MULTIBAND) {
        if (vips_image_wio_input(image) != 0) goto fail;
        int w = vips_image_get_width(image), h = vips_image_get_height(image);
        uint8_t *grey = g_try_malloc((size_t)w * (size_t)h);
        if (grey == NULL) {
            if (error && error_size) snprintf(error, error_size, "out of memory");
            g_object_unref(image);
            return 3;
        }
        int colour = bands >= 3, alpha = bands == 2 || bands == 4;
        // The common layouts get their own loop without a per-pixel branch or division (this loop was a fifth
        // of the benchmark's time on the decoding thread).
        if (source_format == VIPS_FORMAT_UCHAR && !alpha) {
            for (int y = 0; y < h; y++) {
                const VipsPel *row = VIPS_IMAGE_ADDR(image, 0, y);
                uint8_t *dst = grey + (size_t)y * w;
                if (!colour) {
                    memcpy(dst, row, (size_t)w);
                    continue;
                }
                for (int x = 0; x < w; x++, row += bands) {
                    dst[x] = nb_grey(row[0], row[1], row[2]);
                }
            }
        } else {
            for (int y = 0; y < h; y++) {
                VipsPel *row = VIPS_IMAGE_ADDR(image, 0, y);
                uint8_t *dst = grey + (size_t)y * w;
                for (int x = 0; x < w; x++) {
                    unsigned v[4];
                    for (int b = 0; b < bands; b++) {
                        v[b] = source_format == VIPS_FORMAT_UCHAR ? row[x * bands + b] : ((unsigned short *)row)[x * bands + b] >> 8;
                    }
                    uint8_t grey = colour ? nb_grey(v[0], v[1], v[2]) : (uint8_t)v[0];
                    dst[x] = alpha ? nb_on_white(grey, v[bands - 1]) : grey;
                }
            }
        }
        g_object_unref(image);
        *pixels = grey;
        *width = w;
        *height = h;
        return 0;
    }

    VipsImage *out = NULL;
    if (vips_image_hasalpha(image)) {
        // Transparent areas become white paper, not black.
        if (vips_flatten(image, &out, "background", vips_array_double_newv(1, 255.0), NULL) != 0) goto fail;
        nb_swap(&image, out);
    }
    if (vips_colourspace(image, &out, VIPS_INTERPRETATION_B_W, NULL) != 0) goto fail;
    nb_swap(&image, out);
    if (vips_image_get_bands(image) > 1) {
        if (vips_extract_band(image, &out, 0, NULL) != 0) goto fail;
        nb_swap(&image, out);
    }
    VipsBandFormat format = vips_image_get_format(image);
    if (format == VIPS_FORMAT_USHORT) {
        if (vips_rshift_const1(image, &out, 8, NULL) != 0) goto fail;
        nb_swap(&image, out);
    }
    if (vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(image, &out, NULL) != 0) goto fail;
        nb_swap(&image, out);
    }

    size_t size = 0;
    void *memory = vips_image_write_to_memory(image, &size);
    if (memory == NULL) goto fail;
    int w = vips_image_get_width(image), h = vips_image_get_height(image);
    g_object_unref(image);
    if (size != (size_t)w * (size_t)h) {
        g_free(memory);
        if (error && error_size) snprintf(error, error_size, "unexpected pixel layout");
        return 2;
    }
    *pixels = memory;
    *width = w;
    *height = h;
    return 0;

fail:
    nb_message(error, error_size, "the image could not be decoded");
    g_object_unref(image);
    return 2;
}

void nb_free_pixels(uint8_t *pixels) {
    if (pixels == NULL) return;  // also before libvips is loaded
    g_free(pixels);
}
