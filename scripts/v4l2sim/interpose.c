/*
 * interpose.c — the libc entry points the preload replaces, and the fd table.
 *
 * open/openat (and their 64/fortified variants) of a configured node return an
 * eventfd recorded in sim_files; ioctl, mmap, read and close on such an fd go to
 * the simulator, everything else to the real libc function (dlsym RTLD_NEXT).
 * poll/select run natively on the eventfds and then adjust what is reported for
 * fake fds (POLLERR when unplugged or not streaming), like videobuf2's poll.
 * Not covered: dup() of a fake fd, ppoll/pselect/epoll error reporting (epoll
 * still wakes on frames and on unplug), libv4l2 (it issues raw syscalls).
 */
#include "sim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_cond = PTHREAD_COND_INITIALIZER;
struct sim_device sim_devices[SIM_MAX_DEVICES];
int sim_device_count;
struct sim_file sim_files[SIM_MAX_OPEN_FILES];
bool sim_debug;
struct sim_libc sim_real;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int open_file_count; /* read without the lock as a fast path */

static void init(void)
{
    sim_real.open = dlsym(RTLD_NEXT, "open");
    sim_real.openat = dlsym(RTLD_NEXT, "openat");
    sim_real.close = dlsym(RTLD_NEXT, "close");
    sim_real.ioctl = dlsym(RTLD_NEXT, "ioctl");
    sim_real.mmap = dlsym(RTLD_NEXT, "mmap");
    sim_real.poll = dlsym(RTLD_NEXT, "poll");
    sim_real.select = dlsym(RTLD_NEXT, "select");
    sim_real.read = dlsym(RTLD_NEXT, "read");
    const char *debug = getenv("LIVEPUSH_SIM_DEBUG");
    sim_debug = debug && *debug && *debug != '0';
    for (int i = 0; i < SIM_MAX_OPEN_FILES; i++)
        sim_files[i].fd = -1;
    sim_config_load();
}

static void ensure_init(void)
{
    pthread_once(&init_once, init);
}

static bool any_open(void)
{
    return __atomic_load_n(&open_file_count, __ATOMIC_ACQUIRE) > 0;
}

/* Caller holds sim_lock. */
struct sim_file *sim_file_for_fd(int fd)
{
    if (fd < 0)
        return NULL;
    for (int i = 0; i < SIM_MAX_OPEN_FILES; i++)
        if (sim_files[i].fd == fd)
            return &sim_files[i];
    return NULL;
}

/* Caller holds sim_lock. Open fds of an unplugged device die and wake their pollers. */
void sim_mark_dead(int device)
{
    for (int i = 0; i < SIM_MAX_OPEN_FILES; i++) {
        struct sim_file *f = &sim_files[i];
        if (f->fd < 0 || f->device != device || f->dead)
            continue;
        f->dead = true;
        uint64_t one = 1;
        if (write(f->fd, &one, sizeof(one)) != sizeof(one))
            SIM_LOG("wake of fd %d failed\n", f->fd);
    }
    if (sim_devices[device].queue.owner_fd >= 0)
        sim_queue_release(&sim_devices[device]);
    pthread_cond_broadcast(&sim_cond);
}

static int open_errno(const struct sim_faults *f)
{
    if (f->unplugged)
        return ENOENT;
    if (f->eacces_open)
        return EACCES;
    if (f->busy_open)
        return EBUSY;
    return 0;
}

static int sim_open(int device, int flags)
{
    pthread_mutex_lock(&sim_lock);
    sim_faults_refresh();
    int err = open_errno(&sim_devices[device].faults), fd = -1;
    struct sim_file *slot = NULL;
    for (int i = 0; !err && !slot && i < SIM_MAX_OPEN_FILES; i++)
        if (sim_files[i].fd < 0)
            slot = &sim_files[i];
    if (!err && !slot)
        err = EMFILE;
    if (!err) {
        fd = eventfd(0, EFD_SEMAPHORE | (flags & O_NONBLOCK ? EFD_NONBLOCK : 0) | (flags & O_CLOEXEC ? EFD_CLOEXEC : 0));
        err = fd < 0 ? errno : 0;
    }
    struct sim_encoder *enc = NULL;
    if (!err && sim_devices[device].config.kind == SIM_KIND_ENCODER && !(enc = sim_encoder_open(&sim_devices[device], fd))) {
        sim_real.close(fd);
        err = ENOMEM;
    }
    if (!err) {
        *slot = (struct sim_file){.fd = fd, .device = device, .enc = enc};
        __atomic_add_fetch(&open_file_count, 1, __ATOMIC_RELEASE);
        sim_clock_start(); /* notices unplug even while nothing streams */
        sim_event_log("LIVEPUSH_SIM_LOG", sim_devices[device].config.path, "open");
    }
    pthread_mutex_unlock(&sim_lock);
    SIM_LOG("open %s -> %d (%s)\n", sim_devices[device].config.path, fd, err ? strerror(err) : "ok");
    errno = err ? err : errno;
    return err ? -1 : fd;
}

int sim_lookup_node(int dirfd, const char *path)
{
    ensure_init();
    if (!path || (path[0] != '/' && dirfd != AT_FDCWD))
        return -1;
    return sim_device_by_path(path);
}

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    int device = sim_lookup_node(AT_FDCWD, path);
    return device >= 0 ? sim_open(device, flags) : sim_real.open(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    int device = sim_lookup_node(dirfd, path);
    return device >= 0 ? sim_open(device, flags) : sim_real.openat(dirfd, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int __open_2(const char *path, int flags)
{
    return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
    return open(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    return openat(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    return openat(dirfd, path, flags);
}

int close(int fd)
{
    ensure_init();
    if (any_open()) {
        pthread_mutex_lock(&sim_lock);
        struct sim_file *f = sim_file_for_fd(fd);
        if (f) {
            struct sim_device *dev = &sim_devices[f->device];
            if (dev->queue.owner_fd == fd)
                sim_queue_release(dev);
            if (f->enc)
                sim_encoder_close(f->enc);
            f->enc = NULL;
            f->fd = -1;
            __atomic_sub_fetch(&open_file_count, 1, __ATOMIC_RELEASE);
            SIM_LOG("close %d\n", fd);
            sim_event_log("LIVEPUSH_SIM_LOG", dev->config.path, "close");
        }
        pthread_mutex_unlock(&sim_lock);
    }
    return sim_real.close(fd);
}

int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    ensure_init();
    if (any_open()) {
        pthread_mutex_lock(&sim_lock);
        struct sim_file *f = sim_file_for_fd(fd);
        if (f) {
            sim_faults_refresh();
            int rc = sim_ioctl(f, (unsigned int)request, arg);
            pthread_mutex_unlock(&sim_lock);
            SIM_LOG("ioctl %d 0x%08x -> %d\n", fd, (unsigned int)request, rc);
            errno = rc < 0 ? -rc : errno;
            return rc < 0 ? -1 : rc;
        }
        pthread_mutex_unlock(&sim_lock);
    }
    return sim_real.ioctl(fd, request, arg);
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    ensure_init();
    if (fd >= 0 && any_open()) {
        pthread_mutex_lock(&sim_lock);
        struct sim_file *f = sim_file_for_fd(fd);
        if (f) {
            void *p = f->dead ? (errno = ENODEV, MAP_FAILED)
                      : f->enc ? sim_encoder_mmap(f->enc, addr, length, prot, flags, offset)
                               : sim_mmap_buffer(f, addr, length, prot, flags, offset);
            pthread_mutex_unlock(&sim_lock);
            return p;
        }
        pthread_mutex_unlock(&sim_lock);
    }
    return sim_real.mmap(addr, length, prot, flags, fd, offset);
}

void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset) __attribute__((alias("mmap")));

ssize_t read(int fd, void *buf, size_t count)
{
    ensure_init();
    if (any_open()) {
        pthread_mutex_lock(&sim_lock);
        struct sim_file *f = sim_file_for_fd(fd);
        if (f) {
            sim_faults_refresh();
            ssize_t rc = f->dead ? -ENODEV : sim_read_frame(f, &sim_devices[f->device], buf, count);
            pthread_mutex_unlock(&sim_lock);
            errno = rc < 0 ? (int)-rc : errno;
            return rc < 0 ? -1 : rc;
        }
        pthread_mutex_unlock(&sim_lock);
    }
    return sim_real.read(fd, buf, count);
}

/* What videobuf2 would report for a fake fd, given what the eventfd reported. */
static short fake_revents(const struct sim_file *f, short events, short native)
{
    const struct sim_queue *q = &sim_devices[f->device].queue;
    if (f->dead)
        return POLLERR | POLLHUP;
    if (f->enc) /* readiness is computed from the encoder's queues; the eventfd only wakes the wait */
        return sim_encoder_revents(f->enc) & (events | POLLERR);
    if (f->read_mode)
        return events & (POLLIN | POLLRDNORM);
    if (q->owner_fd != f->fd || !q->streaming)
        return POLLERR;
    return native & events & (POLLIN | POLLRDNORM);
}

/* Caller holds sim_lock. True if a fake fd's state is final without waiting (for an encoder:
 * one of the asked events, or an error, is ready). */
static bool ready_without_wait(const struct sim_file *f, short events)
{
    const struct sim_queue *q = &sim_devices[f->device].queue;
    if (f->enc)
        return f->dead || (sim_encoder_revents(f->enc) & (events | POLLERR)) != 0;
    return f->dead || f->read_mode || q->owner_fd != f->fd || !q->streaming;
}

#define ENCODER_POLL_SLICE_MS 10

/* One pass of poll: returns the result and whether an encoder fd is still waiting. An encoder's
 * readiness lives in its queues, not in the eventfd (always writable), so encoder fds are left
 * out of the native wait (events 0) and re-checked every ENCODER_POLL_SLICE_MS. */
static int poll_once(struct pollfd *fds, nfds_t nfds, int timeout, bool *encoder_waiting)
{
    bool fake = false, now = false, encoder = false;
    short asked[nfds > 0 && nfds < 64 ? nfds : 1];
    pthread_mutex_lock(&sim_lock);
    sim_faults_refresh();
    for (nfds_t i = 0; i < nfds; i++) {
        struct sim_file *f = sim_file_for_fd(fds[i].fd);
        fake |= f != NULL;
        now |= f && ready_without_wait(f, fds[i].events);
        if (i < 64)
            asked[i] = fds[i].events;
        if (f && f->enc && i < 64) {
            encoder = true;
            fds[i].events = 0;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    int wait = now ? 0 : encoder && (timeout < 0 || timeout > ENCODER_POLL_SLICE_MS) ? ENCODER_POLL_SLICE_MS : timeout;
    int rc = sim_real.poll(fds, nfds, wait);
    for (nfds_t i = 0; i < nfds && i < 64; i++)
        fds[i].events = asked[i];
    *encoder_waiting = encoder && !now;
    if (!fake || rc < 0)
        return rc;
    pthread_mutex_lock(&sim_lock);
    rc = 0;
    for (nfds_t i = 0; i < nfds; i++) {
        struct sim_file *f = sim_file_for_fd(fds[i].fd);
        if (f)
            fds[i].revents = fake_revents(f, fds[i].events, fds[i].revents);
        rc += fds[i].revents != 0;
    }
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    ensure_init();
    if (!any_open())
        return sim_real.poll(fds, nfds, timeout);
    uint64_t deadline = sim_now_ns(CLOCK_MONOTONIC) + (uint64_t)(timeout > 0 ? timeout : 0) * 1000000ull;
    for (;;) {
        bool encoder_waiting = false;
        int rc = poll_once(fds, nfds, timeout, &encoder_waiting);
        if (rc != 0 || !encoder_waiting || timeout == 0)
            return rc;
        if (timeout > 0 && sim_now_ns(CLOCK_MONOTONIC) >= deadline)
            return 0;
    }
}

int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen)
{
    (void)fdslen;
    return poll(fds, nfds, timeout);
}

static void set_bit(fd_set *set, int fd, bool on)
{
    if (!set)
        return;
    if (on)
        FD_SET(fd, set);
    else
        FD_CLR(fd, set);
}

static int count_bits(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
    int n = 0;
    for (int fd = 0; fd < nfds; fd++)
        n += (r && FD_ISSET(fd, r)) + (w && FD_ISSET(fd, w)) + (e && FD_ISSET(fd, e));
    return n;
}

int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
    ensure_init();
    if (!any_open() || nfds > FD_SETSIZE)
        return sim_real.select(nfds, r, w, e, timeout);
    fd_set r0, w0;
    FD_ZERO(&r0);
    FD_ZERO(&w0);
    bool fake = false, now = false;
    pthread_mutex_lock(&sim_lock);
    sim_faults_refresh();
    for (int fd = 0; fd < nfds; fd++) {
        struct sim_file *f = sim_file_for_fd(fd);
        bool asked = (r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) || (e && FD_ISSET(fd, e));
        fake |= f && asked;
        now |= f && asked && ready_without_wait(f, POLLIN | POLLRDNORM);
    }
    pthread_mutex_unlock(&sim_lock);
    if (r)
        r0 = *r;
    if (w)
        w0 = *w;
    struct timeval zero = {0, 0};
    int rc = sim_real.select(nfds, r, w, e, now ? &zero : timeout);
    if (!fake || rc < 0)
        return rc;
    pthread_mutex_lock(&sim_lock);
    for (int fd = 0; fd < nfds; fd++) {
        struct sim_file *f = sim_file_for_fd(fd);
        if (!f)
            continue;
        short native = r && FD_ISSET(fd, r) ? POLLIN : 0;
        short revents = fake_revents(f, POLLIN | POLLRDNORM, native);
        set_bit(r, fd, FD_ISSET(fd, &r0) && (revents & (POLLIN | POLLERR | POLLHUP)));
        set_bit(w, fd, FD_ISSET(fd, &w0) && (revents & POLLERR));
        set_bit(e, fd, false);
    }
    pthread_mutex_unlock(&sim_lock);
    return count_bits(nfds, r, w, e);
}

/* readlink("/proc/self/fd/N") of a fake fd names its node, as the kernel names a device's fd
 * (livepush tells which node FFmpeg's M2M encoder opened this way). */
static ssize_t fake_fd_link(const char *path, char *buf, size_t size)
{
    static const char prefix[] = "/proc/self/fd/";
    if (!any_open() || !path || strncmp(path, prefix, sizeof(prefix) - 1) != 0)
        return -2;
    char *end;
    long fd = strtol(path + sizeof(prefix) - 1, &end, 10);
    if (*end != '\0')
        return -2;
    ssize_t n = -2;
    pthread_mutex_lock(&sim_lock);
    struct sim_file *f = sim_file_for_fd((int)fd);
    if (f) {
        const char *node = sim_devices[f->device].config.path;
        n = (ssize_t)strlen(node) < (ssize_t)size ? (ssize_t)strlen(node) : (ssize_t)size;
        memcpy(buf, node, (size_t)n);
    }
    pthread_mutex_unlock(&sim_lock);
    return n;
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
    static ssize_t (*real)(const char *, char *, size_t);
    if (!real)
        real = dlsym(RTLD_NEXT, "readlink");
    ssize_t n = fake_fd_link(path, buf, size);
    return n != -2 ? n : real(path, buf, size);
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
    static ssize_t (*real)(int, const char *, char *, size_t);
    if (!real)
        real = dlsym(RTLD_NEXT, "readlinkat");
    ssize_t n = path[0] == '/' ? fake_fd_link(path, buf, size) : -2;
    return n != -2 ? n : real(dirfd, path, buf, size);
}
