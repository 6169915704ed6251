/*
 * find_internal.h - what the findings modules share: table accessors
 * (column by name, a cell's number whatever its type), the per-row
 * metrics of spec §3, the findings list and how a rule adds to it.
 */
#ifndef TLM_FIND_INTERNAL_H
#define TLM_FIND_INTERNAL_H

#include <math.h>

#include "find.h"
#include "tables.h"

#define FND_US "Kernel Time (\xc2\xb5s)_sum"
#define FND_US_MEAN "Kernel Time (\xc2\xb5s)_mean"
#define FND_US_STD "Kernel Time (\xc2\xb5s)_std"

/* ---------------------------------------------------------- tables */

const tlm_tab *fnd_tab(const tlm_find_input *in, const char *name);
/* The number of a cell whatever its column type (numeric text parsed,
 * True/False as 1/0); NaN when null, absent or not a number. */
double fnd_num(const tlm_tab *t, size_t row, const char *col);
/* Text of a cell ("" when null or absent; numbers are not text). */
const char *fnd_str(const tlm_tab *t, size_t row, const char *col);
/* Boolean cell: BOOL, "True"/"False" text, or a number; -1 unknown. */
int fnd_bool(const tlm_tab *t, size_t row, const char *col);
/* Sum of a numeric column (NaN cells skipped). */
double fnd_sum(const tlm_tab *t, const char *col);
/* gpu_timeline: `time ms` (*ms) and `percent` (*pct) of a row; 0 when
 * the row is found. */
int fnd_timeline(const tlm_tab *t, const char *type, double *ms,
                 double *pct);

/* "(16,16,559,64) bf16 ×2" from Input Dims / Input type texts. */
void fnd_args(tlm_sbuf *b, const char *dims, const char *types);
/* An op name plus its args as the subject of a finding. */
void fnd_subject(tlm_sbuf *b, const tlm_tab *u, size_t row);

/* ---------------------------------------------------------- metrics */

typedef struct fnd_rowm {
    double T, pct_e2e, pct_cmp;
    double eff_mem, eff_cmp, eff, ridge, peak, fpb, tbs, tfs;
    int modelled;    /* has_perf_model true and TB/s not NaN */
    int defined;     /* eff defined */
    int anomaly;     /* eff > anomaly */
    char bound[12];  /* compute / memory / balanced / "" */
    const char *why; /* "no peak for {spec}" cause or NULL */
} fnd_rowm;

/* The trace-wide numbers the rules share. */
typedef struct fnd_ctx {
    const tlm_find_input *in;
    const tlm_find_opts *o;
    const tlm_find_hw *hw; /* NULL when no peaks */
    double e2e_us, cmp_us; /* NaN when no gpu_timeline */
    const tlm_tab *tl, *ops, *uni, *gemm, *ks, *skh, *coll, *mc;
} fnd_ctx;

void fnd_ctx_init(fnd_ctx *c, const tlm_find_input *in,
                  const tlm_find_opts *o);
void fnd_row_metrics(const fnd_ctx *c, size_t row, fnd_rowm *m);
/* Band label of an efficiency. */
const char *fnd_band(const tlm_find_opts *o, double eff);
/* Kernel library label of a unified row (S19), or NULL. */
const char *fnd_kernel_library(const char *name, const char *kernels);

/* ---------------------------------------------------------- findings */

struct tlm_findings {
    tlm_finding *v;
    size_t n, cap;
    int oom;
    tlm_find_opts o;
    tlm_find_hw hw, hw_ref;
    int has_ref;
    char label[256], label_ref[256];
    tlm_sbuf skipped;  /* "- S3: no coll_analysis table\n" lines */
    tlm_sbuf summary;  /* executive summary (Markdown) */
    tlm_sbuf analysis; /* detailed analysis extra text */
    size_t n_comparative;
    /* the order's policy: 1 (single-trace rules) findings below
     * min_impact go to the appendix, unnumbered; rank_abs (run
     * comparison): ranked by |impact|, NaN last */
    int appendix, rank_abs;
};

tlm_findings *fnd_list_new(const tlm_find_opts *o);
/* A list for the multi-rank (M) and run-comparison (R) rules: default
 * thresholds (severity high at 5 %, medium at 1 %), no appendix, every
 * finding numbered; rank_abs as above. */
tlm_findings *fnd_list_new_rows(int rank_abs);
/* Severity of an impact (% of the time): high at sev_high, medium at
 * sev_medium, else low (NaN: low). */
tlm_find_sev fnd_sev(const tlm_find_opts *o, double mid);
/* Copies text formatted into at most 1023 bytes into a field. */
void fnd_setf(tlm_findings *f, char **dst, const char *fmt, ...)
    TLM_PRINTF(3, 4);
/* A finding of the M and R rules: mode, impact (low = mid = high = pct,
 * pct_e2e = pct) and severity sev.  NULL on ENOMEM (sticky). */
tlm_finding *fnd_add_pct(tlm_findings *f, const char *rule,
                         const char *mode, tlm_find_sev sev, double pct);
/* The findings as /findings rows (tables.h; text cut to the columns'
 * widths), in list order.  *rows: malloc'ed, NULL when *n is 0.  Errors:
 * TLM_ENOMEM (also when the list ran out of memory). */
tlm_status fnd_rows(const tlm_findings *f, tlm_row_finding **rows,
                    size_t *n);
/* A new finding (strings empty, numbers NaN); NULL on ENOMEM (sticky). */
tlm_finding *fnd_add(tlm_findings *f, const char *rule, tlm_find_sev sev);
/* Copies text into a field (*dst freed first). */
void fnd_set(tlm_findings *f, char **dst, const char *text);
void fnd_setb(tlm_findings *f, char **dst, const tlm_sbuf *b);
/* Impact: sets low/mid/high and the severity from mid (§3.3). */
void fnd_impact(tlm_finding *x, const tlm_find_opts *o, double low,
                double mid, double high, int set_sev);
void fnd_skip(tlm_findings *f, const char *rule, const char *why);
/* Order (§3.3), appendix flags, P-numbers. */
void fnd_finish(tlm_findings *f);

/* Rules. */
void fnd_rules_system(const fnd_ctx *c, tlm_findings *f);
void fnd_rules_ops(const fnd_ctx *c, tlm_findings *f);
void fnd_rules_misc(const fnd_ctx *c, tlm_findings *f);
void fnd_rules_compare(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f);
void fnd_summary(const fnd_ctx *c, tlm_findings *f);

#endif /* TLM_FIND_INTERNAL_H */
