/*
 * zrun.h - fixed-size rows kept packed in memory: runs of zero bytes
 * (the empty tails of fixed-width strings) coded by their length, the
 * other bytes as they are; unpacking gives the same bytes back.
 */
#ifndef TLM_ZRUN_H
#define TLM_ZRUN_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes tlm_zrun_pack writes for a row of n bytes. */
#define TLM_ZRUN_BOUND(n) ((n) + 4 * ((n) / 4 + 1) + 4)

/* Packs the n bytes of row (n < 65,536) into out (at least
 * TLM_ZRUN_BOUND(n) bytes); returns the bytes written. */
size_t tlm_zrun_pack(const void *row, size_t n, uint8_t *out);

/* Unpacks one row of n bytes from in (len bytes available) into row;
 * returns the bytes read, 0 when in does not hold a packed row of n
 * bytes. */
size_t tlm_zrun_unpack(const uint8_t *in, size_t len, void *row, size_t n);

#endif
