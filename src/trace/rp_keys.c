/*
 * rp_keys.c - the key names and lookup table of rp_keys.h.
 */
#include "rp_keys.h"

const char *const rp_key_names[K_COUNT] = {
    "",
#define X_(e, s) s,
    RP_KEYS(X_)
#undef X_
};

/* Keys the reader skips but meets in every buffer record. */
static const char *const skipped[] = {
    "size", "kind", "external", "value", "private_segment_size",
    "group_segment_size", "args", "retval"};

/* The words of a key of n <= RP_FKEY_MAX bytes (zero past its end). */
static void words_of(const char *s, size_t n, uint64_t w[3])
{
    unsigned char b[24];
    memset(b, 0, sizeof b);
    memcpy(b, s, n);
    for (int i = 0; i < 3; i++) {
        w[i] = 0;
        for (int j = 7; j >= 0; j--)
            w[i] = w[i] << 8 | b[8 * i + j];
    }
}

/* Entry e for the key s of n bytes (n <= RP_FKEY_MAX). */
static void entry_of(rp_fkey *e, const char *s, size_t n, int id)
{
    char q[RP_FKEY_MAX + 1];
    memset(e, 0, sizeof *e);
    memcpy(q, s, n);
    q[n] = '"';
    words_of(s, n, e->w);
    words_of(q, n + 1, e->wq);
    for (size_t i = 0; i <= n; i++)
        e->mq[i / 8] |= (uint64_t)0xff << (8 * (i % 8));
    e->len = (unsigned char)n;
    e->id = (unsigned char)id;
}

/* Fills the word table with multiplier mul; 0 when no two keys share a
 * slot. */
static int fill_fast(rp_keys *k, uint64_t mul)
{
    memset(k->fslot, 0, sizeof k->fslot);
    memset(k->fast, 0, sizeof k->fast);
    entry_of(&k->fast[0], "", 0, K_OTHER);
    k->mul = mul;
    size_t n_skip = sizeof skipped / sizeof skipped[0], used = 1;
    for (size_t i = 1; i < K_COUNT + n_skip; i++) {
        const char *s = i < K_COUNT ? rp_key_names[i] : skipped[i - K_COUNT];
        size_t n = strlen(s);
        if (n > RP_FKEY_MAX)
            continue;
        if (used == RP_FKEY_N)
            return -1;
        rp_fkey *e = &k->fast[used];
        entry_of(e, s, n, i < K_COUNT ? (int)i : K_OTHER);
        unsigned char *slot = &k->fslot[rp_fkey_hash(k, e->w)];
        if (*slot)
            return -1;
        *slot = (unsigned char)used++;
    }
    return 0;
}

int rp_keys_init(rp_keys *k)
{
    /* odd multipliers from a fixed sequence, the first without a
     * collision (a few tries for ~50 keys in 1024 slots) */
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
    memset(k, 0, sizeof *k);
    int ok = 0;
    for (int i = 0; i < 4096 && !ok; i++) {
        x += UINT64_C(0x9e3779b97f4a7c15);
        uint64_t z = x;
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        ok = fill_fast(k, (z ^ (z >> 31)) | 1) == 0;
    }
    if (!ok) { /* every key by the scan */
        memset(k->fslot, 0, sizeof k->fslot);
        memset(k->fast, 0, sizeof k->fast);
        entry_of(&k->fast[0], "", 0, K_OTHER);
    }
    for (int id = 1; id < K_COUNT; id++) {
        size_t n = strlen(rp_key_names[id]);
        unsigned char *c = k->slot[rp_key_slot(rp_key_names[id], n)];
        int i = 0;
        while (i < RP_KEY_WAYS - 1 && c[i])
            i++;
        if (c[i] != 0)
            return -1;
        c[i] = (unsigned char)id;
        k->len[id] = (unsigned char)n;
    }
    return 0;
}
