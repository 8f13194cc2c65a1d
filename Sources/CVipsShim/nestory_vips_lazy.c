#define NV_VIPS_NO_REDIRECT
#include "nestory_vips_lazy.h"

#define NV_VIPS_NAME(name) #name,
static const char *const nv_vips_symbols[] = { NV_VIPS_FUNCTIONS(NV_VIPS_NAME) NULL };
#undef NV_VIPS_NAME

static const char *const nv_vips_sonames[] = { "libvips.so.42", "libvips.so", NULL };
static void *nv_vips_slots[NV_VIPS_FUNCTION_COUNT];

nn_library nv_vips_library = {
    .label = "libvips",
    .sonames = nv_vips_sonames,
    .symbols = nv_vips_symbols,
    .slots = nv_vips_slots,
    .hint = "install libvips42 (Debian) or run scripts/install-deps.sh",
};

int nv_vips_load(char *err, size_t errlen) {
    return nn_load(&nv_vips_library, err, errlen);
}

int nv_vips_loaded(void) {
    return nn_is_loaded(&nv_vips_library);
}
