/*
 * render.c — the picture: a moving pattern with the burned-in frame code.
 *
 * Every format starts from one I420 picture (planes padded to whole JPEG MCUs),
 * then is packed as YUYV, NV12, or compressed to MJPEG. The frame code follows
 * docs/frame-code.md: 2 rows of 76 blocks, block side floor(width / 76), bits MSB
 * first (frame number 32, CLOCK_MONOTONIC ns 64, wall ms 48, CRC-8/0x07), white
 * Y=235 for 1, black Y=16 for 0, chroma 128 under the band.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define CODE_COLUMNS 76
#define CODE_ROWS 2
#define CODE_BYTES 19
#define Y_WHITE 235
#define Y_BLACK 16

struct i420 {
    uint32_t width, height;     /* visible */
    uint32_t y_stride, y_rows;  /* padded to 16 */
    uint32_t c_stride, c_rows;  /* padded to 8 */
    uint8_t *y, *u, *v;
};

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

static void put_be(uint8_t *out, uint64_t value, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, value >>= 8)
        out[i] = (uint8_t)value;
}

static void code_bytes(const struct sim_frame_info *info, uint8_t out[CODE_BYTES])
{
    put_be(out, info->sequence, 4);
    put_be(out + 4, info->capture_ns, 8);
    put_be(out + 12, info->wall_ms & 0xFFFFFFFFFFFFull, 6);
    out[18] = crc8(out, 18);
}

static uint8_t clamp_luma(int value)
{
    return (uint8_t)(value < Y_BLACK ? Y_BLACK : value > Y_WHITE ? Y_WHITE : value);
}

/* Diagonal gradient drifting right plus a bright vertical bar sweeping across. */
static void draw_pattern(struct i420 *p, uint32_t sequence, int brightness_offset)
{
    uint32_t bar_width = p->width / 16 ? p->width / 16 : 1;
    uint32_t bar_x = (sequence * 8) % p->width;
    for (uint32_t y = 0; y < p->y_rows; y++) {
        uint8_t *row = p->y + (size_t)y * p->y_stride;
        for (uint32_t x = 0; x < p->y_stride; x++) {
            int luma = 16 + (int)((x + y / 2 + sequence * 4) % 220);
            if (x >= bar_x && x < bar_x + bar_width)
                luma = 224;
            row[x] = clamp_luma(luma + brightness_offset);
        }
    }
    for (uint32_t y = 0; y < p->c_rows; y++) {
        for (uint32_t x = 0; x < p->c_stride; x++) {
            p->u[(size_t)y * p->c_stride + x] = (uint8_t)(16 + (x * 224 / p->c_stride + sequence) % 224);
            p->v[(size_t)y * p->c_stride + x] = (uint8_t)(16 + y * 224 / p->c_rows);
        }
    }
}

static void draw_frame_code(struct i420 *p, const struct sim_frame_info *info)
{
    uint8_t bytes[CODE_BYTES];
    code_bytes(info, bytes);
    uint32_t s = p->width / CODE_COLUMNS;
    for (uint32_t bit = 0; bit < CODE_COLUMNS * CODE_ROWS; bit++) {
        uint8_t luma = (bytes[bit / 8] >> (7 - bit % 8)) & 1 ? Y_WHITE : Y_BLACK;
        uint32_t x0 = (bit % CODE_COLUMNS) * s, y0 = (bit / CODE_COLUMNS) * s;
        for (uint32_t y = y0; y < y0 + s; y++)
            memset(p->y + (size_t)y * p->y_stride + x0, luma, s);
    }
    uint32_t c_width = (CODE_COLUMNS * s + 1) / 2, c_height = (CODE_ROWS * s + 1) / 2;
    for (uint32_t y = 0; y < c_height; y++) {
        memset(p->u + (size_t)y * p->c_stride, 128, c_width);
        memset(p->v + (size_t)y * p->c_stride, 128, c_width);
    }
}

static bool i420_alloc(struct i420 *p, uint32_t width, uint32_t height)
{
    p->width = width;
    p->height = height;
    p->y_stride = (width + 15) & ~15u;
    p->y_rows = (height + 15) & ~15u;
    p->c_stride = p->y_stride / 2;
    p->c_rows = p->y_rows / 2;
    size_t y_size = (size_t)p->y_stride * p->y_rows, c_size = (size_t)p->c_stride * p->c_rows;
    p->y = malloc(y_size + 2 * c_size);
    p->u = p->y ? p->y + y_size : NULL;
    p->v = p->y ? p->u + c_size : NULL;
    return p->y != NULL;
}

static size_t pack_yuyv(const struct i420 *p, uint8_t *out)
{
    for (uint32_t y = 0; y < p->height; y++) {
        const uint8_t *ys = p->y + (size_t)y * p->y_stride;
        const uint8_t *us = p->u + (size_t)(y / 2) * p->c_stride, *vs = p->v + (size_t)(y / 2) * p->c_stride;
        uint8_t *d = out + (size_t)y * p->width * 2;
        for (uint32_t x = 0; x < p->width; x += 2, d += 4) {
            d[0] = ys[x];
            d[1] = us[x / 2];
            d[2] = ys[x + 1];
            d[3] = vs[x / 2];
        }
    }
    return (size_t)p->width * p->height * 2;
}

static size_t pack_nv12(const struct i420 *p, uint8_t *out)
{
    for (uint32_t y = 0; y < p->height; y++)
        memcpy(out + (size_t)y * p->width, p->y + (size_t)y * p->y_stride, p->width);
    uint8_t *uv = out + (size_t)p->width * p->height;
    for (uint32_t y = 0; y < p->height / 2; y++) {
        for (uint32_t x = 0; x < p->width / 2; x++) {
            uv[(size_t)y * p->width + 2 * x] = p->u[(size_t)y * p->c_stride + x];
            uv[(size_t)y * p->width + 2 * x + 1] = p->v[(size_t)y * p->c_stride + x];
        }
    }
    return (size_t)p->width * p->height * 3 / 2;
}

/* Renders one frame in the device's current format; returns bytesused (0 on failure). */
size_t sim_render_frame(const struct sim_device *dev, const struct sim_frame_info *info, uint8_t *out,
                        size_t capacity)
{
    struct i420 p;
    if (capacity < sim_sizeimage(dev->pixelformat, dev->width, dev->height) || !i420_alloc(&p, dev->width, dev->height))
        return 0;
    int brightness_offset = (sim_control_value(dev, V4L2_CID_BRIGHTNESS) - 128) / 2;
    draw_pattern(&p, info->sequence, brightness_offset);
    draw_frame_code(&p, info);
    size_t used;
    if (dev->pixelformat == V4L2_PIX_FMT_YUYV)
        used = pack_yuyv(&p, out);
    else if (dev->pixelformat == V4L2_PIX_FMT_NV12)
        used = pack_nv12(&p, out);
    else
        used = sim_encode_jpeg(p.y, p.u, p.v, p.y_stride, p.c_stride, p.width, p.height, out, capacity);
    free(p.y);
    return used;
}

/* A damaged MJPEG frame as a flaky USB link delivers it: cut short, tail garbled. */
void sim_corrupt_mjpeg(uint8_t *data, size_t *size, uint32_t sequence)
{
    size_t keep = *size / 3;
    if (keep < 64)
        return;
    uint32_t state = sequence * 2654435761u + 1;
    for (size_t i = keep / 2; i < keep; i++) {
        state = state * 1103515245u + 12345u;
        data[i] = (uint8_t)(state >> 16);
    }
    *size = keep;
}
