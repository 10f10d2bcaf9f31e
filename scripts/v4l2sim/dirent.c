/*
 * dirent.c — the fake nodes appear in a listing of their directory (/dev).
 *
 * FFmpeg's h264_v4l2m2m finds its encoder by reading /dev for "video*" entries and
 * probing each; v4l2-ctl --list-devices reads /dev the same way. When the real
 * readdir/readdir64 of a directory reaches its end, the configured nodes whose
 * parent is that directory follow, as character-device entries. The directory is
 * told by the path of the DIR's fd (/proc/self/fd); closedir forgets the DIR.
 */
#include "sim.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_DIRS 16

struct dir_state {
    DIR *dirp;
    int next; /* next device index to consider */
    char dir[PATH_MAX];
    struct dirent64 entry;
};

static struct dir_state dirs[MAX_DIRS];
static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct dir_state *state_for(DIR *dirp)
{
    struct dir_state *free_slot = NULL;
    for (int i = 0; i < MAX_DIRS; i++) {
        if (dirs[i].dirp == dirp)
            return &dirs[i];
        if (!dirs[i].dirp && !free_slot)
            free_slot = &dirs[i];
    }
    if (!free_slot)
        return NULL;
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd(dirp));
    ssize_t n = readlink(link, free_slot->dir, sizeof(free_slot->dir) - 1);
    free_slot->dir[n > 0 ? n : 0] = '\0';
    free_slot->dirp = dirp;
    free_slot->next = 0;
    return free_slot;
}

/* The next configured node directly under the DIR's directory, or NULL. */
static struct dirent64 *next_fake(DIR *dirp)
{
    sim_lookup_node(AT_FDCWD, "/"); /* initialises the device table */
    pthread_mutex_lock(&dirs_lock);
    struct dir_state *s = state_for(dirp);
    struct dirent64 *result = NULL;
    size_t len = s ? strlen(s->dir) : 0;
    while (s && len > 0 && !result && s->next < sim_device_count) {
        const char *path = sim_devices[s->next].config.path;
        int index = s->next++;
        if (strncmp(path, s->dir, len) != 0 || path[len] != '/' || strchr(path + len + 1, '/'))
            continue;
        memset(&s->entry, 0, sizeof(s->entry));
        s->entry.d_ino = 0x5157000 + (ino64_t)index;
        s->entry.d_type = DT_CHR;
        s->entry.d_reclen = sizeof(s->entry);
        snprintf(s->entry.d_name, sizeof(s->entry.d_name), "%s", path + len + 1);
        result = &s->entry;
    }
    pthread_mutex_unlock(&dirs_lock);
    return result;
}

struct dirent64 *readdir64(DIR *dirp)
{
    static struct dirent64 *(*real)(DIR *);
    if (!real)
        real = dlsym(RTLD_NEXT, "readdir64");
    struct dirent64 *d = real(dirp);
    return d ? d : next_fake(dirp);
}

struct dirent *readdir(DIR *dirp)
{
    static struct dirent *(*real)(DIR *);
    if (!real)
        real = dlsym(RTLD_NEXT, "readdir");
    struct dirent *d = real(dirp);
    _Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent and dirent64 differ on this ABI");
    return d ? d : (struct dirent *)next_fake(dirp);
}

int closedir(DIR *dirp)
{
    static int (*real)(DIR *);
    if (!real)
        real = dlsym(RTLD_NEXT, "closedir");
    pthread_mutex_lock(&dirs_lock);
    for (int i = 0; i < MAX_DIRS; i++)
        if (dirs[i].dirp == dirp)
            dirs[i].dirp = NULL;
    pthread_mutex_unlock(&dirs_lock);
    return real(dirp);
}
