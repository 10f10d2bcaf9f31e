#ifndef LIVEPUSH_CPROCESS_SHIM_H
#define LIVEPUSH_CPROCESS_SHIM_H

#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call: one fixed-argument wrapper per use. */
static inline int lp_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

#endif
