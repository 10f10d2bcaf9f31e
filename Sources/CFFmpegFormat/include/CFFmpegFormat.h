#ifndef LIVEPUSH_CFFMPEGFORMAT_H
#define LIVEPUSH_CFFMPEGFORMAT_H
/* libavformat, opened on first use instead of at start-up.
 *
 * Only recording and the file source need libavformat, but linking it makes every run load it and
 * the ~35 libraries it alone depends on (gnutls, krb5, zmq, srt, ssh, bluray, openmpt, ...): about
 * 1 MB of private memory, 6 MB of mapped files and 9 ms of start-up (BENCHMARKS.md, "livepush
 * serve"). These functions take the same arguments as the libavformat functions of the same
 * name without the lp_ prefix; until libavformat is open they fail as described on each. */
#include <libavformat/avformat.h>

/* Opens libavformat if it is not open yet. NULL on success, else why it could not be opened
 * (the message names the library and the Debian package to install). Thread-safe.
 * An output that will mux (the recorder, the SRT output) calls it as it is made, while its camera
 * opens, ignoring the result (the first muxer reports a failure): loading then happens before the
 * release of file pages just before the first frame (issue 28), which sheds what loading touched,
 * instead of at the first keyframe or receiver, after which it stayed resident until the next
 * release (serve 56 -> 50 MiB, stream to SRT 49.7 -> 43.7 MiB, BENCHMARKS.md). */
const char *lp_avformat_open_library(void);

/* The calls below return AVERROR(ENOSYS), NULL or nothing when the library could not be opened. */
int lp_avformat_open_input(AVFormatContext **context, const char *url, const AVInputFormat *format, AVDictionary **options);
int lp_avformat_find_stream_info(AVFormatContext *context, AVDictionary **options);
int lp_av_find_best_stream(AVFormatContext *context, enum AVMediaType type, int wanted, int related,
                           const AVCodec **decoder, int flags);
int lp_av_read_frame(AVFormatContext *context, AVPacket *packet);
int lp_av_seek_frame(AVFormatContext *context, int stream, int64_t timestamp, int flags);
void lp_avformat_close_input(AVFormatContext **context);
int lp_avformat_alloc_output_context2(AVFormatContext **context, const AVOutputFormat *format, const char *format_name,
                                      const char *filename);
AVStream *lp_avformat_new_stream(AVFormatContext *context, const AVCodec *codec);
int lp_avio_open(AVIOContext **io, const char *url, int flags);
int lp_avio_closep(AVIOContext **io);
int lp_avformat_write_header(AVFormatContext *context, AVDictionary **options);
int lp_av_interleaved_write_frame(AVFormatContext *context, AVPacket *packet);
int lp_av_write_trailer(AVFormatContext *context);
void lp_avformat_free_context(AVFormatContext *context);
/* A muxer writing into the caller's own callback (SRT output): the buffer comes from av_malloc.
 * The write callback takes the bytes as const since libavformat 61 (FFmpeg 7), as avio_alloc_context
 * declares it there; a Swift closure that only reads them fits either. */
#if LIBAVFORMAT_VERSION_MAJOR >= 61
typedef int (*lp_avio_write_packet)(void *opaque, const uint8_t *bytes, int count);
#else
typedef int (*lp_avio_write_packet)(void *opaque, uint8_t *bytes, int count);
#endif
AVIOContext *lp_avio_alloc_context(unsigned char *buffer, int size, int write_flag, void *opaque,
                                   int (*read_packet)(void *, uint8_t *, int), lp_avio_write_packet write_packet,
                                   int64_t (*seek)(void *, int64_t, int));
void lp_avio_context_free(AVIOContext **io);
void lp_avio_flush(AVIOContext *io);
int lp_av_write_frame(AVFormatContext *context, AVPacket *packet);

#endif
