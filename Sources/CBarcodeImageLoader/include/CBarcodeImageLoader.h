#ifndef NESTORY_BARCODE_IMAGE_LOADER_H
#define NESTORY_BARCODE_IMAGE_LOADER_H

#include <stddef.h>
#include <stdint.h>

/// Decodes an encoded image (PNG, JPEG, WebP, HEIC, TIFF, GIF...) to one 8-bit grey band, row-major,
/// `*width` bytes per row. Alpha is flattened onto white; 16-bit images are scaled to 8 bits.
/// Returns 0 on success (free `*pixels` with nb_free_pixels), otherwise:
///   1: not an image libvips recognises; 2: recognised but corrupt or undecodable;
///   3: larger than `max_pixels`; 4: libvips could not start.
/// A message is written to `error` (NUL-terminated, at most `error_size` bytes) on failure.
int nb_load_gray(const void *data, size_t length, uint64_t max_pixels,
                 uint8_t **pixels, int *width, int *height,
                 char *error, size_t error_size);

void nb_free_pixels(uint8_t *pixels);

/// The first route nb_load_gray tries for PNGs: the common layouts decoded with libdeflate (png_direct.c).
/// Returns 0 (free `*pixels` with nb_free_pixels), 3 when the header declares more than `max_pixels` (with a
/// message), or -1 when the PNG is left to libpng and libvips (anything unusual or broken).
int nb_decode_png_direct(const void *data, size_t length, uint64_t max_pixels,
                         uint8_t **pixels, int *width, int *height, char *error, size_t error_size);

#endif
