/*
 * find_list.c - the findings list, the one engine of every rule set
 * (single-trace S and C rules, the analysis' M rules, the run
 * comparison's R rules): adding a finding, its impact and severity (spec
 * findings.md §3.2-3.3), the order and the P-numbers, the findings.csv
 * table of the single-trace report (§6), the /findings rows of the
 * analysis and of comparison.h5, freeing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"
#include "grow.h"

tlm_findings *fnd_list_new(const tlm_find_opts *o)
{
    tlm_findings *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->o = *o;
    f->appendix = 1;
    tlm_sbuf_init(&f->skipped);
    tlm_sbuf_init(&f->summary);
    tlm_sbuf_init(&f->analysis);
    return f;
}

tlm_findings *fnd_list_new_rows(int rank_abs)
{
    tlm_find_opts o;
    tlm_find_opts_init(&o);
    tlm_findings *f = fnd_list_new(&o);
    if (f) {
        f->appendix = 0;
        f->rank_abs = rank_abs;
    }
    return f;
}

const char *tlm_find_sev_name(tlm_find_sev s)
{
    switch (s) {
    case TLM_FIND_HIGH:
        return "high";
    case TLM_FIND_MEDIUM:
        return "medium";
    case TLM_FIND_LOW:
        return "low";
    case TLM_FIND_INFO:
        break;
    }
    return "info";
}

static char *dup0(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

void fnd_set(tlm_findings *f, char **dst, const char *text)
{
    char *p = dup0(text ? text : "");
    if (!p) {
        f->oom = 1;
        return;
    }
    free(*dst);
    *dst = p;
}

void fnd_setf(tlm_findings *f, char **dst, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fnd_set(f, dst, buf);
}

void fnd_setb(tlm_findings *f, char **dst, const tlm_sbuf *b)
{
    if (b->oom) {
        f->oom = 1;
        return;
    }
    fnd_set(f, dst, b->p ? b->p : "");
}

static int is_system(const char *rule)
{
    static const char *const sys[] = {"S1", "S2", "S3", "S4", "S10", "C1"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (!strcmp(rule, sys[i]))
            return 1;
    return 0;
}

tlm_finding *fnd_add(tlm_findings *f, const char *rule, tlm_find_sev sev)
{
    if (f->oom)
        return NULL;
    if (tlm_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v, 16)) {
        f->oom = 1;
        return NULL;
    }
    tlm_finding *x = &f->v[f->n];
    memset(x, 0, sizeof *x);
    snprintf(x->rule, sizeof x->rule, "%s", rule);
    x->mode = rule[0] == 'C' ? "comparative" : "standalone";
    x->sev = sev;
    x->system = is_system(rule);
    x->pct_e2e = x->eff = x->ratio = x->expected = x->excess = NAN;
    x->imp_low = x->imp_mid = x->imp_high = NAN;
    char **s[] = {&x->subject, &x->text, &x->action_a, &x->action_b,
                  &x->evidence};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        *s[i] = dup0("");
        if (!*s[i]) {
            for (size_t j = 0; j < i; j++)
                free(*s[j]);
            f->oom = 1;
            return NULL;
        }
    }
    f->n++;
    return x;
}

tlm_find_sev fnd_sev(const tlm_find_opts *o, double mid)
{
    return mid >= o->t[TLM_FIND_T_sev_high]     ? TLM_FIND_HIGH
           : mid >= o->t[TLM_FIND_T_sev_medium] ? TLM_FIND_MEDIUM
                                                : TLM_FIND_LOW;
}

void fnd_impact(tlm_finding *x, const tlm_find_opts *o, double low,
                double mid, double high, int set_sev)
{
    x->has_impact = 1;
    x->imp_low = low;
    x->imp_mid = mid;
    x->imp_high = high;
    if (set_sev)
        x->sev = fnd_sev(o, mid);
}

tlm_finding *fnd_add_pct(tlm_findings *f, const char *rule,
                         const char *mode, tlm_find_sev sev, double pct)
{
    tlm_finding *x = fnd_add(f, rule, sev);
    if (!x)
        return NULL;
    x->mode = mode;
    x->pct_e2e = pct;
    fnd_impact(x, &f->o, pct, pct, pct, 0);
    return x;
}

void fnd_skip(tlm_findings *f, const char *rule, const char *why)
{
    tlm_sbuf_printf(&f->skipped, "- %s: %s\n", rule, why);
}

static int rule_num(const char *r)
{
    return (r[0] == 'C' ? 100 : 0) + atoi(r + 1);
}

static int cmp_find(const void *pa, const void *pb)
{
    const tlm_finding *a = pa, *b = pb;
    if (a->appendix != b->appendix)
        return a->appendix - b->appendix;
    if (a->lead != b->lead)
        return b->lead - a->lead;
    if (a->sev != b->sev)
        return (int)a->sev - (int)b->sev;
    if (a->system != b->system)
        return b->system - a->system;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    int ra = rule_num(a->rule), rb = rule_num(b->rule);
    if (ra != rb)
        return ra - rb;
    return strcmp(a->subject, b->subject);
}

/* The ranking key: impact mid (-1 without one); with rank_abs its
 * absolute value, NaN ranked last (below every number). */
static double rank_key(const tlm_findings *f, const tlm_finding *x)
{
    if (!x->has_impact)
        return -1;
    if (!f->rank_abs)
        return x->imp_mid;
    return isnan(x->imp_mid) ? -INFINITY : fabs(x->imp_mid);
}

void fnd_finish(tlm_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        tlm_finding *x = &f->v[i];
        if (f->appendix && x->has_impact &&
            !(x->imp_mid >= f->o.t[TLM_FIND_T_min_impact]))
            x->appendix = 1;
        x->key = rank_key(f, x);
    }
    if (f->n > 1)
        qsort(f->v, f->n, sizeof *f->v, cmp_find);
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        if (!f->v[i].appendix)
            snprintf(f->v[i].id, sizeof f->v[i].id, "P%zu", ++k);
}

size_t tlm_findings_count(const tlm_findings *f) { return f ? f->n : 0; }

const tlm_finding *tlm_findings_at(const tlm_findings *f, size_t i)
{
    return f && i < f->n ? &f->v[i] : NULL;
}

const char *const tlm_findings_columns[] = {
    "id",         "rule",       "mode",          "severity", "subject",
    "pct_e2e",    "eff",        "bound",         "impact_low",
    "impact_mid", "impact_high", "text",         "action_a", "action_b",
    "replay",     "evidence",   "ratio",         "expected",
    "expected_kind", "excess"};
const size_t tlm_findings_ncolumns =
    sizeof tlm_findings_columns / sizeof tlm_findings_columns[0];

static void set_txt(tlm_tab *t, size_t r, size_t c, const char *s)
{
    if (s && *s)
        tlm_tab_set_s(t, r, c, s, strlen(s));
}

static void set_num(tlm_tab *t, size_t r, size_t c, double v)
{
    if (!isnan(v))
        tlm_tab_set_f(t, r, c, v);
}

tlm_tab *tlm_findings_table(const tlm_findings *f)
{
    tlm_coltype ty[20];
    for (size_t i = 0; i < 20; i++)
        ty[i] = TLM_COL_STR;
    ty[5] = ty[6] = ty[8] = ty[9] = ty[10] = ty[16] = ty[17] = ty[19] =
        TLM_COL_F64;
    ty[14] = TLM_COL_I64;
    tlm_tab *t = tlm_tab_new("findings", tlm_findings_ncolumns,
                             tlm_findings_columns, ty);
    if (!t)
        return NULL;
    t->csv_guard = 1; /* tlmpi's own sheet: formulas always guarded */
    for (size_t i = 0; f && i < f->n; i++) {
        const tlm_finding *x = &f->v[i];
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        size_t R = (size_t)r;
        set_txt(t, R, 0, x->id);
        set_txt(t, R, 1, x->rule);
        set_txt(t, R, 2, x->mode);
        set_txt(t, R, 3, tlm_find_sev_name(x->sev));
        set_txt(t, R, 4, x->subject);
        set_num(t, R, 5, x->pct_e2e);
        set_num(t, R, 6, x->eff);
        set_txt(t, R, 7, x->bound);
        set_num(t, R, 8, x->imp_low);
        set_num(t, R, 9, x->imp_mid);
        set_num(t, R, 10, x->imp_high);
        set_txt(t, R, 11, x->text);
        set_txt(t, R, 12, x->action_a);
        set_txt(t, R, 13, x->action_b);
        tlm_tab_set_i(t, R, 14, x->replay);
        set_txt(t, R, 15, x->evidence);
        set_num(t, R, 16, x->ratio);
        set_num(t, R, 17, x->expected);
        set_txt(t, R, 18, x->expected_kind);
        set_num(t, R, 19, x->excess);
    }
    if (t->oom) {
        tlm_tab_free(t);
        return NULL;
    }
    return t;
}

tlm_status fnd_rows(const tlm_findings *f, tlm_row_finding **rows,
                    size_t *n)
{
    *rows = NULL;
    *n = 0;
    if (f->oom)
        return TLM_ENOMEM;
    if (!f->n)
        return TLM_OK;
    tlm_row_finding *v = calloc(f->n, sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    for (size_t i = 0; i < f->n; i++) {
        const tlm_finding *x = &f->v[i];
        tlm_row_finding *r = &v[i];
        tlm_strset(r->id, sizeof r->id, x->id);
        tlm_strset(r->rule, sizeof r->rule, x->rule);
        tlm_strset(r->mode, sizeof r->mode, x->mode);
        tlm_strset(r->severity, sizeof r->severity, tlm_find_sev_name(x->sev));
        tlm_strset(r->subject, sizeof r->subject, x->subject);
        r->pct_e2e = x->pct_e2e;
        r->eff = x->eff;
        tlm_strset(r->bound, sizeof r->bound, x->bound);
        r->impact_low = x->imp_low;
        r->impact_mid = x->imp_mid;
        r->impact_high = x->imp_high;
        tlm_strset(r->text, sizeof r->text, x->text);
        tlm_strset(r->action_a, sizeof r->action_a, x->action_a);
        tlm_strset(r->action_b, sizeof r->action_b, x->action_b);
        r->replay = x->replay;
        tlm_strset(r->evidence, sizeof r->evidence, x->evidence);
    }
    *rows = v;
    *n = f->n;
    return TLM_OK;
}

void tlm_findings_free(tlm_findings *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        tlm_finding *x = &f->v[i];
        free(x->subject);
        free(x->text);
        free(x->action_a);
        free(x->action_b);
        free(x->evidence);
        free(x->detail);
    }
    free(f->v);
    tlm_sbuf_free(&f->skipped);
    tlm_sbuf_free(&f->summary);
    tlm_sbuf_free(&f->analysis);
    free(f);
}
