/*
 * find_md.c - the findings as Markdown (spec findings.md §6): executive
 * summary, one card per finding, detailed analysis, appendix (hardware
 * basis, every threshold with its value and default, skipped rules,
 * sub-threshold findings).  Texts are templates; names from traces are
 * escaped (tlm_sbuf_md).
 */
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

static const struct {
    const char *rule, *slug;
} slugs[] = {{"S1", "gpu-util"},        {"S2", "idle"},
             {"S3", "exposed-comm"},    {"S4", "exposed-memcpy"},
             {"S5", "top-ops"},         {"S6", "low-efficiency"},
             {"S7", "anomaly"},         {"S8", "no-model"},
             {"S9", "replay"},          {"S10", "launch-bound"},
             {"S11", "tiny-gemm"},      {"S12", "unfused-attention"},
             {"S13", "short-seq-attention"}, {"S14", "norm-vs-baseline"},
             {"S15", "conv-layout"},    {"S16", "sync"},
             {"S17", "variance"},       {"S18", "projection"},
             {"S19", "kernel-library"}, {"C1", "timeline-delta"},
             {"C2", "unexpected-slowdown"}, {"C3", "hardware-explained"},
             {"C4", "latency-bound-gap"}, {"C5", "missing-extra"},
             {"C6", "count-mismatch"}};

static const char *slug(const char *rule)
{
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++)
        if (!strcmp(slugs[i].rule, rule))
            return slugs[i].slug;
    return "";
}

static const char *mark(tlm_find_sev s)
{
    switch (s) {
    case TLM_FIND_HIGH:
        return "\xf0\x9f\x94\xb4"; /* red circle */
    case TLM_FIND_MEDIUM:
        return "\xf0\x9f\x9f\xa1"; /* yellow circle */
    case TLM_FIND_LOW:
        return "\xf0\x9f\x9f\xa2"; /* green circle */
    case TLM_FIND_INFO:
        break;
    }
    return "\xe2\x84\xb9\xef\xb8\x8f"; /* information */
}

#define TXT(b, s) tlm_sbuf_md((b), (s), 4000, TLM_MD_TEXT)

static void card(tlm_sbuf *b, const tlm_finding *x)
{
    tlm_sbuf_printf(b, "#### %s %s %s \xe2\x80\x94 %s `%s`: ", x->id,
                    mark(x->sev), tlm_find_sev_name(x->sev), x->rule,
                    slug(x->rule));
    tlm_sbuf_md(b, x->subject, 160, TLM_MD_TEXT);
    tlm_sbuf_puts(b, "\n\n**Issue**: ");
    TXT(b, x->text);
    tlm_sbuf_putc(b, '\n');
    if (*x->action_a || *x->action_b) {
        tlm_sbuf_puts(b, "\n**Action**:");
        if (*x->action_a) {
            tlm_sbuf_puts(b, " A: ");
            TXT(b, x->action_a);
        }
        if (*x->action_b) {
            tlm_sbuf_puts(b, " B: ");
            TXT(b, x->action_b);
        }
        tlm_sbuf_putc(b, '\n');
    }
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.2f", x->imp_low);
    snprintf(hi, sizeof hi, "%.2f", x->imp_high);
    if (x->has_impact && strcmp(lo, hi) == 0) /* a range of one value */
        tlm_sbuf_printf(b, "\n**Impact**: %s %% of E2E%s\n", lo,
                        x->detail ? "; see the detailed analysis" : "");
    else if (x->has_impact)
        tlm_sbuf_printf(b, "\n**Impact**: %.2f\xe2\x80\x93%.2f %% of E2E "
                           "(mid %.2f)%s\n",
                        x->imp_low, x->imp_high, x->imp_mid,
                        x->detail ? "; see the detailed analysis" : "");
    if (x->replay)
        tlm_sbuf_puts(b, "\n**Replay**: replay artefact recommended for the "
                         "kernel team.\n");
    tlm_sbuf_putc(b, '\n');
}

static void appendix_hw(tlm_sbuf *b, const char *side, const tlm_find_hw *hw)
{
    tlm_sbuf_printf(b, "- Hardware%s: ", side);
    if (hw->known) {
        TXT(b, hw->basis);
        tlm_sbuf_puts(b, ". AMD max-achievable and NVIDIA datasheet peaks "
                         "are different bases: compare efficiencies across "
                         "vendors with care (arch JSONs from one "
                         "microbenchmark are best).\n");
    } else {
        tlm_sbuf_puts(b, "no hardware peaks given (--platform or "
                         "--gpu_arch_json_path): efficiency rules "
                         "skipped.\n");
    }
}

static void appendix(const tlm_findings *f, tlm_sbuf *b)
{
    tlm_sbuf_puts(b, "### Appendix\n\n");
    appendix_hw(b, f->has_ref ? " (target)" : "", &f->hw);
    if (f->has_ref)
        appendix_hw(b, " (reference)", &f->hw_ref);
    if (f->skipped.len) {
        tlm_sbuf_puts(b, "\nRules skipped or limited:\n\n");
        tlm_sbuf_putn(b, f->skipped.p, f->skipped.len);
    }
    tlm_sbuf_puts(b, "\nThresholds (option `--findings_<name> VALUE`):\n\n"
                     "| option | value | default | meaning |\n"
                     "|---|---:|---:|---|\n");
    for (size_t i = 0; i < TLM_FIND_NT; i++)
        tlm_sbuf_printf(b, "| `--findings_%s` | %g | %g | %s |\n",
                        tlm_find_threshold_name(i), f->o.t[i],
                        tlm_find_threshold_default(i),
                        tlm_find_threshold_desc(i));
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++) {
        const tlm_finding *x = &f->v[i];
        if (!x->appendix)
            continue;
        if (!n++)
            tlm_sbuf_puts(b, "\nBelow the impact threshold or not a target "
                             "action:\n\n| rule | severity | subject | "
                             "impact mid | text |\n|---|---|---|---:|---|\n");
        tlm_sbuf_printf(b, "| %s | %s | ", x->rule,
                        tlm_find_sev_name(x->sev));
        tlm_sbuf_md(b, x->subject, 120, TLM_MD_TEXT);
        if (x->has_impact)
            tlm_sbuf_printf(b, " | %.2f | ", x->imp_mid);
        else
            tlm_sbuf_puts(b, " | - | ");
        tlm_sbuf_md(b, x->text, 400, TLM_MD_TEXT);
        tlm_sbuf_puts(b, " |\n");
    }
    tlm_sbuf_putc(b, '\n');
}

void tlm_findings_md(const tlm_findings *f, tlm_sbuf *b, int comparative)
{
    if (!f)
        return;
    tlm_sbuf_puts(b, "### Summary\n\n");
    if (comparative && f->has_ref) {
        tlm_sbuf_puts(b, "Reference: ");
        tlm_sbuf_md(b, f->label_ref, 200, TLM_MD_TEXT);
        tlm_sbuf_puts(b, "; target: ");
        tlm_sbuf_md(b, f->label, 200, TLM_MD_TEXT);
        tlm_sbuf_puts(b, ". The findings are about improving the target; "
                         "\xce\x94 = target \xe2\x88\x92 reference.\n\n");
    }
    tlm_sbuf_putn(b, f->summary.p ? f->summary.p : "", f->summary.len);
    size_t shown = 0;
    for (size_t i = 0; i < f->n; i++)
        shown += !f->v[i].appendix;
    tlm_sbuf_printf(b, "%zu findings (%zu more in the appendix); details in "
                       "the findings table (%s).\n\n### Findings\n\n",
                    shown, f->n - shown,
                    comparative ? "findings_<target>.csv" : "findings.csv");
    if (!shown)
        tlm_sbuf_puts(b, "No finding above the thresholds.\n\n");
    for (size_t i = 0; i < f->n; i++)
        if (!f->v[i].appendix) {
            if (f->has_ref && i == f->n_comparative && i > 0)
                tlm_sbuf_puts(b, "Target on its own (C7):\n\n");
            card(b, &f->v[i]);
        }
    tlm_sbuf_puts(b, "### Detailed analysis\n\n");
    for (size_t i = 0; i < f->n; i++) {
        const tlm_finding *x = &f->v[i];
        if (x->appendix || !x->detail)
            continue;
        tlm_sbuf_printf(b, "- %s (%s): ", x->id, x->rule);
        /* the detail's table rows are our own numbers; its first line
         * names the op */
        const char *nl = strstr(x->detail, "\n\n");
        size_t head = nl ? (size_t)(nl - x->detail) : strlen(x->detail);
        char *h = malloc(head + 1);
        if (!h) {
            b->oom = 1;
            return;
        }
        memcpy(h, x->detail, head);
        h[head] = 0;
        tlm_sbuf_md(b, h, head, TLM_MD_TEXT);
        free(h);
        if (nl)
            tlm_sbuf_puts(b, nl);
        tlm_sbuf_putc(b, '\n');
    }
    tlm_sbuf_putn(b, f->analysis.p ? f->analysis.p : "", f->analysis.len);
    tlm_sbuf_putc(b, '\n');
    appendix(f, b);
}
