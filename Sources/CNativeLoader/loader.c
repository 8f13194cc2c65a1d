#include "nestory_native.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One lock for every library: loads are rare (once per library per process) and short.
static pthread_mutex_t nn_lock = PTHREAD_MUTEX_INITIALIZER;

static void nn_copy(char *err, size_t errlen, const char *text) {
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", text);
    }
}

/// Called with the lock held, once. Fills the slots and returns 1, or fills `error` and returns -1.
static int nn_open(nn_library *library) {
    void *handle = NULL;
    char tried[256] = "";
    const char *reason = "no file name to try";
    for (const char *const *name = library->sonames; *name != NULL; name++) {
        // RTLD_LOCAL: nothing we load joins the global scope, so it cannot interpose on the
        // executable or on libraries loaded later. RTLD_NOW: a missing symbol fails here, not mid-call.
        handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) {
            break;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%s", used > 0 ? ", " : "", *name);
        const char *message = dlerror();
        reason = message != NULL ? message : "dlopen failed";
        // Only the first failure's text is kept: it names the soname the build expects.
        if (name == library->sonames) {
            snprintf(library->error, sizeof library->error, "%s", reason);
        }
    }
    if (handle == NULL) {
        char first[256];
        snprintf(first, sizeof first, "%s", library->error);
        snprintf(library->error, sizeof library->error, "%s could not be loaded (tried %s: %s)%s%s",
                 library->label, tried, first, library->hint != NULL ? "; " : "",
                 library->hint != NULL ? library->hint : "");
        return -1;
    }
    for (int i = 0; library->symbols[i] != NULL; i++) {
        dlerror();
        void *symbol = dlsym(handle, library->symbols[i]);
        if (symbol == NULL) {
            const char *message = dlerror();
            snprintf(library->error, sizeof library->error, "%s has no function %s (%s): a different version than Nestory was built with",
                     library->label, library->symbols[i], message != NULL ? message : "not found");
            // The handle stays open: unloading libraries with their own threads and constructors is
            // not always safe, and this process will not use it.
            return -1;
        }
        library->slots[i] = symbol;
    }
    return 1;
}

int nn_load(nn_library *library, char *err, size_t errlen) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&nn_lock);
        state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
        if (state == 0) {
            state = nn_open(library);
            // Release: whoever reads state 1 also sees every slot filled.
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&nn_lock);
    }
    if (state < 0) {
        nn_copy(err, errlen, library->error);
        return -1;
    }
    return 0;
}

void *nn_require(nn_library *library, int index) {
    if (__atomic_load_n(&library->state, __ATOMIC_ACQUIRE) != 1) {
        char message[512];
        if (nn_load(library, message, sizeof message) != 0) {
            fprintf(stderr, "nestory: %s\n", message);
            abort();
        }
    }
    return library->slots[index];
}

int nn_is_loaded(const nn_library *library) {
    return __atomic_load_n(&library->state, __ATOMIC_ACQUIRE) == 1 ? 1 : 0;
}
