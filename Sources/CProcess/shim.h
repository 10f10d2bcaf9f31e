#ifndef LIVEPUSH_CPROCESS_SHIM_H
#define LIVEPUSH_CPROCESS_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#endif

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
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

/* The loaded ELF objects' read-only PT_LOAD segments (code and read-only data, never a segment the
   loader writes: RELRO lies in a writable one), as [start, end) pairs of the pages they are mapped
   in. A page a segment shares with a writable neighbour is in that neighbour's writable mapping,
   which the caller never drops (it drops only parts of clean read-only mappings). */
typedef struct { uintptr_t *pairs; size_t count; size_t capacity; int failed; } lp_segment_list;

static int lp_collect_read_only_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    lp_segment_list *list = (lp_segment_list *)data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = (start + segment->p_memsz + page - 1) & ~(page - 1);
        start &= ~(page - 1);
        if (end <= start) continue;
        if (list->count + 2 > list->capacity) {
            size_t capacity = list->capacity ? list->capacity * 2 : 512;
            uintptr_t *grown = (uintptr_t *)realloc(list->pairs, capacity * sizeof(uintptr_t));
            if (!grown) { list->failed = 1; return 1; }
            list->pairs = grown;
            list->capacity = capacity;
        }
        list->pairs[list->count++] = start;
        list->pairs[list->count++] = end;
    }
    return 0;
}

typedef void (*lp_locked_body)(void *context, const uintptr_t *pairs, size_t count);
typedef struct { lp_locked_body body; void *context; } lp_locked_call;

static int lp_run_with_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info; (void)size;
    lp_locked_call *call = (lp_locked_call *)data;
    lp_segment_list list = {0};
    dl_iterate_phdr(lp_collect_read_only_segments, &list); /* the loader's lock is recursive */
    if (!list.failed) call->body(call->context, list.pairs, list.count / 2);
    free(list.pairs);
    return 1; /* once, from inside the first object's callback */
}

/* Runs `body` with the loaded objects' read-only segments while glibc's loader lock (the one
   dl_iterate_phdr holds) is held: no object can be unloaded and its range reused meanwhile, and an
   object being loaded is not among them, so its pages (relocated while the loader maps it) are never
   offered. Another thread's dlopen, dlclose or exception unwinding waits for `body`. */
static inline void lp_with_read_only_segments(lp_locked_body body, void *context) {
    lp_locked_call call = { body, context };
    dl_iterate_phdr(lp_run_with_segments, &call);
}

#endif
