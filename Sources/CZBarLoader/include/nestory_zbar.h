// zbar, loaded on the first barcode scan (see nestory_native.h).
//
// Swift keeps calling zbar's C API by its own names (module CZBar); those names are defined in this
// target and forward to libzbar.so.0, dlopened the first time a scanner is made. Nothing here
// includes zbar's header.
#ifndef NESTORY_ZBAR_H
#define NESTORY_ZBAR_H

#include <stddef.h>

/// Loads zbar once; thread-safe. Returns 0, or -1 with a message in `err`. zbar_image_scanner_create
/// and zbar_image_create return NULL when this fails; every other function must only be called on
/// what they returned.
int nz_zbar_load(char *err, size_t errlen);

/// 1 when zbar is loaded in this process, 0 otherwise.
int nz_zbar_loaded(void);

#endif
