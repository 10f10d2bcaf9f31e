#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#include "CLoadedObjects.h"

#include <link.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct { uintptr_t *pairs; size_t count; size_t capacity; int failed; } segment_list;
typedef struct { lp_locked_body body; void *context; } locked_call;

static int collect_read_only_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    segment_list *list = (segment_list *)data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        uintptr_t end = (start + segment->p_memsz + page - 1) & ~(page - 1);
        start &= ~(page - 1);
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

static int run_with_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info; (void)size;
    locked_call *call = (locked_call *)data;
    segment_list list = {0};
    dl_iterate_phdr(collect_read_only_segments, &list); /* the loader's lock is recursive */
    if (!list.failed) call->body(call->context, list.pairs, list.count / 2);
    free(list.pairs);
    return 1; /* once, from inside the first object's callback */
}

void lp_with_read_only_segments(lp_locked_body body, void *context) {
    locked_call call = { body, context };
    dl_iterate_phdr(run_with_segments, &call);
}
