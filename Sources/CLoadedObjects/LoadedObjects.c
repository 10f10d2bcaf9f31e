#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#include "CLoadedObjects.h"

#include <link.h>
#include <unistd.h>

typedef struct { uintptr_t *pairs; size_t count; size_t capacity; int overflowed; } segment_list;
typedef struct { lp_locked_body body; void *context; segment_list list; } locked_call;

static int collect_read_only_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    segment_list *list = (segment_list *)data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        if (list->count + 2 > list->capacity) { list->overflowed = 1; return 1; }
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = (start + segment->p_memsz + page - 1) & ~(page - 1);
        list->pairs[list->count++] = start & ~(page - 1);
        list->pairs[list->count++] = end;
    }
    return 0;
}

static int run_with_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info; (void)size;
    locked_call *call = (locked_call *)data;
    dl_iterate_phdr(collect_read_only_segments, &call->list); /* the loader's lock is recursive */
    if (!call->list.overflowed) call->body(call->context, call->list.pairs, call->list.count / 2);
    return 1; /* once, from inside the first object's callback */
}

int lp_with_read_only_segments(lp_locked_body body, void *context, uintptr_t *pairs, size_t capacity) {
    locked_call call = { body, context, { pairs, 0, capacity * 2, 0 } };
    dl_iterate_phdr(run_with_segments, &call);
    return call.list.overflowed ? -1 : 0;
}
