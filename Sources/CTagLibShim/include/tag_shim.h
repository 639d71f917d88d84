// A C face for the few TagLib (C++) calls mixrender makes: tags and chapter marks of Ogg Vorbis, Ogg Opus and FLAC
// files (Vorbis comments), MP3 and AIFF files (ID3v2.3) and WAV files (RIFF INFO and ID3v2.3).
// Every function catches everything TagLib throws; errors come back as a message in `error`.
#ifndef MIXRENDER_TAG_SHIM_H
#define MIXRENDER_TAG_SHIM_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The containers the shim opens: which TagLib file class reads the path.
enum mr_tag_container {
    MR_TAG_OGG_VORBIS = 1, MR_TAG_FLAC = 2, MR_TAG_OGG_OPUS = 3, MR_TAG_MPEG = 4, MR_TAG_AIFF = 5, MR_TAG_WAV = 6,
    MR_TAG_MP4 = 7
};

/// One chapter for an ID3v2 `CHAP` frame: start and end in milliseconds, its name (UTF-8) as an embedded TIT2.
typedef struct mr_chapter {
    unsigned int start_ms;
    unsigned int end_ms;
    const char *name;
} mr_chapter;

/// Sets `count` fields (`keys[i]=values[i]`, UTF-8; keys as Vorbis comment names, such as `TITLE` or `MOOD`) in
/// the file at `path`: earlier values of those keys are removed, every other field is kept, a key given several
/// times gets several values.
/// - Vorbis comments (Ogg Vorbis, Ogg Opus, FLAC): the comments as given; `chapter_count` must be 0 or -1 (chapter
///   marks are comments there).
/// - ID3v2 (MP3, AIFF, WAV), saved as ID3v2.3: a key with a v2.3 text frame in TagLib's property map goes there
///   (TITLE: TIT2, ARTIST: TPE1, ALBUM: TALB, DATE: TDRC saved as TYER, GENRE: TCON, ...), COMMENT goes to COMM
///   (language `eng`, no description), every other key to `TXXX` with the key as its description; several values
///   are joined with '/' (v2.3 frames hold one). With `chapter_count` >= 0, every CHAP and CTOC frame is replaced
///   (-1 leaves them): one CHAP per chapter (element ids `chp0`, `chp1`, ...) and one top-level ordered CTOC (`toc`) listing them.
///   An MP3 keeps no ID3v1 or APE tag.
/// - WAV: TITLE, ARTIST, ALBUM, COMMENT, DATE, GENRE, COPYRIGHT, TRACKNUMBER also go to RIFF INFO (INAM, IART,
///   IPRD, ICMT, ICRD, IGNR, ICOP, IPRT; UTF-8).
/// Returns 0 on success, otherwise -1 with a message in `error` (NUL-terminated, at most `error_length` bytes).
int mr_tags_write(const char *path, int container, const char *const *keys, const char *const *values, int count,
                  const mr_chapter *chapters, int chapter_count, char *error, size_t error_length);

/// Calls `visit(context, key, value)` for every field of the file at `path`: Vorbis comments in TagLib's order
/// (keys sorted, values in file order); for ID3v2, TagLib's property map (`TITLE`, `COMMENT`, a TXXX as its
/// description upper-cased, ...); for WAV also each RIFF INFO field as `INFO:<id>` (`INFO:INAM`).
/// Calls `chapter(context, element_id, start_ms, end_ms, name, toc_index)` for every ID3v2 CHAP frame, in file
/// order, with its place in the top-level CTOC (-1 when none lists it). Returns 0 on success, otherwise -1 with a
/// message in `error`.
int mr_tags_read(const char *path, int container, void (*visit)(void *context, const char *key, const char *value),
                 void (*chapter)(void *context, const char *element_id, unsigned int start_ms, unsigned int end_ms,
                                 const char *name, int toc_index),
                 void *context, char *error, size_t error_length);

#ifdef __cplusplus
}
#endif
#endif
