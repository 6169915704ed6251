/*
 * fuzz_replay_args.c - libFuzzer target for the replay checks
 * (src/replay): the op-name policy, the four argument arrays and the
 * strict Concrete Inputs grammar.
 *
 * Input: up to five texts separated by '\n' (name, Input Dims, Input
 * type, Input Strides, Concrete Inputs; a missing one is absent).
 * Properties: the check never fails on input (only TLM_ENOMEM), gives a
 * reason code in range; an ok op has a name in the grammar, args that
 * parse back as one JSON object of the four keys and storage bytes
 * within the caps; a rejected op carries no args.  Each text alone also
 * goes through the Concrete Inputs grammar, whose accepted values parse
 * back as JSON.  A violation calls abort().
 */
#include "tlmpi/tlm_replay.h"

#include "perf_internal.h"
#include "replay_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_replay_args: %s\n", what);
        abort();
    }
}

static int parses(const char *s, size_t n, int want_type)
{
    tlm_pj_doc doc;
    size_t off;
    const char *what;
    int ok = tlm_pj_parse(s, n, 16, &doc, &off, &what) == TLM_OK;
    if (ok && want_type >= 0)
        ok = tlm_pj_node_at(&doc, doc.root)->type == (tlm_pj_type)want_type;
    tlm_pj_free(&doc);
    return ok;
}

static void grammar(const char *s, size_t n)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_rp_value v;
    tlm_replay_reason r = tlm_rp_concrete(s, n, &b, &v);
    check(r == TLM_RR_OK || r == TLM_RR_BAD_CONCRETE ||
              r == TLM_RR_NONFINITE, "grammar reason");
    if (r == TLM_RR_OK && !b.oom)
        check(parses(b.p, b.len, -1), "grammar output is JSON");
    tlm_sbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *part[5] = {0};
    size_t len[5] = {0};
    char *p = buf;
    for (int k = 0; k < 5 && p; k++) {
        char *e = memchr(p, '\n', (size_t)(buf + size - p));
        part[k] = p;
        len[k] = e ? (size_t)(e - p) : strlen(p);
        if (e)
            *e = '\0';
        p = e ? e + 1 : NULL;
    }
    for (int k = 0; k < 5; k++)
        if (part[k])
            grammar(part[k], len[k]);
    tlm_replay_opts o;
    tlm_replay_opts_init(&o);
    o.max_tensor_bytes = 1u << 20;
    o.max_op_bytes = 1u << 21;
    tlm_replay_op op;
    tlm_error err;
    tlm_status st = tlm_replay_check(part[0] ? part[0] : "", len[0], part[1],
                                     part[2], part[3], part[4], &o, &op,
                                     &err);
    check(st == TLM_OK || st == TLM_ENOMEM, "status");
    if (st == TLM_OK) {
        check((unsigned)op.status < TLM_RR_COUNT, "reason in range");
        check(op.name != NULL, "name kept");
        for (const char *c = op.name; *c; c++)
            check(*c >= 0x20 && *c < 0x7f, "printable name");
        if (op.status == TLM_RR_OK) {
            check(tlm_rp_check_name(op.name, strlen(op.name), NULL) ==
                      TLM_RR_OK, "ok name in the grammar");
            check(op.args_json && parses(op.args_json,
                                         strlen(op.args_json), TLM_PJ_OBJ),
                  "ok args are a JSON object");
            check(op.bytes <= o.max_op_bytes, "op cap");
        } else if (op.status != TLM_RR_BAD_OP_NAME &&
                   op.status != TLM_RR_NAMESPACE &&
                   op.status != TLM_RR_DENIED_OP) {
            check(op.args_json == NULL, "rejected args dropped");
        }
        tlm_replay_op_clear(&op);
    }
    free(buf);
    return 0;
}
