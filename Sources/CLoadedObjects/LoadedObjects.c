#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#include "CLoadedObjects.h"
#include "SealedRanges.h"

#include <link.h>
#include <string.h>
#include <unistd.h>

typedef struct { lp_locked_body body; void *context; uintptr_t page; int skipped; } locked_call;

static int run_for_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    locked_call *call = (locked_call *)data;
    uintptr_t pairs[2 * LP_SEGMENTS_PER_OBJECT];
    size_t count = 0;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        if (count == LP_SEGMENTS_PER_OBJECT) { call->skipped++; return 0; }
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = (start + segment->p_memsz + call->page - 1) & ~(call->page - 1);
        pairs[2 * count] = start & ~(call->page - 1);
        pairs[2 * count + 1] = end;
        count++;
    }
    /* Its sealed .rodata (lp_seal_writable_rodata): read-only now, in a segment the loader made writable. */
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    for (size_t index = 0; index < lp_sealed_range_count; index++) {
        const lp_sealed_range *sealed = &lp_sealed_ranges[index];
        if (sealed->bias != info->dlpi_addr || strcmp(sealed->object, name) != 0) continue;
        if (count == LP_SEGMENTS_PER_OBJECT) { call->skipped++; return 0; }
        pairs[2 * count] = sealed->start;
        pairs[2 * count + 1] = sealed->end;
        count++;
    }
    if (count > 0) call->body(call->context, pairs, count);
    return 0;
}

int lp_with_read_only_segments(lp_locked_body body, void *context) {
    locked_call call = { body, context, (uintptr_t)sysconf(_SC_PAGESIZE), 0 };
    dl_iterate_phdr(run_for_object, &call); /* holds the loader's lock across every object */
    return call.skipped;
}
