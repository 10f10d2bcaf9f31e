/*
 * v4l2sim — a simulated UVC-like V4L2 camera, loaded with LD_PRELOAD.
 *
 * Why: this machine's kernel has no V4L2 (no /dev/video*, no CUSE), yet livepush,
 * its tests and real V4L2 clients (v4l2-ctl, ffmpeg -f v4l2) must capture from a
 * camera. The library answers libc calls (open, ioctl, mmap, poll, select, read,
 * stat, access, close) on configured fake node paths with the exact structures and
 * semantics of <linux/videodev2.h>, and forwards everything else to libc.
 *
 * Each open of a fake node returns a real eventfd (EFD_SEMAPHORE): its counter is
 * the number of filled buffers waiting for VIDIOC_DQBUF, so poll/select/epoll on it
 * work natively. A clock thread fills queued buffers at the negotiated frame rate.
 *
 * Configuration (see README.md):
 *   LIVEPUSH_SIM_DEVICES   comma-separated node paths (default /dev/video-sim0)
 *   LIVEPUSH_SIM_CONFIG    optional INI-style file, one [node path] section each
 *   LIVEPUSH_SIM_<N>_CARD / _BUS_INFO / _FORMATS / _SIZES / _FPS / _HD_RAW_FPS
 *                          per-device overrides, N = index in LIVEPUSH_SIM_DEVICES
 *   LIVEPUSH_SIM_FAULTS    fault file, re-read on every open, ioctl, poll and tick
 *   LIVEPUSH_SIM_STATE_DIR optional: persist control values per device across runs
 *   LIVEPUSH_SIM_DEBUG=1   log intercepted calls to stderr
 */
#ifndef V4L2SIM_SIM_H
#define V4L2SIM_SIM_H

#include <linux/videodev2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define SIM_MAX_DEVICES 8
#define SIM_MAX_FORMATS 3
#define SIM_MAX_SIZES 8
#define SIM_MAX_FPS 4
#define SIM_MAX_BUFFERS 32
#define SIM_MIN_BUFFERS 2
#define SIM_MAX_OPEN_FILES 64
#define SIM_CONTROL_COUNT 12
#define SIM_ENC_CONTROL_COUNT 11
#define SIM_HD_AREA (1280u * 720u) /* raw frames larger than this get hd_raw_fps */

struct sim_size {
    uint32_t width;
    uint32_t height;
};

enum sim_kind {
    SIM_KIND_CAMERA,  /* a UVC-like capture device */
    SIM_KIND_ENCODER, /* a bcm2835-codec-like stateful M2M H.264 encoder (encoder.c) */
};

struct sim_config {
    char path[128];
    enum sim_kind kind;
    char card[32];
    char bus_info[32];
    uint32_t formats[SIM_MAX_FORMATS];
    int format_count;
    struct sim_size sizes[SIM_MAX_SIZES];
    int size_count;
    uint32_t fps[SIM_MAX_FPS];
    int fps_count;
    uint32_t hd_raw_fps[SIM_MAX_FPS];
    int hd_raw_fps_count;
};

/* Faults currently commanded for one device (snapshot of the fault file). */
struct sim_faults {
    bool unplugged;
    bool eacces_open;
    bool busy_open;
    bool busy_reqbufs;
    bool busy_streamon;
    bool stall;
    bool wedge; /* encoder: OUTPUT buffers are consumed, CAPTURE buffers never come back */
    uint32_t corrupt_mjpeg_every; /* 0 = off */
    uint32_t drop_seq_count;      /* sequence numbers skipped ... */
    uint32_t drop_seq_every;      /* ... every this many frames */
};

struct sim_buffer {
    bool queued;
    bool done;
    bool mapped;
    uint32_t bytesused;
    uint32_t sequence;
    struct timeval timestamp;
};

/* The device's one buffer queue, owned by the fd that called REQBUFS. */
struct sim_queue {
    int owner_fd;
    int memfd;
    uint8_t *memory;
    size_t buffer_stride; /* page-aligned distance between buffers (mmap offsets) */
    uint32_t count;
    struct sim_buffer buffers[SIM_MAX_BUFFERS];
    uint32_t queued_fifo[SIM_MAX_BUFFERS];
    uint32_t queued_len;
    uint32_t done_fifo[SIM_MAX_BUFFERS];
    uint32_t done_len;
    bool streaming;
    uint64_t next_due_ns;
    uint32_t sequence;
    uint64_t frames_produced;
};

struct sim_device {
    struct sim_config config;
    int index;
    struct sim_faults faults;
    uint32_t pixelformat;
    uint32_t width;
    uint32_t height;
    struct v4l2_fract interval;
    int32_t controls[SIM_CONTROL_COUNT];
    struct sim_queue queue;
    uint64_t read_next_due_ns; /* read() I/O */
    uint32_t read_sequence;
};

struct sim_file {
    int fd; /* the eventfd handed to the client; -1 = free slot */
    int device;
    bool dead; /* the device was unplugged while this fd was open */
    bool read_mode;
    struct sim_encoder *enc; /* encoder nodes: this open's own M2M context, as each open is in the kernel */
};

/* Global state; every field is guarded by sim_lock. */
extern pthread_mutex_t sim_lock;
extern pthread_cond_t sim_cond;
extern struct sim_device sim_devices[SIM_MAX_DEVICES];
extern int sim_device_count;
extern struct sim_file sim_files[SIM_MAX_OPEN_FILES];
extern bool sim_debug;

/* Real libc entry points (resolved with dlsym(RTLD_NEXT)). */
struct sim_libc {
    int (*open)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*close)(int);
    int (*ioctl)(int, unsigned long, ...);
    void *(*mmap)(void *, size_t, int, int, int, off_t);
    int (*poll)(void *, unsigned long, int);
    int (*select)(int, void *, void *, void *, void *);
    ssize_t (*read)(int, void *, size_t);
};
extern struct sim_libc sim_real;

/* config.c */
void sim_config_load(void);
int sim_device_by_path(const char *path);

/* faults.c */
void sim_faults_refresh(void);

/* files (interpose.c) */
int sim_lookup_node(int dirfd, const char *path);
struct sim_file *sim_file_for_fd(int fd);
void sim_mark_dead(int device);

/* time */
uint64_t sim_now_ns(clockid_t clock);

/* formats.c */
int sim_ioctl_format(struct sim_device *dev, unsigned long request, void *arg);
uint32_t sim_sizeimage(uint32_t pixelformat, uint32_t width, uint32_t height);
uint32_t sim_bytesperline(uint32_t pixelformat, uint32_t width);
void sim_format_defaults(struct sim_device *dev);

/* controls.c */
int sim_ioctl_control(struct sim_device *dev, unsigned long request, void *arg);
void sim_controls_defaults(struct sim_device *dev);
int32_t sim_control_value(const struct sim_device *dev, uint32_t id);

/* stream.c */
int sim_ioctl_stream(struct sim_file *file, struct sim_device *dev, unsigned long request, void *arg);
void *sim_mmap_buffer(struct sim_file *file, void *addr, size_t length, int prot, int flags, off_t offset);
void sim_queue_release(struct sim_device *dev);
void sim_clock_start(void);
ssize_t sim_read_frame(struct sim_file *file, struct sim_device *dev, void *out, size_t count);

/* render.c */
struct sim_frame_info {
    uint32_t sequence;
    uint64_t capture_ns;
    uint64_t wall_ms;
};
size_t sim_render_frame(const struct sim_device *dev, const struct sim_frame_info *info, uint8_t *out,
                        size_t capacity);
void sim_corrupt_mjpeg(uint8_t *data, size_t *size, uint32_t sequence);

/* mjpeg.c */
size_t sim_encode_jpeg(const uint8_t *y, const uint8_t *u, const uint8_t *v, uint32_t y_stride, uint32_t c_stride,
                       uint32_t width, uint32_t height, uint8_t *out, size_t capacity);

/* controls.c, encoder control set */
int sim_ioctl_encoder_control(int32_t *values, unsigned long request, void *arg);
int32_t sim_encoder_control_value(const int32_t *values, uint32_t id);
void sim_encoder_controls_defaults(int32_t *values);

/* encoder.c */
struct sim_encoder;
struct sim_encoder *sim_encoder_open(struct sim_device *dev, int fd);
void sim_encoder_close(struct sim_encoder *enc);
int sim_encoder_ioctl(struct sim_encoder *enc, unsigned long request, void *arg);
void *sim_encoder_mmap(struct sim_encoder *enc, void *addr, size_t length, int prot, int flags, off_t offset);
short sim_encoder_revents(const struct sim_encoder *enc);

/* eventlog.c: appends "NODE EVENT..." to the file the environment variable `variable` names, if set */
void sim_event_log(const char *variable, const char *node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ioctl.c */
int sim_ioctl(struct sim_file *file, unsigned long request, void *arg);

#define SIM_LOG(...)                                                                                                   \
    do {                                                                                                               \
        if (sim_debug)                                                                                                 \
            fprintf(stderr, "v4l2sim: " __VA_ARGS__);                                                                  \
    } while (0)

#endif
