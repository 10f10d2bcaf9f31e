#include "CFFmpegFormat.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define LP_STRINGIFY_(x) #x
#define LP_STRINGIFY(x) LP_STRINGIFY_(x)
/* The soname of the major version these headers describe, e.g. libavformat.so.59. */
#define LP_AVFORMAT_SONAME "libavformat.so." LP_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

/* Every libavformat function livepush calls; each becomes a typed pointer in `functions`. */
#define LP_AVFORMAT_FUNCTIONS(X) \
    X(avformat_open_input) X(avformat_find_stream_info) X(av_find_best_stream) X(av_read_frame) \
    X(av_seek_frame) X(avformat_close_input) X(avformat_alloc_output_context2) X(avformat_new_stream) \
    X(avio_open) X(avio_closep) X(avformat_write_header) X(av_interleaved_write_frame) X(av_write_trailer) \
    X(avformat_free_context) X(avio_alloc_context) X(avio_context_free) X(avio_flush) X(av_write_frame)

static struct {
#define LP_DECLARE(name) __typeof__(&name) name;
    LP_AVFORMAT_FUNCTIONS(LP_DECLARE)
#undef LP_DECLARE
} functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static char failure_text[512];

static void open_library(void) {
    void *library = dlopen(LP_AVFORMAT_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure_text, sizeof failure_text,
                 "could not load " LP_AVFORMAT_SONAME " (%s): install libavformat%d (scripts/install-deps)",
                 dlerror(), LIBAVFORMAT_VERSION_MAJOR);
        failure = failure_text;
        return;
    }
#define LP_RESOLVE(name)                                                                                   \
    if ((functions.name = (__typeof__(&name))dlsym(library, #name)) == NULL && failure == NULL) {          \
        snprintf(failure_text, sizeof failure_text, LP_AVFORMAT_SONAME " has no " #name ": reinstall it"); \
        failure = failure_text;                                                                            \
    }
    LP_AVFORMAT_FUNCTIONS(LP_RESOLVE)
#undef LP_RESOLVE
}

const char *lp_avformat_open_library(void) {
    pthread_once(&once, open_library);
    return failure;
}

#define LP_AVAILABLE (lp_avformat_open_library() == NULL)

int lp_avformat_open_input(AVFormatContext **context, const char *url, const AVInputFormat *format, AVDictionary **options) {
    return LP_AVAILABLE ? functions.avformat_open_input(context, url, format, options) : AVERROR(ENOSYS);
}

int lp_avformat_find_stream_info(AVFormatContext *context, AVDictionary **options) {
    return LP_AVAILABLE ? functions.avformat_find_stream_info(context, options) : AVERROR(ENOSYS);
}

int lp_av_find_best_stream(AVFormatContext *context, enum AVMediaType type, int wanted, int related,
                           const AVCodec **decoder, int flags) {
    return LP_AVAILABLE ? functions.av_find_best_stream(context, type, wanted, related, decoder, flags) : AVERROR(ENOSYS);
}

int lp_av_read_frame(AVFormatContext *context, AVPacket *packet) {
    return LP_AVAILABLE ? functions.av_read_frame(context, packet) : AVERROR(ENOSYS);
}

int lp_av_seek_frame(AVFormatContext *context, int stream, int64_t timestamp, int flags) {
    return LP_AVAILABLE ? functions.av_seek_frame(context, stream, timestamp, flags) : AVERROR(ENOSYS);
}

void lp_avformat_close_input(AVFormatContext **context) {
    if (LP_AVAILABLE) functions.avformat_close_input(context);
}

int lp_avformat_alloc_output_context2(AVFormatContext **context, const AVOutputFormat *format, const char *format_name,
                                      const char *filename) {
    return LP_AVAILABLE ? functions.avformat_alloc_output_context2(context, format, format_name, filename) : AVERROR(ENOSYS);
}

AVStream *lp_avformat_new_stream(AVFormatContext *context, const AVCodec *codec) {
    return LP_AVAILABLE ? functions.avformat_new_stream(context, codec) : NULL;
}

int lp_avio_open(AVIOContext **io, const char *url, int flags) {
    return LP_AVAILABLE ? functions.avio_open(io, url, flags) : AVERROR(ENOSYS);
}

int lp_avio_closep(AVIOContext **io) {
    return LP_AVAILABLE ? functions.avio_closep(io) : AVERROR(ENOSYS);
}

int lp_avformat_write_header(AVFormatContext *context, AVDictionary **options) {
    return LP_AVAILABLE ? functions.avformat_write_header(context, options) : AVERROR(ENOSYS);
}

int lp_av_interleaved_write_frame(AVFormatContext *context, AVPacket *packet) {
    return LP_AVAILABLE ? functions.av_interleaved_write_frame(context, packet) : AVERROR(ENOSYS);
}

int lp_av_write_trailer(AVFormatContext *context) {
    return LP_AVAILABLE ? functions.av_write_trailer(context) : AVERROR(ENOSYS);
}

void lp_avformat_free_context(AVFormatContext *context) {
    if (LP_AVAILABLE) functions.avformat_free_context(context);
}

AVIOContext *lp_avio_alloc_context(unsigned char *buffer, int size, int write_flag, void *opaque,
                                   int (*read_packet)(void *, uint8_t *, int), lp_avio_write_packet write_packet,
                                   int64_t (*seek)(void *, int64_t, int)) {
    return LP_AVAILABLE ? functions.avio_alloc_context(buffer, size, write_flag, opaque, read_packet, write_packet, seek) : NULL;
}

void lp_avio_context_free(AVIOContext **io) {
    if (LP_AVAILABLE) functions.avio_context_free(io);
}

void lp_avio_flush(AVIOContext *io) {
    if (LP_AVAILABLE) functions.avio_flush(io);
}

int lp_av_write_frame(AVFormatContext *context, AVPacket *packet) {
    return LP_AVAILABLE ? functions.av_write_frame(context, packet) : AVERROR(ENOSYS);
}
