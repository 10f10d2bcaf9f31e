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
#endif
