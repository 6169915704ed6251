/*
 * cmd_replay.c - `tlmpi replay TRACE --output_dir D ...`: event replay
 * (docs/replay.md).  Builds the trace's report, checks one op instance
 * per ops_unique_args row (src/replay) and writes, as one output set,
 * D/replay_events.json (tlmpi.replay.v1), D/tlmpi_replay.py (the runner,
 * byte for byte), D/SHA256SUMS and D/README.md, and with --bundle the
 * same four files as one .tar.gz.
 */
#include "cli.h"
#include "report_opts.h"
#include "sigclean.h"
#include "slip.h"

#include "tlmpi/tlm_outset.h"
#include "tlmpi/tlm_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_IR, F_PY, F_README, F_SUMS, F_N };
static const char *const fnames[F_N] = {"replay_events.json",
                                        "tlmpi_replay.py", "README.md",
                                        "SHA256SUMS"};

/* The usage text of tlmpi replay. */
static void replay_usage(FILE *f)
{
    fprintf(f,
        "usage: tlmpi replay TRACE --output_dir DIR [options]\n\n"
        "Event replay: one op instance per ops_unique_args row of the trace,\n"
        "checked against the safety rules and written as\n"
        "DIR/replay_events.json (tlmpi.replay.v1) with the runner\n"
        "DIR/tlmpi_replay.py, DIR/SHA256SUMS and DIR/README.md.  Run it\n"
        "with: python3 -I DIR/tlmpi_replay.py DIR/replay_events.json\n\n"
        "options:\n"
        "  --output_dir DIR              output folder (created if missing)\n"
        "  --replay_filter REGEX         only ops whose name matches (POSIX\n"
        "                                extended regular expression)\n"
        "  --top N                       only the N rows of most direct "
        "kernel time\n"
        "  --replay_namespaces LIST      namespaces replayed (default aten;"
        " comma\n"
        "                                list; c10d, prim, profiler never)\n"
        "  --replay_max_tensor_bytes B   storage cap per tensor (default "
        "8 GiB)\n"
        "  --replay_max_op_bytes B       cap of an op's tensors (default "
        "32 GiB)\n"
        "  --bundle FILE.tar.gz          the four files as one archive too\n"
        "  --force                       replace outputs that exist already\n"
        "  --quiet                       no summary on stderr\n");
}

typedef struct pargs {
    const char *trace, *dir, *bundle;
    int force, quiet;
    tlm_replay_opts o;
} pargs;

/* A whole decimal number into *out: 1, else 0. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v == 0)
        return 0;
    *out = v;
    return 1;
}

/* An option with a value: 1, 0 not one, -1 after a message. */
static int value_opt(const char *a, const char *v, pargs *p)
{
    uint64_t u;
    if (!strcmp(a, "--output_dir")) {
        p->dir = v;
    } else if (!strcmp(a, "--bundle")) {
        p->bundle = v;
    } else if (!strcmp(a, "--replay_filter")) {
        p->o.filter = v;
    } else if (!strcmp(a, "--replay_namespaces")) {
        p->o.namespaces = v;
    } else if (!strcmp(a, "--top") || !strcmp(a, "--replay_max_tensor_bytes")
               || !strcmp(a, "--replay_max_op_bytes")) {
        if (!parse_u64(v, &u)) {
            fprintf(stderr, "tlmpi replay: %s needs a positive integer "
                    "(got %s)\n", a, v);
            return -1;
        }
        if (!strcmp(a, "--top"))
            p->o.top = (size_t)u;
        else if (!strcmp(a, "--replay_max_tensor_bytes"))
            p->o.max_tensor_bytes = u;
        else
            p->o.max_op_bytes = u;
    } else {
        return 0;
    }
    return 1;
}

/* Whether a is one of value_opt's options. */
static int takes_value(const char *a)
{
    pargs scratch;
    memset(&scratch, 0, sizeof scratch);
    return value_opt(a, "1", &scratch) > 0;
}

/* 0 ok, 1 --help printed, 2 usage error (message printed). */
static int parse_args(int argc, char **argv, pargs *p)
{
    tlm_replay_opts_init(&p->o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            replay_usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--force")) {
            p->force = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            p->quiet = 1;
            continue;
        }
        int r = i + 1 < argc ? value_opt(a, argv[i + 1], p) : 0;
        if (r < 0)
            return 2;
        if (r > 0) {
            i++;
        } else if (i + 1 == argc && takes_value(a)) {
            fprintf(stderr, "tlmpi replay: %s needs a value\n", a);
            return 2;
        } else if (a[0] == '-' && a[1]) {
            tlm_cmd_unknown_opt("replay", a, replay_usage);
            return 2;
        } else if (!p->trace) {
            p->trace = a;
        } else {
            fprintf(stderr, "tlmpi replay: one trace only (got %s)\n", a);
            return 2;
        }
    }
    if (!p->trace || !p->dir) {
        replay_usage(stderr);
        return 2;
    }
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_replay_opts_check(&p->o, &err) != TLM_OK) {
        fprintf(stderr, "tlmpi replay: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* Prints the error; exit code 1. */
static int err_out(const tlm_error *e)
{
    char m[1200];
    fprintf(stderr, "tlmpi replay: error: %s\n",
            tlm_error_format(e, m, sizeof m));
    return 1;
}

/* The output rules on every file before any work. */
static int check_outputs(tlm_outset *set, const pargs *p)
{
    tlm_error err;
    tlm_error_clear(&err);
    if (tlm_outset_init(set, p->force, &err) != TLM_OK)
        return err_out(&err);
    tlm_status st = tlm_outset_add_input(set, p->trace, &err);
    for (int f = 0; st == TLM_OK && f < F_N; f++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", p->dir, fnames[f]);
        st = tlm_outset_check(set, path, &err);
    }
    if (st == TLM_OK && p->bundle)
        st = tlm_outset_check(set, p->bundle, &err);
    if (st != TLM_OK) {
        tlm_outset_free(set);
        return err_out(&err);
    }
    tlm_cli_signals_install();
    tlm_cli_signals_track(set);
    return 0;
}

/* An error about the temporary tmp said of the output path the user
 * asked for (issue 33, case 14).  Returns st. */
static tlm_status name_output(tlm_status st, const char *tmp,
                              const char *path, tlm_error *err)
{
    if (st != TLM_OK && err && tmp && !strcmp(err->file, tmp)) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        tlm_error_set(err, st, path, -1, "%s", m);
    }
    return st;
}

/* A text staged in the set under path. */
static tlm_status stage_buf(tlm_outset *set, const char *path,
                            const char *data, size_t len, tlm_error *err)
{
    const char *tmp = NULL;
    tlm_status st = tlm_outset_stage(set, path, &tmp, err);
    if (st != TLM_OK)
        return st;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return tlm_error_set(err, TLM_EIO, path, -1, "%s", strerror(errno));
    fwrite(data, 1, len, f);
    return name_output(tlm_outset_fclose(f, tmp, err), tmp, path, err);
}

/* The four texts: IR, runner (not owned), README, SHA256SUMS. */
typedef struct texts {
    char *t[F_N];
    size_t n[F_N];
    const char *runner;
} texts;

/* The IR, README and SHA256SUMS texts of a replay set. */
static tlm_status make_texts(const tlm_replay_set *s, texts *x,
                             tlm_error *err)
{
    memset(x, 0, sizeof *x);
    x->runner = tlm_replay_runner(&x->n[F_PY]);
    if (tlm_replay_ir_json(s, &x->t[F_IR], &x->n[F_IR]) != TLM_OK ||
        tlm_replay_readme(s, &x->t[F_README], &x->n[F_README]) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    size_t cap = 3 * (64 + 2 + 32 + 1) + 1;
    x->t[F_SUMS] = malloc(cap);
    if (!x->t[F_SUMS])
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1, "out of memory");
    size_t used = 0;
    for (int f = 0; f < F_SUMS; f++) {
        char hex[65];
        tlm_sha256_hex(f == F_PY ? x->runner : x->t[f], x->n[f], hex);
        used += (size_t)snprintf(x->t[F_SUMS] + used, cap - used,
                                 "%s  %s\n", hex, fnames[f]);
    }
    x->n[F_SUMS] = used;
    return TLM_OK;
}

/* Frees the texts owned. */
static void free_texts(texts *x)
{
    for (int f = 0; f < F_N; f++)
        if (f != F_PY)
            free(x->t[f]);
}

/* Every output of the folder (and the bundle) staged. */
static tlm_status stage_all(tlm_outset *set, const pargs *p,
                            const texts *x, tlm_error *err)
{
    tlm_status st = TLM_OK;
    for (int f = 0; st == TLM_OK && f < F_N; f++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", p->dir, fnames[f]);
        st = stage_buf(set, path, f == F_PY ? x->runner : x->t[f], x->n[f],
                       err);
    }
    if (st != TLM_OK || !p->bundle)
        return st;
    tlm_tar_member m[F_N];
    for (int f = 0; f < F_N; f++) {
        m[f].name = fnames[f];
        m[f].data = f == F_PY ? x->runner : x->t[f];
        m[f].len = x->n[f];
        m[f].exec = f == F_PY;
    }
    const char *tmp = NULL;
    st = tlm_outset_stage(set, p->bundle, &tmp, err);
    return st == TLM_OK
               ? name_output(tlm_targz_write(tmp, m, F_N, err), tmp,
                             p->bundle, err)
               : st;
}

/* The counts, and each rejected op: UID, name (printable ASCII, checked
 * by the replay layer; at most 60 bytes here), reason, argument. */
static void summary(const pargs *p, const tlm_replay_set *s, double dt)
{
    size_t c[TLM_RR_COUNT];
    tlm_replay_set_tally(s, c);
    fprintf(stderr, "tlmpi replay: %s: %zu ops, %zu ok in %s/%s%s%s "
            "(%.3f s)\n", tlm_esc(p->trace), tlm_replay_set_count(s),
            c[TLM_RR_OK], tlm_esc(p->dir), fnames[F_IR],
            p->bundle ? " and " : "", p->bundle ? tlm_esc(p->bundle) : "",
            dt);
    for (size_t i = 0; i < tlm_replay_set_count(s); i++) {
        const tlm_replay_op *op = tlm_replay_set_op(s, i);
        if (op->status == TLM_RR_OK)
            continue;
        fprintf(stderr, "  uid %lld %.60s: %s", (long long)op->uid,
                op->name, tlm_replay_reason_code(op->status));
        if (op->reason_arg >= 0)
            fprintf(stderr, " (argument %d)", op->reason_arg);
        fprintf(stderr, "\n");
    }
}

/* The trace's basename (its source in the IR). */
static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

int tlm_cmd_replay(int argc, char **argv)
{
    pargs p;
    memset(&p, 0, sizeof p);
    int pr = parse_args(argc, argv, &p);
    if (pr)
        return pr == 1 ? 0 : 2;
    tlm_outset set;
    if (check_outputs(&set, &p) != 0)
        return 1;
    double t0 = tlm_cli_now();
    tlm_cli_ropts co;
    tlm_cli_ropts_init(&co);
    co.ro.gpu_arch = "none";      /* no roofline needed */
    co.ro.coll_analysis = 0;
    tlm_cli_built b = {0};
    tlm_replay_set *s = NULL;
    texts x;
    memset(&x, 0, sizeof x);
    tlm_error err;
    tlm_error_clear(&err);
    int rc = 1;
    if (tlm_cli_build_report(p.trace, &co, &b, &err) != TLM_OK ||
        tlm_replay_select(b.rep, b.tr, basename_of(p.trace), &p.o, &s,
                          &err) != TLM_OK ||
        make_texts(s, &x, &err) != TLM_OK ||
        stage_all(&set, &p, &x, &err) != TLM_OK ||
        tlm_outset_commit(&set, &err) != TLM_OK) {
        err_out(&err);
    } else {
        rc = 0;
        if (!p.quiet)
            summary(&p, s, tlm_cli_now() - t0);
    }
    tlm_cli_signals_untrack(&set);
    tlm_outset_free(&set);
    free_texts(&x);
    tlm_replay_set_free(s);
    tlm_cli_built_free(&b);
    return rc;
}
