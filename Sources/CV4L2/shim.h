// V4L2 from the kernel's UAPI headers, for Swift.
//
// Swift cannot import function-like macros (the VIDIOC_* request numbers are _IOWR(...)
// expansions) nor call variadic C functions (ioctl), so both are wrapped here. The wrapper calls
// libc's `ioctl` symbol (never a raw syscall), so an LD_PRELOAD library such as the simulated
// camera in scripts/v4l2sim intercepts every request, as it does for v4l2-ctl and ffmpeg.
#ifndef LIVEPUSH_CV4L2_SHIM_H
#define LIVEPUSH_CV4L2_SHIM_H

#include <errno.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/// ioctl(2) retried on EINTR; returns -1 with errno set on failure.
static inline int lp_v4l2_ioctl(int fd, unsigned long request, void *arg) {
    int rc;
    do {
        rc = ioctl(fd, request, arg);
    } while (rc == -1 && errno == EINTR);
    return rc;
}

#define LP_V4L2_REQUEST(name) \
    static inline unsigned long lp_##name(void) { return name; }

LP_V4L2_REQUEST(VIDIOC_QUERYCAP)
LP_V4L2_REQUEST(VIDIOC_ENUM_FMT)
LP_V4L2_REQUEST(VIDIOC_ENUM_FRAMESIZES)
LP_V4L2_REQUEST(VIDIOC_ENUM_FRAMEINTERVALS)
LP_V4L2_REQUEST(VIDIOC_G_FMT)
LP_V4L2_REQUEST(VIDIOC_S_FMT)
LP_V4L2_REQUEST(VIDIOC_G_PARM)
LP_V4L2_REQUEST(VIDIOC_S_PARM)
LP_V4L2_REQUEST(VIDIOC_QUERYCTRL)
LP_V4L2_REQUEST(VIDIOC_QUERY_EXT_CTRL)
LP_V4L2_REQUEST(VIDIOC_QUERYMENU)
LP_V4L2_REQUEST(VIDIOC_G_CTRL)
LP_V4L2_REQUEST(VIDIOC_S_CTRL)
LP_V4L2_REQUEST(VIDIOC_G_EXT_CTRLS)
LP_V4L2_REQUEST(VIDIOC_S_EXT_CTRLS)
LP_V4L2_REQUEST(VIDIOC_REQBUFS)
LP_V4L2_REQUEST(VIDIOC_QUERYBUF)
LP_V4L2_REQUEST(VIDIOC_QBUF)
LP_V4L2_REQUEST(VIDIOC_DQBUF)
LP_V4L2_REQUEST(VIDIOC_STREAMON)
LP_V4L2_REQUEST(VIDIOC_STREAMOFF)

#undef LP_V4L2_REQUEST

#endif
