#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#include "CLoadedObjects.h"
#include "SealedRanges.h"

#include <link.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* The read-only segments each object's program headers gave at the walk that read them, in the
   order dl_iterate_phdr visits the objects. A later walk over the same objects (no dlopen or
   dlclose since: dlpi_adds and dlpi_subs unchanged) takes them from here instead of reading the
   headers again, whose page the last release dropped: reading them faulted that page (and, with
   fault-around, up to 64 KiB about it) back in for each of ~150 objects, and the release then
   dropped it again, one madvise per object per release. Written and read only inside
   dl_iterate_phdr's callbacks, so the loader's lock orders every access. */
#define LP_CACHED_OBJECTS 512

/* An object with more read-only segments than LP_SEGMENTS_PER_OBJECT: not offered. */
#define LP_TOO_MANY (LP_SEGMENTS_PER_OBJECT + 1)

typedef struct {
    uintptr_t bias;
    const void *headers;
    size_t count; /* pairs held, or LP_TOO_MANY */
    uintptr_t pairs[2 * LP_SEGMENTS_PER_OBJECT];
} cached_object;

static cached_object cache[LP_CACHED_OBJECTS];
static size_t cached_objects;
static unsigned long long cached_loads, cached_unloads;
static int cache_valid;

typedef struct {
    lp_locked_body body;
    void *context;
    uintptr_t page;
    lp_segment_walk *walk;
    size_t index;
    int from_cache;
} locked_call;

/* The object's read-only PT_LOAD segments as page-aligned pairs; LP_TOO_MANY when more than fit. */
static size_t read_segments(const struct dl_phdr_info *info, uintptr_t page, uintptr_t *pairs) {
    size_t count = 0;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        if (count == LP_SEGMENTS_PER_OBJECT) return LP_TOO_MANY;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = (start + segment->p_memsz + page - 1) & ~(page - 1);
        pairs[2 * count] = start & ~(page - 1);
        pairs[2 * count + 1] = end;
        count++;
    }
    return count;
}

/* The object's segments from the cache when this walk may use it and the slot is this object's;
   otherwise read from its headers (and kept, when the walk refills the cache). */
static size_t segments_of(const struct dl_phdr_info *info, locked_call *call, uintptr_t *pairs) {
    size_t slot = call->index++;
    cached_object *entry = slot < LP_CACHED_OBJECTS ? &cache[slot] : NULL;
    if (call->from_cache && entry != NULL && slot < cached_objects && entry->bias == info->dlpi_addr
        && entry->headers == (const void *)info->dlpi_phdr) {
        if (entry->count != LP_TOO_MANY) memcpy(pairs, entry->pairs, 2 * entry->count * sizeof(uintptr_t));
        return entry->count;
    }
    size_t count = read_segments(info, call->page, pairs);
    call->walk->headers_read++;
    if (!call->from_cache && entry != NULL && slot == cached_objects) {
        entry->bias = info->dlpi_addr;
        entry->headers = (const void *)info->dlpi_phdr;
        entry->count = count;
        if (count != LP_TOO_MANY) memcpy(entry->pairs, pairs, 2 * count * sizeof(uintptr_t));
        cached_objects = slot + 1;
    }
    return count;
}

static int run_for_object(struct dl_phdr_info *info, size_t size, void *data) {
    locked_call *call = (locked_call *)data;
    if (call->index == 0) {
        /* Every callback of one walk sees the same counters: decide for the whole walk here. */
        int counted = size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs;
        call->walk->loads = counted ? info->dlpi_adds : 0;
        call->walk->unloads = counted ? info->dlpi_subs : 0;
        call->from_cache = counted && cache_valid && info->dlpi_adds == cached_loads && info->dlpi_subs == cached_unloads;
        if (!call->from_cache) {
            cached_objects = 0;
            cached_loads = call->walk->loads;
            cached_unloads = call->walk->unloads;
            cache_valid = counted;
        }
    }
    uintptr_t pairs[2 * LP_SEGMENTS_PER_OBJECT];
    size_t count = segments_of(info, call, pairs);
    if (count == LP_TOO_MANY) { call->walk->skipped++; return 0; }
    /* Its sealed .rodata (lp_seal_writable_rodata): read-only now, in a segment the loader made writable. */
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    for (size_t index = 0; index < lp_sealed_range_count; index++) {
        const lp_sealed_range *sealed = &lp_sealed_ranges[index];
        if (sealed->bias != info->dlpi_addr || strcmp(sealed->object, name) != 0) continue;
        if (count == LP_SEGMENTS_PER_OBJECT) { call->walk->skipped++; return 0; }
        pairs[2 * count] = sealed->start;
        pairs[2 * count + 1] = sealed->end;
        count++;
    }
    if (count > 0) call->body(call->context, pairs, count);
    return 0;
}

lp_segment_walk lp_with_read_only_segments(lp_locked_body body, void *context) {
    lp_segment_walk walk = { 0, 0, 0, 0 };
    locked_call call = { body, context, (uintptr_t)sysconf(_SC_PAGESIZE), &walk, 0, 0 };
    dl_iterate_phdr(run_for_object, &call); /* holds the loader's lock across every object */
    return walk;
}
