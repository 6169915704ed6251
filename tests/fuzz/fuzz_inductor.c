/*
 * fuzz_inductor.c - libFuzzer target for the Inductor wrapper parser of
 * --inductor_cache_dir (src/perf/perf_inductor.c): the input is one
 * wrapper file's bytes.  Invariants beyond memory safety (abort()): the
 * parse returns OK; every kernel kept is a triton_ name, and its FLOPs and
 * bytes compute to finite numbers (negative ones when size_hints are
 * negative: Python's int() takes a sign, as TraceLens does).
 */
#include "tlmpi/tlm_perf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_inductor: invariant broken: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tlm_inductor_cache *c = tlm_inductor_cache_new();
    if (!c)
        return 0;
    check(tlm_inductor_cache_parse(c, (const char *)data, size) == TLM_OK,
          "parse");
    const tlm_inductor_stats *st = tlm_inductor_cache_stats(c);
    check(st->files == 1 && st->wrappers <= 1 && st->skipped <= 1, "stats");
    /* the names it may hold are in the input: try each line's first word */
    const char *p = (const char *)data, *e = p + size;
    while (p < e) {
        const char *q = memchr(p, '\n', (size_t)(e - p));
        const char *le = q ? q : e;
        size_t n = 0;
        while (p + n < le && n < 200 && p[n] != ' ' && p[n] != '=')
            n++;
        char name[201];
        memcpy(name, p, n);
        name[n] = '\0';
        if (tlm_inductor_cache_has(c, name)) {
            check(!strncmp(name, "triton_", 7), "name");
            tlm_perf_args a;
            memset(&a, 0, sizeof a);
            a.name = name;
            a.inductor = c;
            tlm_perf_result r;
            tlm_status s = tlm_perf_compute(&a, 0, &r, NULL);
            if (s == TLM_OK)
                check(isfinite(r.flops) && isfinite(r.bytes), "numbers");
        }
        p = q ? q + 1 : e;
    }
    tlm_inductor_cache_free(c);
    return 0;
}
