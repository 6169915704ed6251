/*
 * audit_opts.c - the command line of `tlmpi audit` (docs/cli.md).  Its own
 * options are taken out first; the rest are the analysis options it
 * shares, parsed by opts.c, of which those that name the inputs or the
 * HDF5 file of one job are refused (each run's come from the walk).
 */
#include "audit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mpirun -n N tlmpi audit ROOT --output_dir D [--baseline RUN]\n"
    "                         [--run_depth K] [--recursive] [--strict]\n"
    "                         [--min_efficiency E] [--bw_drop_pct P]\n"
    "                         [--wave_files N] [--force]\n"
    "                         [--allow_missing | --allow_missing_ranks]\n"
    "                         [--gpus_per_node G] [--gpu_arch NAME]\n"
    "                         [--gpu_arch_json_path F]\n"
    "                         [--straggler_threshold_us T] [--steps LIST]\n"
    "                         [--step_outlier_pct P] [--rank_regex R]\n"
    "                         [--merged_trace NAME.json.gz] [--plots]\n"
    "                         [--progress | --quiet] [--print_schema] [--help]\n"
    "\n"
    "Analyses every job found under ROOT in one MPI run: a run is a folder\n"
    "holding the traces of one job (found by content, at any depth).\n"
    "Layout: a run folder directly under ROOT is its own job (ROOT/megatron\n"
    "and ROOT/dlrm are never compared); runs of one job share a job folder\n"
    "(ROOT/llama/n4, ROOT/llama/n8) and form a scaling series only when\n"
    "their collective and op signatures agree.  Writes\n"
    "D/audit.h5, D/audit.md, D/runs.csv and, per run, D/runs/<run>/tlmpi.h5,\n"
    "report.md and the CSV sheets.  Exit status: 0 every run ok, 3 written\n"
    "but a run failed, a file could not be read or no run was found, 1\n"
    "nothing written, 2 usage.  See docs/cli.md.\n"
    "\n"
    "  --output_dir D       audit outputs (required)\n"
    "  --baseline RUN       compare every run with this one (a path relative\n"
    "                       to ROOT, as in runs.run); also the base of the\n"
    "                       scaling efficiencies of its series\n"
    "  --run_depth K        runs are the folders K levels below ROOT\n"
    "                       (default: the folders that hold traces)\n"
    "  --recursive          accepted for symmetry: the audit always walks\n"
    "                       the whole tree\n"
    "  --strict             files under ROOT that are not traces or cannot\n"
    "                       be read fail the audit (exit 3)\n"
    "  --min_efficiency E   runs below this weak-scaling efficiency stand\n"
    "                       out (default 0.8)\n"
    "  --bw_drop_pct P      collectives whose bus bandwidth fell P% below the\n"
    "                       base run's stand out (default 20)\n"
    "  --wave_files N       trace files read per wave (memory bound; default\n"
    "                       8 per MPI process)\n"
    "  --merged_trace NAME  each run's merged trace, D/runs/<run>/NAME\n"
    "  --plots              PNGs of audit.h5 (scaling curve, bus bandwidth)\n"
    "                       under D/plots\n"
    "  other options        as in the analysis (tlmpi --help)\n";

/* The usage text of `tlmpi audit --help`. */
const char *tlm_audit_usage(void)
{
    return usage;
}

typedef enum { A_FLAG, A_STR, A_LONG, A_DBL } akind;

typedef struct adef {
    const char *name;
    akind k;
    size_t off;
} adef;

#define O_(f) offsetof(tlm_audit_opts, f)
static const adef defs[] = {
    {"baseline", A_STR, O_(baseline)},
    {"run_depth", A_LONG, O_(run_depth)},
    {"wave_files", A_LONG, O_(wave_files)},
    {"min_efficiency", A_DBL, O_(min_efficiency)},
    {"bw_drop_pct", A_DBL, O_(bw_drop_pct)},
    {"strict", A_FLAG, O_(strict)},
    {"recursive", A_FLAG, O_(recursive)},
    {"allow_missing_ranks", A_FLAG, O_(a.allow_missing)},
};
#undef O_

/* The name of the i-th audit option (no "--"), NULL past the last. */
const char *tlm_audit_opts_name(size_t i)
{
    return i < sizeof defs / sizeof defs[0] ? defs[i].name : NULL;
}

/* The audit option that arg names ("--name" or "--name=value"), its inline
 * value in *val; NULL when it is not one. */
static const adef *find(const char *arg, const char **val)
{
    if (strncmp(arg, "--", 2) != 0)
        return NULL;
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strlen(defs[i].name) == n && !strncmp(defs[i].name, name, n)) {
            *val = eq ? eq + 1 : NULL;
            return &defs[i];
        }
    return NULL;
}

/* Stores v into the option d of o; TLM_EINVAL with the reason when v is
 * not a value of its kind. */
static tlm_status set_value(tlm_audit_opts *o, const adef *d, const char *v,
                            tlm_error *err)
{
    char *field = (char *)o + d->off, *end = NULL;
    errno = 0;
    if (d->k == A_STR && *v) {
        *(const char **)(void *)field = v;
        return TLM_OK;
    }
    if (d->k == A_LONG) {
        long x = strtol(v, &end, 10);
        if (!errno && end != v && !*end && x >= 1) {
            *(long *)(void *)field = x;
            return TLM_OK;
        }
    } else if (d->k == A_DBL) {
        double x = strtod(v, &end);
        if (!errno && end != v && !*end && x >= 0 && x <= 1e6) {
            *(double *)(void *)field = x;
            return TLM_OK;
        }
    }
    return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                         "option --%s: bad value '%s'", d->name, v);
}

/* Takes the audit's own options out of argv; the rest stay in order in
 * rest[0..*n_rest).  Flags of the shared parser are set after it ran. */
static tlm_status own_options(int argc, char **argv, tlm_audit_opts *o,
                              char **rest, int *n_rest, int *flags,
                              tlm_error *err)
{
    *n_rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        const adef *d = find(argv[i], &val);
        if (!d) {
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (d->k == A_FLAG) {
            if (val)
                return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                     "option --%s takes no value", d->name);
            *flags |= d->off == offsetof(tlm_audit_opts, a.allow_missing) ? 1
                                                                          : 0;
            *(int *)(void *)((char *)o + d->off) = 1;
            continue;
        }
        if (!val && i + 1 >= argc)
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "option --%s needs a value", d->name);
        tlm_status st = set_value(o, d, val ? val : argv[++i], err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* What a run's analysis would take from the audit's command line, but an
 * audit decides per run. */
static tlm_status refuse(const tlm_cli_opts *a, tlm_error *err)
{
    const char *bad = a->trace_dir       ? "--trace_dir"
                      : a->trace_pattern ? "--trace_pattern"
                      : a->trace_glob    ? "--trace_glob"
                      : a->output        ? "--output"
                      : a->output_csvs_dir ? "--output_csvs_dir"
                      : a->output_xlsx_path ? "--output_xlsx_path"
                      : a->world_size > 0 ? "--world_size"
                      : a->no_report     ? "--no_report"
                                         : NULL;
    if (bad)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "%s is not an option of tlmpi audit (each run's "
                             "traces and outputs are found under ROOT)", bad);
    if (a->n_files != 1)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             a->n_files ? "tlmpi audit takes one ROOT folder"
                                        : "tlmpi audit needs a ROOT folder");
    if (!a->output_dir)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlmpi audit needs --output_dir D");
    return TLM_OK;
}

/* `tlmpi audit ...`: its own options taken out, the rest parsed as the
 * analysis's, those of one job's inputs refused. */
tlm_status tlm_audit_opts_parse(int argc, char **argv, tlm_audit_opts *o,
                                tlm_error *err)
{
    memset(o, 0, sizeof *o);
    o->min_efficiency = TLM_AUDIT_MIN_EFF_DEFAULT;
    o->bw_drop_pct = TLM_AUDIT_BW_DROP_DEFAULT;
    tlm_error_clear(err);
    char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
    if (!rest)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    int n = 1, flags = 0;
    rest[0] = argv[0];
    tlm_audit_opts own = *o;
    tlm_status st = own_options(argc, argv, &own, rest + 1, &n, &flags, err);
    if (st == TLM_OK) {
        /* the shared parser sets its defaults; argv gets its order */
        for (int i = 0; i <= n; i++)
            argv[i] = rest[i];
        st = tlm_cli_opts_parse(n + 1, argv, &o->a, err);
    }
    free(rest);
    if (st != TLM_OK)
        return st;
    tlm_cli_opts a = o->a;
    *o = own;
    o->a = a;
    o->a.allow_missing |= flags & 1;
    if (o->a.help || o->a.print_schema || o->a.version)
        return TLM_OK;
    if (o->a.merged_trace && strchr(o->a.merged_trace, '/'))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlmpi audit --merged_trace takes a file name "
                             "(written in each run's folder, "
                             "D/runs/<run>/NAME), not a path: '%s'",
                             o->a.merged_trace);
    return refuse(&o->a, err);
}
