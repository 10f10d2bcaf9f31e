#ifndef LIVEPUSH_CSRT_SHIM_H
#define LIVEPUSH_CSRT_SHIM_H

/* libsrt from Debian's libsrt-gnutls-dev: the same library the ffmpeg package loads (libavformat
 * links libsrt-gnutls), so one process never carries two libsrt builds whose symbols would
 * interpose each other. */
#include <stdbool.h>
#include <srt/srt.h>

/* srt_setsockflag takes the value by pointer and its size; these keep Swift from spelling that. */
static inline int csrt_set_int(SRTSOCKET socket, SRT_SOCKOPT option, int value) {
    return srt_setsockflag(socket, option, &value, sizeof value);
}

static inline int csrt_set_bool(SRTSOCKET socket, SRT_SOCKOPT option, int value) {
    bool flag = value != 0;
    return srt_setsockflag(socket, option, &flag, sizeof flag);
}

static inline int csrt_set_string(SRTSOCKET socket, SRT_SOCKOPT option, const char *value, int length) {
    return srt_setsockflag(socket, option, value, length);
}

/* SRT_ERROR and SRT_INVALID_SOCK are static consts Swift imports, but as values of other names. */
static inline int csrt_error(void) { return SRT_ERROR; }
static inline SRTSOCKET csrt_invalid_socket(void) { return SRT_INVALID_SOCK; }

#endif
