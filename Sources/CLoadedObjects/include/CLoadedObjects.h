#ifndef LIVEPUSH_CLOADEDOBJECTS_H
#define LIVEPUSH_CLOADEDOBJECTS_H

#include <stddef.h>
#include <stdint.h>

/* The most read-only segments an object may have to be offered (ld.so lays out two or three). */
#define LP_SEGMENTS_PER_OBJECT 16

/* Called with one loaded object's read-only segments as `count` [start, end) pairs in `pairs`. */
typedef void (*lp_locked_body)(void *context, const uintptr_t *pairs, size_t count);

/* Runs `body` once for each loaded ELF object that has read-only PT_LOAD segments (code and
   read-only data, never a segment the loader writes: RELRO lies in a writable one), with them as
   the pages they are mapped in, while glibc's loader lock (the one dl_iterate_phdr holds, across
   every object) is held: no object can be unloaded and its range reused meanwhile, and an object
   being loaded is not among them, so its pages (relocated while the loader maps it) are never
   offered. A page a segment shares with a writable neighbour is in that neighbour's writable
   mapping, which the caller must never drop. One object at a time, because reading an object's
   program headers faults their page back in (with fault-around, up to 64 KiB) once a release
   dropped it: reading all ~150 objects' headers before dropping any added 3.6-5.3 MiB to the
   resident set at every release (BENCHMARKS.md, issue 28); this way the next object's headers are
   read after the previous object's pages are gone. Another thread's dlopen, dlclose or exception
   unwinding waits for `body`, so neither this function nor `body` may allocate: a malloc that a
   tool hooks (heaptrack's unwinder takes its own lock and then the loader's) would deadlock
   against it. Returns how many objects were skipped for having more than LP_SEGMENTS_PER_OBJECT
   read-only segments. Its own C file, because dl_iterate_phdr needs _GNU_SOURCE, which must not
   reach a header other modules see. */
int lp_with_read_only_segments(lp_locked_body body, void *context);

#endif
