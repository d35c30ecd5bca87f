/*
 * symdata.c -- symmetric static data (kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA)).
 *
 * The program's globals and statics live in the executable's writable
 * PT_LOAD segment(s): .data, .bss and whatever the linker put beside them.
 * Every PE runs the same executable, so a variable sits at the same offset
 * from the start of that range on every PE (the range's own address moves
 * with ASLR): the range becomes segment KUMI_SEG_DATA and a static address
 * is (KUMI_SEG_DATA, address - my base), exactly as a heap address is
 * (KUMI_SEG_HEAP, address - my heap base). The transports do the rest
 * (shm maps the range into its peers, tcp applies frames to it).
 *
 * Excluded: the part PT_GNU_RELRO makes read-only after relocation. The
 * dynamic linker protects [relro start rounded down, relro end rounded
 * down) to pages, so the page holding the end of RELRO stays writable and
 * is part of the range.
 */
#include <link.h>
#include <unistd.h>

#include "rt.h"

#define KUMI_SYMDATA_MAX_PIECES 8

struct kumi_symdata_scan {
    uintptr_t page;
    int       pieces;          /* found, may exceed the array             */
    uintptr_t lo[KUMI_SYMDATA_MAX_PIECES], hi[KUMI_SYMDATA_MAX_PIECES];
};

static void kumi_symdata_add(struct kumi_symdata_scan *sc, uintptr_t lo, uintptr_t hi)
{
    if (lo >= hi)
        return;
    if (sc->pieces < KUMI_SYMDATA_MAX_PIECES) {
        sc->lo[sc->pieces] = lo;
        sc->hi[sc->pieces] = hi;
    }
    sc->pieces++;
}

/* dl_iterate_phdr lists the executable first: look at it, then stop. */
static int kumi_symdata_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct kumi_symdata_scan *sc = arg;
    uintptr_t                 mask = ~(sc->page - 1);
    uintptr_t                 relro_lo = 0, relro_hi = 0;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            relro_lo = (info->dlpi_addr + ph->p_vaddr) & mask;
            relro_hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & mask;
        }
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & mask;
        uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + sc->page - 1) & mask;
        if (relro_hi <= lo || relro_lo >= hi) {
            kumi_symdata_add(sc, lo, hi);
        } else {     /* what RELRO leaves on either side */
            kumi_symdata_add(sc, lo, relro_lo);
            kumi_symdata_add(sc, relro_hi, hi);
        }
    }
    return 1;
}

int kumi_rt_symdata_range(const char *call, void **base, size_t *size)
{
    struct kumi_symdata_scan sc = { .page = (uintptr_t)sysconf(_SC_PAGESIZE) };
    uintptr_t                hi;

    dl_iterate_phdr(kumi_symdata_phdr, &sc);
    if (sc.pieces == 0)
        return kumi_rt_error(KUMI_ERR_UNSUPPORTED, call, "KUMI_INIT_SYMMETRIC_DATA: the "
                             "executable has no writable segment outside RELRO");
    /* sorted by address, pieces that touch form one range (lld may put
     * .data and .bss in separate segments, page after page) */
    for (int i = 1; i < sc.pieces && i < KUMI_SYMDATA_MAX_PIECES; i++)
        for (int j = i; j > 0 && sc.lo[j] < sc.lo[j - 1]; j--) {
            uintptr_t l = sc.lo[j], h = sc.hi[j];
            sc.lo[j] = sc.lo[j - 1], sc.hi[j] = sc.hi[j - 1];
            sc.lo[j - 1] = l, sc.hi[j - 1] = h;
        }
    hi = sc.hi[0];
    for (int i = 1; i < sc.pieces; i++) {
        if (i >= KUMI_SYMDATA_MAX_PIECES || sc.lo[i] > hi)
            return kumi_rt_error(KUMI_ERR_UNSUPPORTED, call, "KUMI_INIT_SYMMETRIC_DATA: the "
                                 "executable's static data is in %d separate pieces; kumi "
                                 "supports one contiguous range", sc.pieces);
        hi = sc.hi[i] > hi ? sc.hi[i] : hi;
    }
    *base = (void *)sc.lo[0];
    *size = (size_t)(hi - sc.lo[0]);
    kumi_rt_log(KUMI_LOG_DEBUG, "symmetric static data [%p, %p), %zu bytes", *base,
                (void *)hi, *size);
    return KUMI_OK;
}

int kumi_rt_sym_error(const char *call, const void *sym, size_t n)
{
    uint8_t *heap = kumi_rt.tp.local[KUMI_SEG_HEAP];
    uint8_t *data = kumi_rt.tp.local[KUMI_SEG_DATA];
    size_t   dsz  = kumi_rt.tp.seg_size[KUMI_SEG_DATA];

    if (dsz == 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p (+%zu bytes) is outside the "
                             "symmetric heap [%p, %p) (static data is symmetric only with "
                             "kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA))", sym, n, (void *)heap,
                             (void *)(heap + kumi_rt.tp.seg_size[KUMI_SEG_HEAP]));
    return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p (+%zu bytes) is outside the "
                         "symmetric heap [%p, %p) and the symmetric static data [%p, %p)", sym,
                         n, (void *)heap, (void *)(heap + kumi_rt.tp.seg_size[KUMI_SEG_HEAP]),
                         (void *)data, (void *)(data + dsz));
}
