/*
 * test_zrun.c - zero-run packing of fixed-size rows (src/util/zrun.c):
 * every row comes back byte for byte (random rows with runs of zeros of
 * every length, at the start, the middle and the end), a row of empty
 * strings packs small, the bound holds, and a truncated or corrupt input
 * is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zrun.h"

/* Round trip of many random rows of every size up to 300 bytes. */
static void test_roundtrip(void **state)
{
    (void)state;
    uint8_t row[300], back[300], packed[TLM_ZRUN_BOUND(300)];
    srand(7);
    for (int it = 0; it < 20000; it++) {
        size_t n = 1 + (size_t)rand() % sizeof row;
        for (size_t i = 0; i < n;) { /* runs of zeros and of bytes */
            size_t run = 1 + (size_t)rand() % 9;
            int zero = rand() % 2;
            for (size_t k = 0; k < run && i < n; k++, i++)
                row[i] = zero ? 0 : (uint8_t)(1 + rand() % 255);
        }
        size_t w = tlm_zrun_pack(row, n, packed);
        assert_true(w <= TLM_ZRUN_BOUND(n));
        memset(back, 0xee, sizeof back);
        assert_int_equal(tlm_zrun_unpack(packed, w, back, n), w);
        assert_memory_equal(back, row, n);
        if (w > 2) /* truncated: refused */
            assert_int_equal(tlm_zrun_unpack(packed, w - 1, back, n), 0);
    }
}

/* A row of mostly empty fixed-width strings: a few pieces. */
static void test_small(void **state)
{
    (void)state;
    uint8_t row[1008], back[1008], packed[TLM_ZRUN_BOUND(1008)];
    memset(row, 0, sizeof row);
    memcpy(row + 4, "aten::mm", 8);
    row[600] = 3;
    size_t w = tlm_zrun_pack(row, sizeof row, packed);
    assert_true(w <= 2 * 4 + 8 + 1 + 4);
    assert_int_equal(tlm_zrun_unpack(packed, w, back, sizeof row), w);
    assert_memory_equal(back, row, sizeof row);
    /* all zeros, all literal */
    memset(row, 0, sizeof row);
    assert_int_equal(tlm_zrun_pack(row, sizeof row, packed), 4);
    memset(row, 1, sizeof row);
    assert_int_equal(tlm_zrun_pack(row, sizeof row, packed), 4 + sizeof row);
    /* a piece that claims more bytes than the row: refused */
    uint8_t bad[] = {0xff, 0xff, 0, 0};
    assert_int_equal(tlm_zrun_unpack(bad, sizeof bad, back, 16), 0);
    uint8_t none[] = {0, 0, 0, 0};
    assert_int_equal(tlm_zrun_unpack(none, sizeof none, back, 16), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
