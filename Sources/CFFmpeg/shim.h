#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>

// FFmpeg's error codes are function-like macros (FFERRTAG, AVERROR), which Swift does not import.
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_error_again(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_error_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_error_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int cffmpeg_error_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

// FFmpeg is loaded when a file first needs it, not linked: libavformat and libavcodec bring about 125 shared
// libraries (codecs for video, TLS, SVG, ...) whose pages would otherwise be in every mixrender process, about
// 21 MB of its resident memory. Every function mixrender calls is listed here once, with the library that
// holds it; `cffmpeg_load` opens the three libraries of the major versions these headers describe and looks
// every function up. Its types are the headers' own (`__typeof__` names a function without referring to it).
#define CFFMPEG_FUNCTIONS(X) \
    X(avutil, av_log_set_level) X(avutil, av_strerror) X(avutil, av_dict_get) X(avutil, av_dict_set) \
    X(avutil, av_dict_free) X(avutil, av_rescale_q) X(avutil, av_mallocz) X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) X(avutil, av_frame_get_buffer) X(avutil, av_frame_make_writable) \
    X(avutil, av_channel_layout_default) X(avutil, av_channel_layout_copy) \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, avcodec_send_packet) X(avcodec, avcodec_receive_frame) X(avcodec, avcodec_send_frame) \
    X(avcodec, avcodec_receive_packet) X(avcodec, avcodec_flush_buffers) X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_descriptor_get) X(avcodec, avcodec_get_name) X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_free) X(avcodec, av_packet_unref) X(avcodec, av_packet_rescale_ts) \
    X(avformat, avformat_open_input) X(avformat, avformat_find_stream_info) X(avformat, avformat_close_input) \
    X(avformat, avformat_alloc_context) X(avformat, avformat_alloc_output_context2) X(avformat, avformat_free_context) \
    X(avformat, avformat_new_stream) X(avformat, avformat_write_header) X(avformat, av_find_best_stream) \
    X(avformat, av_read_frame) X(avformat, av_seek_frame) X(avformat, av_interleaved_write_frame) \
    X(avformat, av_write_trailer) X(avformat, avio_open) X(avformat, avio_closep)

typedef struct CFFmpegLibrary {
#define CFFMPEG_FIELD(library, name) __typeof__(&name) _Nonnull name;
    CFFMPEG_FUNCTIONS(CFFMPEG_FIELD)
#undef CFFMPEG_FIELD
} CFFmpegLibrary;

#define CFFMPEG_STRINGIFY(x) #x
#define CFFMPEG_SONAME(library, major) "lib" #library ".so." CFFMPEG_STRINGIFY(major)

/// Opens libavutil, libavcodec and libavformat (`dlopen`, each its headers' major version) and looks up every
/// function of `CFFMPEG_FUNCTIONS` (`dlsym`). Returns the functions, allocated once and never freed (they are
/// the process's for its lifetime), or NULL with the reason in `error` (a library missing, or a function).
static inline const CFFmpegLibrary *_Nullable cffmpeg_load(char *_Nonnull error, size_t errorSize) {
    void *avutil = dlopen(CFFMPEG_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *avcodec = avutil ? dlopen(CFFMPEG_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    void *avformat = avcodec ? dlopen(CFFMPEG_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!avformat) {
        const char *reason = dlerror();
        snprintf(error, errorSize, "%s", reason ? reason : "dlopen failed");
        return NULL;
    }
    CFFmpegLibrary *library = calloc(1, sizeof(CFFmpegLibrary));
    if (!library) { snprintf(error, errorSize, "out of memory"); return NULL; }
#define CFFMPEG_LOOKUP(lib, name) \
    *(void **)&library->name = dlsym(lib, #name); \
    if (!library->name) { snprintf(error, errorSize, "lib%s has no function %s", #lib, #name); free(library); return NULL; }
    CFFMPEG_FUNCTIONS(CFFMPEG_LOOKUP)
#undef CFFMPEG_LOOKUP
    return library;
}
