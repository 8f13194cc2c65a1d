// Tesseract's C API and the leptonica image functions it takes and returns.
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
