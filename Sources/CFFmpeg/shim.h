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
// holds it, in two groups: the codecs' (libavutil, libavcodec) and the containers' (libavformat, which adds
// about 9 MB of its own dependencies: network protocols, TLS, Blu-ray, ...). `cffmpeg_load_codecs` opens the
// first two, `cffmpeg_load_containers` the third, each at the major version these headers describe, and looks
// their functions up: a file whose container mixrender reads itself (Ogg, with libogg) never maps libavformat.
// The types are the headers' own (`__typeof__` names a function without referring to it).
#define CFFMPEG_CODEC_FUNCTIONS(X) \
    X(avutil, av_log_set_level) X(avutil, av_strerror) X(avutil, av_dict_get) X(avutil, av_dict_set) \
    X(avutil, av_dict_free) X(avutil, av_rescale_q) X(avutil, av_mallocz) X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) X(avutil, av_frame_get_buffer) X(avutil, av_frame_make_writable) \
    X(avutil, av_channel_layout_default) X(avutil, av_channel_layout_copy) \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, avcodec_send_packet) X(avcodec, avcodec_receive_frame) X(avcodec, avcodec_send_frame) \
    X(avcodec, avcodec_receive_packet) X(avcodec, avcodec_flush_buffers) X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_descriptor_get) X(avcodec, avcodec_get_name) \
    X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) X(avcodec, av_packet_unref) X(avcodec, av_packet_rescale_ts)

#define CFFMPEG_CONTAINER_FUNCTIONS(X) \
    X(avformat, avformat_open_input) X(avformat, avformat_find_stream_info) X(avformat, avformat_close_input) \
    X(avformat, avformat_alloc_context) X(avformat, avformat_alloc_output_context2) X(avformat, avformat_free_context) \
    X(avformat, avformat_new_stream) X(avformat, avformat_write_header) X(avformat, av_find_best_stream) \
    X(avformat, av_read_frame) X(avformat, av_seek_frame) X(avformat, av_interleaved_write_frame) \
    X(avformat, av_write_trailer) X(avformat, avio_open) X(avformat, avio_closep)

#define CFFMPEG_FIELD(library, name) __typeof__(&name) _Nonnull name;
typedef struct CFFmpegCodecs {
    CFFMPEG_CODEC_FUNCTIONS(CFFMPEG_FIELD)
} CFFmpegCodecs;

typedef struct CFFmpegContainers {
    CFFMPEG_CONTAINER_FUNCTIONS(CFFMPEG_FIELD)
} CFFmpegContainers;
#undef CFFMPEG_FIELD

#define CFFMPEG_STRINGIFY(x) #x
#define CFFMPEG_SONAME(library, major) "lib" #library ".so." CFFMPEG_STRINGIFY(major)

#define CFFMPEG_LOOKUP(lib, name) \
    *(void **)&functions->name = dlsym(lib, #name); \
    if (!functions->name) { snprintf(error, errorSize, "lib%s has no function %s", #lib, #name); free(functions); return NULL; }

static inline int cffmpeg_opened(void *_Nullable library, char *_Nonnull error, size_t errorSize) {
    if (library) return 1;
    const char *reason = dlerror();
    snprintf(error, errorSize, "%s", reason ? reason : "dlopen failed");
    return 0;
}

/// Opens libavutil and libavcodec (`dlopen`, each its headers' major version) and looks up every function of
/// `CFFMPEG_CODEC_FUNCTIONS` (`dlsym`). Returns the functions, allocated once and never freed (they are the
/// process's for its lifetime), or NULL with the reason in `error` (a library missing, or a function).
static inline const CFFmpegCodecs *_Nullable cffmpeg_load_codecs(char *_Nonnull error, size_t errorSize) {
    void *avutil = dlopen(CFFMPEG_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!cffmpeg_opened(avutil, error, errorSize)) return NULL;
    void *avcodec = dlopen(CFFMPEG_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!cffmpeg_opened(avcodec, error, errorSize)) return NULL;
    CFFmpegCodecs *functions = calloc(1, sizeof(CFFmpegCodecs));
    if (!functions) { snprintf(error, errorSize, "out of memory"); return NULL; }
    CFFMPEG_CODEC_FUNCTIONS(CFFMPEG_LOOKUP)
    return functions;
}

/// Opens libavformat as `cffmpeg_load_codecs` opens the codecs' libraries, and looks up
/// `CFFMPEG_CONTAINER_FUNCTIONS`.
static inline const CFFmpegContainers *_Nullable cffmpeg_load_containers(char *_Nonnull error, size_t errorSize) {
    void *avformat = dlopen(CFFMPEG_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!cffmpeg_opened(avformat, error, errorSize)) return NULL;
    CFFmpegContainers *functions = calloc(1, sizeof(CFFmpegContainers));
    if (!functions) { snprintf(error, errorSize, "out of memory"); return NULL; }
    CFFMPEG_CONTAINER_FUNCTIONS(CFFMPEG_LOOKUP)
    return functions;
}
#undef CFFMPEG_LOOKUP
