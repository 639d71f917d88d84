#include "tag_shim.h"

#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <taglib/aifffile.h>
#include <taglib/chapterframe.h>
#include <taglib/commentsframe.h>
#include <taglib/flacfile.h>
#include <taglib/id3v2tag.h>
#include <taglib/infotag.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/opusfile.h>
#include <taglib/tableofcontentsframe.h>
#include <taglib/tdebuglistener.h>
#include <taglib/textidentificationframe.h>
#include <taglib/tpropertymap.h>
#include <taglib/vorbisfile.h>
#include <taglib/wavfile.h>
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

// RIFF INFO text as UTF-8 (TagLib's default is Latin-1, which loses every other character); FFmpeg and
// libsndfile write UTF-8 there too.
class UTF8Info : public TagLib::RIFF::Info::StringHandler {
public:
    TagLib::String parse(const TagLib::ByteVector &data) const override { return TagLib::String(data, TagLib::String::UTF8); }
    TagLib::ByteVector render(const TagLib::String &s) const override { return s.data(TagLib::String::UTF8); }
};
UTF8Info utf8Info;

TagLib::String utf8(const char *text) { return TagLib::String(text, TagLib::String::UTF8); }

// The placeholder comment holding a FLAC's or an MP3's room for tags (FileTags.roomMarker, the same text): removed
// whenever tags are written, so that what it held becomes padding and the file is tagged in place.
const TagLib::String roomMarker = "mixrender: room reserved for tags";

// Removes the placeholder comments: Vorbis COMMENT fields and ID3v2 COMM frames that begin with `roomMarker`. In an
// MP3 the placeholder came in LAME's ID3v2 tag, with LAME's TSSE frame ("LAME 64bits version 3.100 ..."), which
// goes too: the file carries the tags mixrender writes, as it did before room was reserved.
void removeRoom(TagLib::Ogg::XiphComment *comment, TagLib::ID3v2::Tag *id3) {
    if (comment) {
        const TagLib::StringList values = comment->fieldListMap()["COMMENT"];
        for (auto it = values.begin(); it != values.end(); ++it) {
            if (it->startsWith(roomMarker)) comment->removeFields("COMMENT", *it);
        }
    }
    if (id3) {
        TagLib::ID3v2::FrameList remove;
        for (TagLib::ID3v2::Frame *frame : id3->frameList("COMM")) {
            if (frame->toString().startsWith(roomMarker)) remove.append(frame);
        }
        if (!remove.isEmpty()) {
            for (TagLib::ID3v2::Frame *frame : id3->frameList("TSSE")) {
                if (frame->toString().startsWith("LAME")) remove.append(frame);
            }
        }
        for (TagLib::ID3v2::Frame *frame : remove) id3->removeFrame(frame);
    }
}

// The name iTunes, foobar2000 and Picard give free-form MP4 items: `----:com.apple.iTunes:MOOD`.
const TagLib::String freeformPrefix = "----:com.apple.iTunes:";

// The file opened with its class, and the tag the shim works on (made if the file has none).
struct Opened {
    std::unique_ptr<TagLib::File> file;
    TagLib::Ogg::XiphComment *comment = nullptr;
    TagLib::ID3v2::Tag *id3 = nullptr;
    TagLib::RIFF::Info::Tag *info = nullptr;
    TagLib::MP4::Tag *mp4 = nullptr;
    int container = 0;
};

Opened open(const char *path, int container) {
    TagLib::setDebugListener(&quiet);
    TagLib::RIFF::Info::Tag::setStringHandler(&utf8Info);
    Opened opened;
    opened.container = container;
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
    } else if (container == MR_TAG_MPEG) {
        auto *file = new TagLib::MPEG::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.id3 = file->ID3v2Tag(true);
    } else if (container == MR_TAG_AIFF) {
        auto *file = new TagLib::RIFF::AIFF::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.id3 = file->tag();
    } else if (container == MR_TAG_WAV) {
        auto *file = new TagLib::RIFF::WAV::File(path);
        opened.file.reset(file);
        if (file->isValid()) { opened.id3 = file->ID3v2Tag(); opened.info = file->InfoTag(); }
    } else if (container == MR_TAG_MP4) {
        auto *file = new TagLib::MP4::File(path);
        opened.file.reset(file);
        if (file->isValid()) opened.mp4 = file->tag();
    }
    return opened;
}

const char *containerName(int container) {
    switch (container) {
    case MR_TAG_OGG_VORBIS: return "Ogg Vorbis";
    case MR_TAG_FLAC: return "FLAC";
    case MR_TAG_OGG_OPUS: return "Ogg Opus";
    case MR_TAG_MPEG: return "MP3";
    case MR_TAG_AIFF: return "AIFF";
    case MR_TAG_WAV: return "WAV";
    case MR_TAG_MP4: return "MP4";
    default: return "a known container";
    }
}

// Opens the file, checks TagLib reads it, runs `work` on it; every exception becomes a message.
template <typename Work>
int withTags(const char *path, int container, char *error, size_t error_length, Work work) {
    try {
        Opened opened = open(path, container);
        if (!opened.file) { fail(error, error_length, "not a container the tag shim knows"); return -1; }
        if (!opened.file->isValid() || (!opened.comment && !opened.id3 && !opened.mp4)) {
            fail(error, error_length, std::string("TagLib cannot read it as ") + containerName(container));
            return -1;
        }
        return work(opened, error, error_length);
    } catch (const std::exception &e) {
        fail(error, error_length, std::string("TagLib failed: ") + e.what());
    } catch (...) {
        fail(error, error_length, "TagLib failed");
    }
    return -1;
}

// Frames TagLib's property map names that ID3v2.3 does not have: TagLib drops them when it saves v2.3, so
// their keys go to TXXX instead.
const std::set<std::string> v24Only = {"TDEN", "TDRL", "TDTG", "TIPL", "TMCL", "TMOO", "TPRO", "TSOA", "TSOP", "TSOT", "TSST"};

// The RIFF INFO field of a WAV for a key, or an empty id.
TagLib::ByteVector infoID(const TagLib::String &key) {
    static const std::map<std::string, std::string> ids = {
        {"TITLE", "INAM"}, {"ARTIST", "IART"}, {"ALBUM", "IPRD"}, {"COMMENT", "ICMT"}, {"DATE", "ICRD"},
        {"GENRE", "IGNR"}, {"COPYRIGHT", "ICOP"}, {"TRACKNUMBER", "IPRT"}};
    auto it = ids.find(key.upper().to8Bit(true));
    return it == ids.end() ? TagLib::ByteVector() : TagLib::ByteVector(it->second.c_str(), 4);
}

// Text in the encoding ID3v2.3 allows for it: Latin-1 when it fits, else UTF-16 with a byte order mark.
TagLib::String::Type v23Encoding(const TagLib::String &text) {
    return text.isLatin1() ? TagLib::String::Latin1 : TagLib::String::UTF16;
}

// Replaces the frames of one key in an ID3v2 tag with `value` (several values already joined).
void setID3Field(TagLib::ID3v2::Tag *tag, const TagLib::String &key, const TagLib::String &value) {
    using namespace TagLib::ID3v2;
    const TagLib::String upper = key.upper();
    // Earlier values: the frame the key names, a TXXX of that description (any case), a COMM without description.
    // TagLib's property map names the frame (it makes a TXXX for a key it does not know).
    std::unique_ptr<Frame> probe(Frame::createTextualFrame(upper, TagLib::StringList(value)));
    const TagLib::ByteVector id = probe ? probe->frameID() : TagLib::ByteVector();
    const bool isText = id.size() == 4 && id[0] == 'T' && id != "TXXX" && !v24Only.count(std::string(id.data(), 4));
    FrameList remove;
    for (Frame *frame : tag->frameList("TXXX")) {
        auto *txxx = dynamic_cast<UserTextIdentificationFrame *>(frame);
        if (txxx && txxx->description().upper() == upper) remove.append(frame);
    }
    if (upper == "COMMENT") {
        for (Frame *frame : tag->frameList("COMM")) {
            auto *comm = dynamic_cast<CommentsFrame *>(frame);
            if (comm && comm->description().isEmpty()) remove.append(frame);
        }
    } else if (isText) {
        for (Frame *frame : tag->frameList(id)) remove.append(frame);
    }
    for (Frame *frame : remove) tag->removeFrame(frame);

    if (upper == "COMMENT") {
        auto *comm = new CommentsFrame(v23Encoding(value));
        comm->setLanguage("eng");
        comm->setText(value);
        tag->addFrame(comm);
    } else if (isText) {
        auto *text = new TextIdentificationFrame(id, v23Encoding(value));
        text->setText(value);
        tag->addFrame(text);
    } else {
        auto *txxx = new UserTextIdentificationFrame(v23Encoding(upper + value));
        txxx->setDescription(upper);
        txxx->setText(value);
        tag->addFrame(txxx);
    }
}

// Replaces every CHAP and CTOC frame with `count` chapters and a top-level ordered table of contents.
void setID3Chapters(TagLib::ID3v2::Tag *tag, const mr_chapter *chapters, int count) {
    using namespace TagLib::ID3v2;
    FrameList remove;
    for (Frame *frame : tag->frameList("CHAP")) remove.append(frame);
    for (Frame *frame : tag->frameList("CTOC")) remove.append(frame);
    for (Frame *frame : remove) tag->removeFrame(frame);
    if (count == 0) return;
    TagLib::ByteVectorList children;
    for (int i = 0; i < count; i++) children.append(TagLib::ByteVector(("chp" + std::to_string(i)).c_str()));
    auto *toc = new TableOfContentsFrame("toc", children);
    toc->setIsTopLevel(true);
    toc->setIsOrdered(true);
    tag->addFrame(toc);
    for (int i = 0; i < count; i++) {
        const TagLib::String name = utf8(chapters[i].name);
        auto *title = new TextIdentificationFrame("TIT2", v23Encoding(name));
        title->setText(name);
        FrameList embedded;
        embedded.append(title);
        // Offsets 0xFFFFFFFF: "not used", the times are what players read.
        tag->addFrame(new ChapterFrame(children[i], chapters[i].start_ms, chapters[i].end_ms, 0xFFFFFFFFu, 0xFFFFFFFFu, embedded));
    }
}

bool save(Opened &opened) {
    switch (opened.container) {
    case MR_TAG_MPEG:
        return static_cast<TagLib::MPEG::File *>(opened.file.get())
            ->save(TagLib::MPEG::File::ID3v2, TagLib::File::StripOthers, TagLib::ID3v2::v3, TagLib::File::DoNotDuplicate);
    case MR_TAG_AIFF:
        return static_cast<TagLib::RIFF::AIFF::File *>(opened.file.get())->save(TagLib::ID3v2::v3);
    case MR_TAG_WAV:
        return static_cast<TagLib::RIFF::WAV::File *>(opened.file.get())
            ->save(TagLib::RIFF::WAV::File::AllTags, TagLib::File::StripNone, TagLib::ID3v2::v3);
    default:
        return opened.file->save();
    }
}

} // namespace

extern "C" int mr_tags_write(const char *path, int container, const char *const *keys, const char *const *values, int count,
                             const mr_chapter *chapters, int chapter_count, char *error, size_t error_length) {
    return withTags(path, container, error, error_length, [&](Opened &opened, char *error, size_t error_length) {
        removeRoom(opened.comment, opened.id3);
        if (opened.comment) {
            if (chapter_count > 0) { fail(error, error_length, "chapter marks are comments in Vorbis comment formats"); return -1; }
            for (int i = 0; i < count; i++) opened.comment->removeFields(utf8(keys[i]));
            for (int i = 0; i < count; i++) opened.comment->addField(utf8(keys[i]), utf8(values[i]), false);
        } else if (opened.mp4) {
            // iTunes items through TagLib's property map: the known keys to their atoms (TITLE: ©nam, ARTIST: ©ART,
            // ALBUM: ©alb, COMMENT: ©cmt, DATE: ©day, GENRE: ©gen, TRACKNUMBER: trkn, COPYRIGHT: cprt, ...), any
            // other to a free-form item ----:com.apple.iTunes:KEY. Chapters are the muxer's (a chapter track).
            if (chapter_count > 0) { fail(error, error_length, "MP4 chapters are written by the muxer, not the tagger"); return -1; }
            TagLib::PropertyMap properties = opened.mp4->properties();
            std::map<TagLib::String, TagLib::StringList> given;
            for (int i = 0; i < count; i++) given[utf8(keys[i]).upper()].append(utf8(values[i]));
            for (auto &entry : given) properties.replace(entry.first, entry.second);
            // TagLib 1.13's property map knows only the iTunes atoms; what it refuses becomes a free-form item.
            const TagLib::PropertyMap refused = opened.mp4->setProperties(properties);
            for (auto it = refused.begin(); it != refused.end(); ++it) {
                opened.mp4->setItem(freeformPrefix + it->first, TagLib::MP4::Item(it->second));
            }
        } else {
            // One frame per key, its values joined in the order given.
            std::vector<TagLib::String> order;
            std::map<TagLib::String, TagLib::String> joined;
            for (int i = 0; i < count; i++) {
                const TagLib::String key = utf8(keys[i]).upper();
                auto it = joined.find(key);
                if (it == joined.end()) { order.push_back(key); joined[key] = utf8(values[i]); }
                else it->second += "/" + utf8(values[i]);
            }
            for (const TagLib::String &key : order) {
                setID3Field(opened.id3, key, joined[key]);
                if (opened.info) {
                    const TagLib::ByteVector id = infoID(key);
                    if (!id.isEmpty()) opened.info->setFieldText(id, joined[key]);
                }
            }
            if (chapter_count >= 0) setID3Chapters(opened.id3, chapters, chapter_count);
        }
        if (!save(opened)) { fail(error, error_length, "TagLib could not save the file"); return -1; }
        return 0;
    });
}

extern "C" int mr_tags_read(const char *path, int container, void (*visit)(void *context, const char *key, const char *value),
                            void (*chapter)(void *context, const char *element_id, unsigned int start_ms, unsigned int end_ms,
                                            const char *name, int toc_index),
                            void *context, char *error, size_t error_length) {
    return withTags(path, container, error, error_length, [&](Opened &opened, char *, size_t) {
        if (opened.comment) {
            const TagLib::Ogg::FieldListMap fields = opened.comment->fieldListMap();
            for (auto it = fields.begin(); it != fields.end(); ++it) {
                for (auto value = it->second.begin(); value != it->second.end(); ++value) {
                    visit(context, it->first.toCString(true), value->toCString(true));
                }
            }
            return 0;
        }
        if (opened.mp4) {
            const TagLib::PropertyMap properties = opened.mp4->properties();
            std::set<std::string> seen;
            for (auto it = properties.begin(); it != properties.end(); ++it) {
                seen.insert(it->first.upper().to8Bit(true));
                for (auto value = it->second.begin(); value != it->second.end(); ++value) {
                    visit(context, it->first.toCString(true), value->toCString(true));
                }
            }
            const TagLib::MP4::ItemMap items = opened.mp4->itemMap();
            for (auto it = items.begin(); it != items.end(); ++it) {
                if (!it->first.startsWith(freeformPrefix)) continue;
                const TagLib::String key = it->first.substr(freeformPrefix.size());
                if (seen.count(key.upper().to8Bit(true))) continue;
                const TagLib::StringList values = it->second.toStringList();
                for (auto value = values.begin(); value != values.end(); ++value) visit(context, key.toCString(true), value->toCString(true));
            }
            return 0;
        }
        using namespace TagLib::ID3v2;
        const TagLib::PropertyMap properties = opened.id3->properties();
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            for (auto value = it->second.begin(); value != it->second.end(); ++value) {
                visit(context, it->first.toCString(true), value->toCString(true));
            }
        }
        if (opened.info) {
            const TagLib::RIFF::Info::FieldListMap fields = opened.info->fieldListMap();
            for (auto it = fields.begin(); it != fields.end(); ++it) {
                const std::string key = "INFO:" + std::string(it->first.data(), it->first.size());
                visit(context, key.c_str(), it->second.toCString(true));
            }
        }
        const TableOfContentsFrame *toc = TableOfContentsFrame::findTopLevel(opened.id3);
        const TagLib::ByteVectorList children = toc ? toc->childElements() : TagLib::ByteVectorList();
        for (Frame *frame : opened.id3->frameList("CHAP")) {
            auto *chap = dynamic_cast<ChapterFrame *>(frame);
            if (!chap) continue;
            TagLib::String name;
            const FrameList titles = chap->embeddedFrameList("TIT2");
            if (!titles.isEmpty()) name = titles.front()->toString();
            int index = -1, position = 0;
            for (auto it = children.begin(); it != children.end(); ++it, ++position) {
                if (*it == chap->elementID()) { index = position; break; }
            }
            const std::string id(chap->elementID().data(), chap->elementID().size());
            chapter(context, id.c_str(), chap->startTime(), chap->endTime(), name.toCString(true), index);
        }
        return 0;
    });
}
