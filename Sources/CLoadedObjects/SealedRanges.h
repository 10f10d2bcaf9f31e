#ifndef LIVEPUSH_SEALED_RANGES_H
#define LIVEPUSH_SEALED_RANGES_H
/* Internal to CLoadedObjects: the ranges lp_seal_writable_rodata made read-only, each with the
   loaded object it belongs to (dl_phdr_info's dlpi_name, "" for the program itself). Written and
   read only inside dl_iterate_phdr's callbacks, so the loader's lock orders every access. */

#include <stddef.h>
#include <stdint.h>

#define LP_SEALED_RANGES 4
#define LP_SEALED_NAME_BYTES 256

typedef struct {
    char object[LP_SEALED_NAME_BYTES];
    uintptr_t bias;
    uintptr_t start;
    uintptr_t end;
} lp_sealed_range;

extern lp_sealed_range lp_sealed_ranges[LP_SEALED_RANGES];
extern size_t lp_sealed_range_count;

#endif
