#ifndef LIVEPUSH_CLOADEDOBJECTS_H
#define LIVEPUSH_CLOADEDOBJECTS_H

#include <stddef.h>
#include <stdint.h>

/* The most read-only segments an object may have to be offered (ld.so lays out two or three). */
#define LP_SEGMENTS_PER_OBJECT 16

/* What one lp_with_read_only_segments walk did. */
typedef struct {
    /* Objects with more than LP_SEGMENTS_PER_OBJECT read-only segments, not offered. */
    int skipped;
    /* Objects whose program headers this walk read; the others' segments came from an earlier walk. */
    size_t headers_read;
    /* The loader's counts of objects loaded and unloaded so far (dlpi_adds, dlpi_subs) at the walk. */
    unsigned long long loads;
    unsigned long long unloads;
} lp_segment_walk;

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
   against it. The segments come from the objects' program headers when an object was loaded or
   unloaded since the last walk, and otherwise from what that walk read: after a release the
   headers' page is gone, and reading it again for every object at every release faulted it in
   only for the release to drop it (one madvise per object). Its own C file, because
   dl_iterate_phdr needs _GNU_SOURCE, which must not reach a header other modules see. */
lp_segment_walk lp_with_read_only_segments(lp_locked_body body, void *context);

/* Makes a loaded object's `.rodata` read-only when its link put it in a writable segment, and from
   then on offers it to lp_with_read_only_segments' body with the object's read-only segments.
   Swift's static runtime and Foundation emit their protocol conformance descriptors into a
   writable ".rodata", so the linker gives the whole output section (36 MB in livepush, ICU's data
   included) that flag and puts it in the writable segment, where a release could not drop what
   start-up read of it (2.5 MiB: Unicode and ICU tables, Swift metadata): a page of a writable
   mapping may hold a write made between the check and the drop. Nothing writes there (no dynamic
   relocation points into it, and the runtime only reads those records); once it is PROT_READ
   nothing can, so its pages stay clean copies of the file (a write would fault instead of being
   lost), and pagemap shows any page written before as a private copy. `path` is the object's file
   (/proc/self/exe for the program), `object` its name as dl_iterate_phdr gives it ("" for the
   program). Only the pages the section alone occupies are sealed. Returns the bytes sealed; 0 when
   the file has no writable .rodata (a dynamically linked build: nothing to do); -1 when the file
   is not a readable 64-bit ELF; -2 when no loaded object of that name holds the section in a
   writable segment; -3 when the table of sealed ranges is full; -4 when mprotect failed. Call it
   before the release that should drop the pages; a second call for a sealed object returns the
   bytes sealed the first time and adds nothing. */
long lp_seal_writable_rodata(const char *path, const char *object);

#endif
