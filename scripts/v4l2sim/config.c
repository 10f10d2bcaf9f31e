/*
 * config.c — which fake nodes exist and what each one offers.
 *
 * Sources, later ones win: built-in defaults, the LIVEPUSH_SIM_CONFIG file
 * ([node path] sections of "key = value" lines), then LIVEPUSH_SIM_<N>_<KEY>
 * environment variables. The node list is LIVEPUSH_SIM_DEVICES if set, otherwise
 * the config file's sections, otherwise /dev/video-sim0. LIVEPUSH_SIM_ENCODERS adds
 * simulated M2M H.264 encoder nodes (encoder.c).
 */
#include "sim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_SECTIONS SIM_MAX_DEVICES

static struct sim_config file_sections[MAX_FILE_SECTIONS];
static int file_section_count;

static void config_defaults(struct sim_config *cfg, const char *path, int index)
{
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->path, sizeof(cfg->path), "%s", path);
    snprintf(cfg->card, sizeof(cfg->card), "livepush Sim Camera %d", index);
    snprintf(cfg->bus_info, sizeof(cfg->bus_info), "usb-0000:00:14.0-%d", index + 1);
    cfg->formats[0] = V4L2_PIX_FMT_YUYV;
    cfg->formats[1] = V4L2_PIX_FMT_MJPEG;
    cfg->formats[2] = V4L2_PIX_FMT_NV12;
    cfg->format_count = 3;
    cfg->sizes[0] = (struct sim_size){640, 480};
    cfg->sizes[1] = (struct sim_size){1280, 720};
    cfg->sizes[2] = (struct sim_size){1920, 1080};
    cfg->size_count = 3;
    cfg->fps[0] = 30;
    cfg->fps[1] = 15;
    cfg->fps_count = 2;
    cfg->hd_raw_fps[0] = 5;
    cfg->hd_raw_fps_count = 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static uint32_t parse_fourcc(const char *name)
{
    if (strcasecmp(name, "YUYV") == 0)
        return V4L2_PIX_FMT_YUYV;
    if (strcasecmp(name, "MJPG") == 0 || strcasecmp(name, "MJPEG") == 0)
        return V4L2_PIX_FMT_MJPEG;
    if (strcasecmp(name, "NV12") == 0)
        return V4L2_PIX_FMT_NV12;
    fprintf(stderr, "v4l2sim: unknown format '%s' (use YUYV, MJPG, NV12)\n", name);
    return 0;
}

/* Split a comma list; calls parse_item for each trimmed item. Returns the count kept. */
static int parse_list(const char *value, int max, void *out, int (*parse_item)(const char *, void *, int))
{
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", value);
    int count = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && count < max;
         item = strtok_r(NULL, ",", &save))
        count += parse_item(trim(item), out, count);
    return count;
}

static int parse_format_item(const char *item, void *out, int slot)
{
    uint32_t fourcc = parse_fourcc(item);
    if (fourcc)
        ((uint32_t *)out)[slot] = fourcc;
    return fourcc != 0;
}

static int parse_size_item(const char *item, void *out, int slot)
{
    unsigned w, h;
    if (sscanf(item, "%ux%u", &w, &h) != 2 || w < 152 || h < 16 || w > 8192 || h > 8192 || (w & 1) || (h & 1)) {
        fprintf(stderr, "v4l2sim: bad size '%s' (WxH, even, width >= 152)\n", item);
        return 0;
    }
    ((struct sim_size *)out)[slot] = (struct sim_size){w, h};
    return 1;
}

static int parse_fps_item(const char *item, void *out, int slot)
{
    unsigned fps = (unsigned)strtoul(item, NULL, 10);
    if (fps == 0 || fps > 240) {
        fprintf(stderr, "v4l2sim: bad fps '%s'\n", item);
        return 0;
    }
    ((uint32_t *)out)[slot] = fps;
    return 1;
}

/* Applies one key; returns false for an unknown key. */
static bool config_set(struct sim_config *cfg, const char *key, const char *value)
{
    int n;
    if (strcasecmp(key, "card") == 0)
        snprintf(cfg->card, sizeof(cfg->card), "%s", value);
    else if (strcasecmp(key, "bus_info") == 0)
        snprintf(cfg->bus_info, sizeof(cfg->bus_info), "%s", value);
    else if (strcasecmp(key, "formats") == 0) {
        if ((n = parse_list(value, SIM_MAX_FORMATS, cfg->formats, parse_format_item)) > 0)
            cfg->format_count = n;
    } else if (strcasecmp(key, "sizes") == 0) {
        if ((n = parse_list(value, SIM_MAX_SIZES, cfg->sizes, parse_size_item)) > 0)
            cfg->size_count = n;
    } else if (strcasecmp(key, "fps") == 0) {
        if ((n = parse_list(value, SIM_MAX_FPS, cfg->fps, parse_fps_item)) > 0)
            cfg->fps_count = n;
    } else if (strcasecmp(key, "hd_raw_fps") == 0) {
        if ((n = parse_list(value, SIM_MAX_FPS, cfg->hd_raw_fps, parse_fps_item)) > 0)
            cfg->hd_raw_fps_count = n;
    } else
        return false;
    return true;
}

static void load_config_file(const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "v4l2sim: cannot read LIVEPUSH_SIM_CONFIG=%s\n", file);
        return;
    }
    char line[512];
    struct sim_config *current = NULL;
    while (fgets(line, sizeof(line), f)) {
        char *s = trim(line);
        if (*s == '#' || *s == ';' || *s == '\0')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            current = NULL;
            if (end && file_section_count < MAX_FILE_SECTIONS) {
                *end = '\0';
                current = &file_sections[file_section_count];
                config_defaults(current, trim(s + 1), file_section_count++);
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!current || !eq)
            continue;
        *eq = '\0';
        if (!config_set(current, trim(s), trim(eq + 1)))
            fprintf(stderr, "v4l2sim: unknown config key '%s'\n", trim(s));
    }
    fclose(f);
}

static void apply_env_overrides(struct sim_config *cfg, int index)
{
    static const char *keys[] = {"CARD", "BUS_INFO", "FORMATS", "SIZES", "FPS", "HD_RAW_FPS"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        char name[64], lower[16];
        snprintf(name, sizeof(name), "LIVEPUSH_SIM_%d_%s", index, keys[k]);
        const char *value = getenv(name);
        if (!value)
            continue;
        size_t i = 0;
        for (; keys[k][i] && i < sizeof(lower) - 1; i++)
            lower[i] = (char)tolower((unsigned char)keys[k][i]);
        lower[i] = '\0';
        config_set(cfg, lower, value);
    }
}

static void add_device(const char *path, enum sim_kind kind)
{
    if (sim_device_count >= SIM_MAX_DEVICES || *path == '\0' || sim_device_by_path(path) >= 0)
        return;
    struct sim_device *dev = &sim_devices[sim_device_count];
    memset(dev, 0, sizeof(*dev));
    dev->index = sim_device_count;
    config_defaults(&dev->config, path, dev->index);
    for (int i = 0; i < file_section_count; i++)
        if (strcmp(file_sections[i].path, path) == 0)
            dev->config = file_sections[i];
    apply_env_overrides(&dev->config, dev->index);
    dev->config.kind = kind;
    if (kind == SIM_KIND_ENCODER) { /* what bcm2835-codec's encode node reports */
        snprintf(dev->config.card, sizeof(dev->config.card), "bcm2835-codec-encode");
        snprintf(dev->config.bus_info, sizeof(dev->config.bus_info), "platform:bcm2835-codec");
    }
    dev->queue.owner_fd = -1;
    dev->queue.memfd = -1;
    sim_format_defaults(dev);
    sim_controls_defaults(dev);
    sim_device_count++;
}

static void add_device_list(const char *list, enum sim_kind kind)
{
    char copy[1024];
    snprintf(copy, sizeof(copy), "%s", list);
    for (char *save = NULL, *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
        add_device(trim(p), kind);
}

void sim_config_load(void)
{
    const char *file = getenv("LIVEPUSH_SIM_CONFIG");
    if (file && *file)
        load_config_file(file);
    const char *list = getenv("LIVEPUSH_SIM_DEVICES");
    if (list && *list) {
        add_device_list(list, SIM_KIND_CAMERA);
    } else if (file_section_count > 0) {
        for (int i = 0; i < file_section_count; i++)
            add_device(file_sections[i].path, SIM_KIND_CAMERA);
    } else {
        add_device("/dev/video-sim0", SIM_KIND_CAMERA);
    }
    const char *encoders = getenv("LIVEPUSH_SIM_ENCODERS");
    if (encoders && *encoders)
        add_device_list(encoders, SIM_KIND_ENCODER);
}

int sim_device_by_path(const char *path)
{
    if (!path)
        return -1;
    for (int i = 0; i < sim_device_count; i++)
        if (strcmp(sim_devices[i].config.path, path) == 0)
            return i;
    return -1;
}
