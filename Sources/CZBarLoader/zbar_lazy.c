#include "nestory_zbar.h"

#include <zbar.h>

#include "nestory_native.h"

// Every zbar function Swift calls. A function used from Swift but missing here is a link error (zbar
// is not linked), not an eager load.
#define NZ_FUNCTIONS(X) \
    X(zbar_image_create) X(zbar_image_destroy) X(zbar_image_first_symbol) X(zbar_image_scanner_create) \
    X(zbar_image_scanner_destroy) X(zbar_image_scanner_set_config) X(zbar_image_set_data) \
    X(zbar_image_set_format) X(zbar_image_set_size) X(zbar_scan_image) X(zbar_symbol_get_data) \
    X(zbar_symbol_get_data_length) X(zbar_symbol_get_loc_size) X(zbar_symbol_get_loc_x) \
    X(zbar_symbol_get_loc_y) X(zbar_symbol_get_quality) X(zbar_symbol_get_type) X(zbar_symbol_next) \
    X(zbar_symbol_get_orientation)

#define NZ_INDEX(name) nz_index_##name,
enum { NZ_FUNCTIONS(NZ_INDEX) NZ_FUNCTION_COUNT };
#define NZ_NAME(name) #name,
static const char *const nz_symbols[] = { NZ_FUNCTIONS(NZ_NAME) NULL };
static const char *const nz_sonames[] = { "libzbar.so.0", "libzbar.so", NULL };
static void *nz_slots[NZ_FUNCTION_COUNT];

static nn_library nz_library = {
    .label = "zbar",
    .sonames = nz_sonames,
    .symbols = nz_symbols,
    .slots = nz_slots,
    .hint = "install libzbar0 (Debian) or run scripts/install-deps.sh",
};

int nz_zbar_load(char *err, size_t errlen) {
    return nn_load(&nz_library, err, errlen);
}

int nz_zbar_loaded(void) {
    return nn_is_loaded(&nz_library);
}

#define NZ_FORWARD(ret, name, params, args) NN_FORWARD(nz_library, nz_index_##name, ret, name, params, args)
#define NZ_FORWARD_VOID(name, params, args) NN_FORWARD_VOID(nz_library, nz_index_##name, name, params, args)

// The constructors load zbar, and return NULL (as on failure) when it cannot be loaded.

NN_DECLARE(zbar_image_scanner_create);
zbar_image_scanner_t *nn_forward_zbar_image_scanner_create(void) {
    if (nn_load(&nz_library, NULL, 0) != 0) return NULL;
    return NN_REAL(nz_library, nz_index_zbar_image_scanner_create, zbar_image_scanner_create)();
}

NN_DECLARE(zbar_image_create);
zbar_image_t *nn_forward_zbar_image_create(void) {
    if (nn_load(&nz_library, NULL, 0) != 0) return NULL;
    return NN_REAL(nz_library, nz_index_zbar_image_create, zbar_image_create)();
}

// Everything else is only called on a scanner, image or symbol made from them.

NZ_FORWARD_VOID(zbar_image_destroy, (zbar_image_t *image), (image))
NZ_FORWARD(const zbar_symbol_t *, zbar_image_first_symbol, (const zbar_image_t *image), (image))
NZ_FORWARD_VOID(zbar_image_scanner_destroy, (zbar_image_scanner_t *scanner), (scanner))
NZ_FORWARD(int, zbar_image_scanner_set_config,
           (zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value),
           (scanner, symbology, config, value))
NZ_FORWARD_VOID(zbar_image_set_data,
                (zbar_image_t *image, const void *data, unsigned long data_byte_length, zbar_image_cleanup_handler_t *cleanup_hndlr),
                (image, data, data_byte_length, cleanup_hndlr))
NZ_FORWARD_VOID(zbar_image_set_format, (zbar_image_t *image, unsigned long format), (image, format))
NZ_FORWARD_VOID(zbar_image_set_size, (zbar_image_t *image, unsigned width, unsigned height), (image, width, height))
NZ_FORWARD(int, zbar_scan_image, (zbar_image_scanner_t *scanner, zbar_image_t *image), (scanner, image))
NZ_FORWARD(const char *, zbar_symbol_get_data, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(unsigned int, zbar_symbol_get_data_length, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(unsigned, zbar_symbol_get_loc_size, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(int, zbar_symbol_get_loc_x, (const zbar_symbol_t *symbol, unsigned index), (symbol, index))
NZ_FORWARD(int, zbar_symbol_get_loc_y, (const zbar_symbol_t *symbol, unsigned index), (symbol, index))
NZ_FORWARD(int, zbar_symbol_get_quality, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(zbar_symbol_type_t, zbar_symbol_get_type, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(const zbar_symbol_t *, zbar_symbol_next, (const zbar_symbol_t *symbol), (symbol))
NZ_FORWARD(zbar_orientation_t, zbar_symbol_get_orientation, (const zbar_symbol_t *symbol), (symbol))
