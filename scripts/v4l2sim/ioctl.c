/*
 * ioctl.c — the VIDIOC_* dispatcher: capabilities, inputs and priority here;
 * formats, controls and streaming in their own files. Unknown requests get
 * ENOTTY, and every request on an unplugged device gets ENODEV, as from a driver.
 */
#include "sim.h"

#include <errno.h>
#include <linux/version.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#define SIM_CAPS (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_READWRITE | V4L2_CAP_EXT_PIX_FORMAT)

static uint32_t kernel_version(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0, patch = 0;
    if (uname(&u) == 0)
        sscanf(u.release, "%u.%u.%u", &major, &minor, &patch);
    return KERNEL_VERSION(major, minor, patch > 255 ? 255 : patch);
}

static int querycap(const struct sim_device *dev, struct v4l2_capability *cap)
{
    memset(cap, 0, sizeof(*cap));
    strncpy((char *)cap->driver, "v4l2sim", sizeof(cap->driver) - 1);
    strncpy((char *)cap->card, dev->config.card, sizeof(cap->card) - 1);
    strncpy((char *)cap->bus_info, dev->config.bus_info, sizeof(cap->bus_info) - 1);
    cap->version = kernel_version();
    cap->device_caps = SIM_CAPS;
    cap->capabilities = SIM_CAPS | V4L2_CAP_DEVICE_CAPS;
    return 0;
}

static int enuminput(struct v4l2_input *input)
{
    if (input->index != 0)
        return -EINVAL;
    memset(input, 0, sizeof(*input));
    strncpy((char *)input->name, "Camera 1", sizeof(input->name) - 1);
    input->type = V4L2_INPUT_TYPE_CAMERA;
    return 0;
}

static int ioctl_misc(unsigned long request, void *arg)
{
    switch (request) {
    case VIDIOC_ENUMINPUT:
        return enuminput(arg);
    case VIDIOC_G_INPUT:
        *(int *)arg = 0;
        return 0;
    case VIDIOC_S_INPUT:
        return *(int *)arg == 0 ? 0 : -EINVAL;
    case VIDIOC_G_PRIORITY:
        *(enum v4l2_priority *)arg = V4L2_PRIORITY_DEFAULT;
        return 0;
    case VIDIOC_S_PRIORITY:
        return *(enum v4l2_priority *)arg <= V4L2_PRIORITY_RECORD ? 0 : -EINVAL;
    default:
        return -ENOTTY;
    }
}

/* Returns 0 or a negative errno. Caller holds sim_lock and has refreshed faults. */
int sim_ioctl(struct sim_file *file, unsigned long request, void *arg)
{
    struct sim_device *dev = &sim_devices[file->device];
    if (file->dead)
        return -ENODEV;
    if (!arg)
        return request == VIDIOC_LOG_STATUS ? 0 : -EFAULT;
    if (file->enc)
        return sim_encoder_ioctl(file->enc, request, arg);
    if (request == VIDIOC_QUERYCAP)
        return querycap(dev, arg);
    int rc = ioctl_misc(request, arg);
    if (rc == -ENOTTY)
        rc = sim_ioctl_format(dev, request, arg);
    if (rc == -ENOTTY)
        rc = sim_ioctl_control(dev, request, arg);
    if (rc == -ENOTTY)
        rc = sim_ioctl_stream(file, dev, request, arg);
    return rc;
}
