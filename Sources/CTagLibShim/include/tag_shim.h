// A C face for the few TagLib (C++) calls mixrender makes: Vorbis comments of Ogg Vorbis and FLAC files.
// Every function catches everything TagLib throws; errors come back as a message in `error`.
#ifndef MIXRENDER_TAG_SHIM_H
#define MIXRENDER_TAG_SHIM_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The containers the shim opens: which TagLib file class reads the path.
enum mr_tag_container { MR_TAG_OGG_VORBIS = 1, MR_TAG_FLAC = 2, MR_TAG_OGG_OPUS = 3 };

/// Sets `count` comments (`keys[i]=values[i]`, UTF-8) in the file at `path`: earlier values of those keys are
/// removed, every other comment is kept, a key given several times gets several values. Returns 0 on success,
/// otherwise -1 with a message in `error` (NUL-terminated, at most `error_length` bytes).
int mr_tags_write(const char *path, int container, const char *const *keys, const char *const *values, int count,
                  char *error, size_t error_length);

/// Calls `visit(context, key, value)` for every comment of the file at `path`, in TagLib's order (keys sorted,
/// values in file order). Returns 0 on success, otherwise -1 with a message in `error`.
int mr_tags_read(const char *path, int container, void (*visit)(void *context, const char *key, const char *value),
                 void *context, char *error, size_t error_length);

#ifdef __cplusplus
}
#endif
#endif
