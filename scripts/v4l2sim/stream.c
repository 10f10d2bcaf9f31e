/*
 * stream.c — MMAP streaming I/O (REQBUFS, QUERYBUF, QBUF, DQBUF, STREAMON/OFF),
 * read() I/O, and the clock thread that fills buffers on the wall clock.
 *
 * Buffers live in one memfd per device queue; mmap of the fake fd maps the memfd at
 * the buffer's offset, so the client sees what the clock thread writes. The clock
 * thread wakes at each frame's due time (CLOCK_MONOTONIC, negotiated interval),
 * fills the oldest queued buffer, stamps it (TIMESTAMP_MONOTONIC, sequence) and
 * bumps the owner's eventfd so poll/select see it. Sequence numbers count every
 * frame the "sensor" produced, including those lost for want of a queued buffer.
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC 1000000000ull
#define CLOCK_IDLE_TICK_NS 20000000ull /* fault-file poll period when no frame is due */

uint64_t sim_now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t interval_ns(const struct sim_device *dev)
{
    return (uint64_t)dev->interval.numerator * NS_PER_SEC / dev->interval.denominator;
}

static bool client_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && (flags & O_NONBLOCK);
}

static void eventfd_add(int fd, uint64_t n)
{
    if (n && write(fd, &n, sizeof(n)) != sizeof(n))
        SIM_LOG("eventfd write failed: %s\n", strerror(errno));
}

static void eventfd_take(int fd, uint32_t n)
{
    uint64_t one;
    for (uint32_t i = 0; i < n; i++)
        if (sim_real.read(fd, &one, sizeof(one)) != sizeof(one))
            break;
}

/* Stops streaming; every buffer goes back to the application (dequeued state). */
static void queue_stop(struct sim_device *dev, bool drain_eventfd)
{
    struct sim_queue *q = &dev->queue;
    if (drain_eventfd && q->owner_fd >= 0)
        eventfd_take(q->owner_fd, q->done_len);
    q->streaming = false;
    q->queued_len = q->done_len = 0;
    for (uint32_t i = 0; i < q->count; i++)
        q->buffers[i].queued = q->buffers[i].done = false;
    pthread_cond_broadcast(&sim_cond);
}

void sim_queue_release(struct sim_device *dev)
{
    struct sim_queue *q = &dev->queue;
    queue_stop(dev, false);
    if (q->memory)
        munmap(q->memory, q->buffer_stride * q->count);
    if (q->memfd >= 0)
        sim_real.close(q->memfd);
    q->memory = NULL;
    q->memfd = -1;
    q->count = 0;
    q->owner_fd = -1;
}

static int reqbufs(struct sim_file *file, struct sim_device *dev, struct v4l2_requestbuffers *req)
{
    struct sim_queue *q = &dev->queue;
    if (req->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || req->memory != V4L2_MEMORY_MMAP)
        return -EINVAL;
    if (dev->faults.busy_reqbufs || (q->owner_fd >= 0 && q->owner_fd != file->fd) || q->streaming)
        return -EBUSY;
    if (q->owner_fd == file->fd)
        sim_queue_release(dev);
    req->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
    req->flags = 0;
    memset(req->reserved, 0, sizeof(req->reserved));
    if (req->count == 0)
        return 0;
    uint32_t count = req->count < SIM_MIN_BUFFERS ? SIM_MIN_BUFFERS : req->count > SIM_MAX_BUFFERS ? SIM_MAX_BUFFERS
                                                                                                  : req->count;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t stride = (sim_sizeimage(dev->pixelformat, dev->width, dev->height) + page - 1) / page * page;
    int memfd = memfd_create("v4l2sim-buffers", MFD_CLOEXEC);
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
    q->buffer_stride = stride;
    q->count = count;
    q->owner_fd = file->fd;
    req->count = count;
    return 0;
}

static void fill_buffer(const struct sim_device *dev, uint32_t index, struct v4l2_buffer *buf)
{
    const struct sim_buffer *b = &dev->queue.buffers[index];
    memset(buf, 0, sizeof(*buf));
    buf->index = index;
    buf->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf->memory = V4L2_MEMORY_MMAP;
    buf->field = V4L2_FIELD_NONE;
    buf->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
    buf->flags |= (b->mapped ? V4L2_BUF_FLAG_MAPPED : 0) | (b->queued ? V4L2_BUF_FLAG_QUEUED : 0) |
                  (b->done ? V4L2_BUF_FLAG_DONE : 0);
    buf->bytesused = b->bytesused;
    buf->sequence = b->sequence;
    buf->timestamp = b->timestamp;
    buf->m.offset = (uint32_t)(index * dev->queue.buffer_stride);
    buf->length = sim_sizeimage(dev->pixelformat, dev->width, dev->height);
}

/* Checks type, memory, index and ownership of a buffer ioctl. */
static int check_buffer_arg(const struct sim_file *file, const struct sim_device *dev, const struct v4l2_buffer *buf)
{
    if (buf->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || buf->memory != V4L2_MEMORY_MMAP)
        return -EINVAL;
    if (dev->queue.owner_fd != file->fd)
        return dev->queue.owner_fd >= 0 ? -EBUSY : -EINVAL;
    return buf->index < dev->queue.count ? 0 : -EINVAL;
}

static int qbuf(struct sim_file *file, struct sim_device *dev, struct v4l2_buffer *buf)
{
    int rc = check_buffer_arg(file, dev, buf);
    if (rc)
        return rc;
    struct sim_queue *q = &dev->queue;
    struct sim_buffer *b = &q->buffers[buf->index];
    if (b->queued || b->done)
        return -EINVAL;
    b->queued = true;
    b->bytesused = 0;
    q->queued_fifo[q->queued_len++] = buf->index;
    fill_buffer(dev, buf->index, buf);
    return 0;
}

static int dqbuf(struct sim_file *file, struct sim_device *dev, struct v4l2_buffer *buf)
{
    struct sim_queue *q = &dev->queue;
    if (buf->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || buf->memory != V4L2_MEMORY_MMAP)
        return -EINVAL;
    if (q->owner_fd != file->fd)
        return q->owner_fd >= 0 ? -EBUSY : -EINVAL;
    for (;;) {
        if (file->dead)
            return -ENODEV;
        if (!q->streaming)
            return -EINVAL;
        if (q->done_len > 0)
            break;
        if (client_nonblocking(file->fd))
            return -EAGAIN;
        pthread_cond_wait(&sim_cond, &sim_lock);
    }
    uint32_t index = q->done_fifo[0];
    memmove(q->done_fifo, q->done_fifo + 1, --q->done_len * sizeof(q->done_fifo[0]));
    eventfd_take(file->fd, 1);
    q->buffers[index].done = false;
    fill_buffer(dev, index, buf);
    return 0;
}

static int streamon(struct sim_file *file, struct sim_device *dev, const int *type)
{
    struct sim_queue *q = &dev->queue;
    if (*type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
        return -EINVAL;
    if (dev->faults.busy_streamon || (q->owner_fd >= 0 && q->owner_fd != file->fd))
        return -EBUSY;
    if (q->count == 0)
        return -EINVAL;
    if (q->streaming)
        return 0;
    q->streaming = true;
    q->sequence = 0;
    q->frames_produced = 0;
    q->next_due_ns = sim_now_ns(CLOCK_MONOTONIC) + interval_ns(dev);
    sim_clock_start();
    return 0;
}

static int streamoff(struct sim_file *file, struct sim_device *dev, const int *type)
{
    if (*type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
        return -EINVAL;
    if (dev->queue.owner_fd != file->fd)
        return dev->queue.owner_fd >= 0 ? -EBUSY : 0;
    queue_stop(dev, true);
    return 0;
}

int sim_ioctl_stream(struct sim_file *file, struct sim_device *dev, unsigned long request, void *arg)
{
    switch (request) {
    case VIDIOC_REQBUFS:
        return reqbufs(file, dev, arg);
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *buf = arg;
        int rc = check_buffer_arg(file, dev, buf);
        if (rc == 0)
            fill_buffer(dev, buf->index, buf);
        return rc;
    }
    case VIDIOC_QBUF:
        return qbuf(file, dev, arg);
    case VIDIOC_DQBUF:
        return dqbuf(file, dev, arg);
    case VIDIOC_STREAMON:
        return streamon(file, dev, arg);
    case VIDIOC_STREAMOFF:
        return streamoff(file, dev, arg);
    default:
        return -ENOTTY;
    }
}

void *sim_mmap_buffer(struct sim_file *file, void *addr, size_t length, int prot, int flags, off_t offset)
{
    struct sim_device *dev = &sim_devices[file->device];
    struct sim_queue *q = &dev->queue;
    if (file->dead) {
        errno = ENODEV;
        return MAP_FAILED;
    }
    uint64_t index = q->buffer_stride ? (uint64_t)offset / q->buffer_stride : UINT64_MAX;
    if (q->owner_fd != file->fd || !(flags & MAP_SHARED) || index >= q->count ||
        (uint64_t)offset != index * q->buffer_stride || length == 0 || length > q->buffer_stride) {
        errno = EINVAL;
        return MAP_FAILED;
    }
    void *p = sim_real.mmap(addr, length, prot, flags, q->memfd, offset);
    if (p != MAP_FAILED)
        q->buffers[index].mapped = true;
    return p;
}

/* The capture time is cut to whole microseconds so that it equals the timeval timestamp. */
static struct sim_frame_info frame_info(uint32_t sequence, uint64_t due_ns)
{
    due_ns -= due_ns % 1000;
    uint64_t mono = sim_now_ns(CLOCK_MONOTONIC), wall = sim_now_ns(CLOCK_REALTIME);
    uint64_t late = mono > due_ns ? mono - due_ns : 0;
    return (struct sim_frame_info){sequence, due_ns, (wall - late) / 1000000ull};
}

/* One frame period of the sensor: fill the oldest queued buffer, if any. */
static void produce_frame(struct sim_device *dev, uint64_t due_ns)
{
    struct sim_queue *q = &dev->queue;
    const struct sim_faults *f = &dev->faults;
    if (f->stall)
        return;
    if (f->drop_seq_count && q->frames_produced > 0 && q->frames_produced % f->drop_seq_every == 0)
        q->sequence += f->drop_seq_count;
    uint32_t sequence = q->sequence++;
    q->frames_produced++;
    if (q->queued_len == 0)
        return; /* no buffer: the frame is lost, its sequence number too */
    uint32_t index = q->queued_fifo[0];
    memmove(q->queued_fifo, q->queued_fifo + 1, --q->queued_len * sizeof(q->queued_fifo[0]));
    struct sim_buffer *b = &q->buffers[index];
    struct sim_frame_info info = frame_info(sequence, due_ns);
    due_ns = info.capture_ns;
    uint8_t *data = q->memory + index * q->buffer_stride;
    size_t used = sim_render_frame(dev, &info, data, q->buffer_stride);
    if (dev->pixelformat == V4L2_PIX_FMT_MJPEG && f->corrupt_mjpeg_every &&
        q->frames_produced % f->corrupt_mjpeg_every == 0)
        sim_corrupt_mjpeg(data, &used, sequence);
    b->queued = false;
    b->done = true;
    b->bytesused = (uint32_t)used;
    b->sequence = sequence;
    b->timestamp.tv_sec = (time_t)(due_ns / NS_PER_SEC);
    b->timestamp.tv_usec = (suseconds_t)(due_ns % NS_PER_SEC / 1000);
    q->done_fifo[q->done_len++] = index;
    eventfd_add(q->owner_fd, 1);
    pthread_cond_broadcast(&sim_cond);
}

static bool any_file_open(void)
{
    for (int i = 0; i < SIM_MAX_OPEN_FILES; i++)
        if (sim_files[i].fd >= 0)
            return true;
    return false;
}

/* Produces every frame now due on every streaming device; returns the next wake time. */
static uint64_t clock_tick(void)
{
    uint64_t now = sim_now_ns(CLOCK_MONOTONIC), wake = now + CLOCK_IDLE_TICK_NS;
    if (any_file_open())
        sim_faults_refresh();
    for (int i = 0; i < sim_device_count; i++) {
        struct sim_device *dev = &sim_devices[i];
        struct sim_queue *q = &dev->queue;
        if (!q->streaming)
            continue;
        if (now > q->next_due_ns + NS_PER_SEC) /* far behind (suspended?): resynchronise */
            q->next_due_ns = now;
        while (q->streaming && q->next_due_ns <= now) {
            produce_frame(dev, q->next_due_ns);
            q->next_due_ns += interval_ns(dev);
        }
        if (q->streaming && q->next_due_ns < wake)
            wake = q->next_due_ns;
    }
    return wake;
}

static void *clock_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&sim_lock);
    for (;;) {
        uint64_t wake = clock_tick();
        pthread_mutex_unlock(&sim_lock);
        struct timespec ts = {(time_t)(wake / NS_PER_SEC), (long)(wake % NS_PER_SEC)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        pthread_mutex_lock(&sim_lock);
    }
    return NULL;
}

/* Caller holds sim_lock. Starts the clock thread once per process. */
void sim_clock_start(void)
{
    static bool started;
    if (started)
        return;
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, clock_main, NULL) == 0)
        started = true;
    pthread_attr_destroy(&attr);
}

/* read() I/O: blocks (or EAGAIN) until the next frame is due, then renders it. */
ssize_t sim_read_frame(struct sim_file *file, struct sim_device *dev, void *out, size_t count)
{
    if (dev->queue.count > 0)
        return -EBUSY;
    file->read_mode = true;
    uint64_t now = sim_now_ns(CLOCK_MONOTONIC);
    if (dev->read_next_due_ns == 0 || now > dev->read_next_due_ns + NS_PER_SEC)
        dev->read_next_due_ns = now + interval_ns(dev);
    uint64_t due = dev->read_next_due_ns;
    if (now < due) {
        if (client_nonblocking(file->fd))
            return -EAGAIN;
        struct timespec ts = {(time_t)(due / NS_PER_SEC), (long)(due % NS_PER_SEC)};
        pthread_mutex_unlock(&sim_lock);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        pthread_mutex_lock(&sim_lock);
        if (file->dead)
            return -ENODEV;
    }
    dev->read_next_due_ns = due + interval_ns(dev);
    size_t size = sim_sizeimage(dev->pixelformat, dev->width, dev->height);
    uint8_t *frame = malloc(size);
    if (!frame)
        return -ENOMEM;
    struct sim_frame_info info = frame_info(dev->read_sequence++, due);
    size_t used = sim_render_frame(dev, &info, frame, size);
    size_t n = used < count ? used : count;
    memcpy(out, frame, n);
    free(frame);
    return (ssize_t)n;
}
