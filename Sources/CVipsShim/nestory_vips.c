#include "nestory_vips.h"

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

// libvips is loaded on first use (nv_init), not at process start.
#include "nestory_vips_lazy.h"

// MARK: Errors

/// Moves libvips' error text (or `fallback` when it has none) into the caller's buffer and clears
/// libvips' buffer. libvips keeps one process-wide error buffer, so under concurrent failures a
/// message can include another call's text; callers treat it as detail for logs only.
static void nv_take_error(char *err, size_t errlen, const char *fallback) {
    char *message = vips_error_buffer_copy();
    const char *text = (message != NULL && message[0] != '\0') ? message : fallback;
    if (err != NULL && errlen > 0) {
        g_strlcpy(err, text, errlen);
    }
    g_free(message);
}

static void nv_set_error(char *err, size_t errlen, const char *text) {
    if (err != NULL && errlen > 0) {
        g_strlcpy(err, text, errlen);
    }
}

// MARK: Start-up

static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static int nv_init_status = -1;
static char nv_init_error[512];

static void nv_init_once(void) {
    if (nv_vips_load(nv_init_error, sizeof nv_init_error) != 0) {
        nv_init_status = -1;
        return;
    }
    if (VIPS_INIT("nestory")) {
        nv_take_error(nv_init_error, sizeof nv_init_error, "libvips failed to start");
        nv_init_status = -1;
        return;
    }
    // Each upload is new: caching operations only holds memory, and buffer-based loads would be
    // keyed on a buffer address that a later upload can reuse.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);

    // Only the four formats we accept may be decoded (magick, SVG, PDF, TIFF... stay blocked).
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);

    nv_init_status = 0;
}

int nv_init(int concurrency, char *err, size_t errlen) {
    if (pthread_once(&nv_once, nv_init_once) != 0) {
        nv_set_error(err, errlen, "pthread_once failed");
        return -1;
    }
    if (nv_init_status != 0) {
        nv_set_error(err, errlen, nv_init_error);
        return -1;
    }
    if (concurrency > 0) {
        vips_concurrency_set(concurrency);
    }
    return 0;
}

static int nv_require_init(char *err, size_t errlen) {
    if (nv_init_status != 0) {
        nv_set_error(err, errlen, "libvips is not initialised (call nv_init first)");
        return -1;
    }
    return 0;
}

// MARK: Header

int nv_probe(const void *buf, size_t len, nv_header *out, char *err, size_t errlen) {
    if (out == NULL) {
        nv_set_error(err, errlen, "no header to fill");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (nv_require_init(err, errlen)) {
        return -1;
    }
    if (buf == NULL || len == 0) {
        nv_set_error(err, errlen, "empty buffer");
        return -1;
    }

    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) {
        nv_take_error(err, errlen, "not a known image format");
        return -1;
    }

    // Lazy: this reads the header only; no pixel is decoded until something asks for one.
    VipsImage *image = vips_image_new_from_buffer(buf, len, "",
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
    if (image == NULL) {
        nv_take_error(err, errlen, "unreadable image header");
        return -1;
    }

    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    out->orientation = vips_image_get_orientation(image);
    out->bands = vips_image_get_bands(image);
    out->has_alpha = vips_image_hasalpha(image) ? 1 : 0;
    out->has_icc_profile = vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0 ? 1 : 0;
    out->n_pages = vips_image_get_n_pages(image);
    g_strlcpy(out->loader, loader, sizeof out->loader);

    const char *compression = NULL;
    if (vips_image_get_typeof(image, "heif-compression") != 0 &&
        vips_image_get_string(image, "heif-compression", &compression) == 0 &&
        compression != NULL) {
        g_strlcpy(out->heif_compression, compression, sizeof out->heif_compression);
    }

    g_object_unref(image);
    vips_error_clear();
    return 0;
}

// MARK: Derived images

/// Loader options for vips_thumbnail_buffer. In libvips 8.14 its own "fail_on" argument reaches only
/// the file loader, not the buffer loader (a truncated JPEG then decodes with grey where data is
/// missing, with a warning); the option string does reach it.
#define NV_LOADER_OPTIONS "fail_on=error"
/// JPEG and WebP also stop at a decoder warning: libjpeg reports damaged entropy data (a flipped bit,
/// a bad Huffman code, data ending early) only as a warning and fills the rest with grey or noise, which
/// would be stored as the proof of an item. PNG keeps "error": libpng warns about harmless things
/// (a known-incorrect sRGB profile) in many real files.
#define NV_STRICT_LOADER_OPTIONS "fail_on=warning"

/// The loader options for this buffer's format.
static const char *nv_loader_options(const void *buf, size_t len) {
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader != NULL && (strcmp(loader, "VipsForeignLoadJpegBuffer") == 0 || strcmp(loader, "VipsForeignLoadWebpBuffer") == 0)) {
        return NV_STRICT_LOADER_OPTIONS;
    }
    return NV_LOADER_OPTIONS;
}

/// A copy of `in` (sharing its pixels) with every metadata field removed: EXIF (and GPS within it),
/// XMP, IPTC, ICC, comments, libvips' own notes. The savers' "strip" option is not enough on its own:
/// libvips 8.14's webpsave still writes EXIF and XMP chunks with strip set.
static int nv_without_metadata(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields != NULL && fields[i] != NULL; i++) {
        // Built-in header fields (width, bands...) are not in the metadata table: removing them is
        // a no-op. Everything else goes.
        vips_image_remove(*out, fields[i]);
    }
    g_strfreev(fields);
    return 0;
}

/// Removes EXIF, XMP and ICC chunks from a WebP file in place, clears their flags in the VP8X
/// header and fixes the RIFF size. libvips 8.14's webpsave writes an EXIF chunk (orientation and
/// resolution) even with "strip" set and no metadata on the image. Returns -1 on a malformed file.
static int nv_webp_drop_metadata(unsigned char *data, size_t *length) {
    size_t size = *length;
    if (size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) {
        return -1;
    }
    size_t read = 12;
    size_t write = 12;
    while (read + 8 <= size) {
        size_t chunk = (size_t) data[read + 4] | (size_t) data[read + 5] << 8 |
                       (size_t) data[read + 6] << 16 | (size_t) data[read + 7] << 24;
        size_t total = 8 + chunk + (chunk & 1);
        if (total > size - read) {
            return -1;
        }
        int drop = memcmp(data + read, "EXIF", 4) == 0 || memcmp(data + read, "XMP ", 4) == 0 ||
                   memcmp(data + read, "ICCP", 4) == 0;
        if (!drop) {
            if (memcmp(data + read, "VP8X", 4) == 0 && chunk >= 1) {
                data[read + 8] &= (unsigned char) ~(0x20 | 0x08 | 0x04);  // ICC, EXIF, XMP flags
            }
            memmove(data + write, data + read, total);
            write += total;
        }
        read += total;
    }
    if (read != size) {
        return -1;
    }
    size_t riff = write - 8;
    data[4] = (unsigned char) (riff & 0xFF);
    data[5] = (unsigned char) ((riff >> 8) & 0xFF);
    data[6] = (unsigned char) ((riff >> 16) & 0xFF);
    data[7] = (unsigned char) ((riff >> 24) & 0xFF);
    *length = write;
    return 0;
}

static int nv_save(VipsImage *input, const nv_output_spec *spec, nv_output *out) {
    void *data = NULL;
    size_t length = 0;
    int status;
    VipsImage *image = NULL;

    if (nv_without_metadata(input, &image) != 0) {
        return -1;
    }
    if (spec->format == NV_FORMAT_WEBP) {
        status = vips_webpsave_buffer(image, &data, &length,
            "Q", spec->quality,
            "strip", TRUE,
            NULL);
    } else {
        status = vips_jpegsave_buffer(image, &data, &length,
            "Q", spec->quality,
            "strip", TRUE,
            "optimize_coding", TRUE,
            NULL);
    }
    if (status == 0 && spec->format == NV_FORMAT_WEBP && nv_webp_drop_metadata(data, &length) != 0) {
        vips_error("nestory", "%s", "webpsave made a malformed RIFF file");
        status = -1;
    }
    if (status != 0) {
        g_free(data);
        g_object_unref(image);
        return -1;
    }
    out->data = data;
    out->length = length;
    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

/// Turns the thumbnail into 8-bit sRGB (or 8-bit grey) without alpha, ready for a JPEG encoder.
/// Returns a new reference in `*out`.
static int nv_normalise(VipsImage *in, VipsImage **out) {
    VipsImage *current = in;
    g_object_ref(current);

    if (vips_image_hasalpha(current)) {
        double white = current->BandFmt == VIPS_FORMAT_USHORT ? 65535.0 : 255.0;
        VipsArrayDouble *background = vips_array_double_new(&white, 1);
        VipsImage *flat = NULL;
        int status = vips_flatten(current, &flat,
            "background", background,
            "max_alpha", white,
            NULL);
        vips_area_unref(VIPS_AREA(background));
        g_object_unref(current);
        if (status != 0) {
            return -1;
        }
        current = flat;
    }

    VipsInterpretation target = VIPS_INTERPRETATION_sRGB;
    if (current->Type == VIPS_INTERPRETATION_GREY16 || current->Type == VIPS_INTERPRETATION_B_W) {
        target = VIPS_INTERPRETATION_B_W;
    }
    if (current->Type != target) {
        VipsImage *converted = NULL;
        int status = vips_colourspace(current, &converted, target, NULL);
        g_object_unref(current);
        if (status != 0) {
            return -1;
        }
        current = converted;
    }

    if (current->BandFmt != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        int status = vips_cast_uchar(current, &cast, NULL);
        g_object_unref(current);
        if (status != 0) {
            return -1;
        }
        current = cast;
    }

    *out = current;
    return 0;
}

static void nv_free_outputs(nv_output *outputs, int count) {
    for (int i = 0; i < count; i++) {
        g_free(outputs[i].data);
        outputs[i].data = NULL;
        outputs[i].length = 0;
    }
}

int nv_derive(const void *buf, size_t len, const nv_output_spec *specs, int count,
              int use_embedded_profile, nv_output *outputs, char *err, size_t errlen) {
    if (nv_require_init(err, errlen)) {
        return -1;
    }
    if (specs == NULL || outputs == NULL || count < 1 || count > NV_MAX_OUTPUTS) {
        nv_set_error(err, errlen, "between 1 and NV_MAX_OUTPUTS outputs are needed");
        return -1;
    }
    memset(outputs, 0, sizeof(nv_output) * (size_t) count);
    if (buf == NULL || len == 0) {
        nv_set_error(err, errlen, "empty buffer");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (specs[i].max_size < 1 || specs[i].max_size > VIPS_MAX_COORD ||
            specs[i].quality < 1 || specs[i].quality > 100 ||
            (specs[i].format != NV_FORMAT_JPEG && specs[i].format != NV_FORMAT_WEBP) ||
            (i > 0 && specs[i].max_size > specs[i - 1].max_size)) {
            nv_set_error(err, errlen, "invalid output spec (sizes must be 1... and decreasing, quality 1...100)");
            return -1;
        }
    }

    VipsImage *thumbnail = NULL;
    VipsImage *normalised = NULL;
    VipsImage *source = NULL;
    int box = specs[0].max_size;
    int status;
    const char *loader_options = nv_loader_options(buf, len);

    // Shrink-on-load (JPEG DCT scaling, WebP scaling, HEIF embedded thumbnails), EXIF
    // autorotation, and sRGB conversion, as vipsthumbnail does. With an embedded ICC profile
    // (an iPhone's Display P3, say), "export_profile" makes libvips transform through it.
    if (use_embedded_profile) {
        status = vips_thumbnail_buffer((void *) buf, len, &thumbnail, box,
            "height", box,
            "size", VIPS_SIZE_DOWN,
            "fail_on", VIPS_FAIL_ON_ERROR,
            "option_string", loader_options,
            "export_profile", "srgb",
            NULL);
    } else {
        status = vips_thumbnail_buffer((void *) buf, len, &thumbnail, box,
            "height", box,
            "size", VIPS_SIZE_DOWN,
            "fail_on", VIPS_FAIL_ON_ERROR,
            "option_string", loader_options,
            NULL);
    }
    if (status != 0) {
        goto fail;
    }
    if (nv_normalise(thumbnail, &normalised) != 0) {
        goto fail;
    }

    if (count > 1) {
        // Decode once; the smaller outputs are resized from the largest one in memory.
        source = vips_image_copy_memory(normalised);
        if (source == NULL) {
            goto fail;
        }
    } else {
        source = normalised;
        g_object_ref(source);
    }

    for (int i = 0; i < count; i++) {
        VipsImage *resized = NULL;
        VipsImage *image = source;
        int longest = VIPS_MAX(source->Xsize, source->Ysize);
        if (longest > specs[i].max_size) {
            if (vips_resize(source, &resized, (double) specs[i].max_size / longest, NULL) != 0) {
                goto fail;
            }
            image = resized;
        }
        status = nv_save(image, &specs[i], &outputs[i]);
        if (resized != NULL) {
            g_object_unref(resized);
        }
        if (status != 0) {
            goto fail;
        }
    }

    g_object_unref(source);
    g_object_unref(normalised);
    g_object_unref(thumbnail);
    vips_error_clear();
    return 0;

fail:
    nv_take_error(err, errlen, "libvips failed without a message");
    nv_free_outputs(outputs, count);
    if (source != NULL) {
        g_object_unref(source);
    }
    if (normalised != NULL) {
        g_object_unref(normalised);
    }
    if (thumbnail != NULL) {
        g_object_unref(thumbnail);
    }
    return -1;
}

void nv_free(void *data) {
    if (data == NULL) {
        return;  // also before libvips is loaded
    }
    g_free(data);
}

// MARK: Diagnostics
// Before libvips is loaded nothing is tracked: these report 0 without loading it.

size_t nv_tracked_mem(void) {
    return nv_vips_loaded() ? vips_tracked_get_mem() : 0;
}

size_t nv_tracked_mem_highwater(void) {
    return nv_vips_loaded() ? vips_tracked_get_mem_highwater() : 0;
}

int nv_tracked_allocs(void) {
    return nv_vips_loaded() ? vips_tracked_get_allocs() : 0;
}

static void *nv_count_object(void *object, void *a, void *b) {
    (void) object;
    (void) b;
    (*(int *) a)++;
    return NULL;
}

int nv_live_objects(void) {
    int count = 0;
    if (!nv_vips_loaded()) {
        return 0;
    }
    vips_object_map((VipsSListMap2Fn) nv_count_object, &count, NULL);
    return count;
}
