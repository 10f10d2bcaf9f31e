/*
 * formats.c — formats, frame sizes and frame intervals, as a UVC driver offers them.
 *
 * Sizes are discrete; S_FMT/TRY_FMT snap to the nearest offered size with the
 * uvcvideo distance metric and fall back to the first format for an unknown fourcc.
 * Raw formats larger than 1280x720 offer only the lower "hd_raw_fps" rates, the way
 * a USB 2 camera cannot carry 1080p YUYV at 30 fps.
 */
#include "sim.h"

#include <errno.h>
#include <string.h>

static const char *format_description(uint32_t fourcc)
{
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV:
        return "YUYV 4:2:2";
    case V4L2_PIX_FMT_MJPEG:
        return "Motion-JPEG";
    case V4L2_PIX_FMT_NV12:
        return "Y/UV 4:2:0";
    default:
        return "Unknown";
    }
}

uint32_t sim_bytesperline(uint32_t pixelformat, uint32_t width)
{
    switch (pixelformat) {
    case V4L2_PIX_FMT_YUYV:
        return width * 2;
    case V4L2_PIX_FMT_NV12:
        return width;
    default:
        return 0; /* compressed */
    }
}

uint32_t sim_sizeimage(uint32_t pixelformat, uint32_t width, uint32_t height)
{
    switch (pixelformat) {
    case V4L2_PIX_FMT_YUYV:
        return width * height * 2;
    case V4L2_PIX_FMT_NV12:
        return width * height * 3 / 2;
    default:
        return width * height * 2; /* MJPEG: worst case, like dwMaxVideoFrameBufferSize */
    }
}

static bool has_format(const struct sim_config *cfg, uint32_t fourcc)
{
    for (int i = 0; i < cfg->format_count; i++)
        if (cfg->formats[i] == fourcc)
            return true;
    return false;
}

static bool has_size(const struct sim_config *cfg, uint32_t width, uint32_t height)
{
    for (int i = 0; i < cfg->size_count; i++)
        if (cfg->sizes[i].width == width && cfg->sizes[i].height == height)
            return true;
    return false;
}

/* Frame rates offered for one format and size; returns the count. */
static int rates_for(const struct sim_config *cfg, uint32_t fourcc, uint32_t width, uint32_t height,
                     const uint32_t **rates)
{
    bool raw = fourcc != V4L2_PIX_FMT_MJPEG;
    if (raw && width * height > SIM_HD_AREA) {
        *rates = cfg->hd_raw_fps;
        return cfg->hd_raw_fps_count;
    }
    *rates = cfg->fps;
    return cfg->fps_count;
}

static struct sim_size nearest_size(const struct sim_config *cfg, uint32_t width, uint32_t height)
{
    struct sim_size best = cfg->sizes[0];
    uint64_t best_distance = UINT64_MAX;
    for (int i = 0; i < cfg->size_count; i++) {
        uint64_t w = cfg->sizes[i].width, h = cfg->sizes[i].height;
        uint64_t overlap = (w < width ? w : width) * (h < height ? h : height);
        uint64_t distance = w * h + (uint64_t)width * height - 2 * overlap;
        if (distance < best_distance) {
            best_distance = distance;
            best = cfg->sizes[i];
        }
    }
    return best;
}

/* The offered interval closest to the wanted one (compared as frame rates). */
static struct v4l2_fract nearest_interval(const struct sim_device *dev, struct v4l2_fract wanted)
{
    const uint32_t *rates;
    int count = rates_for(&dev->config, dev->pixelformat, dev->width, dev->height, &rates);
    double wanted_fps = (wanted.numerator && wanted.denominator)
                            ? (double)wanted.denominator / wanted.numerator
                            : (double)rates[0];
    uint32_t best = rates[0];
    for (int i = 1; i < count; i++) {
        double d = (double)rates[i] - wanted_fps, bd = (double)best - wanted_fps;
        if ((d < 0 ? -d : d) < (bd < 0 ? -bd : bd))
            best = rates[i];
    }
    return (struct v4l2_fract){1, best};
}

void sim_format_defaults(struct sim_device *dev)
{
    dev->pixelformat = dev->config.formats[0];
    dev->width = dev->config.sizes[0].width;
    dev->height = dev->config.sizes[0].height;
    dev->interval = nearest_interval(dev, (struct v4l2_fract){0, 0});
}

static void fill_pix(const struct sim_device *dev, struct v4l2_pix_format *pix, uint32_t fourcc, uint32_t width,
                     uint32_t height)
{
    (void)dev;
    memset(pix, 0, sizeof(*pix));
    pix->width = width;
    pix->height = height;
    pix->pixelformat = fourcc;
    pix->field = V4L2_FIELD_NONE;
    pix->bytesperline = sim_bytesperline(fourcc, width);
    pix->sizeimage = sim_sizeimage(fourcc, width, height);
    pix->colorspace = V4L2_COLORSPACE_SRGB;
    pix->priv = V4L2_PIX_FMT_PRIV_MAGIC;
    pix->ycbcr_enc = V4L2_YCBCR_ENC_601;
    pix->quantization = V4L2_QUANTIZATION_LIM_RANGE;
    pix->xfer_func = V4L2_XFER_FUNC_SRGB;
}

static int enum_fmt(struct sim_device *dev, struct v4l2_fmtdesc *desc)
{
    if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || desc->index >= (uint32_t)dev->config.format_count)
        return -EINVAL;
    uint32_t index = desc->index, fourcc = dev->config.formats[index];
    memset(desc, 0, sizeof(*desc));
    desc->index = index;
    desc->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    desc->pixelformat = fourcc;
    desc->flags = fourcc == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
    strncpy((char *)desc->description, format_description(fourcc), sizeof(desc->description) - 1);
    return 0;
}

static int enum_framesizes(struct sim_device *dev, struct v4l2_frmsizeenum *fs)
{
    if (!has_format(&dev->config, fs->pixel_format) || fs->index >= (uint32_t)dev->config.size_count)
        return -EINVAL;
    struct sim_size size = dev->config.sizes[fs->index];
    uint32_t index = fs->index, fourcc = fs->pixel_format;
    memset(fs, 0, sizeof(*fs));
    fs->index = index;
    fs->pixel_format = fourcc;
    fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
    fs->discrete.width = size.width;
    fs->discrete.height = size.height;
    return 0;
}

static int enum_frameintervals(struct sim_device *dev, struct v4l2_frmivalenum *fi)
{
    if (!has_format(&dev->config, fi->pixel_format) || !has_size(&dev->config, fi->width, fi->height))
        return -EINVAL;
    const uint32_t *rates;
    int count = rates_for(&dev->config, fi->pixel_format, fi->width, fi->height, &rates);
    if (fi->index >= (uint32_t)count)
        return -EINVAL;
    struct v4l2_frmivalenum out = {.index = fi->index, .pixel_format = fi->pixel_format,
                                   .width = fi->width, .height = fi->height, .type = V4L2_FRMIVAL_TYPE_DISCRETE};
    out.discrete = (struct v4l2_fract){1, rates[fi->index]};
    *fi = out;
    return 0;
}

/* TRY_FMT and S_FMT: snap to what the device offers; S_FMT also applies it. */
static int try_or_set_fmt(struct sim_device *dev, struct v4l2_format *fmt, bool apply)
{
    if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
        return -EINVAL;
    uint32_t fourcc = fmt->fmt.pix.pixelformat;
    if (!has_format(&dev->config, fourcc))
        fourcc = dev->config.formats[0];
    struct sim_size size = nearest_size(&dev->config, fmt->fmt.pix.width, fmt->fmt.pix.height);
    if (apply && dev->queue.count > 0)
        return -EBUSY;
    fill_pix(dev, &fmt->fmt.pix, fourcc, size.width, size.height);
    if (apply) {
        dev->pixelformat = fourcc;
        dev->width = size.width;
        dev->height = size.height;
        dev->interval = nearest_interval(dev, dev->interval);
    }
    return 0;
}

static int g_parm(struct sim_device *dev, struct v4l2_streamparm *parm)
{
    if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
        return -EINVAL;
    memset(&parm->parm, 0, sizeof(parm->parm));
    parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    parm->parm.capture.timeperframe = dev->interval;
    parm->parm.capture.readbuffers = SIM_MIN_BUFFERS;
    return 0;
}

static int s_parm(struct sim_device *dev, struct v4l2_streamparm *parm)
{
    if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
        return -EINVAL;
    if (dev->queue.streaming)
        return -EBUSY;
    dev->interval = nearest_interval(dev, parm->parm.capture.timeperframe);
    return g_parm(dev, parm);
}

int sim_ioctl_format(struct sim_device *dev, unsigned long request, void *arg)
{
    switch (request) {
    case VIDIOC_ENUM_FMT:
        return enum_fmt(dev, arg);
    case VIDIOC_ENUM_FRAMESIZES:
        return enum_framesizes(dev, arg);
    case VIDIOC_ENUM_FRAMEINTERVALS:
        return enum_frameintervals(dev, arg);
    case VIDIOC_G_FMT: {
        struct v4l2_format *fmt = arg;
        if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
            return -EINVAL;
        fill_pix(dev, &fmt->fmt.pix, dev->pixelformat, dev->width, dev->height);
        return 0;
    }
    case VIDIOC_TRY_FMT:
        return try_or_set_fmt(dev, arg, false);
    case VIDIOC_S_FMT:
        return try_or_set_fmt(dev, arg, true);
    case VIDIOC_G_PARM:
        return g_parm(dev, arg);
    case VIDIOC_S_PARM:
        return s_parm(dev, arg);
    default:
        return -ENOTTY;
    }
}
