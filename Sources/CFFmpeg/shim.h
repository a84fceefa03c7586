// Function-like libav macros Swift cannot import, re-exported as static inline functions.
#ifndef SLUICE_CFFMPEG_SHIM_H
#define SLUICE_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/mathematics.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>

static inline int swift_AVERROR(int e) { return AVERROR(e); }
static inline int swift_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int swift_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int64_t swift_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline AVRational swift_AV_TIME_BASE_Q(void) { return (AVRational){1, AV_TIME_BASE}; }
static inline void swift_av_strerror(int code, char *buf, size_t size) { av_strerror(code, buf, size); }
#endif
