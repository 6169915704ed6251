/*
 * find.h - findings: deterministic rules over a report's tables that say
 * what to fix (shared/spec/findings.md, docs/findings.md).  Internal API
 * of the find layer (above report): `tlmpi report`, `tlmpi compare` and
 * the MPI analysis call it.
 *
 *     tlm_find_opts o;  tlm_find_opts_init(&o);
 *     tlm_find_opt_parse("--findings_idle", "7", &o, &err);   per option
 *     tlm_find_hw hw;   tlm_find_hw_resolve(&o, arch_or_NULL, &hw, &err);
 *     tlm_find_input in = {tabs, ntabs, &hw, "label"};
 *     tlm_findings *f;  tlm_find_standalone(&in, &o, &f, &err);
 *     tlm_tab *csv = tlm_findings_table(f);       findings.csv
 *     tlm_findings_md(f, &sbuf, 0);                report.md section
 *     tlm_findings_free(f);
 *
 * Tables are looked up by TraceLens sheet name (gpu_timeline, ops_summary,
 * unified_perf_summary, GEMM, kernel_summary, short_kernel_histogram,
 * coll_analysis, memcpy_summary); a missing table skips the rules that
 * need it (the appendix says which).  Numeric columns may be I64, F64,
 * BOOL or numeric text; missing cells are null.
 */
#ifndef TLM_FIND_H
#define TLM_FIND_H

#include <stddef.h>

#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_table.h"

#include "sbuf.h"

/* Every threshold: X(field, default, description).  The option is
 * --findings_<field>; the appendix prints them all. */
#define TLM_FIND_THRESHOLDS(X)                                                \
    X(min_pct, 1.0, "analysis set: unified rows with % of E2E at least")     \
    X(max_rows, 25, "analysis set: at most this many unified rows")           \
    X(top_ops, 6, "rows of the top-operations table (S5)")                   \
    X(compute_target, 95, "S1: computation % of E2E below this")              \
    X(compute_high, 85, "S1: high below this")                                \
    X(idle, 5, "S2: idle % of E2E above this")                                \
    X(idle_high, 15, "S2/S10: idle % high above this")                        \
    X(comm, 5, "S3: exposed communication % above this")                      \
    X(comm_high, 15, "S3: high above this")                                   \
    X(comm_min_ms, 0.1, "S3: overlap rule only with this much comm (ms)")     \
    X(overlap, 0.70, "S3: overlap fraction below this")                       \
    X(memcpy, 5, "S4: exposed memcpy % above this")                           \
    X(memcpy_high, 15, "S4: high above this")                                 \
    X(memcpy_count, 10, "S4: D2H/H2D copies above this")                      \
    X(memcpy_dir_pct, 5, "S4: D2H/H2D time % of E2E above this")              \
    X(eff_low, 40, "S6: efficiency below this: finding")                      \
    X(eff_ok, 60, "S6: below this with impact mid >= 1: finding")             \
    X(eff_good, 80, "band: Excellent at or above this")                       \
    X(anomaly, 110, "S7: efficiency above this is an anomaly")                \
    X(sev_high, 5, "severity high: impact mid at least this")                 \
    X(sev_medium, 1, "severity medium: impact mid at least this")             \
    X(min_impact, 0.5, "findings with impact mid below this: appendix")       \
    X(replay_share, 10, "S9: op name share of compute above this")            \
    X(replay_eff, 30, "S9: rows below this efficiency")                       \
    X(short_us, 10, "S10: short kernel (us), average kernel below this")      \
    X(short_frac, 0.5, "S10: short kernel fraction at least this")            \
    X(gemm_batch, 1000, "S11: GEMM batch at least this")                      \
    X(gemm_mn, 64, "S11: max(M, N) at most this")                             \
    X(attn_share, 5, "S12: unfused attention share at least this")            \
    X(attn_high, 20, "S12: high at least this")                               \
    X(base_min_mb, 8, "S14: baseline rows with Data Moved (MB) >= this")      \
    X(norm_eff, 20, "S14: norm rows below this bandwidth efficiency")         \
    X(base_eff, 70, "S14: while the baseline reaches this")                   \
    X(base_low, 50, "S14: annotate S6 when the baseline is below this")       \
    X(conv_layout, 10, "S15: layout share of conv kernels above this")        \
    X(conv_layout_high, 20, "S15: high above this")                           \
    X(sync_factor, 5, "S16: CPU time above this many times the GPU time")     \
    X(sync_ms, 1, "S16: CPU time beyond GPU time above this (ms)")            \
    X(sync_frac, 0.1, "S16: and above this fraction of the GPU time")         \
    X(var_count, 10, "S17: rows with more calls than this")                   \
    X(var_pct, 5, "S17: rows with % of E2E at least this")                    \
    X(var_cov, 1.0, "S17: coefficient of variation above this")               \
    X(excess, 1.25, "C2: excess over the hardware ratio at least this")       \
    X(excess_high, 2, "C2: high at this excess")                              \
    X(ratio_high, 5, "C2: high at this ratio")                                \
    X(saving_pct, 0.5, "C2: saving % of target E2E at least this")            \
    X(explained_low, 0.8, "C3: excess above this (up to C2's) is explained")  \
    X(latency_us, 10, "C4: per-call kernel time below this on both sides")    \
    X(latency_ratio, 1.5, "C4: ratio at least this")                          \
    X(latency_pct, 0.5, "C4: gap % of target E2E at least this")              \
    X(latency_medium, 3, "C4: medium at this gap %")                          \
    X(timeline_points, 5, "C1: target share above the reference's by this")   \
    X(missing_pct, 1, "C5: one-sided rows with % of E2E at least this")       \
    X(missing_medium, 5, "C5: medium at this %")

enum {
#define TLM_X_(f, d, s) TLM_FIND_T_##f,
    TLM_FIND_THRESHOLDS(TLM_X_)
#undef TLM_X_
        TLM_FIND_NT
};

typedef struct tlm_find_opts {
    double t[TLM_FIND_NT];      /* thresholds, TLM_FIND_T_* */
    const char *platform;       /* --platform NAME or NULL */
    const char *gpu_arch_json;  /* --gpu_arch_json_path F or NULL */
} tlm_find_opts;

void tlm_find_opts_init(tlm_find_opts *o);
/* Name (without "--findings_") and default of threshold i. */
const char *tlm_find_threshold_name(size_t i);
double tlm_find_threshold_default(size_t i);
const char *tlm_find_threshold_desc(size_t i);

/* One command-line option: opt is "--findings_<name>", "--platform" or
 * "--gpu_arch_json_path" (val its value, kept by pointer).  Returns
 * TLM_FIND_OPT_NOT_MINE, TLM_FIND_OPT_OK or TLM_FIND_OPT_ERROR (err
 * says why: unknown --findings_ name, bad number). */
enum { TLM_FIND_OPT_NOT_MINE = 0, TLM_FIND_OPT_OK = 1,
       TLM_FIND_OPT_ERROR = -1 };
int tlm_find_opt_parse(const char *opt, const char *val, tlm_find_opts *o,
                       tlm_error *err);

/* Hardware peaks of one trace. */
typedef struct tlm_find_hw {
    int known;        /* 0: no peaks (efficiency rules skipped) */
    double bw;        /* TB/s (1e12 B/s) */
    tlm_gpu_arch arch;/* peaks by Compute Spec key */
    char basis[320];  /* where the numbers come from */
} tlm_find_hw;

/* Peak (TFLOP/s) of a Compute Spec key, NaN when unknown. */
double tlm_find_hw_peak(const tlm_find_hw *hw, const char *spec);
/* From a GPU (copied); source words for the basis text. */
void tlm_find_hw_from_arch(const tlm_gpu_arch *a, const char *source,
                           tlm_find_hw *hw);
/* --gpu_arch_json_path wins, then --platform (the bundled "-MAF" entry
 * of that name when there is one, else the bundled entry), then
 * fallback (the GPU the report chose; NULL: none).  Errors: unknown
 * platform (TLM_EINVAL, the message lists the names), the arch JSON's. */
tlm_status tlm_find_hw_resolve(const tlm_find_opts *o,
                               const tlm_gpu_arch *fallback,
                               const char *fallback_source, tlm_find_hw *hw,
                               tlm_error *err);

/* The tables of one trace. */
typedef struct tlm_find_input {
    const tlm_tab *const *tabs;
    size_t ntabs;
    const tlm_find_hw *hw; /* NULL: no peaks */
    const char *label;     /* trace / report name, or NULL */
} tlm_find_input;

typedef enum tlm_find_sev {
    TLM_FIND_HIGH = 0,
    TLM_FIND_MEDIUM = 1,
    TLM_FIND_LOW = 2,
    TLM_FIND_INFO = 3
} tlm_find_sev;

const char *tlm_find_sev_name(tlm_find_sev s);

typedef struct tlm_finding {
    char id[12];           /* "P3", "" for appendix-only findings */
    char rule[4];          /* "S6", "C2" */
    const char *mode;      /* "standalone" / "comparative" */
    tlm_find_sev sev;
    int system;            /* S1-S4, S10, C1: ordered before per-op */
    int has_impact;
    double imp_low, imp_mid, imp_high; /* % of E2E */
    double pct_e2e, eff;   /* NaN when not applicable */
    char bound[12];
    int replay;
    int appendix;          /* below the impact threshold (or C3) */
    double ratio, expected, excess; /* C-rules, else NaN */
    char expected_kind[12];
    char *subject, *text, *action_a, *action_b, *evidence;
    char *detail;          /* Markdown for "Detailed analysis", or NULL */
    int lead;              /* ordered first, before the severity (R1) */
    double key;            /* the ranking key (set by the list's order) */
} tlm_finding;

typedef struct tlm_findings tlm_findings;

/* Rules S1-S19 on one trace.  Errors: TLM_ENOMEM. */
tlm_status tlm_find_standalone(const tlm_find_input *in,
                               const tlm_find_opts *o, tlm_findings **out,
                               tlm_error *err);
/* Rules C1-C6 on target vs reference, then C7 (the target's standalone
 * findings).  Errors: TLM_ENOMEM. */
tlm_status tlm_find_compare(const tlm_find_input *target,
                            const tlm_find_input *reference,
                            const tlm_find_opts *o, tlm_findings **out,
                            tlm_error *err);

/* The input of a report tlmpi built: its sheets, memcpy_summary, and the
 * peaks from o (else the report's GPU).  x->in points into x: use x in
 * place; free with tlm_find_rin_free.  Errors: those of
 * tlm_find_hw_resolve, TLM_ENOMEM. */
typedef struct tlm_find_rin {
    const tlm_tab **tabs;
    tlm_find_hw hw;
    tlm_find_input in;
} tlm_find_rin;
tlm_status tlm_find_input_of_report(const tlm_report *r,
                                    const tlm_find_opts *o,
                                    tlm_find_rin *x, tlm_error *err);
void tlm_find_rin_free(tlm_find_rin *x);

/* tlm_find_standalone on a report tlmpi built (its sheets and
 * memcpy_summary; peaks from o, else the report's GPU). */
tlm_status tlm_find_report(const tlm_report *r, const tlm_find_opts *o,
                           tlm_findings **out, tlm_error *err);

size_t tlm_findings_count(const tlm_findings *f);
const tlm_finding *tlm_findings_at(const tlm_findings *f, size_t i);
/* findings.csv (columns of spec §6); NULL on ENOMEM.  Caller frees. */
tlm_tab *tlm_findings_table(const tlm_findings *f);
/* The Markdown: executive summary, cards, detailed analysis, appendix.
 * Headings start at level 3 (the caller writes the "## Findings"). */
void tlm_findings_md(const tlm_findings *f, tlm_sbuf *b, int comparative);
void tlm_findings_free(tlm_findings *f);

/* The column names of findings.csv. */
extern const char *const tlm_findings_columns[];
extern const size_t tlm_findings_ncolumns;

#endif /* TLM_FIND_H */
