/*
 * simprobe — a minimal V4L2 client and frame-code reader for the simulator tests.
 *
 * Why: v4l2-ctl and ffmpeg prove the simulator against real clients, but the tests
 * also need exact errno values (EAGAIN, ENODEV, POLLERR) and the burned-in frame
 * code (docs/frame-code.md) read back from captured frames.
 *
 *   simprobe decode yuyv|nv12|gray WIDTH HEIGHT FILE
 *       prints "frame SEQ ns NS ms MS" per frame in a raw file, "frame none" if no code
 *   simprobe stream NODE FOURCC WIDTH HEIGHT COUNT TIMEOUT_MS
 *       non-blocking MMAP capture with poll(); one line per event:
 *       "eagain", "buf seq=S bytesused=B ts=NS flags=0xF code=SEQ|none", "pollerr", "dqbuf errno=NAME"
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CODE_BYTES 19

static uint8_t crc8(const uint8_t *data, size_t len)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++)
            crc = (uint8_t)((crc & 0x80) ? (crc << 1) ^ 0x07 : crc << 1);
    }
    return crc;
}

/* Reads the frame code from a luma plane with a pixel step (1 planar, 2 YUYV). */
static int read_code(const uint8_t *luma, size_t step, uint32_t width, uint32_t *seq, uint64_t *ns, uint64_t *ms)
{
    uint32_t s = width / 76;
    uint8_t bytes[CODE_BYTES] = {0};
    if (s < 2)
        return -1;
    for (uint32_t bit = 0; bit < 152; bit++) {
        uint32_t x0 = (bit % 76) * s + s / 4, y0 = (bit / 76) * s + s / 4, n = 0, sum = 0;
        for (uint32_t y = y0; y < y0 + s / 2; y++)
            for (uint32_t x = x0; x < x0 + s / 2; x++, n++)
                sum += luma[((size_t)y * width + x) * step];
        if (sum / n >= 126)
            bytes[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
    }
    int any = 0;
    for (int i = 0; i < CODE_BYTES; i++)
        any |= bytes[i];
    if (!any || crc8(bytes, 18) != bytes[18]) /* all zeros (a black band) passes the CRC */
        return -1;
    *seq = 0;
    *ns = *ms = 0;
    for (int i = 0; i < 4; i++)
        *seq = *seq << 8 | bytes[i];
    for (int i = 4; i < 12; i++)
        *ns = *ns << 8 | bytes[i];
    for (int i = 12; i < 18; i++)
        *ms = *ms << 8 | bytes[i];
    return 0;
}

static int decode_file(const char *kind, uint32_t w, uint32_t h, const char *path)
{
    size_t step = strcmp(kind, "yuyv") == 0 ? 2 : 1;
    size_t frame = strcmp(kind, "yuyv") == 0 ? (size_t)w * h * 2 : strcmp(kind, "nv12") == 0 ? (size_t)w * h * 3 / 2
                                                                                             : (size_t)w * h;
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(frame);
    if (!f || !buf) {
        perror(path);
        return 2;
    }
    while (fread(buf, 1, frame, f) == frame) {
        uint32_t seq;
        uint64_t ns, ms;
        if (read_code(buf, step, w, &seq, &ns, &ms) == 0)
            printf("frame %u ns %llu ms %llu\n", seq, (unsigned long long)ns, (unsigned long long)ms);
        else
            printf("frame none\n");
    }
    fclose(f);
    free(buf);
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int setup(int fd, uint32_t fourcc, uint32_t w, uint32_t h, void **maps, uint32_t *count)
{
    struct v4l2_format fmt = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    fmt.fmt.pix.pixelformat = fourcc;
    fmt.fmt.pix.width = w;
    fmt.fmt.pix.height = h;
    struct v4l2_requestbuffers req = {.count = 4, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
    if (ioctl(fd, VIDIOC_S_FMT, &fmt) < 0 || ioctl(fd, VIDIOC_REQBUFS, &req) < 0) {
        printf("setup errno=%s\n", strerror(errno));
        return -1;
    }
    *count = req.count;
    for (uint32_t i = 0; i < req.count; i++) {
        struct v4l2_buffer b = {.index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
        if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0)
            return -1;
        maps[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
        if (maps[i] == MAP_FAILED || ioctl(fd, VIDIOC_QBUF, &b) < 0)
            return -1;
    }
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return ioctl(fd, VIDIOC_STREAMON, &type);
}

static void print_buffer(const struct v4l2_buffer *b, const uint8_t *data, uint32_t fourcc, uint32_t w)
{
    uint32_t seq;
    uint64_t ns, ms;
    uint64_t ts = (uint64_t)b->timestamp.tv_sec * 1000000000ull + (uint64_t)b->timestamp.tv_usec * 1000ull;
    printf("buf seq=%u bytesused=%u ts=%llu flags=0x%x code=", b->sequence, b->bytesused, (unsigned long long)ts,
           b->flags);
    if (fourcc != V4L2_PIX_FMT_MJPEG && read_code(data, fourcc == V4L2_PIX_FMT_YUYV ? 2 : 1, w, &seq, &ns, &ms) == 0)
        printf("%u codens=%llu\n", seq, (unsigned long long)ns);
    else
        printf("none\n");
}

static int stream(const char *node, const char *fourcc_name, uint32_t w, uint32_t h, int count, int timeout_ms)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint32_t fourcc = v4l2_fourcc(fourcc_name[0], fourcc_name[1], fourcc_name[2], fourcc_name[3]);
    int fd = open(node, O_RDWR | O_NONBLOCK);
    if (fd < 0) {
        printf("open errno=%s\n", strerror(errno));
        return 1;
    }
    void *maps[32];
    uint32_t nbufs = 0;
    if (setup(fd, fourcc, w, h, maps, &nbufs) < 0)
        return 1;
    struct v4l2_buffer b = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
    if (ioctl(fd, VIDIOC_DQBUF, &b) < 0 && errno == EAGAIN)
        printf("eagain\n");
    int64_t deadline = now_ms() + timeout_ms;
    for (int got = 0; got < count && now_ms() < deadline;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 500);
        if (r > 0 && (p.revents & POLLERR))
            printf("pollerr\n");
        if (r <= 0)
            continue;
        memset(&b, 0, sizeof(b));
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        if (ioctl(fd, VIDIOC_DQBUF, &b) < 0) {
            printf("dqbuf errno=%s\n", strerror(errno));
            if (errno != EAGAIN)
                return 3;
            continue;
        }
        print_buffer(&b, maps[b.index], fourcc, w);
        got++;
        if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
            printf("qbuf errno=%s\n", strerror(errno));
    }
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    ioctl(fd, VIDIOC_STREAMOFF, &type);
    close(fd);
    printf("done\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "decode") == 0)
        return decode_file(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), argv[5]);
    if (argc == 8 && strcmp(argv[1], "stream") == 0)
        return stream(argv[2], argv[3], (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]), atoi(argv[6]),
                      atoi(argv[7]));
    fprintf(stderr, "usage: see the header of simprobe.c\n");
    return 2;
}
