// libyuv ships no pkg-config file: headers in /usr/include, library -lyuv.
#ifndef LIVEPUSH_CYUV_SHIM_H
#define LIVEPUSH_CYUV_SHIM_H
#include <libyuv.h>
#endif
