#ifndef LIVEPUSH_CPROCESS_SHIM_H
#define LIVEPUSH_CPROCESS_SHIM_H

#include <malloc.h>
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call: one fixed-argument wrapper per use. */
static inline int lp_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* glibc keeps freed heap memory mapped in each thread's arena; this hands the free pages back.
   Returns 1 when some memory was released. */
static inline int lp_release_free_heap(void) {
    return malloc_trim(0);
}

#endif
