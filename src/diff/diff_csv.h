/*
 * diff_csv.h - the text cells of diff_stats rows and the table writers
 * (diff_csv.c, diff_summary.c, diff_json.c).
 */
#ifndef TLM_DIFF_CSV_H
#define TLM_DIFF_CSV_H

#include <stdio.h>
#include <string.h>

#include "diff_internal.h"

enum {
    TLM_DC_NAME, TLM_DC_CPU_NAME, TLM_DC_CPU_UID, TLM_DC_SOURCE,
    TLM_DC_DIMS, TLM_DC_STRIDES, TLM_DC_TYPE, TLM_DC_CONCRETE,
    TLM_DC_KTIME, TLM_DC_BUSY, TLM_DC_LCA_NAME, TLM_DC_LCA_ID,
    TLM_DC_GPU_UID, TLM_DC_NN_STACK, TLM_DC_NN_PARENT, TLM_DC_N
};

/* tlm_sbuf_csv_field with one copy when the text holds no '"'. */
static inline void tlm_diff_csv(tlm_sbuf *b, const char *s, size_t n)
{
    if (!tlm_csv_needs_quotes(s, n)) {
        tlm_sbuf_putn(b, s, n);
    } else if (!memchr(s, '"', n)) {
        if (tlm_sbuf_reserve(b, n + 2) != 0)
            return;
        b->p[b->len++] = '"';
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len++] = '"';
        b->p[b->len] = 0;
    } else {
        tlm_sbuf_csv_field(b, s, n);
    }
}

/* Text of every cell of every row (pandas' to_csv forms, unquoted). */
typedef struct tlm_dcells {
    tlm_sbuf text;
    uint32_t *off, *len; /* cells' text is below 4 GiB */
    size_t n;
} tlm_dcells;

tlm_status tlm_dcells_build(tlm_diff *d, tlm_dcells *c);
void tlm_dcells_free(tlm_dcells *c);
const char *tlm_dcell(const tlm_dcells *c, size_t row, int col, size_t *n);

/* One row of the unique-args summary (§7). */
typedef struct tlm_dsum {
    size_t first;        /* first diff_stats row of the group */
    size_t count;
    double ksum, kmean;
    int32_t cpu_name;    /* rewritten cpu_op_name (names id), §8 */
    char mean_txt[32];   /* repr(kernel_time_mean), for the sort */
} tlm_dsum;

typedef struct tlm_dsummary {
    tlm_dsum *r;
    size_t n;
    int32_t *kname, *cname; /* per diff_stats row: kernel and cpu_op name
                               ids (raw names, in d->names) */
    int kt_float;           /* kernel_time is a float column */
} tlm_dsummary;

/* Groups and sorts (§7), then applies the §8 renaming. */
tlm_status tlm_dsummary_build(tlm_diff *d, const tlm_dcells *c,
                              tlm_dsummary *s);
void tlm_dsummary_free(tlm_dsummary *s);

/* With fp, b is written to fp and emptied every MiB (*werr set on a write
 * error); fp NULL: everything stays in b. */
static inline void tlm_diff_flush(tlm_sbuf *b, FILE *fp, int *werr)
{
    if (fp && b->len >= (1u << 20)) {
        if (fwrite(b->p, 1, b->len, fp) != b->len)
            *werr = 1;
        b->len = 0;
    }
}
void tlm_diff_stats_csv(const tlm_diff *d, const tlm_dcells *c, tlm_sbuf *b,
                        FILE *fp, int *werr);
void tlm_diff_unique_csv(tlm_diff *d, const tlm_dcells *c,
                         const tlm_dsummary *s, tlm_sbuf *b, FILE *fp,
                         int *werr);
/* cpu_op_map_trace<side+1>.json (side 0/1) or cpu_op_map.json (-1). */
tlm_status tlm_diff_map_json(tlm_diff *d, const tlm_dcells *c,
                             const tlm_dsummary *s, int side, tlm_sbuf *b);
/* repr(float(v)) appended to b; a fast path for multiples of 0.001. */
void tlm_diff_float(tlm_sbuf *b, double v);
/* json.dumps of a string (ensure_ascii=False). */
void tlm_diff_json_str(tlm_sbuf *b, const char *s, size_t n);
tlm_status tlm_diff_summary_csv(tlm_diff *d, tlm_sbuf *b);
/* merged_tree_output.txt into b; with fp, b is written to fp (and
 * emptied) every MiB, *werr set on a write error. */
void tlm_diff_tree_text(tlm_diff *d, tlm_sbuf *b, FILE *fp, int *werr);

#endif /* TLM_DIFF_CSV_H */
