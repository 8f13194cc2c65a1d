// tesseract and leptonica, loaded on first use (see nestory_native.h).
//
// Swift keeps calling tesseract's C API and leptonica by their own names (module CTesseract); those
// names are defined in this target and forward to libtesseract.so.5, which is dlopened the first time
// one of them is needed. Nothing here includes tesseract's headers.
#ifndef NESTORY_TESSERACT_H
#define NESTORY_TESSERACT_H

#include <stddef.h>

/// Loads tesseract (and leptonica, its dependency) once; thread-safe. Returns 0, or -1 with a message
/// in `err`. TessBaseAPICreate, pixReadMem and pixReadHeaderMem fail softly (NULL, 1) when this fails;
/// every other function must only be called on what those returned.
int nt_tesseract_load(char *err, size_t errlen);

/// 1 when tesseract is loaded in this process, 0 otherwise.
int nt_tesseract_loaded(void);

#endif
