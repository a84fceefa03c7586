// libsrtp2 (SRTP/SRTCP unprotect for WebRTC ingest).
#include <srtp2/srtp.h>
