/*
 * fuzz_events.c - libFuzzer target for the event decoder and everything
 * that consumes decoded events: the call tree, the report tables and perf
 * models, and collective extraction, matching, clock fit and summaries.
 *
 * Input: one configuration byte, then the text of the traceEvents array's
 * elements (without the brackets).  The target wraps it in a trace with
 * distributedInfo and pg_config, so the fuzzer spends its time on event
 * objects rather than on rediscovering the top-level layout.  Bit 0 of the
 * configuration turns on python_function links (nn.Module view), bit 1 the
 * TraceLens compatibility switches, bit 2 linking unlinked GPU ops into the
 * timeline; bits 3-4 choose the bundled GPU; bit 5 adds TraceLens's
 * pseudo ops (tlm_tree_pseudo_ops) to the tree before the report.
 *
 * Invariants beyond memory safety (abort() on violation): every stage
 * returns OK or a documented error code with a message; the tree is a
 * forest (parents in range, no cycles along parent chains); timeline parts
 * are finite and never negative; every cell of every table formats.
 */
#include "tlmpi/tlm_coll.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_tree.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_events: invariant broken: %s\n", what);
        abort();
    }
}

static const char k_head[] =
    "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\","
    "\"rank\":1,\"world_size\":2,\"pg_count\":2,\"pg_config\":["
    "{\"pg_name\":\"0\",\"pg_desc\":\"default_pg\",\"backend_config\":"
    "\"cuda:nccl\",\"pg_size\":2,\"ranks\":[0,1]},"
    "{\"pg_name\":\"1\",\"pg_desc\":\"tp\",\"backend_config\":\"cuda:nccl\","
    "\"pg_size\":1,\"ranks\":[1]}]},\"traceEvents\":[";
static const char k_tail[] = "]}";

static void check_error(tlm_status s, const tlm_error *e, const char *stage)
{
    check(s == e->code, stage);
    check(e->msg[0] != '\0', stage);
}

static void check_tree(tlm_tree *tree)
{
    size_t n = tlm_tree_size(tree);
    for (size_t i = 0; i < n; i++) {
        int32_t p = tlm_tree_parent(tree, (int32_t)i);
        check(p >= -1 && p < (int32_t)n, "parent in range");
        /* a parent chain is never longer than the tree: no cycles */
        size_t steps = 0;
        while (p >= 0 && steps <= n) {
            p = tlm_tree_parent(tree, p);
            steps++;
        }
        check(steps <= n, "parent chain without cycles");
    }
    size_t nroots = 0;
    const int32_t *roots = tlm_tree_cpu_roots(tree, &nroots);
    for (size_t r = 0; r < nroots; r++) {
        check(roots[r] >= 0 && (size_t)roots[r] < n, "root in range");
        size_t ng = 0;
        const int32_t *g = tlm_tree_gpu_events(tree, roots[r], &ng);
        for (size_t i = 0; i < ng; i++)
            check(g[i] >= 0 && (size_t)g[i] < n, "GPU event id in range");
    }
}

static void check_report(const tlm_report *r)
{
    const tlm_gpu_timeline *tl = tlm_report_timeline(r);
    const double parts[] = {tl->computation_us, tl->exposed_comm_us,
                            tl->exposed_memcpy_us, tl->busy_us,
                            tl->idle_us, tl->total_us};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        check(isfinite(parts[i]) && parts[i] >= -1e-6, "timeline part");
    char buf[256];
    for (size_t t = 0; t < tlm_report_table_count(r); t++) {
        size_t rows = tlm_report_table_rows(r, t);
        size_t cols = tlm_report_table_cols(r, t);
        for (size_t c = 0; c < cols; c++)
            check(tlm_report_table_colname(r, t, c) != NULL, "column name");
        for (size_t row = 0; row < rows; row++)
            for (size_t c = 0; c < cols; c++) {
                size_t len = tlm_report_cell_text(r, t, row, c, buf,
                                                  sizeof buf);
                check(strlen(buf) == (len < sizeof buf ? len
                                                       : sizeof buf - 1),
                      "cell text length");
            }
    }
}

static void run_collectives(const tlm_trace *trace)
{
    tlm_coll_record *recs = NULL;
    size_t n = 0;
    tlm_error e;
    tlm_status s = tlm_coll_extract(trace, NULL, &recs, &n, NULL, &e);
    if (s != TLM_OK) {
        check(s == TLM_ENOMEM, "extract: only ENOMEM");
        return;
    }
    tlm_coll_match_result res;
    s = tlm_coll_match(recs, n, NULL, &res, &e);
    if (s == TLM_OK) {
        for (size_t i = 0; i < res.n_inst; i++)
            check(res.inst[i].n_members >= 1, "instance has members");
        tlm_coll_clock *clk = NULL;
        size_t nclk = 0;
        if (tlm_coll_clock_estimate(res.mem, res.n_mem, NULL, &clk, &nclk,
                                    &e) == TLM_OK) {
            int64_t off[4] = {0};
            tlm_coll_clock_offsets(clk, nclk < 4 ? nclk : 4, off);
            tlm_coll_metrics_apply_offsets(&res, off, nclk < 4 ? nclk : 4,
                                           0, 1000);
            tlm_coll_free(NULL, clk);
        }
        tlm_coll_summary_row *rows = NULL;
        size_t nrows = 0;
        if (tlm_coll_summarize(res.inst, res.n_inst, 1, NULL, &rows, &nrows,
                               &e) == TLM_OK)
            tlm_coll_free(NULL, rows);
        tlm_coll_straggler_row *st = NULL;
        size_t nst = 0;
        if (tlm_coll_straggler_compute(res.inst, res.n_inst, res.mem,
                                       res.n_mem, NULL, &st, &nst,
                                       &e) == TLM_OK)
            tlm_coll_free(NULL, st);
        tlm_coll_match_result_free(&res);
    } else {
        check(s == TLM_ENOMEM, "match: only ENOMEM");
    }
    tlm_coll_free(NULL, recs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    uint8_t cfg = data[0];
    size_t n = size - 1;
    size_t total = sizeof k_head - 1 + n + sizeof k_tail - 1;
    char *text = malloc(total);
    if (!text)
        return 0;
    memcpy(text, k_head, sizeof k_head - 1);
    memcpy(text + sizeof k_head - 1, data + 1, n);
    memcpy(text + sizeof k_head - 1 + n, k_tail, sizeof k_tail - 1);

    tlm_read_opts o;
    tlm_read_opts_init(&o);
    o.keep_events = 1;
    o.max_events = 2000;
    tlm_trace *trace = NULL;
    tlm_error e;
    tlm_status s = tlm_trace_read_mem(text, total, "fuzz", &o, &trace, &e);
    free(text);
    if (s != TLM_OK) {
        check_error(s, &e, "read error");
        return 0;
    }

    tlm_tree_opts to;
    tlm_tree_opts_init(&to);
    to.python_functions = cfg & 1u;
    tlm_tree *tree = NULL;
    s = tlm_tree_build(trace, &to, &tree, &e);
    if (s != TLM_OK) {
        check_error(s, &e, "tree error");
        check(s == TLM_ENOMEM, "tree: only ENOMEM");
        tlm_trace_free(trace);
        return 0;
    }
    if (cfg & 32u) {
        s = tlm_tree_pseudo_ops(tree, trace, NULL, &e);
        check(s == TLM_OK || s == TLM_ENOMEM, "pseudo ops: only ENOMEM");
        if (s != TLM_OK)
            check_error(s, &e, "pseudo ops error");
    }
    check_tree(tree);

    static const char *const gpus[] = {NULL, "H100", "MI300X", "A100"};
    tlm_report_opts ro;
    tlm_report_opts_init(&ro);
    ro.compat = (cfg & 2u) ? ~0u : 0u;
    ro.include_unlinked_kernels = (cfg >> 2) & 1u;
    ro.gpu_arch = gpus[(cfg >> 3) & 3u];
    tlm_report *rep = NULL;
    s = tlm_report_build(tree, &ro, &rep, &e);
    if (s == TLM_OK) {
        check_report(rep);
        tlm_report_free(rep);
    } else {
        check_error(s, &e, "report error");
        check(s == TLM_ENOTFOUND || s == TLM_ENOMEM, "report: error code");
    }
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        s = tlm_tree_print_modules(tree, null, 4, &e);
        check(s == TLM_OK || s == TLM_ENOMEM, "modules view");
        size_t nroots = 0;
        const int32_t *roots = tlm_tree_cpu_roots(tree, &nroots);
        if (nroots > 0) {
            s = tlm_tree_print(tree, null, roots[0], 6,
                               TLM_PRINT_SHAPES | TLM_PRINT_GPU_TIME, &e);
            check(s == TLM_OK || s == TLM_ENOMEM, "tree print");
            s = tlm_tree_print_parents(tree, null, roots[nroots - 1],
                                       TLM_PRINT_SHAPES, &e);
            check(s == TLM_OK || s == TLM_ENOMEM, "parents print");
        }
        fclose(null);
    }
    run_collectives(trace);
    tlm_tree_free(tree);
    tlm_trace_free(trace);
    return 0;
}
