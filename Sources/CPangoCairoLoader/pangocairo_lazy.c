#include "nestory_pangocairo.h"

#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <pango/pangocairo.h>

#include "nestory_native.h"

// Every cairo, pango and glib function Swift calls. A function used from Swift but missing here is a
// link error (none of these libraries is linked), not an eager load.
#define NP_FUNCTIONS(X) \
    X(cairo_arc) \
    X(cairo_arc_negative) \
    X(cairo_close_path) \
    X(cairo_create) \
    X(cairo_destroy) \
    X(cairo_fill) \
    X(cairo_image_surface_create) \
    X(cairo_image_surface_create_from_png) \
    X(cairo_image_surface_get_height) \
    X(cairo_image_surface_get_width) \
    X(cairo_move_to) \
    X(cairo_new_path) \
    X(cairo_new_sub_path) \
    X(cairo_paint) \
    X(cairo_pdf_surface_create) \
    X(cairo_pdf_surface_create_for_stream) \
    X(cairo_pdf_surface_set_metadata) \
    X(cairo_pdf_surface_set_size) \
    X(cairo_rectangle) \
    X(cairo_restore) \
    X(cairo_save) \
    X(cairo_scale) \
    X(cairo_set_line_width) \
    X(cairo_set_source_rgb) \
    X(cairo_set_source_surface) \
    X(cairo_show_page) \
    X(cairo_status) \
    X(cairo_status_to_string) \
    X(cairo_stroke) \
    X(cairo_surface_destroy) \
    X(cairo_surface_finish) \
    X(cairo_surface_set_mime_data) \
    X(cairo_surface_status) \
    X(cairo_translate) \
    X(g_object_unref) \
    X(pango_cairo_context_set_resolution) \
    X(pango_cairo_create_layout) \
    X(pango_cairo_show_layout) \
    X(pango_font_description_free) \
    X(pango_font_description_from_string) \
    X(pango_layout_context_changed) \
    X(pango_layout_get_context) \
    X(pango_layout_get_size) \
    X(pango_layout_get_unknown_glyphs_count) \
    X(pango_layout_set_alignment) \
    X(pango_layout_set_auto_dir) \
    X(pango_layout_set_ellipsize) \
    X(pango_layout_set_font_description) \
    X(pango_layout_set_height) \
    X(pango_layout_set_text) \
    X(pango_layout_set_width) \
    X(pango_layout_set_wrap) \

#define NP_INDEX(name) np_index_##name,
enum { NP_FUNCTIONS(NP_INDEX) NP_FUNCTION_COUNT };
#define NP_NAME(name) #name,
static const char *const np_symbols[] = { NP_FUNCTIONS(NP_NAME) NULL };
// cairo (libcairo.so.2), pango (libpango-1.0.so.0) and gobject are pangocairo's own dependencies:
// dlsym finds their functions through it, so only this soname is assumed.
static const char *const np_sonames[] = { "libpangocairo-1.0.so.0", "libpangocairo-1.0.so", NULL };
static void *np_slots[NP_FUNCTION_COUNT];

static nn_library np_library = {
    .label = "pango/cairo",
    .sonames = np_sonames,
    .symbols = np_symbols,
    .slots = np_slots,
    .hint = "install libpangocairo-1.0-0 and libcairo2 (Debian) or run scripts/install-deps.sh",
};

int np_pangocairo_load(char *err, size_t errlen) {
    return nn_load(&np_library, err, errlen);
}

int np_pangocairo_loaded(void) {
    return nn_is_loaded(&np_library);
}

#define NP_FORWARD(ret, name, params, args) NN_FORWARD(np_library, np_index_##name, ret, name, params, args)
#define NP_FORWARD_VOID(name, params, args) NN_FORWARD_VOID(np_library, np_index_##name, name, params, args)

// The two ways to start a PDF load pangocairo, and return NULL (cairo's "no surface") when it cannot
// be loaded. Everything else is only called on a surface, context or layout made from them.

NN_DECLARE(cairo_pdf_surface_create);
cairo_surface_t *nn_forward_cairo_pdf_surface_create(const char *filename, double width_in_points, double height_in_points) {
    if (nn_load(&np_library, NULL, 0) != 0) return NULL;
    return NN_REAL(np_library, np_index_cairo_pdf_surface_create, cairo_pdf_surface_create)(filename, width_in_points, height_in_points);
}

NN_DECLARE(cairo_pdf_surface_create_for_stream);
cairo_surface_t *nn_forward_cairo_pdf_surface_create_for_stream(cairo_write_func_t write_func, void *closure,
                                                                double width_in_points, double height_in_points) {
    if (nn_load(&np_library, NULL, 0) != 0) return NULL;
    return NN_REAL(np_library, np_index_cairo_pdf_surface_create_for_stream, cairo_pdf_surface_create_for_stream)(
        write_func, closure, width_in_points, height_in_points);
}

NP_FORWARD_VOID(cairo_arc, (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2), (cr, xc, yc, radius, angle1, angle2))
NP_FORWARD_VOID(cairo_arc_negative, (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2), (cr, xc, yc, radius, angle1, angle2))
NP_FORWARD_VOID(cairo_close_path, (cairo_t *cr), (cr))
NP_FORWARD(cairo_t *, cairo_create, (cairo_surface_t *target), (target))
NP_FORWARD_VOID(cairo_destroy, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_fill, (cairo_t *cr), (cr))
NP_FORWARD(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height), (format, width, height))
NP_FORWARD(cairo_surface_t *, cairo_image_surface_create_from_png, (const char *filename), (filename))
NP_FORWARD(int, cairo_image_surface_get_height, (cairo_surface_t *surface), (surface))
NP_FORWARD(int, cairo_image_surface_get_width, (cairo_surface_t *surface), (surface))
NP_FORWARD_VOID(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
NP_FORWARD_VOID(cairo_new_path, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_new_sub_path, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_paint, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_pdf_surface_set_metadata, (cairo_surface_t *surface, cairo_pdf_metadata_t metadata, const char *utf8), (surface, metadata, utf8))
NP_FORWARD_VOID(cairo_pdf_surface_set_size, (cairo_surface_t *surface, double width_in_points, double height_in_points), (surface, width_in_points, height_in_points))
NP_FORWARD_VOID(cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
NP_FORWARD_VOID(cairo_restore, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_save, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
NP_FORWARD_VOID(cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
NP_FORWARD_VOID(cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
NP_FORWARD_VOID(cairo_set_source_surface, (cairo_t *cr, cairo_surface_t *surface, double x, double y), (cr, surface, x, y))
NP_FORWARD_VOID(cairo_show_page, (cairo_t *cr), (cr))
NP_FORWARD(cairo_status_t, cairo_status, (cairo_t *cr), (cr))
NP_FORWARD(const char *, cairo_status_to_string, (cairo_status_t status), (status))
NP_FORWARD_VOID(cairo_stroke, (cairo_t *cr), (cr))
NP_FORWARD_VOID(cairo_surface_destroy, (cairo_surface_t *surface), (surface))
NP_FORWARD_VOID(cairo_surface_finish, (cairo_surface_t *surface), (surface))
NP_FORWARD(cairo_status_t, cairo_surface_set_mime_data, (cairo_surface_t *surface, const char *mime_type, const unsigned char *data, unsigned long length, cairo_destroy_func_t destroy, void *closure), (surface, mime_type, data, length, destroy, closure))
NP_FORWARD(cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
NP_FORWARD_VOID(cairo_translate, (cairo_t *cr, double tx, double ty), (cr, tx, ty))
NP_FORWARD_VOID(g_object_unref, (gpointer object), (object))
NP_FORWARD_VOID(pango_cairo_context_set_resolution, (PangoContext *context, double dpi), (context, dpi))
NP_FORWARD(PangoLayout *, pango_cairo_create_layout, (cairo_t *cr), (cr))
NP_FORWARD_VOID(pango_cairo_show_layout, (cairo_t *cr, PangoLayout *layout), (cr, layout))
NP_FORWARD_VOID(pango_font_description_free, (PangoFontDescription *desc), (desc))
NP_FORWARD(PangoFontDescription *, pango_font_description_from_string, (const char *str), (str))
NP_FORWARD_VOID(pango_layout_context_changed, (PangoLayout *layout), (layout))
NP_FORWARD(PangoContext *, pango_layout_get_context, (PangoLayout *layout), (layout))
NP_FORWARD_VOID(pango_layout_get_size, (PangoLayout *layout, int *width, int *height), (layout, width, height))
NP_FORWARD(int, pango_layout_get_unknown_glyphs_count, (PangoLayout *layout), (layout))
NP_FORWARD_VOID(pango_layout_set_alignment, (PangoLayout *layout, PangoAlignment alignment), (layout, alignment))
NP_FORWARD_VOID(pango_layout_set_auto_dir, (PangoLayout *layout, gboolean auto_dir), (layout, auto_dir))
NP_FORWARD_VOID(pango_layout_set_ellipsize, (PangoLayout *layout, PangoEllipsizeMode ellipsize), (layout, ellipsize))
NP_FORWARD_VOID(pango_layout_set_font_description, (PangoLayout *layout, const PangoFontDescription *desc), (layout, desc))
NP_FORWARD_VOID(pango_layout_set_height, (PangoLayout *layout, int height), (layout, height))
NP_FORWARD_VOID(pango_layout_set_text, (PangoLayout *layout, const char *text, int length), (layout, text, length))
NP_FORWARD_VOID(pango_layout_set_width, (PangoLayout *layout, int width), (layout, width))
NP_FORWARD_VOID(pango_layout_set_wrap, (PangoLayout *layout, PangoWrapMode wrap), (layout, wrap))
