/*
 * encoder.c — a simulated stateful M2M H.264 encoder, modelled on the Raspberry Pi's
 * bcm2835-codec encode node (/dev/video11), encoding with libx264.
 *
 * Why: livepush picks h264_v4l2m2m when such an encoder works, repeats SPS/PPS itself
 * and drives keyframes and bitrate through the node's controls; none of that can run
 * here without a Pi. The node answers what FFmpeg's h264_v4l2m2m and v4l2-ctl ask:
 *
 *   QUERYCAP      VIDEO_M2M_MPLANE | STREAMING | EXT_PIX_FORMAT, driver bcm2835-codec
 *   OUTPUT queue  (raw in)  YUV420 or NV12, one plane (chroma right after bytesperline x height),
 *                 bytesperline aligned to 64 (YUV420) or 32 (NV12), 32x32 ... 1920x1920
 *   CAPTURE queue (coded)   H264, sizeimage at least 512 KiB (768 KiB above 1280x720)
 *   REQBUFS       MMAP, 1 ... 32 buffers per queue
 *   controls      bitrate 25 kbit/s ... 25 Mbit/s step 25000, bitrate mode VBR/CBR, profile
 *                 (up to High), level (up to 4.2), H264 I-period, min/max QP, repeat_seq_header,
 *                 force_key_frame, B-frames 0 only: the driver's original set. Newer kernels add
 *                 GOP_SIZE (an alias of the I-period), HEADER_MODE and levels to 5.1; here those
 *                 get EINVAL, the case a client must survive.
 *   commands      ENCODER_CMD STOP drains: the next CAPTURE buffer carries FLAG_LAST, then EPIPE
 *   events        EOS and SOURCE_CHANGE subscriptions accepted
 *
 * Its quirk, as on the Pi: SPS/PPS are written once, in front of the first IDR of a
 * stream (the first CAPTURE buffer); later IDRs carry none unless repeat_seq_header is 1.
 *
 * Each open is its own encoder context with its own queues and controls, as each open
 * of an M2M node is in the kernel. Frames are encoded synchronously when both an OUTPUT
 * and a CAPTURE buffer are queued (the driver's device_run). The fault "NODE wedge"
 * makes the encoder keep returning OUTPUT buffers and never fill a CAPTURE buffer.
 *
 * LIVEPUSH_SIM_ENC_LOG=FILE appends one line per event a test checks: "open NODE",
 * "streamon NODE output|capture", "ctrl NODE bitrate=N", "ctrl NODE force-key-frame",
 * "frame NODE seq=N idr=0|1 sps=0|1 bytes=N".
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x264.h>

#define ENC_MIN_SIZE 32u
#define ENC_MAX_SIZE 1920u
#define ENC_MIN_BUFFERS 1u
#define ENC_CAPTURE_OFFSET_BASE 0x40000000u /* mmap offsets of CAPTURE buffers start here */
#define ENC_CODED_SIZE_SMALL (512u * 1024u)
#define ENC_CODED_SIZE_LARGE (768u * 1024u)

struct enc_buffer {
    bool queued;
    bool done;
    bool mapped;
    uint32_t bytesused;
    uint32_t flags;
    uint32_t sequence;
    struct timeval timestamp;
};

struct enc_queue {
    uint32_t type;
    int memfd;
    uint8_t *memory;
    size_t stride;
    uint32_t count;
    uint32_t offset_base;
    bool streaming;
    struct enc_buffer buffers[SIM_MAX_BUFFERS];
    uint32_t queued_fifo[SIM_MAX_BUFFERS];
    uint32_t queued_len;
    uint32_t done_fifo[SIM_MAX_BUFFERS];
    uint32_t done_len;
    uint32_t sequence;
};

struct sim_encoder {
    struct sim_device *dev;
    int fd;
    uint32_t raw_fourcc;
    uint32_t width, height;
    uint32_t coded_sizeimage;
    struct v4l2_fract interval;
    int32_t controls[SIM_ENC_CONTROL_COUNT];
    struct enc_queue out, cap;
    x264_t *x264;
    int32_t x264_bitrate;
    bool headers_sent;
    bool force_idr;
    bool draining;
    bool last_sent;
    bool signalled;
};

static uint32_t align_up(uint32_t v, uint32_t a)
{
    return (v + a - 1) / a * a;
}

/* The encode role aligns YUV420 rows to 64 bytes and NV12 rows to 32; heights are not aligned. */
static uint32_t raw_bytesperline(const struct sim_encoder *e)
{
    return align_up(e->width, e->raw_fourcc == V4L2_PIX_FMT_NV12 ? 32 : 64);
}

static uint32_t raw_sizeimage(const struct sim_encoder *e)
{
    return raw_bytesperline(e) * e->height * 3 / 2;
}

#define enc_log(e, ...) sim_event_log("LIVEPUSH_SIM_ENC_LOG", (e)->dev->config.path, __VA_ARGS__)

static int32_t control(const struct sim_encoder *e, uint32_t id)
{
    return sim_encoder_control_value(e->controls, id);
}

/* ---- readiness (what v4l2_m2m_poll reports), kept in the eventfd as 0 or 1 ---- */

short sim_encoder_revents(const struct sim_encoder *e)
{
    if (!e->out.streaming && !e->cap.streaming)
        return POLLERR;
    short r = 0;
    if (e->cap.streaming && (e->cap.done_len > 0 || e->last_sent))
        r |= POLLIN | POLLRDNORM;
    if (e->out.streaming && e->out.done_len > 0)
        r |= POLLOUT | POLLWRNORM;
    return r;
}

static void enc_signal(struct sim_encoder *e)
{
    bool ready = (sim_encoder_revents(e) & (POLLIN | POLLOUT)) != 0;
    uint64_t one = 1;
    if (ready && !e->signalled)
        e->signalled = write(e->fd, &one, sizeof(one)) == sizeof(one);
    else if (!ready && e->signalled)
        e->signalled = sim_real.read(e->fd, &one, sizeof(one)) != sizeof(one);
    pthread_cond_broadcast(&sim_cond);
}

/* ---- queues ---- */

static struct enc_queue *queue_for(struct sim_encoder *e, uint32_t type)
{
    if (type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE)
        return &e->out;
    if (type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE)
        return &e->cap;
    return NULL;
}

static void queue_stop(struct enc_queue *q)
{
    q->streaming = false;
    q->queued_len = q->done_len = 0;
    for (uint32_t i = 0; i < q->count; i++)
        q->buffers[i].queued = q->buffers[i].done = false;
}

static void queue_release(struct enc_queue *q)
{
    queue_stop(q);
    if (q->memory)
        munmap(q->memory, q->stride * q->count);
    if (q->memfd >= 0)
        sim_real.close(q->memfd);
    q->memory = NULL;
    q->memfd = -1;
    q->count = 0;
}

static void fifo_push(uint32_t *fifo, uint32_t *len, uint32_t index)
{
    fifo[(*len)++] = index;
}

static uint32_t fifo_pop(uint32_t *fifo, uint32_t *len)
{
    uint32_t index = fifo[0];
    memmove(fifo, fifo + 1, --*len * sizeof(fifo[0]));
    return index;
}

static uint32_t queue_sizeimage(const struct sim_encoder *e, const struct enc_queue *q)
{
    return q == &e->out ? raw_sizeimage(e) : e->coded_sizeimage;
}

static int reqbufs(struct sim_encoder *e, struct v4l2_requestbuffers *req)
{
    struct enc_queue *q = queue_for(e, req->type);
    if (!q || req->memory != V4L2_MEMORY_MMAP)
        return -EINVAL;
    if (q->streaming || e->dev->faults.busy_reqbufs)
        return -EBUSY;
    queue_release(q);
    req->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
    req->flags = 0;
    memset(req->reserved, 0, sizeof(req->reserved));
    if (req->count == 0)
        return 0;
    uint32_t count = req->count < ENC_MIN_BUFFERS ? ENC_MIN_BUFFERS : req->count > SIM_MAX_BUFFERS ? SIM_MAX_BUFFERS
                                                                                                   : req->count;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t stride = (queue_sizeimage(e, q) + page - 1) / page * page;
    int memfd = memfd_create("v4l2sim-encoder", MFD_CLOEXEC);
    if (memfd < 0 || ftruncate(memfd, (off_t)(stride * count)) < 0) {
        if (memfd >= 0)
            sim_real.close(memfd);
        return -ENOMEM;
    }
    void *memory = sim_real.mmap(NULL, stride * count, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (memory == MAP_FAILED) {
        sim_real.close(memfd);
        return -ENOMEM;
    }
    memset(q->buffers, 0, sizeof(q->buffers));
    q->memfd = memfd;
    q->memory = memory;
    q->stride = stride;
    q->count = count;
    req->count = count;
    return 0;
}

static int check_buffer(struct sim_encoder *e, const struct v4l2_buffer *buf, struct enc_queue **q)
{
    *q = queue_for(e, buf->type);
    if (!*q || buf->memory != V4L2_MEMORY_MMAP || !buf->m.planes || buf->length < 1)
        return -EINVAL;
    return buf->index < (*q)->count ? 0 : -EINVAL;
}

static void fill_buffer(const struct sim_encoder *e, const struct enc_queue *q, uint32_t index, struct v4l2_buffer *buf)
{
    const struct enc_buffer *b = &q->buffers[index];
    struct v4l2_plane *plane = buf->m.planes;
    uint32_t type = buf->type;
    memset(buf, 0, offsetof(struct v4l2_buffer, m));
    buf->index = index;
    buf->type = type;
    buf->memory = V4L2_MEMORY_MMAP;
    buf->field = V4L2_FIELD_NONE;
    buf->flags = b->flags | V4L2_BUF_FLAG_TIMESTAMP_COPY | (b->mapped ? V4L2_BUF_FLAG_MAPPED : 0) |
                 (b->queued ? V4L2_BUF_FLAG_QUEUED : 0) | (b->done ? V4L2_BUF_FLAG_DONE : 0);
    buf->sequence = b->sequence;
    buf->timestamp = b->timestamp;
    buf->m.planes = plane;
    buf->length = 1;
    memset(plane, 0, sizeof(*plane));
    plane->bytesused = b->bytesused;
    plane->length = queue_sizeimage(e, q);
    plane->m.mem_offset = q->offset_base + (uint32_t)(index * q->stride);
}

/* ---- encoding (device_run) ---- */

static const int level_idc[] = {10, 9, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42};

static const char *profile_name(int32_t profile)
{
    switch (profile) {
    case V4L2_MPEG_VIDEO_H264_PROFILE_BASELINE:
    case V4L2_MPEG_VIDEO_H264_PROFILE_CONSTRAINED_BASELINE:
        return "baseline";
    case V4L2_MPEG_VIDEO_H264_PROFILE_MAIN:
        return "main";
    default:
        return "high";
    }
}

static void rate_control(const struct sim_encoder *e, x264_param_t *p)
{
    int kbps = control(e, V4L2_CID_MPEG_VIDEO_BITRATE) / 1000;
    bool cbr = control(e, V4L2_CID_MPEG_VIDEO_BITRATE_MODE) == V4L2_MPEG_VIDEO_BITRATE_MODE_CBR;
    p->rc.i_rc_method = X264_RC_ABR;
    p->rc.i_bitrate = kbps;
    p->rc.i_vbv_max_bitrate = cbr ? kbps : kbps * 3 / 2;
    p->rc.i_vbv_buffer_size = kbps;
}

static bool x264_start(struct sim_encoder *e)
{
    x264_param_t p;
    if (x264_param_default_preset(&p, "ultrafast", "zerolatency") < 0)
        return false;
    p.i_threads = 1;
    p.i_width = (int)e->width;
    p.i_height = (int)e->height;
    p.i_csp = e->raw_fourcc == V4L2_PIX_FMT_NV12 ? X264_CSP_NV12 : X264_CSP_I420;
    p.i_fps_num = e->interval.denominator;
    p.i_fps_den = e->interval.numerator;
    int32_t period = control(e, V4L2_CID_MPEG_VIDEO_H264_I_PERIOD);
    p.i_keyint_max = period > 0 ? period : X264_KEYINT_MAX_INFINITE;
    p.i_keyint_min = 1;
    p.i_scenecut_threshold = 0;
    p.b_repeat_headers = 0; /* SPS/PPS are placed by hand: only in front of the first IDR */
    p.b_annexb = 1;
    p.i_log_level = X264_LOG_NONE;
    p.i_level_idc = level_idc[control(e, V4L2_CID_MPEG_VIDEO_H264_LEVEL)];
    p.rc.i_qp_min = control(e, V4L2_CID_MPEG_VIDEO_H264_MIN_QP);
    p.rc.i_qp_max = control(e, V4L2_CID_MPEG_VIDEO_H264_MAX_QP);
    rate_control(e, &p);
    if (x264_param_apply_profile(&p, profile_name(control(e, V4L2_CID_MPEG_VIDEO_H264_PROFILE))) < 0)
        return false;
    e->x264 = x264_encoder_open(&p);
    e->x264_bitrate = control(e, V4L2_CID_MPEG_VIDEO_BITRATE);
    return e->x264 != NULL;
}

/* A bitrate change reaches the running encoder, as the firmware applies it between frames. */
static void x264_follow_bitrate(struct sim_encoder *e)
{
    if (control(e, V4L2_CID_MPEG_VIDEO_BITRATE) == e->x264_bitrate)
        return;
    x264_param_t p;
    x264_encoder_parameters(e->x264, &p);
    rate_control(e, &p);
    x264_encoder_reconfig(e->x264, &p);
    e->x264_bitrate = control(e, V4L2_CID_MPEG_VIDEO_BITRATE);
}

/* Appends the SPS and PPS NAL units of the stream to out; returns the bytes written. */
static size_t write_headers(struct sim_encoder *e, uint8_t *out, size_t capacity)
{
    x264_nal_t *nals;
    int count, size = 0;
    if (x264_encoder_headers(e->x264, &nals, &count) < 0)
        return 0;
    for (int i = 0; i < count; i++) {
        if ((nals[i].i_type != NAL_SPS && nals[i].i_type != NAL_PPS) || size + nals[i].i_payload > (int)capacity)
            continue;
        memcpy(out + size, nals[i].p_payload, (size_t)nals[i].i_payload);
        size += nals[i].i_payload;
    }
    return (size_t)size;
}

static void encode_one(struct sim_encoder *e, uint32_t in, uint32_t outi)
{
    struct enc_buffer *ib = &e->out.buffers[in], *ob = &e->cap.buffers[outi];
    uint8_t *src = e->out.memory + in * e->out.stride, *dst = e->cap.memory + outi * e->cap.stride;
    size_t capacity = e->coded_sizeimage, used = 0;
    bool idr = false, sps = false;
    ob->flags = 0;
    if (!e->x264 && !x264_start(e)) {
        ob->flags = V4L2_BUF_FLAG_ERROR;
    } else {
        x264_follow_bitrate(e);
        x264_picture_t pic, pic_out;
        x264_picture_init(&pic);
        uint32_t bpl = raw_bytesperline(e), rows = e->height;
        pic.img.i_csp = e->raw_fourcc == V4L2_PIX_FMT_NV12 ? X264_CSP_NV12 : X264_CSP_I420;
        pic.img.i_plane = e->raw_fourcc == V4L2_PIX_FMT_NV12 ? 2 : 3;
        pic.img.plane[0] = src;
        pic.img.i_stride[0] = (int)bpl;
        pic.img.plane[1] = src + bpl * rows;
        pic.img.i_stride[1] = (int)(e->raw_fourcc == V4L2_PIX_FMT_NV12 ? bpl : bpl / 2);
        pic.img.plane[2] = pic.img.plane[1] + bpl / 2 * rows / 2;
        pic.img.i_stride[2] = (int)(bpl / 2);
        pic.i_pts = e->out.sequence;
        pic.i_type = e->force_idr ? X264_TYPE_IDR : X264_TYPE_AUTO;
        e->force_idr = false;
        x264_nal_t *nals;
        int count;
        int size = x264_encoder_encode(e->x264, &nals, &count, &pic, &pic_out);
        idr = size > 0 && pic_out.i_type == X264_TYPE_IDR;
        if (size > 0 && (size_t)size <= capacity) {
            memcpy(dst, nals[0].p_payload, (size_t)size); /* x264 keeps a frame's NALs contiguous */
            used = (size_t)size;
        } else if (size > 0) {
            ob->flags = V4L2_BUF_FLAG_ERROR;
        }
        if (idr && (!e->headers_sent || control(e, V4L2_CID_MPEG_VIDEO_REPEAT_SEQ_HEADER))) {
            /* after the copy: x264_encoder_headers reuses the buffer the frame's NALs were in */
            uint8_t headers[1024];
            size_t n = write_headers(e, headers, sizeof(headers));
            if (n > 0 && used + n <= capacity) {
                memmove(dst + n, dst, used);
                memcpy(dst, headers, n);
                used += n;
                sps = true;
            }
            e->headers_sent = true;
        }
        ob->flags |= idr ? V4L2_BUF_FLAG_KEYFRAME : V4L2_BUF_FLAG_PFRAME;
    }
    ob->bytesused = (uint32_t)used;
    ob->timestamp = ib->timestamp;
    ob->sequence = e->cap.sequence++;
    enc_log(e, "frame seq=%u idr=%d sps=%d bytes=%zu", ob->sequence, idr, sps, used);
}

static void finish(struct enc_queue *q, uint32_t index)
{
    q->buffers[index].queued = false;
    q->buffers[index].done = true;
    fifo_push(q->done_fifo, &q->done_len, index);
}

/* Encodes while both queues stream and hold buffers; then completes a pending drain. */
static void device_run(struct sim_encoder *e)
{
    while (e->out.streaming && e->cap.streaming && e->out.queued_len > 0) {
        bool wedged = e->dev->faults.wedge;
        if (!wedged && e->cap.queued_len == 0)
            break;
        uint32_t in = fifo_pop(e->out.queued_fifo, &e->out.queued_len);
        if (!wedged) {
            uint32_t outi = fifo_pop(e->cap.queued_fifo, &e->cap.queued_len);
            encode_one(e, in, outi);
            finish(&e->cap, outi);
        }
        e->out.buffers[in].sequence = e->out.sequence++;
        finish(&e->out, in);
    }
    if (e->draining && !e->last_sent && e->out.queued_len == 0 && e->cap.queued_len > 0 && !e->dev->faults.wedge) {
        uint32_t outi = fifo_pop(e->cap.queued_fifo, &e->cap.queued_len);
        e->cap.buffers[outi].bytesused = 0;
        e->cap.buffers[outi].flags = V4L2_BUF_FLAG_LAST;
        e->cap.buffers[outi].sequence = e->cap.sequence++;
        finish(&e->cap, outi);
        e->last_sent = true;
    }
}

static int qbuf(struct sim_encoder *e, struct v4l2_buffer *buf)
{
    struct enc_queue *q;
    int rc = check_buffer(e, buf, &q);
    if (rc)
        return rc;
    struct enc_buffer *b = &q->buffers[buf->index];
    if (b->queued || b->done)
        return -EINVAL;
    if (q == &e->out) {
        uint32_t used = buf->m.planes[0].bytesused;
        b->bytesused = used ? used : raw_sizeimage(e);
        b->timestamp = buf->timestamp;
    } else {
        b->bytesused = 0;
    }
    b->queued = true;
    b->flags = 0;
    fifo_push(q->queued_fifo, &q->queued_len, buf->index);
    fill_buffer(e, q, buf->index, buf);
    device_run(e);
    return 0;
}

static bool nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && (flags & O_NONBLOCK);
}

static int dqbuf(struct sim_encoder *e, struct v4l2_buffer *buf)
{
    struct enc_queue *q = queue_for(e, buf->type);
    if (!q || buf->memory != V4L2_MEMORY_MMAP || !buf->m.planes || buf->length < 1)
        return -EINVAL;
    for (;;) {
        if (!q->streaming)
            return -EINVAL;
        if (q->done_len > 0)
            break;
        if (q == &e->cap && e->last_sent)
            return -EPIPE;
        if (nonblocking(e->fd))
            return -EAGAIN;
        pthread_cond_wait(&sim_cond, &sim_lock);
    }
    uint32_t index = fifo_pop(q->done_fifo, &q->done_len);
    q->buffers[index].done = false;
    fill_buffer(e, q, index, buf);
    return 0;
}

static int stream(struct sim_encoder *e, const int *type, bool on)
{
    struct enc_queue *q = queue_for(e, (uint32_t)*type);
    if (!q)
        return -EINVAL;
    if (on) {
        if (e->dev->faults.busy_streamon)
            return -EBUSY;
        if (q->count == 0)
            return -EINVAL;
        if (!q->streaming)
            enc_log(e, "streamon %s", q == &e->out ? "output" : "capture");
        q->streaming = true;
        device_run(e);
        return 0;
    }
    queue_stop(q);
    if (q == &e->cap)
        e->draining = e->last_sent = false;
    return 0;
}

/* ---- formats ---- */

static const uint32_t raw_formats[] = {V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_NV12};

static int enum_fmt(struct v4l2_fmtdesc *f)
{
    uint32_t index = f->index, type = f->type;
    const char *desc;
    uint32_t fourcc, flags = 0;
    if (type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE && index < 2) {
        fourcc = raw_formats[index];
        desc = index == 0 ? "Planar YUV 4:2:0" : "Y/UV 4:2:0";
    } else if (type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE && index == 0) {
        fourcc = V4L2_PIX_FMT_H264;
        desc = "H.264";
        flags = V4L2_FMT_FLAG_COMPRESSED;
    } else {
        return -EINVAL;
    }
    memset(f, 0, sizeof(*f));
    f->index = index;
    f->type = type;
    f->flags = flags;
    f->pixelformat = fourcc;
    strncpy((char *)f->description, desc, sizeof(f->description) - 1);
    return 0;
}

static uint32_t clamp_size(uint32_t v)
{
    v = v < ENC_MIN_SIZE ? ENC_MIN_SIZE : v > ENC_MAX_SIZE ? ENC_MAX_SIZE : v;
    return v & ~1u;
}

static void fill_format(const struct sim_encoder *e, struct v4l2_format *f)
{
    uint32_t type = f->type;
    struct v4l2_pix_format_mplane *mp = &f->fmt.pix_mp;
    memset(&f->fmt, 0, sizeof(f->fmt));
    f->type = type;
    mp->width = e->width;
    mp->height = e->height;
    mp->field = V4L2_FIELD_NONE;
    mp->colorspace = V4L2_COLORSPACE_REC709;
    mp->num_planes = 1;
    if (type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE) {
        mp->pixelformat = e->raw_fourcc;
        mp->plane_fmt[0].bytesperline = raw_bytesperline(e);
        mp->plane_fmt[0].sizeimage = raw_sizeimage(e);
    } else {
        mp->pixelformat = V4L2_PIX_FMT_H264;
        mp->plane_fmt[0].sizeimage = e->coded_sizeimage;
    }
}

static uint32_t default_coded_size(uint32_t width, uint32_t height)
{
    return width * height > 1280u * 720u ? ENC_CODED_SIZE_LARGE : ENC_CODED_SIZE_SMALL;
}

/* TRY_FMT (apply false) and S_FMT: sizes clamp and snap, unknown raw fourcc -> YUV420. */
static int set_format(struct sim_encoder *e, struct v4l2_format *f, bool apply)
{
    struct enc_queue *q = queue_for(e, f->type);
    if (!q)
        return -EINVAL;
    struct v4l2_pix_format_mplane *mp = &f->fmt.pix_mp;
    struct sim_encoder next = *e;
    if (q == &e->out) {
        next.width = clamp_size(mp->width);
        next.height = clamp_size(mp->height);
        next.raw_fourcc = mp->pixelformat == V4L2_PIX_FMT_NV12 ? V4L2_PIX_FMT_NV12 : V4L2_PIX_FMT_YUV420;
        next.coded_sizeimage = default_coded_size(next.width, next.height);
    } else {
        uint32_t want = mp->plane_fmt[0].sizeimage, floor = default_coded_size(e->width, e->height);
        next.coded_sizeimage = want > floor ? align_up(want, 4096) : floor;
    }
    if (apply && (q->count > 0 || q->streaming))
        return -EBUSY;
    fill_format(&next, f);
    if (apply) {
        e->width = next.width;
        e->height = next.height;
        e->raw_fourcc = next.raw_fourcc;
        e->coded_sizeimage = next.coded_sizeimage;
    }
    return 0;
}

static int frame_sizes(struct v4l2_frmsizeenum *s)
{
    if (s->index != 0 || (s->pixel_format != V4L2_PIX_FMT_H264 && s->pixel_format != V4L2_PIX_FMT_YUV420 &&
                          s->pixel_format != V4L2_PIX_FMT_NV12))
        return -EINVAL;
    s->type = V4L2_FRMSIZE_TYPE_STEPWISE;
    s->stepwise = (struct v4l2_frmsize_stepwise){ENC_MIN_SIZE, ENC_MAX_SIZE, 2, ENC_MIN_SIZE, ENC_MAX_SIZE, 2};
    return 0;
}

static int parm(struct sim_encoder *e, struct v4l2_streamparm *p, bool set)
{
    if (p->type != V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE)
        return -EINVAL;
    struct v4l2_fract want = p->parm.output.timeperframe;
    if (set && want.numerator && want.denominator)
        e->interval = want;
    memset(&p->parm, 0, sizeof(p->parm));
    p->parm.output.capability = V4L2_CAP_TIMEPERFRAME;
    p->parm.output.timeperframe = e->interval;
    return 0;
}

/* ---- controls: S_CTRL / S_EXT_CTRLS of force_key_frame and bitrate are logged ---- */

static bool request_sets(unsigned long request, void *arg, uint32_t id)
{
    if (request == VIDIOC_S_CTRL)
        return ((struct v4l2_control *)arg)->id == id;
    if (request != VIDIOC_S_EXT_CTRLS)
        return false;
    const struct v4l2_ext_controls *ec = arg;
    for (uint32_t i = 0; ec->controls && i < ec->count && i < 1024; i++)
        if (ec->controls[i].id == id)
            return true;
    return false;
}

static int controls(struct sim_encoder *e, unsigned long request, void *arg)
{
    int rc = sim_ioctl_encoder_control(e->controls, request, arg);
    if (rc != 0)
        return rc;
    if (request_sets(request, arg, V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME)) {
        e->force_idr = true;
        enc_log(e, "ctrl force-key-frame");
    }
    if (request_sets(request, arg, V4L2_CID_MPEG_VIDEO_BITRATE))
        enc_log(e, "ctrl bitrate=%d", control(e, V4L2_CID_MPEG_VIDEO_BITRATE));
    return 0;
}

/* ---- the node ---- */

static int querycap(const struct sim_encoder *e, struct v4l2_capability *cap)
{
    const uint32_t caps = V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_STREAMING | V4L2_CAP_EXT_PIX_FORMAT;
    memset(cap, 0, sizeof(*cap));
    snprintf((char *)cap->driver, sizeof(cap->driver), "bcm2835-codec");
    snprintf((char *)cap->card, sizeof(cap->card), "%s", e->dev->config.card);
    snprintf((char *)cap->bus_info, sizeof(cap->bus_info), "%s", e->dev->config.bus_info);
    cap->version = 0x060100;
    cap->device_caps = caps;
    cap->capabilities = caps | V4L2_CAP_DEVICE_CAPS;
    return 0;
}

static int encoder_cmd(struct sim_encoder *e, struct v4l2_encoder_cmd *cmd, bool apply)
{
    if (cmd->cmd != V4L2_ENC_CMD_STOP && cmd->cmd != V4L2_ENC_CMD_START)
        return -EINVAL;
    cmd->flags = 0;
    if (!apply)
        return 0;
    if (cmd->cmd == V4L2_ENC_CMD_STOP)
        e->draining = true;
    else
        e->draining = e->last_sent = false;
    device_run(e);
    return 0;
}

static int dispatch(struct sim_encoder *e, unsigned long request, void *arg)
{
    switch (request) {
    case VIDIOC_QUERYCAP:
        return querycap(e, arg);
    case VIDIOC_ENUM_FMT:
        return enum_fmt(arg);
    case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (!queue_for(e, f->type))
            return -EINVAL;
        fill_format(e, f);
        return 0;
    }
    case VIDIOC_TRY_FMT:
    case VIDIOC_S_FMT:
        return set_format(e, arg, request == VIDIOC_S_FMT);
    case VIDIOC_ENUM_FRAMESIZES:
        return frame_sizes(arg);
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM:
        return parm(e, arg, request == VIDIOC_S_PARM);
    case VIDIOC_REQBUFS:
        return reqbufs(e, arg);
    case VIDIOC_QUERYBUF: {
        struct enc_queue *q;
        int rc = check_buffer(e, arg, &q);
        if (rc == 0)
            fill_buffer(e, q, ((struct v4l2_buffer *)arg)->index, arg);
        return rc;
    }
    case VIDIOC_QBUF:
        return qbuf(e, arg);
    case VIDIOC_DQBUF:
        return dqbuf(e, arg);
    case VIDIOC_STREAMON:
    case VIDIOC_STREAMOFF:
        return stream(e, arg, request == VIDIOC_STREAMON);
    case VIDIOC_ENCODER_CMD:
    case VIDIOC_TRY_ENCODER_CMD:
        return encoder_cmd(e, arg, request == VIDIOC_ENCODER_CMD);
    case VIDIOC_SUBSCRIBE_EVENT:
    case VIDIOC_UNSUBSCRIBE_EVENT: {
        const struct v4l2_event_subscription *sub = arg;
        return sub->type == V4L2_EVENT_EOS || sub->type == V4L2_EVENT_SOURCE_CHANGE ||
                       (request == VIDIOC_UNSUBSCRIBE_EVENT && sub->type == V4L2_EVENT_ALL)
                   ? 0
                   : -EINVAL;
    }
    case VIDIOC_DQEVENT:
        return -ENOENT;
    case VIDIOC_G_PRIORITY:
        *(enum v4l2_priority *)arg = V4L2_PRIORITY_DEFAULT;
        return 0;
    default:
        return controls(e, request, arg);
    }
}

/* Caller holds sim_lock. */
int sim_encoder_ioctl(struct sim_encoder *e, unsigned long request, void *arg)
{
    int rc = dispatch(e, request, arg);
    enc_signal(e);
    return rc;
}

void *sim_encoder_mmap(struct sim_encoder *e, void *addr, size_t length, int prot, int flags, off_t offset)
{
    struct enc_queue *q = (uint64_t)offset >= ENC_CAPTURE_OFFSET_BASE ? &e->cap : &e->out;
    uint64_t rel = (uint64_t)offset - q->offset_base;
    uint64_t index = q->stride ? rel / q->stride : UINT64_MAX;
    if (!(flags & MAP_SHARED) || index >= q->count || rel != index * q->stride || length == 0 || length > q->stride) {
        errno = EINVAL;
        return MAP_FAILED;
    }
    void *p = sim_real.mmap(addr, length, prot, flags, q->memfd, (off_t)rel);
    if (p != MAP_FAILED)
        q->buffers[index].mapped = true;
    return p;
}

/* Caller holds sim_lock. */
struct sim_encoder *sim_encoder_open(struct sim_device *dev, int fd)
{
    struct sim_encoder *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->dev = dev;
    e->fd = fd;
    e->raw_fourcc = V4L2_PIX_FMT_YUV420;
    e->width = 1280;
    e->height = 720;
    e->coded_sizeimage = default_coded_size(e->width, e->height);
    e->interval = (struct v4l2_fract){1, 30};
    e->out = (struct enc_queue){.type = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE, .memfd = -1};
    e->cap = (struct enc_queue){.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, .memfd = -1,
                                .offset_base = ENC_CAPTURE_OFFSET_BASE};
    sim_encoder_controls_defaults(e->controls);
    enc_log(e, "open");
    return e;
}

/* Caller holds sim_lock. */
void sim_encoder_close(struct sim_encoder *e)
{
    queue_release(&e->out);
    queue_release(&e->cap);
    if (e->x264)
        x264_encoder_close(e->x264);
    pthread_cond_broadcast(&sim_cond);
    free(e);
}
