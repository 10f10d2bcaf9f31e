// ALSA's PCM API for audio capture (libasound2-dev).
#ifndef LIVEPUSH_CALSA_SHIM_H
#define LIVEPUSH_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
