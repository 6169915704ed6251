/*
 * trace_internal.h - the inside of a tlm_trace: string interning, the
 * argument blob and the input stream (plain or gzip) shared by the reader
 * modules.  Not part of the public API.
 */
#ifndef TLM_TRACE_INTERNAL_H
#define TLM_TRACE_INTERNAL_H

#include "tlmpi/tlm_trace.h"

#include <stdio.h>
#include <zlib.h>

/* ------------------------------------------------------------------ MARK:
 * Interned strings.  Ids are dense, assigned in first-seen order; id 0 is
 * the empty string.  Bytes live in fixed blocks, so pointers are stable. */
typedef struct tlm_strent {
    const char *s;
    uint32_t len;
    uint32_t pad_;
    uint64_t hash;
} tlm_strent;

typedef struct tlm_strblock tlm_strblock;

typedef struct tlm_intern {
    const tlm_alloc *a;
    tlm_strent *ents;  /* by id */
    uint32_t n, cap;
    uint32_t *slots;   /* open addressing: id+1, 0 = empty */
    uint32_t nslots;   /* power of two */
    tlm_strblock *blocks;
    char *cur;         /* free space in the current block */
    size_t cur_left;
    size_t bytes;      /* total string bytes held */
    void (*on_move)(void *ud, int phase); /* around moves of ents */
    void *move_ud;
} tlm_intern;

tlm_status tlm_intern_init(tlm_intern *in, const tlm_alloc *a);
void tlm_intern_free(tlm_intern *in);
/* Empties the table for reuse (the empty string left, one block of bytes
 * and the slots kept): the ids start again from 1. */
void tlm_intern_clear(tlm_intern *in);

/* The process's tables of (pid, tid) pairs and wide durations (event.c)
 * live while a trace does: trace_new takes a reference, tlm_trace_free
 * gives it back, and the last one frees them (so that a run ends with
 * every block freed). */
void tlm_event_tables_ref(void);
/* Sets ev's pid and tid at once: one look-up of the pair (the reader,
 * at the end of an event).  TLM_ENOMEM when the pair cannot be kept. */
tlm_status tlm_ev_set_track(tlm_event *ev, int64_t pid, int64_t tid);
void tlm_event_tables_unref(void);
/* Returns the id, or UINT32_MAX when out of memory. */
uint32_t tlm_intern_add(tlm_intern *in, const char *s, size_t len);
uint32_t tlm_intern_add_h(tlm_intern *in, const char *s, size_t len,
                          uint64_t h);
/* 0 when absent (or when s is empty). */
uint32_t tlm_intern_find(const tlm_intern *in, const char *s, size_t len);

/* ------------------------------------------------------------------ MARK:
 * Input stream: bytes of JSON from a file or memory, inflated on the fly
 * when the input starts with the gzip magic. */
typedef struct tlm_instream {
    FILE *fp;
    const unsigned char *mem;
    size_t mem_size, mem_pos;
    size_t chunk;          /* read / inflate step */
    int gzip;
    int zinit;
    int member_done;       /* last inflate returned Z_STREAM_END */
    int src_eof;           /* no more compressed/raw input */
    z_stream zs;
    unsigned char *zin;    /* compressed input chunk */
    uint64_t bytes_in;     /* bytes consumed from the source */
    uint64_t bytes_out;    /* JSON bytes produced */
    uint32_t members;
    const tlm_alloc *a;
    const char *name;
    struct tlm_zthread *zt; /* inflating thread, when started */
    unsigned char *whole;  /* gzip input inflated whole (libdeflate) */
    size_t whole_size, whole_pos;
    size_t whole_freed;    /* bytes of it handed back to the kernel */
    void *isal;            /* ISA-L inflate state while ISA-L inflates */
    unsigned char hdr[4];  /* the member's first bytes, for ISA-L */
    unsigned hdr_got;      /* how many of them (4: checked) */
    unsigned char *iob;    /* ISA-L's output, [iob_beg, iob_end) not out */
    size_t iob_beg, iob_end, iob_safe; /* [0, iob_safe): checked members */
    uint64_t skip_out;     /* after a zlib re-read: bytes already out */
} tlm_instream;

tlm_status tlm_instream_open_file(tlm_instream *s, const char *path,
                                  size_t chunk, const tlm_alloc *a,
                                  tlm_error *err);
tlm_status tlm_instream_open_mem(tlm_instream *s, const void *data,
                                 size_t size, const char *name, size_t chunk,
                                 const tlm_alloc *a, tlm_error *err);
/* Reads up to cap bytes of JSON into dst; *got = 0 only at the end. */
tlm_status tlm_instream_read(tlm_instream *s, unsigned char *dst, size_t cap,
                             size_t *got, tlm_error *err);
void tlm_instream_close(tlm_instream *s);
/* For gzip input or a plain file: inflate (read) in a helper thread from
 * now on, so that the tokenizer runs while the next chunks inflate.  A
 * no-op for a plain buffer or gzip inflated whole.
 * On failure to start the thread, reading goes on in the caller's thread. */
void tlm_instream_start_thread(tlm_instream *s);
/* The most bytes one tlm_instream_view lends (the thread's block size);
 * 0 when it cannot lend (no thread). */
size_t tlm_instream_view_size(const tlm_instream *s);
/* In place of tlm_instream_read, without its copy: the next bytes of
 * JSON in the thread's block (*p, *n; *n = 0 only at the end), valid until
 * the next call of view, read or close.  The same statuses as read
 * (TLM_EINVAL when tlm_instream_view_size is 0). */
tlm_status tlm_instream_view(tlm_instream *s, unsigned char **p, size_t *n,
                             tlm_error *err);
/* A plain file read beside a second parser (reader.c): from now on the
 * thread reads only every period-th block (block j, bytes [j * B,
 * (j + 1) * B) with B the view size, when j % period == 0) and seeks past
 * the others that lie whole within the first size bytes.  Such a block
 * is read (pread) in the caller's thread only when a view reaches it,
 * its first TLM_INSTREAM_LAZY_HEAD bytes first; a file now shorter than
 * size there is an error (TLM_EIO) at that offset.  A no-op without a
 * thread, for gzip input or when period < 2. */
#define TLM_INSTREAM_LAZY_HEAD ((size_t)16 << 10)
void tlm_instream_lazy_plan(tlm_instream *s, unsigned period, uint64_t size);
/* With views: passes the rest of the head block without reading it when
 * it is at most max bytes and not the last block (1, *passed: its
 * bytes); else 0 and nothing done. */
int tlm_instream_view_pass(tlm_instream *s, uint64_t max, size_t *passed);
/* Reads [off, off + n) of fd into buf (again after EINTR): 0 when all of
 * it came; else -1, errno that of the failed read or 0 at the file's end.
 * *got (when not NULL): the bytes that came. */
int tlm_pread_full(int fd, void *buf, size_t n, uint64_t off, size_t *got);

/* ------------------------------------------------------------------ MARK:
 * Process-group rank lists (pg_ranks.c): "[0, 1, 2]" -> ints, parsed once
 * per distinct text per process when shared (else parsed, not kept);
 * *out (NULL when empty) is the caller's, from a.  TLM_ENOMEM only when
 * the copy cannot be allocated. */
tlm_status tlm_pg_ranks_parse(const char *s, size_t n, int shared,
                              const tlm_alloc *a, int32_t **out,
                              size_t *n_out);
/* Lists served from the cache, parsed, and kept (for tests). */
void tlm_pg_ranks_stats(uint64_t *hits, uint64_t *parses, size_t *kept);

/* ------------------------------------------------------------------ MARK:
 * The trace. */

/* The blob tag of an event's flow "id" (tlm_event_flow_id): a key no
 * argument has, skipped by tlm_event_arg_next. */
#define TLM_ARG_FLOW_ID_ 63
_Static_assert(TLM_ARG_COUNT <= TLM_ARG_FLOW_ID_, "flow id tag is free");
/* tlm_event.args is a 32-bit offset into the blob. */
#define TLM_BLOB_MAX ((size_t)UINT32_MAX)
struct tlm_trace {
    const tlm_alloc *a;
    char *path;
    tlm_intern strs;
    tlm_event *events;
    size_t n_events, cap_events;
    unsigned char *blob;   /* kept args; offset 0 is a dummy byte */
    size_t blob_len, blob_cap;
    tlm_trace_meta meta;
    tlm_read_stats stats;
};

/* After a read: the event array and the argument blob shrunk to what
 * they hold (the capacity doubling and the pages populated ahead given
 * back), inside on_move's BEGIN / END when on_move is not NULL.  Only with
 * the default allocator (a failed shrink is no failure of the read, and
 * the allocation-failure tests count every call of theirs). */
void tlm_trace_fit(tlm_trace *t, void (*on_move)(void *ud, int phase),
                   void *ud);

/* For a thread that reads delivered events while the trace is read
 * (tlm_read_opts.on_move): the arrays as they are now, without the counts
 * the reader is changing.  id must be an id the reader delivered. */
static inline const tlm_event *tlm_trace_events_now(const tlm_trace *t)
{
    return t->events;
}
static inline size_t tlm_trace_events_cap_now(const tlm_trace *t)
{
    return t->cap_events; /* with the array: changed only inside a move */
}
static inline const char *tlm_trace_str_now(const tlm_trace *t, uint32_t id)
{
    return t->strs.ents[id].s;
}

#endif /* TLM_TRACE_INTERNAL_H */
