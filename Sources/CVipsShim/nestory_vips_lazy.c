#include <pthread.h>
#include <stdatomic.h>

#include "nestory_vips.h"

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

// MARK: libvips' messages

static _Atomic(nv_log_sink) nv_sink = NULL;

void nv_set_log_sink(nv_log_sink sink) {
    atomic_store(&nv_sink, sink);
}

static nv_log_level nv_level(GLogLevelFlags flags) {
    if (flags & G_LOG_LEVEL_ERROR) return NV_LOG_ERROR;
    if (flags & G_LOG_LEVEL_CRITICAL) return NV_LOG_CRITICAL;
    if (flags & G_LOG_LEVEL_WARNING) return NV_LOG_WARNING;
    return NV_LOG_MESSAGE;
}

static void nv_vips_log(const gchar *domain, GLogLevelFlags flags, const gchar *message, gpointer data) {
    nv_log_level level = nv_level(flags);
    nv_log_sink sink = atomic_load(&nv_sink);
    if (sink != NULL) {
        sink(level, message != NULL ? message : "");
    } else if (level <= NV_LOG_CRITICAL) {
        NV_VIPS(g_log_default_handler)(domain, flags, message, data);
    }
}

static pthread_once_t nv_log_once = PTHREAD_ONCE_INIT;

// Info and debug messages (libvips reports each colour conversion at info) stay with glib's default handler,
// which shows them only when G_MESSAGES_DEBUG asks.
static void nv_route_log(void) {
    GLogLevelFlags levels = G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE;
    NV_VIPS(g_log_set_handler)("VIPS", levels | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, nv_vips_log, NULL);
}

int nv_vips_load(char *err, size_t errlen) {
    if (nn_load(&nv_vips_library, err, errlen) != 0) return -1;
    // Before anything calls libvips, so its first message already goes where nv_set_log_sink says.
    pthread_once(&nv_log_once, nv_route_log);
    return 0;
}

int nv_vips_loaded(void) {
    return nn_is_loaded(&nv_vips_library);
}
