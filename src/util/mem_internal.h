/*
 * mem_internal.h - populating the page tables of large arrays ahead of
 * their first writes.
 *
 * On virtual machines whose guest page faults trap to the hypervisor (a
 * paravirtual or shadow-paging host), a first write to a fresh 4 KiB page
 * costs ~10 us: 270 MB of events took 0.8 s of faults against 0.04 s for
 * one MADV_POPULATE_WRITE of the same range (measured, docs/report.md).
 * These helpers ask the kernel to populate whole ranges at once; on a
 * kernel without MADV_POPULATE_WRITE (Linux < 5.14) or another system they
 * do nothing, and the pages fault in as before.  They never change the
 * contents of memory and never fail.
 */
#ifndef TLM_MEM_INTERNAL_H
#define TLM_MEM_INTERNAL_H

#include <stddef.h>

/* Ranges below this many bytes are left to ordinary faults. */
#define TLM_PREFAULT_MIN ((size_t)1 << 18)
/* How far tlm_warm_ahead populates beyond the bytes in use. */
#define TLM_WARM_STEP ((size_t)512 << 10)

/* Populates the whole pages inside [p, p + n) for writing; returns the
 * number of bytes asked of the kernel (0 when the range is below
 * TLM_PREFAULT_MIN or the system has no such request). */
size_t tlm_prefault(const void *p, size_t n);

/* malloc(n), its pages populated: for an array about to be written whole
 * (an unwritten part would only add to the resident size). */
void *tlm_malloc_warm(size_t n);

/* Keeps a growing array populated a step ahead of its use, so that its
 * resident size stays within TLM_WARM_STEP of what is used.  Zero-init;
 * call tlm_warm_ahead after the array grows or moves, or at any time with
 * the bytes in use. */
typedef struct tlm_warm {
    const void *base; /* the array when last populated */
    size_t done;      /* bytes from base known populated */
} tlm_warm;

/* Populates the array at base (used bytes in use) up to byte end, from
 * where it was populated before (from used, when base is not the array
 * last seen: what was written moved with it). */
void tlm_warm_upto(tlm_warm *w, const void *base, size_t used, size_t end);

void tlm_warm_slow(tlm_warm *w, const void *base, size_t used, size_t cap);

static inline void tlm_warm_ahead(tlm_warm *w, const void *base, size_t used,
                                  size_t cap)
{
    if (base == w->base && used + TLM_WARM_STEP / 2 <= w->done)
        return;
    if (base == w->base && w->done >= cap)
        return;
    tlm_warm_slow(w, base, used, cap);
}

#endif
