/*
 * mjpeg.c — compress the I420 picture to one baseline JPEG (4:2:0, quality 90),
 * the payload a UVC camera sends per MJPEG frame. libjpeg's raw-data path takes
 * the planes as they are, 16 luma rows per call; planes are padded to whole MCUs.
 * libjpeg errors longjmp back here instead of exiting the host process.
 */
#include "sim.h"

#include <stdio.h>

#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define JPEG_QUALITY 90

struct sim_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf escape;
};

static void on_jpeg_error(j_common_ptr cinfo)
{
    struct sim_jpeg_error *err = (struct sim_jpeg_error *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    err->base.format_message(cinfo, message);
    SIM_LOG("libjpeg: %s\n", message);
    longjmp(err->escape, 1);
}

static void configure(struct jpeg_compress_struct *cinfo, uint32_t width, uint32_t height)
{
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_YCbCr;
    jpeg_set_defaults(cinfo);
    jpeg_set_colorspace(cinfo, JCS_YCbCr);
    jpeg_set_quality(cinfo, JPEG_QUALITY, TRUE);
    cinfo->raw_data_in = TRUE;
    cinfo->dct_method = JDCT_IFAST;
    cinfo->comp_info[0].h_samp_factor = 2;
    cinfo->comp_info[0].v_samp_factor = 2;
    for (int c = 1; c < 3; c++) {
        cinfo->comp_info[c].h_samp_factor = 1;
        cinfo->comp_info[c].v_samp_factor = 1;
    }
}

static void write_planes(struct jpeg_compress_struct *cinfo, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                         uint32_t y_stride, uint32_t c_stride)
{
    JSAMPROW y_rows[16], u_rows[8], v_rows[8];
    JSAMPARRAY planes[3] = {y_rows, u_rows, v_rows};
    while (cinfo->next_scanline < cinfo->image_height) {
        uint32_t line = cinfo->next_scanline;
        for (int i = 0; i < 16; i++)
            y_rows[i] = (JSAMPROW)(y + (size_t)(line + i) * y_stride);
        for (int i = 0; i < 8; i++) {
            u_rows[i] = (JSAMPROW)(u + (size_t)(line / 2 + i) * c_stride);
            v_rows[i] = (JSAMPROW)(v + (size_t)(line / 2 + i) * c_stride);
        }
        jpeg_write_raw_data(cinfo, planes, 16);
    }
}

/* Returns the JPEG size written to out, or 0 if it failed or did not fit. */
size_t sim_encode_jpeg(const uint8_t *y, const uint8_t *u, const uint8_t *v, uint32_t y_stride, uint32_t c_stride,
                       uint32_t width, uint32_t height, uint8_t *out, size_t capacity)
{
    struct jpeg_compress_struct cinfo;
    struct sim_jpeg_error err;
    unsigned char *jpeg = NULL;
    unsigned long jpeg_size = 0;
    volatile size_t result = 0;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = on_jpeg_error;
    if (setjmp(err.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(jpeg);
        return 0;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &jpeg, &jpeg_size);
    configure(&cinfo, width, height);
    jpeg_start_compress(&cinfo, TRUE);
    write_planes(&cinfo, y, u, v, y_stride, c_stride);
    jpeg_finish_compress(&cinfo);
    if (jpeg_size <= capacity) {
        memcpy(out, jpeg, jpeg_size);
        result = jpeg_size;
    }
    jpeg_destroy_compress(&cinfo);
    free(jpeg);
    return result;
}
