// Shared by loader.c and png_direct.c (not part of the module's interface).
#ifndef NESTORY_BARCODE_LOADER_INTERNAL_H
#define NESTORY_BARCODE_LOADER_INTERNAL_H

#include <stdint.h>

/// Starts libvips (and with it glib, whose allocator the pixels use) once; 0 when it runs (loader.c).
int nb_started(void);

/// Grey from 8-bit RGB: luma weights 0.299 / 0.587 / 0.114 in 1/1024ths. Every route to grey uses it, so a
/// picture is the same grey whichever library decoded it.
static inline uint8_t nb_grey(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)((r * 306u + g * 601u + b * 117u + 512u) >> 10);
}

/// A grey of alpha `a` put on white paper (transparent areas become white, not black).
static inline uint8_t nb_on_white(unsigned grey, unsigned a) {
    return (uint8_t)((grey * a + 255 * (255 - a) + 127) / 255);
}

#endif
