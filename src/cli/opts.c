/*
 * opts.c - parses the command line of the analysis mode and translates
 * TraceLens-style (Python `re`) rank regexes into POSIX extended regexes.
 *
 * Option names follow TraceLens's multi-rank collective report where the
 * meaning is the same (--trace_dir, --trace_pattern, --trace_glob,
 * --rank_regex, --world_size, --output_csvs_dir, --gpus_per_node), so its
 * users can switch without relearning.  Both "--opt value" and
 * "--opt=value" are accepted.
 */
#include "opts.h"

#include "find_coll.h"
#include "suggest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlmpi/tlm_mtrace.h"
#include "tlmpi/tlm_perf.h"
#include "tlmpi/tlm_report.h"

static const char usage[] =
    "usage: mpirun -n N tlmpi (--trace_dir D | --trace_pattern P |\n"
    "                          --trace_glob G [--rank_regex R] | FILE...)\n"
    "                         [--recursive] [--strict]\n"
    "                         [--world_size W] [--allow_missing]\n"
    "                         [--output F.h5] [--force] [--output_dir D]\n"
    "                         [--output_csvs_dir D] [--output_xlsx_path F]\n"
    "                         [--no_report]\n"
    "                         [--gpus_per_node G] [--gpu_arch NAME]\n"
    "                         [--gpu_arch_json_path F]\n"
    "                         [--straggler_threshold_us T]\n"
    "                         [--steps LIST] [--step_outlier_pct P]\n"
    "                         [--link_peak_gbps X] [finding thresholds]\n"
    "                         [--merged_trace F.json.gz]\n"
    "                         [--merged_trace_filter all|kernels|collectives]\n"
    "                         [--plots]\n"
    "                         [--progress | --quiet] [--print_schema]\n"
    "                         [--version] [--help]\n"
    "\n"
    "Analyses the PyTorch profiler traces of a distributed job (one per\n"
    "rank) and writes one HDF5 file (default <trace_dir>/tlmpi.h5) plus\n"
    "report.md and CSV sheets next to it.  See docs/cli.md.\n"
    "\n"
    "  --trace_dir D        every trace in D, found by content (any name,\n"
    "                       plain or gzip'd); other files are listed\n"
    "  --recursive          --trace_dir: subfolders too (not via symlinks)\n"
    "  --strict             --trace_dir: a file that is not a trace is an\n"
    "                       error\n"
    "  --trace_pattern P    P with one '*' standing for the rank\n"
    "  --trace_glob G       files matching the glob G\n"
    "  --rank_regex R       rank from the file name (glob mode and fallback;\n"
    "                       default rank[\\[\\-_/]?(?P<rank>\\d+))\n"
    "  --world_size W       expected number of ranks (0..W-1)\n"
    "  --allow_missing      go on when ranks are missing\n"
    "  --allow_missing_ranks  the same as --allow_missing\n"
    "  --output F           HDF5 output file\n"
    "  --force              replace an existing output file\n"
    "  --output_dir D       folder for report.md and the CSV sheets\n"
    "  --output_csvs_dir D  folder for the CSV sheets (default output_dir)\n"
    "  --output_xlsx_path F the collective sheets and the per-rank\n"
    "                       summaries as one .xlsx workbook\n"
    "  --no_report          write only the HDF5 file\n"
    "  --gpus_per_node G    node = rank / G in the node columns and clock\n"
    "                       domains; default: the number of GPUs in the\n"
    "                       first trace's deviceProperties\n"
    "  --gpu_arch NAME      GPU of the job (bundled name, or none); default:\n"
    "                       the GPU the traces' deviceProperties name\n"
    "  --gpu_arch_json_path F  GPU roofline description (perf models)\n"
    "  --straggler_threshold_us T  a rank is named a straggler only when\n"
    "                       the others waited more than T us per collective\n"
    "                       for it (default 50)\n"
    "  --steps LIST         per-step tables of these steps only (3,5-7)\n"
    "  --step_outlier_pct P a step P% over the median step is an outlier\n"
    "                       (default 20)\n"
    "  --link_peak_gbps X   link peak for the bus-bandwidth finding (GB/s;\n"
    "                       default per GPU: H100 450, MI300X 448, ...;\n"
    "                       groups larger than a node 50)\n"
    "  --findings_skew_pct X  skew finding when the mean start skew is\n"
    "                       over X% of the latency (default 25)\n"
    "  --findings_skew_min_us X  ... and at least X us (default 10)\n"
    "  --findings_busbw_pct X  bus bandwidth finding below X% of the peak\n"
    "                       (default 50)\n"
    "  --findings_busbw_min_bytes X  ... for messages of X bytes or more\n"
    "                       (default 1048576)\n"
    "  --findings_exposed_comm_pct X  exposed communication finding over\n"
    "                       X% of the GPU time (default 5)\n"
    ;

/* The rest of the usage (one literal would pass the 4,095 characters
 * ISO C requires compilers to support). */
static const char usage_b[] =
    "  --merged_trace F     one Chrome/Perfetto trace of every rank (gzip\n"
    "                       JSON), clock-aligned, collectives linked by\n"
    "                       flows (docs/views.md)\n"
    "  --merged_trace_filter W  its events: all (default), kernels (GPU\n"
    "                       events) or collectives\n"
    "  --plots              PNG plots under <output_dir>/plots (needs\n"
    "                       python3 with matplotlib; docs/views.md)\n"
    "  --hta                HTA's per-rank tables: HDF5 /hta/<table> and\n"
    "                       <csv dir>/hta/<table>.csv (docs/hta.md)\n"
    "  --hta_time us|ns     HTA's microsecond rounding (us, default) or ns\n"
    "  --hta_consecutive_kernel_delay US  kernel_wait bound (default 30)\n"
    "  --hta_runtime_cutoff US  launch summary bound (default 50)\n"
    "  --hta_launch_delay_cutoff US  launch summary bound (default 100)\n"
    "  --hta_include_last_step  keep the last ProfilerStep (HTA drops it)\n"
    "  --hta_kernel_sequences OP  frequent_cuda_kernel_sequences under OP\n"
    "  --hta_min_pattern_len N  shortest kernel sequence (default 3)\n"
    "  --hta_critical_path A[:I[-J]]  critical path window\n"
    "                       (default ProfilerStep:0)\n"
    "  --hta_rank R         rank of the kernel sequences and critical path\n"
    "                       (default: the lowest rank)\n"
    "  --progress           progress as plain lines on stderr (log files;\n"
    "                       default: one updating line on a terminal only)\n"
    "  --quiet              nothing on stderr but errors\n"
    "  --print_schema       print the HDF5 schema as Markdown and exit\n"
    "  --version            print the version and exit\n"
    "  --help               print this help and exit\n";

const char *tlm_cli_opts_usage(void)
{
    static char all[sizeof usage + sizeof usage_b];
    if (!all[0])
        snprintf(all, sizeof all, "%s%s", usage, usage_b);
    return all;
}

/* A whole decimal number >= min into *out: 0, else -1. */
static int parse_long(const char *s, long min, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || end == s || v < min)
        return -1;
    *out = v;
    return 0;
}

/* A finite number >= 0 (microseconds). */
static int parse_usec(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || !end || *end || end == s || !(v >= 0.0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

typedef enum { K_FLAG, K_STR, K_LONG, K_USEC, K_NUM, K_LONG0 } kind;

typedef struct optdef {
    const char *name;
    kind k;
    size_t off;
} optdef;

#define O_(f) offsetof(tlm_cli_opts, f)
static const optdef defs[] = {
    {"trace_dir", K_STR, O_(trace_dir)},
    {"trace_pattern", K_STR, O_(trace_pattern)},
    {"trace_glob", K_STR, O_(trace_glob)},
    {"rank_regex", K_STR, O_(rank_regex)},
    {"world_size", K_LONG, O_(world_size)},
    {"allow_missing", K_FLAG, O_(allow_missing)},
    {"allow_missing_ranks", K_FLAG, O_(allow_missing)},
    {"recursive", K_FLAG, O_(recursive)},
    {"strict", K_FLAG, O_(strict)},
    {"force", K_FLAG, O_(force)},
    {"quiet", K_FLAG, O_(quiet)},
    {"progress", K_FLAG, O_(progress)},
    {"version", K_FLAG, O_(version)},
    {"no_report", K_FLAG, O_(no_report)},
    {"help", K_FLAG, O_(help)},
    {"print_schema", K_FLAG, O_(print_schema)},
    {"output", K_STR, O_(output)},
    {"output_dir", K_STR, O_(output_dir)},
    {"output_csvs_dir", K_STR, O_(output_csvs_dir)},
    {"output_xlsx_path", K_STR, O_(output_xlsx_path)},
    {"gpu_arch_json_path", K_STR, O_(gpu_arch_json_path)},
    {"gpus_per_node", K_LONG, O_(gpus_per_node)},
    {"gpu_arch", K_STR, O_(gpu_arch)},
    {"straggler_threshold_us", K_USEC, O_(straggler_threshold_us)},
    {"steps", K_STR, O_(steps)},
    {"step_outlier_pct", K_LONG, O_(step_outlier_pct)},
    {"link_peak_gbps", K_NUM, O_(link_peak_gbps)},
    {"findings_skew_pct", K_NUM, O_(findings_skew_pct)},
    {"findings_skew_min_us", K_NUM, O_(findings_skew_min_us)},
    {"findings_busbw_pct", K_NUM, O_(findings_busbw_pct)},
    {"findings_busbw_min_bytes", K_NUM, O_(findings_busbw_min_bytes)},
    {"findings_exposed_comm_pct", K_NUM, O_(findings_exposed_comm_pct)},
    {"merged_trace", K_STR, O_(merged_trace)},
    {"merged_trace_filter", K_STR, O_(merged_trace_filter)},
    {"plots", K_FLAG, O_(plots)},
    {"hta", K_FLAG, O_(hta)},
    {"hta_time", K_STR, O_(hta_time)},
    {"hta_consecutive_kernel_delay", K_USEC,
     O_(hta_consecutive_kernel_delay)},
    {"hta_runtime_cutoff", K_USEC, O_(hta_runtime_cutoff)},
    {"hta_launch_delay_cutoff", K_USEC, O_(hta_launch_delay_cutoff)},
    {"hta_min_pattern_len", K_LONG, O_(hta_min_pattern_len)},
    {"hta_include_last_step", K_FLAG, O_(hta_include_last_step)},
    {"hta_kernel_sequences", K_STR, O_(hta_kernel_sequences)},
    {"hta_critical_path", K_STR, O_(hta_critical_path)},
    {"hta_rank", K_LONG0, O_(hta_rank)},
};
#undef O_

const char *tlm_cli_opts_name(size_t i)
{
    return i < sizeof defs / sizeof defs[0] ? defs[i].name : NULL;
}

/* --gpu_arch: a bundled name or "none", not beside --gpu_arch_json_path
 * (refused here, before any trace is read). */
static tlm_status check_gpu_arch(const tlm_cli_opts *o, tlm_error *err)
{
    char known[256];
    if (!o->gpu_arch)
        return TLM_OK;
    if (o->gpu_arch_json_path)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--gpu_arch and --gpu_arch_json_path are "
                             "mutually exclusive");
    if (strcmp(o->gpu_arch, "none") == 0 || tlm_gpu_arch_lookup(o->gpu_arch))
        return TLM_OK;
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "unknown GPU '%s' for --gpu_arch (known: %s, none)",
                         o->gpu_arch,
                         tlm_gpu_arch_names(known, sizeof known));
}

/* --merged_trace: a .gz name; its filter one of three words, and only
 * with it. */
static tlm_status check_merged_trace(const tlm_cli_opts *o, tlm_error *err)
{
    tlm_mtrace_filter f;
    if (o->merged_trace_filter && !o->merged_trace)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--merged_trace_filter needs --merged_trace");
    if (o->merged_trace_filter &&
        tlm_mtrace_filter_parse(o->merged_trace_filter, &f) != 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--merged_trace_filter: '%s' is not all, "
                             "kernels or collectives",
                             o->merged_trace_filter);
    size_t n = o->merged_trace ? strlen(o->merged_trace) : 0;
    if (o->merged_trace && (n < 4 || strcmp(o->merged_trace + n - 3, ".gz")))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--merged_trace: '%s' must end in .json.gz (the "
                             "trace is gzip-compressed)", o->merged_trace);
    return TLM_OK;
}

/* The --hta_* options into o->hta_o; refused without --hta. */
static tlm_status hta_opts(tlm_cli_opts *o, tlm_error *err)
{
    tlm_hta_opts *h = &o->hta_o;
    int any = o->hta_time || o->hta_kernel_sequences ||
              o->hta_critical_path || o->hta_include_last_step ||
              o->hta_rank >= 0 ||
              o->hta_consecutive_kernel_delay != h->consecutive_kernel_delay ||
              o->hta_runtime_cutoff != h->runtime_cutoff ||
              o->hta_launch_delay_cutoff != h->launch_delay_cutoff ||
              o->hta_min_pattern_len != h->min_pattern_len;
    if (any && !o->hta)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "the --hta_* options need --hta");
    if (o->hta_time && strcmp(o->hta_time, "us") && strcmp(o->hta_time, "ns"))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--hta_time: us or ns (got '%s')", o->hta_time);
    h->time = o->hta_time && o->hta_time[0] == 'n' ? TLM_HTA_TIME_NS
                                                   : TLM_HTA_TIME_US;
    h->consecutive_kernel_delay = o->hta_consecutive_kernel_delay;
    h->runtime_cutoff = o->hta_runtime_cutoff;
    h->launch_delay_cutoff = o->hta_launch_delay_cutoff;
    h->min_pattern_len = (int)(o->hta_min_pattern_len > 1000000
                                   ? 1000000
                                   : o->hta_min_pattern_len);
    h->include_last_step = o->hta_include_last_step;
    h->kernel_seq_op = o->hta_kernel_sequences;
    if (o->hta_critical_path)
        return tlm_hta_cp_parse(o->hta_critical_path, h, err);
    return TLM_OK;
}

/* An unknown analysis option, with the closest known one ("did you
 * mean", src/util/suggest.c). */
static tlm_status unknown_opt(const char *a, const char *name, size_t nlen,
                              tlm_error *err)
{
    const char *cands[sizeof defs / sizeof defs[0]];
    char word[256];
    size_t n = sizeof defs / sizeof defs[0];
    for (size_t k = 0; k < n; k++)
        cands[k] = defs[k].name;
    snprintf(word, sizeof word, "%.*s", (int)(nlen < 255 ? nlen : 255),
             name);
    const char *best = tlm_suggest(word, cands, n);
    if (best)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "unknown option '%s'; did you mean `--%s`? "
                             "(see --help)", a, best);
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "unknown option '%s' (see --help)", a);
}

tlm_status tlm_cli_opts_parse(int argc, char **argv, tlm_cli_opts *o,
                              tlm_error *err)
{
    memset(o, 0, sizeof *o);
    o->world_size = -1;
    o->gpus_per_node = -1;
    o->straggler_threshold_us = TLM_CLI_DEFAULT_STRAGGLER_US;
    o->findings_skew_pct = TLM_FIND_SKEW_PCT;
    o->findings_skew_min_us = TLM_FIND_SKEW_MIN_US;
    o->findings_busbw_pct = TLM_FIND_BUSBW_PCT;
    o->findings_busbw_min_bytes = TLM_FIND_BUSBW_MIN_BYTES;
    o->findings_exposed_comm_pct = TLM_FIND_EXPOSED_PCT;
    o->step_outlier_pct = (long)(TLM_STEP_OUTLIER_DEFAULT * 100 + 0.5);
    tlm_hta_opts_init(&o->hta_o);
    o->hta_consecutive_kernel_delay = o->hta_o.consecutive_kernel_delay;
    o->hta_runtime_cutoff = o->hta_o.runtime_cutoff;
    o->hta_launch_delay_cutoff = o->hta_o.launch_delay_cutoff;
    o->hta_min_pattern_len = o->hta_o.min_pattern_len;
    o->hta_rank = -1;
    tlm_error_clear(err);
    /* Positional files are collected in place at the front of argv + 1:
     * argv is ours to reorder, the strings are not touched. */
    size_t nf = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                argv[1 + nf++] = argv[i];
            break;
        }
        if (strncmp(a, "--", 2) != 0) {
            argv[1 + nf++] = argv[i];
            continue;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const optdef *d = NULL;
        for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
            if (strlen(defs[k].name) == nlen &&
                strncmp(defs[k].name, name, nlen) == 0) {
                d = &defs[k];
                break;
            }
        }
        if (!d)
            return unknown_opt(a, name, nlen, err);
        char *field = (char *)o + d->off;
        if (d->k == K_FLAG) {
            if (eq)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s takes no value", d->name);
            *(int *)(void *)field = 1;
            continue;
        }
        const char *val = NULL;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s needs a value", d->name);
            val = argv[++i];
        }
        if (d->k == K_STR) {
            if (!*val)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s needs a non-empty value",
                                     d->name);
            *(const char **)(void *)field = val;
        } else if (d->k == K_NUM) {
            if (parse_usec(val, (double *)(void *)field) != 0)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s: '%s' is not a number "
                                     ">= 0", d->name, val);
        } else if (d->k == K_USEC) {
            if (parse_usec(val, (double *)(void *)field) != 0)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s: '%s' is not a number of "
                                     "microseconds >= 0", d->name, val);
        } else if (d->k == K_LONG0) {
            long v = 0;
            if (parse_long(val, 0, &v) != 0)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s: '%s' is not an integer "
                                     ">= 0", d->name, val);
            *(long *)(void *)field = v;
        } else {
            long v = 0;
            if (parse_long(val, 1, &v) != 0)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s: '%s' is not a positive "
                                     "integer", d->name, val);
            *(long *)(void *)field = v;
        }
    }
    o->files = argv + 1;
    o->n_files = nf;
    if (o->help || o->print_schema || o->version)
        return TLM_OK;
    if (o->progress && o->quiet)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--progress and --quiet exclude each other");
    int modes = (o->trace_dir != NULL) + (o->trace_pattern != NULL) +
                (o->trace_glob != NULL) + (nf > 0);
    if (modes == 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "no traces given: use --trace_dir, "
                             "--trace_pattern, --trace_glob or trace files");
    if (modes > 1)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--trace_dir, --trace_pattern, --trace_glob and "
                             "trace file arguments exclude each other");
    if (o->trace_pattern) {
        const char *s = strchr(o->trace_pattern, '*');
        if (!s || strchr(s + 1, '*'))
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--trace_pattern must contain exactly one "
                                 "'*' (got '%s')", o->trace_pattern);
    }
    if (o->output_xlsx_path && o->no_report)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--output_xlsx_path and --no_report exclude "
                             "each other (the workbook is part of the "
                             "report)");
    tlm_status mst = check_merged_trace(o, err);
    if (mst != TLM_OK)
        return mst;
    tlm_status ast = check_gpu_arch(o, err);
    if (ast != TLM_OK)
        return ast;
    if ((ast = hta_opts(o, err)) != TLM_OK)
        return ast;
    tlm_step_sel sel; /* --steps: checked here, parsed again by its user */
    if (tlm_step_sel_parse(o->steps, &sel, err) != TLM_OK)
        return TLM_EINVAL;
    if (o->rank_regex) {
        char tmp[1024];
        int g = 0;
        tlm_status st = tlm_cli_regex_to_posix(o->rank_regex, tmp, sizeof tmp,
                                               &g, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* ------------------------------------------------------------------ *
 * MARK: - regex translation
 * ------------------------------------------------------------------ */

typedef struct sbuf {
    char *p;
    size_t cap, len;
    int over;
} sbuf;

/* Appends s, or marks the buffer over its capacity. */
static void put(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->over = 1;
        return;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* Appends one character. */
static void putc_(sbuf *b, char c)
{
    char s[2] = {c, 0};
    put(b, s);
}

/* Translates one bracket expression starting at py[*i] == '['. */
static int bracket(const char *py, size_t *i, sbuf *out)
{
    size_t k = *i + 1;
    int neg = 0, rbr = 0, dash = 0, caret = 0;
    char body[512];
    sbuf b = {body, sizeof body, 0, 0};
    body[0] = 0;
    if (py[k] == '^') {
        neg = 1;
        k++;
    }
    int first = 1;
    for (;; k++) {
        char c = py[k];
        if (c == 0)
            return -1;
        if (c == ']' && !first)
            break;
        if (c == ']') {
            rbr = 1;
        } else if (c == '\\') {
            char e = py[++k];
            if (e == 0)
                return -1;
            if (e == 'd')
                put(&b, "0-9");
            else if (e == 'w')
                put(&b, "[:alnum:]_");
            else if (e == 's')
                put(&b, "[:space:]");
            else if (e == ']')
                rbr = 1;
            else if (e == '-')
                dash = 1;
            else if (e == '^')
                caret = 1;
            else if (e == '\\' || e == '[' || e == '.' || e == '/' ||
                     e == '_' || e == '(' || e == ')' || e == '*' ||
                     e == '+' || e == '?' || e == '|' || e == '{' ||
                     e == '}' || e == '$')
                putc_(&b, e);
            else
                return -1;
        } else if (c == '-' && (first || py[k + 1] == ']')) {
            dash = 1;
        } else if (c == '^') {
            caret = 1;
        } else {
            putc_(&b, c);
        }
        first = 0;
    }
    if (b.over)
        return -1;
    putc_(out, '[');
    if (neg)
        putc_(out, '^');
    if (rbr)
        putc_(out, ']');
    put(out, body);
    if (caret) {
        if (!rbr && !body[0] && !neg && !dash)
            return -1; /* "[\^]" alone: would read as negation */
        putc_(out, '^');
    }
    if (dash)
        putc_(out, '-');
    putc_(out, ']');
    *i = k;
    return 0;
}

tlm_status tlm_cli_regex_to_posix(const char *py, char *outp, size_t cap,
                                  int *group, tlm_error *err)
{
    sbuf out = {outp, cap, 0, 0};
    int ngroups = 0, named = 0;
    if (cap)
        outp[0] = 0;
    for (size_t i = 0; py[i]; i++) {
        char c = py[i];
        if (c == '[') {
            if (bracket(py, &i, &out) != 0)
                goto bad;
        } else if (c == '\\') {
            char e = py[++i];
            if (e == 'd')
                put(&out, "[0-9]");
            else if (e == 'w')
                put(&out, "[[:alnum:]_]");
            else if (e == 's')
                put(&out, "[[:space:]]");
            else if (e == 0 || (e >= 'a' && e <= 'z') ||
                     (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
                goto bad; /* \b, \1 ... have no POSIX ERE meaning */
            else if (e == '-' || e == '/' || e == '_' || e == '<' ||
                     e == '>' || e == '\'' || e == '"' || e == ' ' ||
                     e == ',' || e == ':' || e == '#' || e == '%' ||
                     e == '&' || e == '=' || e == '@' || e == '~')
                putc_(&out, e); /* escaped non-special: plain literal */
            else {
                putc_(&out, '\\');
                putc_(&out, e);
            }
        } else if (c == '(') {
            ngroups++;
            if (py[i + 1] == '?') {
                if (py[i + 2] == 'P' && py[i + 3] == '<') {
                    const char *end = strchr(py + i + 4, '>');
                    if (!end)
                        goto bad;
                    size_t nl = (size_t)(end - (py + i + 4));
                    if (nl == 4 && strncmp(py + i + 4, "rank", 4) == 0)
                        named = ngroups;
                    i = (size_t)(end - py);
                } else if (py[i + 2] == ':') {
                    i += 2; /* counted as a plain group */
                } else {
                    goto bad; /* lookaround, flags, backreference */
                }
            }
            putc_(&out, '(');
        } else {
            putc_(&out, c);
        }
    }
    if (out.over)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--rank_regex '%s' is too long", py);
    if (group)
        *group = named ? named : 1;
    if (ngroups == 0)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "--rank_regex '%s' has no group for the rank",
                             py);
    return TLM_OK;
bad:
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "--rank_regex '%s': unsupported syntax (POSIX "
                         "extended regex plus (?P<rank>...), \\d, \\w, \\s)",
                         py);
}
