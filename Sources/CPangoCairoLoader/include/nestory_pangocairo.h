// cairo and pango, loaded on the first PDF (see nestory_native.h).
//
// Swift keeps calling cairo's and pango's C API by their own names (module CPangoCairo); those names
// are defined in this target and forward to libpangocairo-1.0.so.0 (cairo, pango and gobject are
// found through its dependencies), dlopened the first time a PDF is made. Nothing here includes
// cairo's or pango's headers.
#ifndef NESTORY_PANGOCAIRO_H
#define NESTORY_PANGOCAIRO_H

#include <stddef.h>

/// Loads pangocairo (with cairo, pango and glib) once; thread-safe. Returns 0, or -1 with a message in
/// `err`. cairo_pdf_surface_create(_for_stream) return NULL when this fails; every other function must
/// only be called on what they returned.
int np_pangocairo_load(char *err, size_t errlen);

/// 1 when pangocairo is loaded in this process, 0 otherwise.
int np_pangocairo_loaded(void);

#endif
