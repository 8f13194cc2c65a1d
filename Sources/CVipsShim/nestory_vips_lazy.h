// libvips (and the glib functions that come with it) resolved on first use: see nestory_native.h.
//
// Include this after <vips/vips.h> in a file of ours that calls libvips. Every libvips or glib
// function such a file calls (directly, or through a libvips or glib macro such as VIPS_INIT,
// g_warning or VIPS_IMAGE_ADDR) must be in NV_VIPS_FUNCTIONS: the macros below turn each call into a
// call through the pointer resolved from libvips.so.42, with the header's own prototype (varargs
// included). A function missing from the list is a link error (libvips is not linked), never a
// silent eager load. Call nv_vips_load first; the calls below assume it succeeded.
#ifndef NESTORY_VIPS_LAZY_H
#define NESTORY_VIPS_LAZY_H

#include <stddef.h>
#include <vips/vips.h>
#include "nestory_native.h"

// The soname we dlopen must be the ABI these headers describe (VIPS_INIT checks the same at run time).
_Static_assert(VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE == 42, "libvips headers are not libvips.so.42: update NV_VIPS_SONAMES");

#define NV_VIPS_FUNCTIONS(X) \
    X(g_free) \
    X(g_log) \
    X(g_log_default_handler) \
    X(g_log_set_handler) \
    X(g_object_ref) \
    X(g_object_unref) \
    X(g_strfreev) \
    X(g_strlcpy) \
    X(g_try_malloc) \
    X(vips_area_unref) \
    X(vips_array_double_new) \
    X(vips_array_double_newv) \
    X(vips_block_untrusted_set) \
    X(vips_cache_set_max) \
    X(vips_cache_set_max_files) \
    X(vips_cache_set_max_mem) \
    X(vips_cast_uchar) \
    X(vips_colourspace) \
    X(vips_concurrency_set) \
    X(vips_copy) \
    X(vips_error) \
    X(vips_error_buffer) \
    X(vips_error_buffer_copy) \
    X(vips_error_clear) \
    X(vips_extract_band) \
    X(vips_flatten) \
    X(vips_foreign_find_load_buffer) \
    X(vips_format_sizeof_unsafe) \
    X(vips_image_copy_memory) \
    X(vips_image_get_bands) \
    X(vips_image_get_fields) \
    X(vips_image_get_format) \
    X(vips_image_get_height) \
    X(vips_image_get_interpretation) \
    X(vips_image_get_n_pages) \
    X(vips_image_get_orientation) \
    X(vips_image_get_string) \
    X(vips_image_get_typeof) \
    X(vips_image_get_width) \
    X(vips_image_hasalpha) \
    X(vips_image_new_from_buffer) \
    X(vips_image_remove) \
    X(vips_image_wio_input) \
    X(vips_image_write_to_memory) \
    X(vips_init) \
    X(vips_jpegsave_buffer) \
    X(vips_object_map) \
    X(vips_operation_block_set) \
    X(vips_resize) \
    X(vips_rshift_const1) \
    X(vips_thumbnail_buffer) \
    X(vips_tracked_get_allocs) \
    X(vips_tracked_get_mem) \
    X(vips_tracked_get_mem_highwater) \
    X(vips_version) \
    X(vips_webpsave_buffer) \

#define NV_VIPS_INDEX(name) nv_vips_index_##name,
enum { NV_VIPS_FUNCTIONS(NV_VIPS_INDEX) NV_VIPS_FUNCTION_COUNT };
#undef NV_VIPS_INDEX

__attribute__((visibility("hidden"))) extern nn_library nv_vips_library;

/// Loads libvips once (thread-safe). Returns 0, or -1 with a message in `err`.
__attribute__((visibility("hidden"))) int nv_vips_load(char *err, size_t errlen);

/// Whether libvips is loaded (so a call through the pointers is valid).
__attribute__((visibility("hidden"))) int nv_vips_loaded(void);

#define NV_VIPS(name) ((__typeof__(&name)) nn_require(&nv_vips_library, nv_vips_index_##name))

#ifndef NV_VIPS_NO_REDIRECT
// A macro never expands inside its own expansion, so `name` in NV_VIPS(name) is the real declaration.
#undef g_free
#define g_free NV_VIPS(g_free)
#undef g_log
#define g_log NV_VIPS(g_log)
#undef g_object_ref
#define g_object_ref NV_VIPS(g_object_ref)
#undef g_object_unref
#define g_object_unref NV_VIPS(g_object_unref)
#undef g_strfreev
#define g_strfreev NV_VIPS(g_strfreev)
#undef g_strlcpy
#define g_strlcpy NV_VIPS(g_strlcpy)
#undef g_try_malloc
#define g_try_malloc NV_VIPS(g_try_malloc)
#undef vips_area_unref
#define vips_area_unref NV_VIPS(vips_area_unref)
#undef vips_array_double_new
#define vips_array_double_new NV_VIPS(vips_array_double_new)
#undef vips_array_double_newv
#define vips_array_double_newv NV_VIPS(vips_array_double_newv)
#undef vips_block_untrusted_set
#define vips_block_untrusted_set NV_VIPS(vips_block_untrusted_set)
#undef vips_cache_set_max
#define vips_cache_set_max NV_VIPS(vips_cache_set_max)
#undef vips_cache_set_max_files
#define vips_cache_set_max_files NV_VIPS(vips_cache_set_max_files)
#undef vips_cache_set_max_mem
#define vips_cache_set_max_mem NV_VIPS(vips_cache_set_max_mem)
#undef vips_cast_uchar
#define vips_cast_uchar NV_VIPS(vips_cast_uchar)
#undef vips_colourspace
#define vips_colourspace NV_VIPS(vips_colourspace)
#undef vips_concurrency_set
#define vips_concurrency_set NV_VIPS(vips_concurrency_set)
#undef vips_copy
#define vips_copy NV_VIPS(vips_copy)
#undef vips_error
#define vips_error NV_VIPS(vips_error)
#undef vips_error_buffer
#define vips_error_buffer NV_VIPS(vips_error_buffer)
#undef vips_error_buffer_copy
#define vips_error_buffer_copy NV_VIPS(vips_error_buffer_copy)
#undef vips_error_clear
#define vips_error_clear NV_VIPS(vips_error_clear)
#undef vips_extract_band
#define vips_extract_band NV_VIPS(vips_extract_band)
#undef vips_flatten
#define vips_flatten NV_VIPS(vips_flatten)
#undef vips_foreign_find_load_buffer
#define vips_foreign_find_load_buffer NV_VIPS(vips_foreign_find_load_buffer)
#undef vips_format_sizeof_unsafe
#define vips_format_sizeof_unsafe NV_VIPS(vips_format_sizeof_unsafe)
#undef vips_image_copy_memory
#define vips_image_copy_memory NV_VIPS(vips_image_copy_memory)
#undef vips_image_get_bands
#define vips_image_get_bands NV_VIPS(vips_image_get_bands)
#undef vips_image_get_fields
#define vips_image_get_fields NV_VIPS(vips_image_get_fields)
#undef vips_image_get_format
#define vips_image_get_format NV_VIPS(vips_image_get_format)
#undef vips_image_get_height
#define vips_image_get_height NV_VIPS(vips_image_get_height)
#undef vips_image_get_interpretation
#define vips_image_get_interpretation NV_VIPS(vips_image_get_interpretation)
#undef vips_image_get_n_pages
#define vips_image_get_n_pages NV_VIPS(vips_image_get_n_pages)
#undef vips_image_get_orientation
#define vips_image_get_orientation NV_VIPS(vips_image_get_orientation)
#undef vips_image_get_string
#define vips_image_get_string NV_VIPS(vips_image_get_string)
#undef vips_image_get_typeof
#define vips_image_get_typeof NV_VIPS(vips_image_get_typeof)
#undef vips_image_get_width
#define vips_image_get_width NV_VIPS(vips_image_get_width)
#undef vips_image_hasalpha
#define vips_image_hasalpha NV_VIPS(vips_image_hasalpha)
#undef vips_image_new_from_buffer
#define vips_image_new_from_buffer NV_VIPS(vips_image_new_from_buffer)
#undef vips_image_remove
#define vips_image_remove NV_VIPS(vips_image_remove)
#undef vips_image_wio_input
#define vips_image_wio_input NV_VIPS(vips_image_wio_input)
#undef vips_image_write_to_memory
#define vips_image_write_to_memory NV_VIPS(vips_image_write_to_memory)
#undef vips_init
#define vips_init NV_VIPS(vips_init)
#undef vips_jpegsave_buffer
#define vips_jpegsave_buffer NV_VIPS(vips_jpegsave_buffer)
#undef vips_object_map
#define vips_object_map NV_VIPS(vips_object_map)
#undef vips_operation_block_set
#define vips_operation_block_set NV_VIPS(vips_operation_block_set)
#undef vips_resize
#define vips_resize NV_VIPS(vips_resize)
#undef vips_rshift_const1
#define vips_rshift_const1 NV_VIPS(vips_rshift_const1)
#undef vips_thumbnail_buffer
#define vips_thumbnail_buffer NV_VIPS(vips_thumbnail_buffer)
#undef vips_tracked_get_allocs
#define vips_tracked_get_allocs NV_VIPS(vips_tracked_get_allocs)
#undef vips_tracked_get_mem
#define vips_tracked_get_mem NV_VIPS(vips_tracked_get_mem)
#undef vips_tracked_get_mem_highwater
#define vips_tracked_get_mem_highwater NV_VIPS(vips_tracked_get_mem_highwater)
#undef vips_version
#define vips_version NV_VIPS(vips_version)
#undef vips_webpsave_buffer
#define vips_webpsave_buffer NV_VIPS(vips_webpsave_buffer)
#endif

#endif
