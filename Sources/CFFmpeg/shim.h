// Swift cannot import FFmpeg's function-like macros; these inline functions stand in for them.
#ifndef LIVEPUSH_CFFMPEG_SHIM_H
#define LIVEPUSH_CFFMPEG_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/channel_layout.h>
#include <libswscale/swscale.h>

static inline int lp_averror(int posixError) { return AVERROR(posixError); }
static inline int lp_averror_eof(void) { return AVERROR_EOF; }
static inline int lp_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int lp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int lp_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t lp_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational lp_av_time_base_q(void) { return AV_TIME_BASE_Q; }

/* APIs that changed between FFmpeg 5.1 (Debian 12) and 7.1 (Debian 13): the new one where the
 * headers have it, the old one otherwise, so neither build uses what the other deprecates and
 * FFmpeg 8's removals (key_frame, sample_fmts) do not reach Swift. */

/* Whether a frame is a key frame: AV_FRAME_FLAG_KEY in `flags` since libavutil 58.7 (FFmpeg 6.1),
 * which deprecated `key_frame`. */
static inline int lp_frame_is_key(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame != 0;
#endif
}

/* Marks a frame sent to an encoder as a key frame (with pict_type AV_PICTURE_TYPE_I). */
static inline void lp_frame_set_key(AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    frame->flags |= AV_FRAME_FLAG_KEY;
#else
    frame->key_frame = 1;
#endif
}

/* The sample formats an encoder takes: sets *formats and returns how many, or returns -1 when the
 * encoder does not say (it takes any). avcodec_get_supported_config since libavcodec 61.13 (FFmpeg
 * 7.1), which deprecated the sample_fmts field of AVCodec. */
static inline int lp_codec_sample_formats(const AVCodec *codec, const enum AVSampleFormat **formats) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *configs = NULL;
    int count = 0;
    if (avcodec_get_supported_config(NULL, codec, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0, &configs, &count) < 0 || configs == NULL)
        return -1;
    *formats = configs;
    return count;
#else
    const enum AVSampleFormat *list = codec->sample_fmts;
    int count = 0;
    if (list == NULL) return -1;
    while (list[count] != AV_SAMPLE_FMT_NONE) count++;
    *formats = list;
    return count;
#endif
}
#endif
