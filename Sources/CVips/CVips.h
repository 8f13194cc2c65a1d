// libvips, found through pkg-config (`vips`). Only the C shim (CVipsShim) includes it:
// libvips' API is varargs ending in NULL, which Swift cannot call.
#include <vips/vips.h>
