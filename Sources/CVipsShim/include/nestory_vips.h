// Plain-C entry points over libvips for Nestory's imaging module.
//
// libvips' API is C varargs ending in NULL and VIPS_INIT is a macro: Swift can call neither. Every
// function here has a fixed signature, checks every libvips return code, copies the libvips error
// message into the caller's `err` buffer (and clears libvips' error buffer), and releases every
// libvips object it made before returning. Buffers handed out in `nv_output.data` belong to the
// caller, who frees them with `nv_free`.
//
// This header deliberately includes no glib or libvips header, so Swift never parses them.
#ifndef NESTORY_VIPS_H
#define NESTORY_VIPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most outputs one `nv_derive` call can produce.
#define NV_MAX_OUTPUTS 4

/// Encoders for derived images.
typedef enum nv_format {
    NV_FORMAT_JPEG = 0,
    NV_FORMAT_WEBP = 1,
} nv_format;

/// What libvips read from an image's header (no pixel is decoded).
typedef struct nv_header {
    int width;
    int height;
    /// EXIF orientation, 1...8 (1 when absent).
    int orientation;
    int bands;
    int has_alpha;
    int has_icc_profile;
    int n_pages;
    /// libvips' loader nickname, e.g. "jpegload_buffer".
    char loader[48];
    /// For HEIF files: "hevc" or "av1" (libvips' `heif-compression`); empty otherwise.
    char heif_compression[16];
} nv_header;

/// One derived image to make: fit inside `max_size` x `max_size` (never enlarged).
typedef struct nv_output_spec {
    int max_size;
    int quality;
    nv_format format;
} nv_output_spec;

/// One derived image made. `data` is owned by the caller: release it with `nv_free`.
typedef struct nv_output {
    void *data;
    size_t length;
    int width;
    int height;
} nv_output;

/// Starts libvips once per process (thread-safe; later calls only apply `concurrency`).
/// Disables libvips' operation cache (every upload is new, and a cache keyed on buffer addresses
/// could hand back a previous upload's image) and blocks every image loader except JPEG, PNG,
/// HEIF and WebP, as well as loaders libvips itself marks untrusted.
/// `concurrency` <= 0 keeps libvips' default (the number of cores).
int nv_init(int concurrency, char *err, size_t errlen);

/// Reads the header of the image in `buf` (no pixel decoded). Returns 0, or -1 with `err` filled.
int nv_probe(const void *buf, size_t len, nv_header *out, char *err, size_t errlen);

/// Makes `count` derived images from the image in `buf`, largest first (`specs` must be ordered by
/// decreasing `max_size`). The image is decoded once with shrink-on-load to the largest size,
/// rotated upright by its EXIF orientation, converted to sRGB (through its ICC profile when
/// `use_embedded_profile` is non-zero and it has one), flattened on white if it has alpha, and every
/// output is saved with all metadata stripped (EXIF, GPS, XMP, IPTC, ICC).
/// Returns 0 with `outputs[0..<count]` filled, or -1 with `err` filled and nothing to free.
int nv_derive(const void *buf, size_t len, const nv_output_spec *specs, int count,
              int use_embedded_profile, nv_output *outputs, char *err, size_t errlen);

/// Releases a buffer handed out in `nv_output.data`.
void nv_free(void *data);

/// How serious a message libvips logs is: glib's levels, most serious first.
typedef enum nv_log_level {
    NV_LOG_ERROR = 0,
    NV_LOG_CRITICAL = 1,
    NV_LOG_WARNING = 2,
    NV_LOG_MESSAGE = 3,
} nv_log_level;

/// Receives one message libvips logged; `message` is valid only during the call. Called on whichever
/// thread libvips logged from, possibly several at once.
typedef void (*nv_log_sink)(nv_log_level level, const char *message);

/// Where libvips' own messages of the levels above (its "VIPS" log domain, e.g. "error in tile 0 x 88"
/// before a damaged picture's load fails with its own error) go, whichever of Nestory's callers loads
/// libvips: to `sink`, or with NULL (the default) nowhere, except errors and criticals, which keep glib's
/// default handler (standard error). Info and debug messages stay glib's (shown only when
/// G_MESSAGES_DEBUG asks). Without this, glib writes each warning to standard error as a line of its
/// own, outside the server's logs. Setting it does not load libvips.
void nv_set_log_sink(nv_log_sink sink);

/// Diagnostics (tests and benchmarks): bytes and allocations libvips currently tracks, its
/// high-water mark, and the number of live libvips objects.
size_t nv_tracked_mem(void);
size_t nv_tracked_mem_highwater(void);
int nv_tracked_allocs(void);
int nv_live_objects(void);

#ifdef __cplusplus
}
#endif

#endif
