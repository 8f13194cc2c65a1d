#include "nestory_tesseract.h"

#include <tesseract/capi.h>
#include <tesseract/version.h>
#include <leptonica/allheaders.h>

#include "nestory_native.h"

// The soname dlopened below must be the major version these headers describe.
_Static_assert(TESSERACT_MAJOR_VERSION == 5, "tesseract headers are not libtesseract.so.5: update nt_sonames");

// Every tesseract and leptonica function Swift calls. A function used from Swift but missing here is
// a link error (tesseract is not linked), not an eager load.
#define NT_FUNCTIONS(X) \
    X(TessBaseAPICreate) X(TessBaseAPIClear) X(TessBaseAPIDelete) X(TessBaseAPIEnd) \
    X(TessBaseAPIGetIterator) X(TessBaseAPIInit3) X(TessBaseAPIRecognize) X(TessBaseAPISetImage2) \
    X(TessBaseAPISetPageSegMode) X(TessBaseAPISetSourceResolution) X(TessBaseAPISetVariable) X(TessBaseAPISetRectangle) \
    X(TessDeleteText) X(TessPageIteratorBoundingBox) X(TessPageIteratorIsAtBeginningOf) \
    X(TessResultIteratorConfidence) X(TessResultIteratorDelete) X(TessResultIteratorGetPageIterator) \
    X(TessResultIteratorGetUTF8Text) X(TessResultIteratorNext) \
    X(TessMonitorCreate) X(TessMonitorDelete) X(TessMonitorSetDeadlineMSecs) \
    X(pixReadHeaderMem) X(pixReadMem) X(pixGetWidth) X(pixGetHeight) X(pixGetDepth) X(pixDestroy) \
    X(pixConvertRGBToGrayMinMax) X(pixConvertTo8) X(pixScale) X(pixDeskew) X(pixOtsuAdaptiveThreshold) \
    X(pixBackgroundNormSimple) X(pixUnsharpMaskingGray) X(setMsgSeverity)

#define NT_INDEX(name) nt_index_##name,
enum { NT_FUNCTIONS(NT_INDEX) NT_FUNCTION_COUNT };
#define NT_NAME(name) #name,
static const char *const nt_symbols[] = { NT_FUNCTIONS(NT_NAME) NULL };
// leptonica's functions are found through libtesseract's own dependency on it (dlsym searches it),
// so leptonica's soname (liblept.so.5 on Debian 12, libleptonica.so.6 later) is not assumed here.
static const char *const nt_sonames[] = { "libtesseract.so.5", "libtesseract.so", NULL };
static void *nt_slots[NT_FUNCTION_COUNT];

static nn_library nt_library = {
    .label = "tesseract",
    .sonames = nt_sonames,
    .symbols = nt_symbols,
    .slots = nt_slots,
    .hint = "install libtesseract5 and tesseract-ocr-eng (Debian) or run scripts/install-deps.sh",
};

int nt_tesseract_load(char *err, size_t errlen) {
    return nn_load(&nt_library, err, errlen);
}

int nt_tesseract_loaded(void) {
    return nn_is_loaded(&nt_library);
}

#define NT_FORWARD(ret, name, params, args) NN_FORWARD(nt_library, nt_index_##name, ret, name, params, args)
#define NT_FORWARD_VOID(name, params, args) NN_FORWARD_VOID(nt_library, nt_index_##name, name, params, args)

// Entry points: these load tesseract, and fail the way the real functions do when it cannot be loaded.

NN_DECLARE(TessBaseAPICreate);
TessBaseAPI *nn_forward_TessBaseAPICreate(void) {
    if (nn_load(&nt_library, NULL, 0) != 0) return NULL;
    return NN_REAL(nt_library, nt_index_TessBaseAPICreate, TessBaseAPICreate)();
}

NN_DECLARE(pixReadMem);
PIX *nn_forward_pixReadMem(const l_uint8 *data, size_t size) {
    if (nn_load(&nt_library, NULL, 0) != 0) return NULL;
    return NN_REAL(nt_library, nt_index_pixReadMem, pixReadMem)(data, size);
}

NN_DECLARE(pixReadHeaderMem);
l_ok nn_forward_pixReadHeaderMem(const l_uint8 *data, size_t size, l_int32 *pformat, l_int32 *pw, l_int32 *ph,
                                 l_int32 *pbps, l_int32 *pspp, l_int32 *piscmap) {
    if (nn_load(&nt_library, NULL, 0) != 0) return 1;
    return NN_REAL(nt_library, nt_index_pixReadHeaderMem, pixReadHeaderMem)(data, size, pformat, pw, ph, pbps, pspp, piscmap);
}

NN_DECLARE(setMsgSeverity);
l_int32 nn_forward_setMsgSeverity(l_int32 newsev) {
    if (nn_load(&nt_library, NULL, 0) != 0) return newsev;  // nothing to silence
    return NN_REAL(nt_library, nt_index_setMsgSeverity, setMsgSeverity)(newsev);
}

// Everything else is only called on an engine or image made above, so tesseract is loaded.

NT_FORWARD_VOID(TessBaseAPIClear, (TessBaseAPI *handle), (handle))
NT_FORWARD(ETEXT_DESC *, TessMonitorCreate, (void), ())
NT_FORWARD_VOID(TessMonitorDelete, (ETEXT_DESC *monitor), (monitor))
NT_FORWARD_VOID(TessMonitorSetDeadlineMSecs, (ETEXT_DESC *monitor, int deadline), (monitor, deadline))
NT_FORWARD_VOID(TessBaseAPIDelete, (TessBaseAPI *handle), (handle))
NT_FORWARD_VOID(TessBaseAPIEnd, (TessBaseAPI *handle), (handle))
NT_FORWARD(TessResultIterator *, TessBaseAPIGetIterator, (TessBaseAPI *handle), (handle))
NT_FORWARD(int, TessBaseAPIInit3, (TessBaseAPI *handle, const char *datapath, const char *language), (handle, datapath, language))
NT_FORWARD(int, TessBaseAPIRecognize, (TessBaseAPI *handle, ETEXT_DESC *monitor), (handle, monitor))
NT_FORWARD_VOID(TessBaseAPISetImage2, (TessBaseAPI *handle, struct Pix *pix), (handle, pix))
NT_FORWARD_VOID(TessBaseAPISetPageSegMode, (TessBaseAPI *handle, TessPageSegMode mode), (handle, mode))
NT_FORWARD_VOID(TessBaseAPISetSourceResolution, (TessBaseAPI *handle, int ppi), (handle, ppi))
NT_FORWARD_VOID(TessBaseAPISetRectangle, (TessBaseAPI *handle, int left, int top, int width, int height), (handle, left, top, width, height))
NT_FORWARD(BOOL, TessBaseAPISetVariable, (TessBaseAPI *handle, const char *name, const char *value), (handle, name, value))
NT_FORWARD_VOID(TessDeleteText, (const char *text), (text))
NT_FORWARD(BOOL, TessPageIteratorBoundingBox,
           (const TessPageIterator *handle, TessPageIteratorLevel level, int *left, int *top, int *right, int *bottom),
           (handle, level, left, top, right, bottom))
NT_FORWARD(BOOL, TessPageIteratorIsAtBeginningOf, (const TessPageIterator *handle, TessPageIteratorLevel level), (handle, level))
NT_FORWARD(float, TessResultIteratorConfidence, (const TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
NT_FORWARD_VOID(TessResultIteratorDelete, (TessResultIterator *handle), (handle))
NT_FORWARD(TessPageIterator *, TessResultIteratorGetPageIterator, (TessResultIterator *handle), (handle))
NT_FORWARD(char *, TessResultIteratorGetUTF8Text, (const TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
NT_FORWARD(BOOL, TessResultIteratorNext, (TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
NT_FORWARD(l_int32, pixGetWidth, (const PIX *pix), (pix))
NT_FORWARD(l_int32, pixGetHeight, (const PIX *pix), (pix))
NT_FORWARD(l_int32, pixGetDepth, (const PIX *pix), (pix))
NT_FORWARD_VOID(pixDestroy, (PIX **ppix), (ppix))
NT_FORWARD(PIX *, pixConvertRGBToGrayMinMax, (PIX *pixs, l_int32 type), (pixs, type))
NT_FORWARD(PIX *, pixConvertTo8, (PIX *pixs, l_int32 cmapflag), (pixs, cmapflag))
NT_FORWARD(PIX *, pixScale, (PIX *pixs, l_float32 scalex, l_float32 scaley), (pixs, scalex, scaley))
NT_FORWARD(PIX *, pixDeskew, (PIX *pixs, l_int32 redsearch), (pixs, redsearch))
NT_FORWARD(PIX *, pixBackgroundNormSimple, (PIX *pixs, PIX *pixim, PIX *pixg), (pixs, pixim, pixg))
NT_FORWARD(PIX *, pixUnsharpMaskingGray, (PIX *pixs, l_int32 halfwidth, l_float32 fract), (pixs, halfwidth, fract))
NT_FORWARD(l_ok, pixOtsuAdaptiveThreshold,
           (PIX *pixs, l_int32 sx, l_int32 sy, l_int32 smoothx, l_int32 smoothy, l_float32 scorefract, PIX **ppixth, PIX **ppixd),
           (pixs, sx, sy, smoothx, smoothy, scorefract, ppixth, ppixd))
