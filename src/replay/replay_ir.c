/*
 * replay_ir.c - replay_events.json, format tlmpi.replay.v1 (spec
 * replay.md §10.1), and the README.md of an output folder.  Per op:
 * op_name, count, source (trace basename, event UID),
 * trace_kernel_us_mean, args (the four arrays, normalised and typed; null
 * when they did not check) and status.  Nothing else of the trace (rule
 * S9): every string written is a checked op name, a printable basename,
 * a type name from the fixed table or a reason code; the file is ASCII.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pyrepr.h"
#include "replay_internal.h"

static void put_num(tlm_sbuf *b, double v)
{
    if (!isfinite(v)) {
        tlm_sbuf_puts(b, "null");
        return;
    }
    char r[TLM_PY_FLOAT_MAX];
    tlm_py_float_repr(v, r, sizeof r);
    tlm_sbuf_puts(b, r);
}

static void put_op(tlm_sbuf *b, const tlm_replay_set *s,
                   const tlm_replay_op *op)
{
    tlm_sbuf_puts(b, "{\"op_name\":");
    tlm_rp_json_str(b, op->name ? op->name : "");
    tlm_sbuf_printf(b, ",\"count\":%lld,\"source\":{\"trace\":",
                    (long long)op->count);
    tlm_rp_json_str(b, s->trace_name);
    tlm_sbuf_printf(b, ",\"uid\":%lld},\"trace_kernel_us_mean\":",
                    (long long)op->uid);
    put_num(b, op->kernel_us_mean);
    tlm_sbuf_puts(b, ",\"args\":");
    tlm_sbuf_puts(b, op->args_json ? op->args_json : "null");
    tlm_sbuf_puts(b, ",\"status\":");
    const char *code = tlm_replay_reason_code(op->status);
    tlm_rp_json_str(b, code ? code : "bad_args");
    tlm_sbuf_putc(b, '}');
}

tlm_status tlm_replay_ir_json(const tlm_replay_set *s, char **text,
                              size_t *len)
{
    *text = NULL;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_puts(&b, "{\"format\":\"" TLM_REPLAY_FORMAT "\",\"ops\":[");
    for (size_t i = 0; i < s->n; i++) {
        tlm_sbuf_puts(&b, i ? ",\n" : "\n");
        put_op(&b, s, &s->ops[i]);
    }
    tlm_sbuf_puts(&b, "\n]}\n");
    if (b.oom) {
        tlm_sbuf_free(&b);
        return TLM_ENOMEM;
    }
    *text = b.p;
    if (len)
        *len = b.len;
    return TLM_OK;
}

tlm_status tlm_replay_readme(const tlm_replay_set *s, char **text,
                             size_t *len)
{
    *text = NULL;
    size_t counts[TLM_RR_COUNT];
    tlm_replay_set_tally(s, counts);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b,
        "# Event replay (tlmpi replay)\n\n"
        "`replay_events.json` describes %zu op instances of one trace "
        "(format `" TLM_REPLAY_FORMAT "`: op name, count, shapes, dtypes, "
        "strides and typed scalar arguments; nothing else of the trace). "
        "%zu are `ok`; the others carry a reason code.\n\n"
        "Run them with random inputs (PyTorch needed; nothing else):\n\n"
        "    sha256sum -c SHA256SUMS\n"
        "    python3 -I tlmpi_replay.py replay_events.json --device cuda "
        "--output results.csv\n\n"
        "`-I` (isolated mode) keeps the script's folder, the user site and "
        "`PYTHON*` variables off the import path.  `tlmpi_replay.py` is "
        "tlmpi's fixed runner: it reads the JSON as data, calls only "
        "validated `torch.ops` operators of the allowed namespaces and "
        "writes no file but `--output`.  Other options: `--device cpu`, "
        "`--warmup N`, `--iters N`, `--op-filter S`, `--op-limit N`, "
        "`--tracelens_ir FILE` (TraceLens's event_replay_ir.json).\n\n"
        "The CSV has one row per op: op_name, uid, overload, status, "
        "replay_us_mean, trace_kernel_us_mean, ratio.\n\n"
        "Reasons in this file:\n\n",
        s->n, counts[TLM_RR_OK]);
    for (int r = 0; r < TLM_RR_COUNT; r++)
        if (counts[r])
            tlm_sbuf_printf(&b, "- `%s` (%zu): %s\n",
                            tlm_replay_reason_code((tlm_replay_reason)r),
                            counts[r],
                            tlm_replay_reason_desc((tlm_replay_reason)r));
    if (b.oom) {
        tlm_sbuf_free(&b);
        return TLM_ENOMEM;
    }
    *text = b.p;
    if (len)
        *len = b.len;
    return TLM_OK;
}
