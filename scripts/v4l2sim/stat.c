/*
 * stat.c — make the fake nodes look like character devices to path lookups.
 *
 * v4l2-ctl stat()s the node before opening it and fstat()s the fd; other programs
 * use access(), lstat() or statx(). For a configured node these report a character
 * device (major 81, as V4L2 uses) or ENOENT while it is unplugged; anything else
 * goes to the real libc function. The pre-2.33 __xstat family is covered for old
 * binaries.
 */
#include "sim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define V4L2_MAJOR 81
#define SIM_MINOR_BASE 200

static int real_fstatat(int dirfd, const char *path, struct stat *buf, int flags)
{
    static int (*fn)(int, const char *, struct stat *, int);
    if (!fn)
        fn = dlsym(RTLD_NEXT, "fstatat");
    return fn ? fn(dirfd, path, buf, flags) : (int)syscall(SYS_newfstatat, dirfd, path, buf, flags);
}

static int real_fstat(int fd, struct stat *buf)
{
    static int (*fn)(int, struct stat *);
    if (!fn)
        fn = dlsym(RTLD_NEXT, "fstat");
    return fn ? fn(fd, buf) : (int)syscall(SYS_fstat, fd, buf);
}

/* -1 if path is not a fake node; otherwise 0 or an errno for its current state. */
static int node_state(int dirfd, const char *path, int *device)
{
    *device = sim_lookup_node(dirfd, path);
    if (*device < 0)
        return -1;
    pthread_mutex_lock(&sim_lock);
    sim_faults_refresh();
    int err = sim_devices[*device].faults.unplugged ? ENOENT : 0;
    pthread_mutex_unlock(&sim_lock);
    return err;
}

static void fake_stat(int device, struct stat *st)
{
    memset(st, 0, sizeof(*st));
    st->st_dev = makedev(0, 5);
    st->st_ino = 1000 + (ino_t)device;
    st->st_mode = S_IFCHR | 0666;
    st->st_nlink = 1;
    st->st_rdev = makedev(V4L2_MAJOR, SIM_MINOR_BASE + device);
    st->st_blksize = 4096;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    st->st_atim = st->st_mtim = st->st_ctim = now;
}

/* The one place every path-based stat variant lands. */
static int stat_common(int dirfd, const char *path, struct stat *buf, int flags)
{
    int device, err = node_state(dirfd, path, &device);
    if (err < 0)
        return real_fstatat(dirfd, path, buf, flags);
    if (err) {
        errno = err;
        return -1;
    }
    fake_stat(device, buf);
    return 0;
}

static int fstat_common(int fd, struct stat *buf)
{
    int device = -1;
    if (fd >= 0) {
        pthread_mutex_lock(&sim_lock);
        struct sim_file *f = sim_file_for_fd(fd);
        device = f ? f->device : -1;
        pthread_mutex_unlock(&sim_lock);
    }
    if (device < 0)
        return real_fstat(fd, buf);
    fake_stat(device, buf);
    return 0;
}

int stat(const char *restrict path, struct stat *restrict buf) { return stat_common(AT_FDCWD, path, buf, 0); }
int stat64(const char *restrict path, struct stat64 *restrict buf)
{
    return stat_common(AT_FDCWD, path, (struct stat *)buf, 0);
}
int lstat(const char *restrict path, struct stat *restrict buf)
{
    return stat_common(AT_FDCWD, path, buf, AT_SYMLINK_NOFOLLOW);
}
int lstat64(const char *restrict path, struct stat64 *restrict buf)
{
    return stat_common(AT_FDCWD, path, (struct stat *)buf, AT_SYMLINK_NOFOLLOW);
}
int fstatat(int dirfd, const char *restrict path, struct stat *restrict buf, int flags)
{
    return stat_common(dirfd, path, buf, flags);
}
int fstatat64(int dirfd, const char *restrict path, struct stat64 *restrict buf, int flags)
{
    return stat_common(dirfd, path, (struct stat *)buf, flags);
}
int fstat(int fd, struct stat *buf) { return fstat_common(fd, buf); }
int fstat64(int fd, struct stat64 *buf) { return fstat_common(fd, (struct stat *)buf); }

/* glibc < 2.33 binaries call these; the version argument is _STAT_VER. */
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat *buf);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat *buf, int flags);
int __xstat(int ver, const char *path, struct stat *buf) { (void)ver; return stat_common(AT_FDCWD, path, buf, 0); }
int __xstat64(int ver, const char *path, struct stat *buf) { return __xstat(ver, path, buf); }
int __lxstat(int ver, const char *path, struct stat *buf)
{
    (void)ver;
    return stat_common(AT_FDCWD, path, buf, AT_SYMLINK_NOFOLLOW);
}
int __lxstat64(int ver, const char *path, struct stat *buf) { return __lxstat(ver, path, buf); }
int __fxstat(int ver, int fd, struct stat *buf) { (void)ver; return fstat_common(fd, buf); }
int __fxstat64(int ver, int fd, struct stat *buf) { return __fxstat(ver, fd, buf); }
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags)
{
    (void)ver;
    return stat_common(dirfd, path, buf, flags);
}
int __fxstatat64(int ver, int dirfd, const char *path, struct stat *buf, int flags)
{
    return __fxstatat(ver, dirfd, path, buf, flags);
}

int statx(int dirfd, const char *restrict path, int flags, unsigned int mask, struct statx *restrict buf)
{
    static int (*fn)(int, const char *, int, unsigned int, struct statx *);
    int device, err = node_state(dirfd, path, &device);
    if (err < 0) {
        if (!fn)
            fn = dlsym(RTLD_NEXT, "statx");
        return fn ? fn(dirfd, path, flags, mask, buf) : (errno = ENOSYS, -1);
    }
    if (err) {
        errno = err;
        return -1;
    }
    struct stat st;
    fake_stat(device, &st);
    memset(buf, 0, sizeof(*buf));
    buf->stx_mask = STATX_BASIC_STATS;
    buf->stx_mode = (uint16_t)st.st_mode;
    buf->stx_nlink = 1;
    buf->stx_ino = st.st_ino;
    buf->stx_blksize = 4096;
    buf->stx_rdev_major = V4L2_MAJOR;
    buf->stx_rdev_minor = SIM_MINOR_BASE + (unsigned)device;
    buf->stx_dev_minor = 5;
    buf->stx_atime.tv_sec = buf->stx_mtime.tv_sec = buf->stx_ctime.tv_sec = st.st_mtim.tv_sec;
    return 0;
}

static int access_common(int dirfd, const char *path, int mode, int flags)
{
    static int (*fn)(int, const char *, int, int);
    int device, err = node_state(dirfd, path, &device);
    if (err < 0) {
        if (!fn)
            fn = dlsym(RTLD_NEXT, "faccessat");
        return fn(dirfd, path, mode, flags);
    }
    if (!err && (mode & (R_OK | W_OK))) {
        pthread_mutex_lock(&sim_lock);
        err = sim_devices[device].faults.eacces_open ? EACCES : 0;
        pthread_mutex_unlock(&sim_lock);
    }
    errno = err ? err : errno;
    return err ? -1 : 0;
}

int access(const char *path, int mode) { return access_common(AT_FDCWD, path, mode, 0); }
int faccessat(int dirfd, const char *path, int mode, int flags) { return access_common(dirfd, path, mode, flags); }
int euidaccess(const char *path, int mode) { return access_common(AT_FDCWD, path, mode, AT_EACCESS); }
int eaccess(const char *path, int mode) { return access_common(AT_FDCWD, path, mode, AT_EACCESS); }

/*
 * v4l2-ctl decides what a node is from /sys/dev/char/MAJOR:MINOR/uevent (DEVNAME=video…),
 * read through std::ifstream, i.e. fopen(). Serve that one file for fake nodes.
 */
static FILE *fake_uevent(const char *path)
{
    unsigned major_number, minor_number;
    char tail[16];
    if (!path || sscanf(path, "/sys/dev/char/%u:%u/%15s", &major_number, &minor_number, tail) != 3 ||
        major_number != V4L2_MAJOR || strcmp(tail, "uevent") != 0)
        return NULL;
    int device = (int)minor_number - SIM_MINOR_BASE;
    sim_lookup_node(AT_FDCWD, "");
    if (device < 0 || device >= sim_device_count)
        return NULL;
    char text[256];
    /* v4l2-ctl wants "video" followed by a digit, whatever the node is called */
    int len = snprintf(text, sizeof(text), "MAJOR=%u\nMINOR=%u\nDEVNAME=video%u\n", major_number, minor_number,
                       minor_number);
    /* a real fd, not fmemopen: libstdc++ reads through fileno() */
    int fd = memfd_create("v4l2sim-uevent", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, (size_t)len) != len || lseek(fd, 0, SEEK_SET) != 0) {
        if (fd >= 0)
            sim_real.close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f)
        sim_real.close(fd);
    return f;
}

FILE *fopen(const char *restrict path, const char *restrict mode)
{
    static FILE *(*fn)(const char *, const char *);
    FILE *fake = fake_uevent(path);
    if (fake)
        return fake;
    if (!fn)
        fn = dlsym(RTLD_NEXT, "fopen");
    return fn(path, mode);
}

FILE *fopen64(const char *restrict path, const char *restrict mode)
{
    static FILE *(*fn)(const char *, const char *);
    FILE *fake = fake_uevent(path);
    if (fake)
        return fake;
    if (!fn)
        fn = dlsym(RTLD_NEXT, "fopen64");
    return fn(path, mode);
}
