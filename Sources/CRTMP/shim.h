// librtmp's public API (the RTMP client stack OBS descends from).
#ifndef SLUICE_CRTMP_SHIM_H
#define SLUICE_CRTMP_SHIM_H
#include <librtmp/rtmp.h>
#include <librtmp/log.h>
#endif
