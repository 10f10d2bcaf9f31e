/*
 * faults.c — faults on command, for tests.
 *
 * LIVEPUSH_SIM_FAULTS names a small text file that is re-read on every open,
 * ioctl, poll/select and clock tick, so a test can change it while a client
 * streams. One fault per line, "#" starts a comment:
 *
 *   NODE unplug                 node vanishes: open -> ENOENT, open fds -> ENODEV/POLLERR
 *   NODE eacces                 open -> EACCES
 *   NODE busy [open|reqbufs|streamon]   that call -> EBUSY (default open)
 *   NODE stall                  no more frames while streaming
 *   NODE corrupt-mjpeg N        every Nth MJPEG frame is truncated and garbled
 *   NODE drop-seq N [EVERY]     skip N sequence numbers every EVERY frames (default 10)
 *   NODE wedge                  encoder: OUTPUT buffers still come back, CAPTURE buffers stop
 *
 * NODE is a fake node path or "*" for all nodes. Removing a line undoes the fault
 * (removing "unplug" replugs the node; fds opened before stay dead, like hardware).
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void apply_fault(struct sim_faults *f, const char *name, const char *arg1, const char *arg2)
{
    if (strcmp(name, "unplug") == 0)
        f->unplugged = true;
    else if (strcmp(name, "eacces") == 0)
        f->eacces_open = true;
    else if (strcmp(name, "busy") == 0) {
        if (!arg1 || strcmp(arg1, "open") == 0)
            f->busy_open = true;
        else if (strcmp(arg1, "reqbufs") == 0)
            f->busy_reqbufs = true;
        else if (strcmp(arg1, "streamon") == 0)
            f->busy_streamon = true;
    } else if (strcmp(name, "stall") == 0)
        f->stall = true;
    else if (strcmp(name, "wedge") == 0)
        f->wedge = true;
    else if (strcmp(name, "corrupt-mjpeg") == 0)
        f->corrupt_mjpeg_every = arg1 ? (uint32_t)strtoul(arg1, NULL, 10) : 1;
    else if (strcmp(name, "drop-seq") == 0) {
        f->drop_seq_count = arg1 ? (uint32_t)strtoul(arg1, NULL, 10) : 1;
        f->drop_seq_every = arg2 ? (uint32_t)strtoul(arg2, NULL, 10) : 10;
        if (f->drop_seq_every == 0)
            f->drop_seq_every = 1;
    } else
        SIM_LOG("unknown fault '%s'\n", name);
}

static void apply_line(struct sim_faults *next, char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *save = NULL;
    char *node = strtok_r(line, " \t\r\n", &save);
    char *name = node ? strtok_r(NULL, " \t\r\n", &save) : NULL;
    if (!name)
        return;
    char *arg1 = strtok_r(NULL, " \t\r\n", &save);
    char *arg2 = arg1 ? strtok_r(NULL, " \t\r\n", &save) : NULL;
    for (int i = 0; i < sim_device_count; i++)
        if (strcmp(node, "*") == 0 || strcmp(node, sim_devices[i].config.path) == 0)
            apply_fault(&next[i], name, arg1, arg2);
}

/* Caller holds sim_lock. Marks open fds of newly unplugged devices dead. */
void sim_faults_refresh(void)
{
    static const char *path;
    static bool looked_up;
    if (!looked_up) {
        path = getenv("LIVEPUSH_SIM_FAULTS");
        looked_up = true;
    }
    if (!path || !*path)
        return;
    struct sim_faults next[SIM_MAX_DEVICES];
    memset(next, 0, sizeof(next));
    FILE *f = fopen(path, "re");
    if (f) {
        char line[256];
        while (fgets(line, sizeof(line), f))
            apply_line(next, line);
        fclose(f);
    }
    for (int i = 0; i < sim_device_count; i++) {
        if (next[i].unplugged && !sim_devices[i].faults.unplugged)
            SIM_LOG("%s unplugged\n", sim_devices[i].config.path);
        sim_devices[i].faults = next[i];
        if (next[i].unplugged)
            sim_mark_dead(i);
    }
}
