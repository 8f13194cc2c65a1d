// Loading a native library on first use instead of at process start.
//
// The server links libvips, tesseract, pango/cairo and zbar, but needs none of them until the first
// photo, receipt, PDF report or barcode. Linked normally, the dynamic loader maps and relocates each
// of them and their ~150 dependencies before main(). Instead, our C targets resolve the functions they
// use through dlopen + dlsym the first time one is needed (`nn_load`), and the executable does not
// list these libraries as needed at all.
//
// This header has no dependency on any of those libraries (Swift never parses theirs through it).
#ifndef NESTORY_NATIVE_H
#define NESTORY_NATIVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One library loaded on first use. Define it statically (every field but `state` and `error` set),
/// and never copy it.
typedef struct nn_library {
    /// What the library is called in messages, e.g. "libvips".
    const char *label;
    /// File names tried in order with dlopen (NULL-terminated): the soname the headers were built
    /// against first, then the development link name.
    const char *const *sonames;
    /// The functions to resolve (NULL-terminated). They may live in the library's own dependencies
    /// (glib for libvips, leptonica for tesseract, cairo for pangocairo): dlsym searches those too.
    const char *const *symbols;
    /// One slot per symbol, filled on a successful load.
    void **slots;
    /// What to install when the library is missing, e.g. "apt-get install libvips42".
    const char *hint;
    /// 0 not tried, 1 loaded, -1 failed (accessed atomically).
    int state;
    char error[512];
} nn_library;

/// Loads `library` and resolves all its symbols, once per process (thread-safe); later calls return
/// the first call's result. Returns 0, or -1 with a message in `err` (the file tried, dlerror's text,
/// and what to install).
int nn_load(nn_library *library, char *err, size_t errlen);

/// For calls that are only valid after a successful `nn_load` (every function past an engine's
/// creation): loads if needed, and when the library cannot be loaded prints why on stderr and
/// aborts. Returns the resolved symbol at `index`.
void *nn_require(nn_library *library, int index);

/// Whether `library` has been loaded in this process (1) or not (0).
int nn_is_loaded(const nn_library *library);

// MARK: Forwarding functions called from Swift
//
// Swift calls a library's functions by their own names (through the library's headers). A C file of
// ours that includes the same headers defines each of them with NN_FORWARD: a function with the
// library's symbol name but hidden visibility (so it is resolved inside the executable at link time,
// is never exported, and never interposes on the real library once that is loaded), whose body calls
// the resolved pointer. The declaration takes the header's own prototype (__typeof__), so a `ret` or
// `params` that does not match it is a compile error.

#define NN_FORWARD(library, index, ret, name, params, args) \
    __typeof__(name) nn_forward_##name __asm__(#name) __attribute__((visibility("hidden"))); \
    ret nn_forward_##name params { return ((__typeof__(&name)) nn_require(&(library), (index))) args; }

#define NN_FORWARD_VOID(library, index, name, params, args) \
    __typeof__(name) nn_forward_##name __asm__(#name) __attribute__((visibility("hidden"))); \
    void nn_forward_##name params { ((__typeof__(&name)) nn_require(&(library), (index))) args; }

/// Declares a hidden definition of `name` with the header's prototype, to be written by hand (entry
/// points that must fail softly when the library is missing instead of aborting).
#define NN_DECLARE(name) \
    __typeof__(name) nn_forward_##name __asm__(#name) __attribute__((visibility("hidden")))

/// The resolved pointer to `name`, typed with the header's prototype.
#define NN_REAL(library, index, name) ((__typeof__(&name)) nn_require(&(library), (index)))

#ifdef __cplusplus
}
#endif

#endif
