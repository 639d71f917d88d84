#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <espeak-ng/espeak_ng.h>

// espeak-ng is loaded when a process first speaks, not linked: libespeak-ng brings PulseAudio, ALSA, X11, D-Bus
// and systemd's libraries (its audio output, which mixrender never uses), about 5.5 MB of resident memory in
// every mixrender process otherwise; only the speech helper (`mixrender speech-helper espeak`) and a lookup of
// the engine's version need it. Every function mixrender calls is listed here once; `cespeak_load` opens the
// library and looks every function up. Its types are the header's own (`__typeof__` names a function without
// referring to it).
#define CESPEAK_FUNCTIONS(X) \
    X(espeak_Info) X(espeak_Synth) X(espeak_Synchronize) X(espeak_SetSynthCallback) X(espeak_SetVoiceByName) \
    X(espeak_SetParameter) X(espeak_ListVoices) X(espeak_ng_InitializePath) X(espeak_ng_Initialize) \
    X(espeak_ng_InitializeOutput) X(espeak_ng_ClearErrorContext) X(espeak_ng_GetSampleRate) \
    X(espeak_ng_GetStatusCodeMessage)

typedef struct CEspeakLibrary {
#define CESPEAK_FIELD(name) __typeof__(&name) _Nonnull name;
    CESPEAK_FUNCTIONS(CESPEAK_FIELD)
#undef CESPEAK_FIELD
} CEspeakLibrary;

/// The library's name with the major version of its ABI, which espeak-ng's headers do not state: 1 since
/// espeak-ng 1.49 (Debian 10 to 13).
#define CESPEAK_SONAME "libespeak-ng.so.1"

/// Opens libespeak-ng (`dlopen`) and looks up every function of `CESPEAK_FUNCTIONS` (`dlsym`). Returns the
/// functions, allocated once and never freed (they are the process's for its lifetime), or NULL with the reason
/// in `error` (the library missing, or a function).
static inline const CEspeakLibrary *_Nullable cespeak_load(char *_Nonnull error, size_t errorSize) {
    void *handle = dlopen(CESPEAK_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(error, errorSize, "%s", reason ? reason : "dlopen failed");
        return NULL;
    }
    CEspeakLibrary *library = calloc(1, sizeof(CEspeakLibrary));
    if (!library) { snprintf(error, errorSize, "out of memory"); return NULL; }
#define CESPEAK_LOOKUP(name) \
    *(void **)&library->name = dlsym(handle, #name); \
    if (!library->name) { snprintf(error, errorSize, "%s has no function %s", CESPEAK_SONAME, #name); free(library); return NULL; }
    CESPEAK_FUNCTIONS(CESPEAK_LOOKUP)
#undef CESPEAK_LOOKUP
    return library;
}
