#include "tag_shim.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include <taglib/flacfile.h>
#include <taglib/opusfile.h>
#include <taglib/tdebuglistener.h>
#include <taglib/vorbisfile.h>
#include <taglib/xiphcomment.h>

namespace {

void fail(char *error, size_t length, const std::string &message) {
    if (error && length > 0) std::snprintf(error, length, "%s", message.c_str());
}

// TagLib prints its complaints on stderr; mixrender reports errors itself, one line each.
class Quiet : public TagLib::DebugListener {
public:
    void printMessage(const TagLib::String &) override {}
};
Quiet quiet;

// The file opened with its class, and its Vorbis comment (made if the file has none).
struct Opened {
    std::unique_ptr<TagLib::File> file;
    TagLib::Ogg::XiphComment *comment = nullptr;
};

Opened open(const char *path, int container) {
    TagLib::setDebugListener(&quiet);
    Opened opened;
    if (container == MR_TAG_OGG_VORBIS) {
        auto *file = new TagLib::Ogg::Vorbis::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.comment = file->tag();
    } else if (container == MR_TAG_FLAC) {
        auto *file = new TagLib::FLAC::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.comment = file->xiphComment(true);
    } else if (container == MR_TAG_OGG_OPUS) {
        auto *file = new TagLib::Ogg::Opus::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.comment = file->tag();
    }
    return opened;
}

// Opens the file, checks TagLib reads it, runs `work` on it; every exception becomes a message.
template <typename Work>
int withComment(const char *path, int container, char *error, size_t error_length, Work work) {
    try {
        Opened opened = open(path, container);
        if (!opened.file) { fail(error, error_length, "not an Ogg Vorbis, Ogg Opus or FLAC file"); return -1; }
        if (!opened.file->isValid() || !opened.comment) { fail(error, error_length, "TagLib cannot read it as Ogg Vorbis, Ogg Opus or FLAC"); return -1; }
        return work(opened, error, error_length);
    } catch (const std::exception &e) {
        fail(error, error_length, std::string("TagLib failed: ") + e.what());
    } catch (...) {
        fail(error, error_length, "TagLib failed");
    }
    return -1;
}

} // namespace

extern "C" int mr_tags_write(const char *path, int container, const char *const *keys, const char *const *values, int count,
                             char *error, size_t error_length) {
    return withComment(path, container, error, error_length, [&](Opened &opened, char *error, size_t error_length) {
        for (int i = 0; i < count; i++) opened.comment->removeFields(TagLib::String(keys[i], TagLib::String::UTF8));
        for (int i = 0; i < count; i++) {
            opened.comment->addField(TagLib::String(keys[i], TagLib::String::UTF8), TagLib::String(values[i], TagLib::String::UTF8), false);
        }
        if (!opened.file->save()) { fail(error, error_length, "TagLib could not save the file"); return -1; }
        return 0;
    });
}

extern "C" int mr_tags_read(const char *path, int container, void (*visit)(void *context, const char *key, const char *value),
                            void *context, char *error, size_t error_length) {
    return withComment(path, container, error, error_length, [&](Opened &opened, char *, size_t) {
        const TagLib::Ogg::FieldListMap fields = opened.comment->fieldListMap();
        for (auto it = fields.begin(); it != fields.end(); ++it) {
            for (auto value = it->second.begin(); value != it->second.end(); ++value) {
                visit(context, it->first.toCString(true), value->toCString(true));
            }
        }
        return 0;
    });
}
