#define _GNU_SOURCE /* dl_iterate_phdr and struct dl_phdr_info */
#include "CLoadedObjects.h"
#include "SealedRanges.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

lp_sealed_range lp_sealed_ranges[LP_SEALED_RANGES];
size_t lp_sealed_range_count;

/* Reads `size` bytes at `offset`, all or nothing. */
static int read_exactly(int fd, void *buffer, size_t size, off_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t count = pread(fd, (char *)buffer + done, size - done, offset + (off_t)done);
        if (count <= 0) return -1;
        done += (size_t)count;
    }
    return 0;
}

/* The address range (before the load bias) of the file's allocated, writable section `.rodata`:
   1 when found, 0 when the file has none or it is read-only, -1 when the file is not a readable
   64-bit ELF of this machine's byte order. */
static int find_writable_rodata(const char *path, uintptr_t *address, uintptr_t *size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int result = -1;
    Elf64_Shdr *sections = NULL;
    char *names = NULL;
    Elf64_Ehdr header;
    if (read_exactly(fd, &header, sizeof header, 0) != 0) goto done;
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64
        || header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 || header.e_shnum > 65000
        || header.e_shstrndx >= header.e_shnum) goto done;
    sections = malloc((size_t)header.e_shnum * sizeof(Elf64_Shdr));
    if (sections == NULL || read_exactly(fd, sections, (size_t)header.e_shnum * sizeof(Elf64_Shdr), (off_t)header.e_shoff) != 0) goto done;
    const Elf64_Shdr *table = &sections[header.e_shstrndx];
    if (table->sh_type != SHT_STRTAB || table->sh_size == 0 || table->sh_size > (64u << 20)) goto done;
    names = malloc(table->sh_size + 1);
    if (names == NULL || read_exactly(fd, names, table->sh_size, (off_t)table->sh_offset) != 0) goto done;
    names[table->sh_size] = '\0';
    result = 0;
    for (unsigned index = 0; index < header.e_shnum; index++) {
        const Elf64_Shdr *section = &sections[index];
        if (section->sh_name >= table->sh_size || strcmp(names + section->sh_name, ".rodata") != 0) continue;
        if (section->sh_type == SHT_PROGBITS && (section->sh_flags & SHF_ALLOC) && (section->sh_flags & SHF_WRITE)) {
            *address = (uintptr_t)section->sh_addr;
            *size = (uintptr_t)section->sh_size;
            result = 1;
        }
        break;
    }
done:
    free(names);
    free(sections);
    close(fd);
    return result;
}

typedef struct { const char *object; uintptr_t address; uintptr_t size; uintptr_t page; long sealed; } seal_call;

/* Under the loader's lock: the named object's section, wholly inside one of its writable PT_LOAD
   segments, shrunk to the pages it alone occupies, made read-only and remembered. */
static int seal_in_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    seal_call *call = (seal_call *)data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (strcmp(name, call->object) != 0) return 0;
    for (size_t index = 0; index < lp_sealed_range_count; index++) {
        const lp_sealed_range *sealed = &lp_sealed_ranges[index];
        if (sealed->bias == info->dlpi_addr && strcmp(sealed->object, name) == 0) {
            call->sealed = (long)(sealed->end - sealed->start);
            return 1;
        }
    }
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_W)) continue;
        if (call->address < segment->p_vaddr || call->address + call->size > segment->p_vaddr + segment->p_filesz) continue;
        uintptr_t start = (info->dlpi_addr + call->address + call->page - 1) & ~(call->page - 1);
        uintptr_t end = (info->dlpi_addr + call->address + call->size) & ~(call->page - 1);
        if (end <= start) { call->sealed = 0; return 1; }
        if (lp_sealed_range_count == LP_SEALED_RANGES || strlen(name) >= LP_SEALED_NAME_BYTES) { call->sealed = -3; return 1; }
        if (mprotect((void *)start, end - start, PROT_READ) != 0) { call->sealed = -4; return 1; }
        lp_sealed_range *range = &lp_sealed_ranges[lp_sealed_range_count++];
        strcpy(range->object, name);
        range->bias = info->dlpi_addr;
        range->start = start;
        range->end = end;
        call->sealed = (long)(end - start);
        return 1;
    }
    call->sealed = -2;
    return 1;
}

long lp_seal_writable_rodata(const char *path, const char *object) {
    uintptr_t address = 0, size = 0;
    int found = find_writable_rodata(path, &address, &size);
    if (found <= 0) return found;
    seal_call call = { object, address, size, (uintptr_t)sysconf(_SC_PAGESIZE), -2 };
    dl_iterate_phdr(seal_in_object, &call);
    return call.sealed;
}
