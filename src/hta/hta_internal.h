/*
 * hta_internal.h - what the files of src/hta/ share: the correlation
 * links, the row index, the kernel types (§1.6), merged intervals (§1.7),
 * numpy/pandas statistics helpers and the table type the builders fill.
 */
#ifndef TLM_HTA_INTERNAL_H
#define TLM_HTA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tlmpi/tlm_hta.h"

/* §1.3: index_correlation of every row (rows in file order). */
tlm_status tlm_hta_link(tlm_hta_events *ev);
/* Rebuilds row_of_index after the rows changed. */
tlm_status tlm_hta_reindex(tlm_hta_events *ev);

#endif /* TLM_HTA_INTERNAL_H */
