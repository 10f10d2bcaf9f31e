#ifndef LIVEPUSH_CLOADEDOBJECTS_H
#define LIVEPUSH_CLOADEDOBJECTS_H

#include <stddef.h>
#include <stdint.h>

/* Called with the loaded objects' read-only segments as `count` [start, end) pairs in `pairs`. */
typedef void (*lp_locked_body)(void *context, const uintptr_t *pairs, size_t count);

/* Runs `body` with the loaded ELF objects' read-only PT_LOAD segments (code and read-only data,
   never a segment the loader writes: RELRO lies in a writable one), as the pages they are mapped in,
   while glibc's loader lock (the one dl_iterate_phdr holds) is held: no object can be unloaded and
   its range reused meanwhile, and an object being loaded is not among them, so its pages (relocated
   while the loader maps it) are never offered. A page a segment shares with a writable neighbour is
   in that neighbour's writable mapping, which the caller must never drop. Another thread's dlopen,
   dlclose or exception unwinding waits for `body`, so neither this function nor `body` may
   allocate: a malloc that a tool hooks (heaptrack's unwinder takes its own lock and then the
   loader's) would deadlock against it. The segments go into the caller's `pairs`, room for
   `capacity` [start, end) pairs; returns 0 when `body` ran, -1 (and `body` not called) when the
   objects had more read-only segments than that. Its own C file, because dl_iterate_phdr needs
   _GNU_SOURCE, which must not reach a header other modules see. */
int lp_with_read_only_segments(lp_locked_body body, void *context, uintptr_t *pairs, size_t capacity);

#endif
