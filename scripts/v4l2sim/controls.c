/*
 * controls.c — the camera controls a typical UVC webcam exposes, and the codec
 * controls of the simulated bcm2835-codec H.264 encoder (encoder.c).
 *
 * A sorted table (one per device kind) drives QUERYCTRL, QUERY_EXT_CTRL (with NEXT_CTRL enumeration),
 * QUERYMENU, G/S_CTRL and G/S/TRY_EXT_CTRLS. Manual controls carry
 * V4L2_CTRL_FLAG_INACTIVE while their auto control is in auto mode; integer values
 * are clamped to range and step like the V4L2 control framework does. Values live
 * per device in this process, and persist in LIVEPUSH_SIM_STATE_DIR if set.
 */
#include "sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct control_def {
    uint32_t id;
    const char *name;
    uint32_t type;
    int32_t minimum, maximum, step, default_value;
    uint32_t flags;
    const char *const *menu;
    uint32_t auto_id;       /* 0, or the control that makes this one inactive ... */
    int32_t manual_value;   /* ... unless it has this value */
};

static const char *const power_line_menu[] = {"Disabled", "50 Hz", "60 Hz"};
static const char *const exposure_menu[] = {NULL, "Manual Mode", NULL, "Aperture Priority Mode"};

#define CLASS_FLAGS (V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_WRITE_ONLY)

/* Sorted by id; SIM_CONTROL_COUNT entries. */
static const struct control_def camera_controls[SIM_CONTROL_COUNT] = {
    {V4L2_CID_USER_CLASS, "User Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, CLASS_FLAGS, NULL, 0, 0},
    {V4L2_CID_BRIGHTNESS, "Brightness", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, V4L2_CTRL_FLAG_SLIDER, NULL, 0, 0},
    {V4L2_CID_CONTRAST, "Contrast", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, V4L2_CTRL_FLAG_SLIDER, NULL, 0, 0},
    {V4L2_CID_SATURATION, "Saturation", V4L2_CTRL_TYPE_INTEGER, 0, 255, 1, 128, V4L2_CTRL_FLAG_SLIDER, NULL, 0, 0},
    {V4L2_CID_AUTO_WHITE_BALANCE, "White Balance Temperature, Auto", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1,
     V4L2_CTRL_FLAG_UPDATE, NULL, 0, 0},
    {V4L2_CID_POWER_LINE_FREQUENCY, "Power Line Frequency", V4L2_CTRL_TYPE_MENU, 0, 2, 1, 2, 0, power_line_menu, 0,
     0},
    {V4L2_CID_WHITE_BALANCE_TEMPERATURE, "White Balance Temperature", V4L2_CTRL_TYPE_INTEGER, 2000, 6500, 1, 4000, 0,
     NULL, V4L2_CID_AUTO_WHITE_BALANCE, 0},
    {V4L2_CID_CAMERA_CLASS, "Camera Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, CLASS_FLAGS, NULL, 0, 0},
    {V4L2_CID_EXPOSURE_AUTO, "Exposure, Auto", V4L2_CTRL_TYPE_MENU, 0, 3, 1, 3, V4L2_CTRL_FLAG_UPDATE, exposure_menu,
     0, 0},
    {V4L2_CID_EXPOSURE_ABSOLUTE, "Exposure (Absolute)", V4L2_CTRL_TYPE_INTEGER, 3, 2047, 1, 250, 0, NULL,
     V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_MANUAL},
    {V4L2_CID_FOCUS_ABSOLUTE, "Focus (absolute)", V4L2_CTRL_TYPE_INTEGER, 0, 250, 5, 0, 0, NULL, V4L2_CID_FOCUS_AUTO,
     0},
    {V4L2_CID_FOCUS_AUTO, "Focus, Auto", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 1, V4L2_CTRL_FLAG_UPDATE, NULL, 0, 0},
};

static const char *const bitrate_mode_menu[] = {"Variable Bitrate", "Constant Bitrate"};
static const char *const h264_level_menu[] = {"1", "1b", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "3", "3.1", "3.2",
                                              "4", "4.1", "4.2"};
static const char *const h264_profile_menu[] = {"Baseline", "Constrained Baseline", "Main", NULL, "High"};

/* bcm2835-codec's original encoder controls and limits, sorted by id; SIM_ENC_CONTROL_COUNT entries.
 * Newer kernels add GOP_SIZE and HEADER_MODE; without them FFmpeg's h264_v4l2m2m gets EINVAL for
 * those (the harder case). B-frames are 0 only. */
static const struct control_def encoder_controls[SIM_ENC_CONTROL_COUNT] = {
    {V4L2_CID_MPEG_CLASS, "Codec Controls", V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0, CLASS_FLAGS, NULL, 0, 0},
    {V4L2_CID_MPEG_VIDEO_B_FRAMES, "Number of B-Frames", V4L2_CTRL_TYPE_INTEGER, 0, 0, 1, 0, 0, NULL, 0, 0},
    {V4L2_CID_MPEG_VIDEO_BITRATE_MODE, "Video Bitrate Mode", V4L2_CTRL_TYPE_MENU, 0, 1, 1, 0, V4L2_CTRL_FLAG_UPDATE,
     bitrate_mode_menu, 0, 0},
    {V4L2_CID_MPEG_VIDEO_BITRATE, "Video Bitrate", V4L2_CTRL_TYPE_INTEGER, 25000, 25000000, 25000, 10000000, 0, NULL,
     0, 0},
    {V4L2_CID_MPEG_VIDEO_REPEAT_SEQ_HEADER, "Repeat Sequence Header", V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0, 0, NULL, 0,
     0},
    {V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME, "Force Key Frame", V4L2_CTRL_TYPE_BUTTON, 0, 0, 0, 0,
     V4L2_CTRL_FLAG_WRITE_ONLY | V4L2_CTRL_FLAG_EXECUTE_ON_WRITE, NULL, 0, 0},
    {V4L2_CID_MPEG_VIDEO_H264_MIN_QP, "H264 Minimum QP Value", V4L2_CTRL_TYPE_INTEGER, 0, 51, 1, 20, 0, NULL, 0, 0},
    {V4L2_CID_MPEG_VIDEO_H264_MAX_QP, "H264 Maximum QP Value", V4L2_CTRL_TYPE_INTEGER, 0, 51, 1, 51, 0, NULL, 0, 0},
    {V4L2_CID_MPEG_VIDEO_H264_I_PERIOD, "H264 I-Frame Period", V4L2_CTRL_TYPE_INTEGER, 0, 0x7fffffff, 1, 60, 0, NULL,
     0, 0},
    {V4L2_CID_MPEG_VIDEO_H264_LEVEL, "H264 Level", V4L2_CTRL_TYPE_MENU, 0, V4L2_MPEG_VIDEO_H264_LEVEL_4_2, 1,
     V4L2_MPEG_VIDEO_H264_LEVEL_4_0, 0, h264_level_menu, 0, 0},
    {V4L2_CID_MPEG_VIDEO_H264_PROFILE, "H264 Profile", V4L2_CTRL_TYPE_MENU, 0, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH, 1,
     V4L2_MPEG_VIDEO_H264_PROFILE_HIGH, 0, h264_profile_menu, 0, 0},
};

/* One device's (or one encoder context's) controls: the table and the current values. */
struct control_set {
    const struct control_def *defs;
    int count;
    int32_t *values;
    const struct sim_device *persist; /* device whose values are saved in LIVEPUSH_SIM_STATE_DIR, or NULL */
};

static int find_control(const struct control_set *set, uint32_t id)
{
    for (int i = 0; i < set->count; i++)
        if (set->defs[i].id == id)
            return i;
    return -1;
}

/* Resolves V4L2_CTRL_FLAG_NEXT_CTRL enumeration; -1 if there is no such control. */
static int resolve_query_id(const struct control_set *set, uint32_t id)
{
    uint32_t base = id & ~(V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND);
    if (!(id & V4L2_CTRL_FLAG_NEXT_CTRL))
        return (id & V4L2_CTRL_FLAG_NEXT_COMPOUND) ? -1 : find_control(set, base);
    for (int i = 0; i < set->count; i++)
        if (set->defs[i].id > base)
            return i;
    return -1;
}

static bool menu_index_valid(const struct control_def *c, int64_t value)
{
    return value >= c->minimum && value <= c->maximum && c->menu[value] != NULL;
}

static struct control_set camera_set(struct sim_device *dev)
{
    return (struct control_set){camera_controls, SIM_CONTROL_COUNT, dev->controls, dev};
}

static struct control_set encoder_set(int32_t *values)
{
    return (struct control_set){encoder_controls, SIM_ENC_CONTROL_COUNT, values, NULL};
}

static int32_t set_value(const struct control_set *set, uint32_t id)
{
    int i = find_control(set, id);
    return i < 0 ? 0 : set->values[i];
}

int32_t sim_control_value(const struct sim_device *dev, uint32_t id)
{
    struct control_set set = camera_set((struct sim_device *)dev);
    return set_value(&set, id);
}

int32_t sim_encoder_control_value(const int32_t *values, uint32_t id)
{
    struct control_set set = encoder_set((int32_t *)values);
    return set_value(&set, id);
}

static uint32_t current_flags(const struct control_set *set, const struct control_def *c)
{
    uint32_t flags = c->flags;
    if (c->auto_id && set_value(set, c->auto_id) != c->manual_value)
        flags |= V4L2_CTRL_FLAG_INACTIVE;
    return flags;
}

static const char *state_path(const struct sim_device *dev, char *buf, size_t size)
{
    const char *dir = getenv("LIVEPUSH_SIM_STATE_DIR");
    if (!dir || !*dir)
        return NULL;
    const char *base = strrchr(dev->config.path, '/');
    snprintf(buf, size, "%s/%s.controls", dir, base ? base + 1 : dev->config.path);
    return buf;
}

static void controls_save(const struct control_set *set)
{
    char path[512];
    if (!set->persist || !state_path(set->persist, path, sizeof(path)))
        return;
    FILE *f = fopen(path, "we");
    if (!f)
        return;
    for (int i = 0; i < set->count; i++)
        fprintf(f, "0x%08x %d\n", set->defs[i].id, set->values[i]);
    fclose(f);
}

void sim_encoder_controls_defaults(int32_t *values)
{
    for (int i = 0; i < SIM_ENC_CONTROL_COUNT; i++)
        values[i] = encoder_controls[i].default_value;
}

void sim_controls_defaults(struct sim_device *dev)
{
    struct control_set set = camera_set(dev);
    for (int i = 0; i < SIM_CONTROL_COUNT; i++)
        dev->controls[i] = camera_controls[i].default_value;
    char path[512];
    FILE *f = state_path(dev, path, sizeof(path)) ? fopen(path, "re") : NULL;
    if (!f)
        return;
    unsigned id;
    int value;
    while (fscanf(f, "%x %d", &id, &value) == 2) {
        int i = find_control(&set, id);
        if (i >= 0)
            dev->controls[i] = value;
    }
    fclose(f);
}

static void fill_queryctrl(const struct control_set *set, int i, struct v4l2_queryctrl *q)
{
    const struct control_def *c = &set->defs[i];
    memset(q, 0, sizeof(*q));
    q->id = c->id;
    q->type = c->type;
    strncpy((char *)q->name, c->name, sizeof(q->name) - 1);
    q->minimum = c->minimum;
    q->maximum = c->maximum;
    q->step = c->step;
    q->default_value = c->default_value;
    q->flags = current_flags(set, c);
}

static void fill_query_ext(const struct control_set *set, int i, struct v4l2_query_ext_ctrl *q)
{
    const struct control_def *c = &set->defs[i];
    memset(q, 0, sizeof(*q));
    q->id = c->id;
    q->type = c->type;
    strncpy(q->name, c->name, sizeof(q->name) - 1);
    q->minimum = c->minimum;
    q->maximum = c->maximum;
    q->step = (uint64_t)c->step;
    q->default_value = c->default_value;
    q->flags = current_flags(set, c);
    q->elem_size = c->type == V4L2_CTRL_TYPE_CTRL_CLASS || c->type == V4L2_CTRL_TYPE_BUTTON ? 0 : sizeof(int32_t);
    q->elems = 1;
}

static int querymenu(const struct control_set *set, struct v4l2_querymenu *m)
{
    int i = find_control(set, m->id);
    if (i < 0 || set->defs[i].type != V4L2_CTRL_TYPE_MENU || !menu_index_valid(&set->defs[i], m->index))
        return -EINVAL;
    uint32_t id = m->id, index = m->index;
    memset(m, 0, sizeof(*m));
    m->id = id;
    m->index = index;
    strncpy((char *)m->name, set->defs[i].menu[index], sizeof(m->name) - 1);
    return 0;
}

/* Validates (and clamps) a value for control i. */
static int validate(const struct control_def *c, int32_t *value)
{
    switch (c->type) {
    case V4L2_CTRL_TYPE_CTRL_CLASS:
        return -EACCES;
    case V4L2_CTRL_TYPE_BUTTON:
        *value = 0;
        return 0;
    case V4L2_CTRL_TYPE_BOOLEAN:
        *value = *value != 0;
        return 0;
    case V4L2_CTRL_TYPE_MENU:
        return menu_index_valid(c, *value) ? 0 : -EINVAL;
    default: {
        int64_t v = *value < c->minimum ? c->minimum : *value > c->maximum ? c->maximum : *value;
        v = c->minimum + (v - c->minimum + c->step / 2) / c->step * c->step;
        *value = (int32_t)(v > c->maximum ? v - c->step : v);
        return 0;
    }
    }
}

static int get_one(const struct control_set *set, uint32_t id, bool defaults, int32_t *value)
{
    int i = find_control(set, id);
    if (i < 0)
        return -EINVAL;
    if (set->defs[i].type == V4L2_CTRL_TYPE_CTRL_CLASS || (set->defs[i].flags & V4L2_CTRL_FLAG_WRITE_ONLY))
        return -EACCES;
    *value = defaults ? set->defs[i].default_value : set->values[i];
    return 0;
}

static int set_one(const struct control_set *set, uint32_t id, int32_t *value, bool apply)
{
    int i = find_control(set, id);
    if (i < 0)
        return -EINVAL;
    int rc = validate(&set->defs[i], value);
    if (rc == 0 && apply) {
        set->values[i] = *value;
        controls_save(set);
    }
    return rc;
}

static int ext_ctrls(const struct control_set *set, struct v4l2_ext_controls *ec, unsigned long request)
{
    bool defaults = ec->which == V4L2_CTRL_WHICH_DEF_VAL;
    if (ec->which == V4L2_CTRL_WHICH_REQUEST_VAL || (defaults && request != VIDIOC_G_EXT_CTRLS))
        return -EINVAL;
    ec->error_idx = ec->count;
    if (ec->count == 0)
        return 0;
    if (ec->count > 1024 || !ec->controls)
        return -EINVAL;
    bool apply = request == VIDIOC_S_EXT_CTRLS;
    for (int pass = 0; pass < (apply ? 2 : 1); pass++) { /* validate all before applying any */
        for (uint32_t n = 0; n < ec->count; n++) {
            struct v4l2_ext_control *c = &ec->controls[n];
            int32_t value = c->value;
            int rc = request == VIDIOC_G_EXT_CTRLS ? get_one(set, c->id, defaults, &value)
                                                   : set_one(set, c->id, &value, apply && pass == 1);
            if (rc) {
                ec->error_idx = request == VIDIOC_G_EXT_CTRLS || rc == -EINVAL ? n : ec->count;
                return rc;
            }
            c->value = value;
        }
    }
    return 0;
}

static int ioctl_control_set(const struct control_set *set, unsigned long request, void *arg)
{
    switch (request) {
    case VIDIOC_QUERYCTRL: {
        struct v4l2_queryctrl *q = arg;
        int i = resolve_query_id(set, q->id);
        if (i < 0)
            return -EINVAL;
        fill_queryctrl(set, i, q);
        return 0;
    }
    case VIDIOC_QUERY_EXT_CTRL: {
        struct v4l2_query_ext_ctrl *q = arg;
        int i = resolve_query_id(set, q->id);
        if (i < 0)
            return -EINVAL;
        fill_query_ext(set, i, q);
        return 0;
    }
    case VIDIOC_QUERYMENU:
        return querymenu(set, arg);
    case VIDIOC_G_CTRL: {
        struct v4l2_control *c = arg;
        return get_one(set, c->id, false, &c->value);
    }
    case VIDIOC_S_CTRL: {
        struct v4l2_control *c = arg;
        return set_one(set, c->id, &c->value, true);
    }
    case VIDIOC_G_EXT_CTRLS:
    case VIDIOC_S_EXT_CTRLS:
    case VIDIOC_TRY_EXT_CTRLS:
        return ext_ctrls(set, arg, request);
    default:
        return -ENOTTY;
    }
}

int sim_ioctl_control(struct sim_device *dev, unsigned long request, void *arg)
{
    struct control_set set = camera_set(dev);
    return ioctl_control_set(&set, request, arg);
}

int sim_ioctl_encoder_control(int32_t *values, unsigned long request, void *arg)
{
    struct control_set set = encoder_set(values);
    return ioctl_control_set(&set, request, arg);
}
