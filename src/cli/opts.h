/*
 * opts.h - command line of the tlmpi analysis mode (docs/cli.md).
 *
 * Parsing is pure (no MPI, no I/O): every MPI rank parses the same argv and
 * gets the same result, so a usage error ends all ranks the same way.
 */
#ifndef TLM_CLI_OPTS_H
#define TLM_CLI_OPTS_H

#include <stddef.h>

#include "tlmpi/tlm_common.h"
#include "tlmpi/tlm_hta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TraceLens's default --rank_regex, rank[\[\-_/]?(?P<rank>\d+), in POSIX
 * extended syntax. */
#define TLM_CLI_DEFAULT_RANK_REGEX "rank[[_/-]?([0-9]+)"

/* Default --straggler_threshold_us (docs/metrics-collectives.md): the
 * wait per collective a late rank must cause before report.md names it. */
#define TLM_CLI_DEFAULT_STRAGGLER_US 50.0

typedef struct tlm_cli_opts {
    const char *trace_dir;     /* --trace_dir D */
    const char *trace_pattern; /* --trace_pattern P (one '*') */
    const char *trace_glob;    /* --trace_glob G */
    const char *rank_regex;    /* --rank_regex R (as given; NULL = default) */
    char **files;              /* positional trace files (points into argv) */
    size_t n_files;
    long world_size;           /* --world_size N; -1 = from the traces */
    int allow_missing;         /* --allow_missing, --allow_missing_ranks */
    int recursive;             /* --recursive: --trace_dir's subfolders too */
    int strict;                /* --strict: a file of --trace_dir that is
                                * not a trace is an error */
    int force;                 /* --force: replace an existing output */
    int quiet;                 /* --quiet: no progress on stderr */
    int progress;              /* --progress: plain progress lines */
    int version;               /* --version */
    int no_report;             /* --no_report: no report.md / CSVs */
    int help;                  /* --help */
    int print_schema;          /* --print_schema: Markdown of the HDF5 schema */
    const char *output;        /* --output FILE.h5 */
    const char *output_dir;    /* --output_dir D (report.md, CSVs) */
    const char *output_csvs_dir; /* --output_csvs_dir D (CSV sheets) */
    const char *output_xlsx_path; /* --output_xlsx_path F (workbook) */
    const char *gpu_arch_json_path; /* --gpu_arch_json_path F */
    long gpus_per_node;        /* --gpus_per_node N; -1 = unknown */
    const char *steps;         /* --steps LIST: per-step tables of these
                                * step numbers only (tlm_step_sel_parse) */
    long step_outlier_pct;     /* --step_outlier_pct P: outlier steps are
                                * P% over the median (default 20) */
    const char *gpu_arch;      /* --gpu_arch NAME (bundled, or "none") */
    double straggler_threshold_us; /* --straggler_threshold_us T (>= 0) */
    /* collective findings (find_coll.h; defaults TLM_FIND_*) */
    double link_peak_gbps;     /* --link_peak_gbps X; 0 = per GPU */
    double findings_skew_pct;  /* --findings_skew_pct X */
    double findings_skew_min_us; /* --findings_skew_min_us X */
    double findings_busbw_pct; /* --findings_busbw_pct X */
    double findings_busbw_min_bytes; /* --findings_busbw_min_bytes X */
    double findings_exposed_comm_pct; /* --findings_exposed_comm_pct X */
    const char *merged_trace;  /* --merged_trace F.json.gz (mtrace.h; in an
                                * audit a file name in each run's folder) */
    const char *merged_trace_filter; /* --merged_trace_filter all|kernels|
                                      * collectives (NULL = all) */
    int plots;                 /* --plots: PNGs under <output_dir>/plots
                                * (plots.h) */
    /* HTA's tables (--hta, docs/hta.md); hta_o is built from the rest */
    int hta;                   /* --hta */
    const char *hta_time;      /* --hta_time us|ns */
    double hta_consecutive_kernel_delay; /* --hta_consecutive_kernel_delay */
    double hta_runtime_cutoff; /* --hta_runtime_cutoff */
    double hta_launch_delay_cutoff; /* --hta_launch_delay_cutoff */
    long hta_min_pattern_len;  /* --hta_min_pattern_len */
    int hta_include_last_step; /* --hta_include_last_step */
    const char *hta_kernel_sequences; /* --hta_kernel_sequences OP */
    const char *hta_critical_path; /* --hta_critical_path A[:I[-J]] */
    long hta_rank;             /* --hta_rank R; -1 = the lowest rank */
    tlm_hta_opts hta_o;        /* the above as the core takes them */
} tlm_cli_opts;

/* Parses argv[1..argc-1].  argv[0] is the program name.  Returns TLM_OK,
 * or TLM_EINVAL with a usage message in err.  opts points into argv. */
tlm_status tlm_cli_opts_parse(int argc, char **argv, tlm_cli_opts *opts,
                              tlm_error *err);

/* Usage text of the analysis mode (static). */
const char *tlm_cli_opts_usage(void);

/* Name (without "--") of the i-th option the parser knows, or NULL past
 * the last one: the help test checks that the usage text names each. */
const char *tlm_cli_opts_name(size_t i);

/* Translates a Python `re` rank regex into POSIX ERE: "(?P<name>" becomes
 * "(", \d [0-9], \w [[:alnum:]_], \s [[:space:]]; inside brackets \d, \w
 * and \s likewise, and escaped punctuation loses its backslash (\[ \- \/
 * \]), with ']' moved first and '-' last so the set keeps its meaning.
 * *group gets the 1-based index of the group named "rank", or 1 when there
 * is none.  Returns TLM_OK or TLM_EINVAL (unsupported syntax such as
 * lookarounds, or output longer than cap). */
tlm_status tlm_cli_regex_to_posix(const char *py, char *out, size_t cap,
                                  int *group, tlm_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TLM_CLI_OPTS_H */
