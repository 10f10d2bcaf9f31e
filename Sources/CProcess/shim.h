#ifndef LIVEPUSH_CPROCESS_SHIM_H
#define LIVEPUSH_CPROCESS_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* prctl is variadic, which Swift cannot call: one fixed-argument wrapper per use. */
static inline int lp_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* Names the calling thread (what /proc/PID/task/TID/comm and top -H show); Linux keeps 15 bytes.
   Foundation's Thread.name reaches the system only sometimes on Linux (it races with start()). */
static inline int lp_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* glibc keeps freed heap memory mapped in each thread's arena; this hands the free pages back.
   Returns 1 when some memory was released. */
static inline int lp_release_free_heap(void) {
    return malloc_trim(0);
}

/* Bytes free in glibc's arenas (in use by nothing, whether or not their pages are resident). */
static inline size_t lp_free_heap_bytes(void) {
    return mallinfo2().fordblks;
}

/* Starts `path` with `argv` (NULL-terminated) as a child that cannot outlive the calling thread:
   in its own process group (so a stop signals it and anything it starts), with PR_SET_PDEATHSIG
   SIGKILL (so it dies with livepush even on SIGKILL or a crash), stdin from /dev/null and
   stdout/stderr onto the given descriptors, every other descriptor closed.
   Between fork and exec only async-signal-safe calls are made. Returns the pid, or -errno. */
static inline int lp_spawn_child(const char *path, char *const argv[], int stdout_fd, int stderr_fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return -errno;
    if (pid > 0) return pid;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent) _exit(127); /* the parent died before the line above took effect */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    if (dup2(stdout_fd, 1) < 0 || dup2(stderr_fd, 2) < 0) _exit(127);
#ifdef SYS_close_range
    syscall(SYS_close_range, 3U, ~0U, 0U);
#endif
    execv(path, argv);
    _exit(127);
}

#endif
