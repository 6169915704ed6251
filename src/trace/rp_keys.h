/*
 * rp_keys.h - the object keys the rocprofv3 reader knows, by id, and
 * their lookup (shared by rocprof.c and the fast record paths of
 * rp_fast.c).  Not part of the public API.
 */
#ifndef TLM_RP_KEYS_H
#define TLM_RP_KEYS_H

#include <stdint.h>
#include <string.h>

#include "bytes_eq.h"

/* The keys the reader knows, by id (0: any other key). */
#define RP_KEYS(X) \
    X(K_HANDLE, "handle") \
    X(K_INTERNAL, "internal") \
    X(K_START_TIMESTAMP, "start_timestamp") \
    X(K_END_TIMESTAMP, "end_timestamp") \
    X(K_THREAD_ID, "thread_id") \
    X(K_CORRELATION_ID, "correlation_id") \
    X(K_OPERATION, "operation") \
    X(K_STREAM_ID, "stream_id") \
    X(K_KERNEL_ID, "kernel_id") \
    X(K_DISPATCH_ID, "dispatch_id") \
    X(K_AGENT_ID, "agent_id") \
    X(K_QUEUE_ID, "queue_id") \
    X(K_GRID_SIZE, "grid_size") \
    X(K_WORKGROUP_SIZE, "workgroup_size") \
    X(K_DISPATCH_INFO, "dispatch_info") \
    X(K_BYTES, "bytes") \
    X(K_SRC_AGENT_ID, "src_agent_id") \
    X(K_DST_AGENT_ID, "dst_agent_id") \
    X(K_KERNEL_DISPATCH, "kernel_dispatch") \
    X(K_MEMORY_COPY, "memory_copy") \
    X(K_HIP_API, "hip_api") \
    X(K_HSA_API, "hsa_api") \
    X(K_HOSTNAME, "hostname") \
    X(K_PID, "pid") \
    X(K_INIT_TIME, "init_time") \
    X(K_FINI_TIME, "fini_time") \
    X(K_NODE, "node") \
    X(K_ID, "id") \
    X(K_TYPE, "type") \
    X(K_NODE_ID, "node_id") \
    X(K_NAME, "name") \
    X(K_PRODUCT_NAME, "product_name") \
    X(K_TRUNCATED_KERNEL_NAME, "truncated_kernel_name") \
    X(K_FORMATTED_KERNEL_NAME, "formatted_kernel_name") \
    X(K_KERNEL_NAME, "kernel_name") \
    X(K_METADATA, "metadata") \
    X(K_AGENTS, "agents") \
    X(K_KERNEL_SYMBOLS, "kernel_symbols") \
    X(K_BUFFER_RECORDS, "buffer_records") \
    X(K_ROCPROFILER_SDK_TOOL, "rocprofiler-sdk-tool") \
    X(K_X, "x") \
    X(K_Y, "y") \
    X(K_Z, "z")

enum {
    K_OTHER = 0,
#define X_(e, s) e,
    RP_KEYS(X_)
#undef X_
    K_COUNT
};

/* The key names by id ("" for K_OTHER). */
extern const char *const rp_key_names[K_COUNT];

/* Lookup table: slot by (length, first, middle, last byte); at most
 * RP_KEY_WAYS - 1 candidates per slot (rp_keys_init returns -1 when the
 * fixed key set would not fit: test_rocprof checks every key). */
#define RP_KEY_SLOTS 256
#define RP_KEY_WAYS 8
#define RP_KEY_CAP 48 /* keys are shorter */

/* The word table of the fast paths: a key of at most 23 bytes as three
 * little-endian words (zero past its end), found by one multiplicative
 * hash of the words and checked whole.  It also holds keys the reader
 * skips but meets in every record ("size", "kind", ...), as K_OTHER, so
 * that they too are recognised without a byte scan.  Each entry also
 * holds the key with its closing quote and the mask of those bytes, for
 * a check against the input without finding the quote first (rp_fast.c
 * predicts the next key from the one before). */
#define RP_FKEY_BITS 10 /* slots: an index into the entries */
#define RP_FKEY_MAX 23
#define RP_FKEY_N 64 /* entries; entry 0 is the empty key "" */

typedef struct rp_fkey {
    uint64_t w[3];      /* the key's bytes */
    uint64_t wq[3];     /* the key and its closing quote */
    uint64_t mq[3];     /* 0xff over the bytes of wq */
    unsigned char len, id, pad_[6];
} rp_fkey;

typedef struct rp_keys {
    unsigned char slot[RP_KEY_SLOTS][RP_KEY_WAYS]; /* ids, 0-terminated */
    unsigned char len[K_COUNT];
    uint64_t mul; /* the hash multiplier found by rp_keys_init */
    unsigned char fslot[1u << RP_FKEY_BITS]; /* entry index, 0: none */
    rp_fkey fast[RP_FKEY_N];
} rp_keys;

int rp_keys_init(rp_keys *k);

static inline unsigned rp_key_slot(const char *s, size_t n)
{
    return ((unsigned)n * 31u + (unsigned char)s[0] * 7u +
            (unsigned char)s[n / 2] * 3u + (unsigned char)s[n - 1]) &
           (RP_KEY_SLOTS - 1);
}

/* The first 8*k bytes of w (little-endian), k in [0, 8]. */
static inline uint64_t rp_word_prefix(uint64_t w, unsigned k)
{
    return k >= 8 ? w : k == 0 ? 0 : w & ((UINT64_C(1) << (8 * k)) - 1);
}

static inline unsigned rp_fkey_hash(const rp_keys *k, const uint64_t w[3])
{
    return (unsigned)(((w[0] ^ (w[1] * 31) ^ (w[2] * 131)) * k->mul) >>
                      (64 - RP_FKEY_BITS));
}

/* The word-table entry a key's words hash to (entry 0 when none). */
static inline const rp_fkey *rp_fkey_find(const rp_keys *k,
                                         const uint64_t w[3])
{
    return &k->fast[k->fslot[rp_fkey_hash(k, w)]];
}

/* The id of the key s[0..n), K_OTHER when unknown. */
static inline int rp_key_id(const rp_keys *k, const char *s, size_t n)
{
    if (n == 0 || n >= RP_KEY_CAP)
        return K_OTHER;
    const unsigned char *c = k->slot[rp_key_slot(s, n)];
    for (int i = 0; i < RP_KEY_WAYS && c[i]; i++)
        if (k->len[c[i]] == n && tlm_bytes_eq(rp_key_names[c[i]], s, n))
            return c[i];
    return K_OTHER;
}

#endif /* TLM_RP_KEYS_H */
