#ifndef LIVEPUSH_CSRTP_SHIM_H
#define LIVEPUSH_CSRTP_SHIM_H

#include <srtp2/srtp.h>

/// SRTP_MAX_TRAILER_LEN is a macro expression Swift does not import: the most bytes
/// srtp_protect may append to an RTP packet (tag + MKI).
static inline int csrtp_max_trailer_length(void) { return SRTP_MAX_TRAILER_LEN; }

/// srtp_protect_rtcp may write SRTP_MAX_TRAILER_LEN plus the 4-byte E flag + SRTCP index.
static inline int csrtp_max_rtcp_trailer_length(void) { return SRTP_MAX_TRAILER_LEN + 4; }

#endif
