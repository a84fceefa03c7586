// libsrtp2 (SRTP/SRTCP unprotect for WebRTC ingest).
#include <srtp2/srtp.h>

// SRTP_MAX_TRAILER_LEN is an expression macro; protect() needs this much room after the packet.
static inline int sluice_srtp_max_trailer_len(void) { return SRTP_MAX_TRAILER_LEN; }
