/*
 * numparse.c - exact decimal microseconds to integer nanoseconds.
 *
 * Kineto writes times as decimal microseconds ("1428625746277.044").  A
 * double cannot hold them to the nanosecond (2^53 ns is only 104 days), so
 * the digits are turned into an integer count of nanoseconds directly:
 * value = digits * 10^(exp10 + 3), with the digits that fall below the
 * nanosecond rounded half to even.  No floating point is involved.
 */
#include "tlmpi/tlm_trace.h"

#include <string.h>

tlm_status tlm_parse_us_to_ns(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    /* JSON grammar: int part 0 | [1-9][0-9]*, then .[0-9]+, then e[+-]?[0-9]+ */
    size_t int_beg = i;
    if (i >= len || s[i] < '0' || s[i] > '9')
        return TLM_EFORMAT;
    if (s[i] == '0') {
        i++;
    } else {
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    size_t int_end = i;
    size_t frac_beg = i, frac_end = i;
    if (i < len && s[i] == '.') {
        i++;
        frac_beg = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        frac_end = i;
        if (frac_end == frac_beg)
            return TLM_EFORMAT;
    }
    long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i >= len || s[i] < '0' || s[i] > '9')
            return TLM_EFORMAT;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
            i++;
        }
        if (eneg)
            exp = -exp;
    }
    if (i != len)
        return TLM_EFORMAT;

    /* Digit sequence D = int digits then frac digits, leading zeros
     * dropped; value in ns is 0.D * 10^keep.  The first `keep` digits form
     * the integer part (zero-padded), the rest decide the rounding. */
    size_t nint = int_end - int_beg, nfrac = frac_end - frac_beg;
    size_t ndig = nint + nfrac;
#define DIGIT(q) \
    ((q) < nint ? s[int_beg + (q)] : s[frac_beg + ((q) - nint)])
    size_t lead = 0;
    while (lead < ndig && DIGIT(lead) == '0')
        lead++;
    if (lead == ndig) {
        *out = 0;
        return TLM_OK;
    }
    long keep = (long)nint - (long)lead + exp + 3;
    if (keep > 19)
        return TLM_ERANGE; /* >= 10^19 ns > INT64_MAX */
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (long k = 0; k < keep; k++) {
        size_t q = lead + (size_t)k;
        unsigned d = q < ndig ? (unsigned)(DIGIT(q) - '0') : 0;
        if (v > (limit - d) / 10)
            return TLM_ERANGE;
        v = v * 10 + d;
    }
    /* Round half to even on the digits below the nanosecond.  With
     * keep < 0 they start with -keep implicit zeros: below one half. */
    if (keep >= 0 && lead + (size_t)keep < ndig) {
        size_t q = lead + (size_t)keep;
        int first = DIGIT(q) - '0';
        int rest_nonzero = 0;
        for (size_t r = q + 1; r < ndig && !rest_nonzero; r++)
            rest_nonzero = DIGIT(r) != '0';
        if (first > 5 || (first == 5 && (rest_nonzero || (v & 1)))) {
            if (v + 1 > limit)
                return TLM_ERANGE;
            v++;
        }
    }
#undef DIGIT
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return TLM_OK;
}
