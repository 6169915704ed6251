/*
 * test_suggest.c - "did you mean" (src/util/suggest.c): git's weighted
 * edit distance, the closest command, the closest option of a usage text,
 * and words too far from every candidate getting no suggestion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(tlm_edit_distance("report", "report"), 0);
    assert_int_equal(tlm_edit_distance("reprot", "report"), 0); /* swap */
    assert_int_equal(tlm_edit_distance("repor", "report"), 1);  /* insert */
    assert_int_equal(tlm_edit_distance("reportt", "report"), 3); /* delete */
    assert_int_equal(tlm_edit_distance("repart", "report"), 2); /* subst */
    assert_int_equal(tlm_edit_distance("", "abc"), 3);
    assert_int_equal(tlm_edit_distance("abc", ""), 9);
}

static void test_command(void **state)
{
    (void)state;
    static const char *const cmds[] = {"inspect", "report", "tree",
                                       "modules", "compare", "diff",
                                       "replay", "audit"};
    const size_t n = sizeof cmds / sizeof cmds[0];
    assert_string_equal(tlm_suggest("reprot", cmds, n), "report");
    assert_string_equal(tlm_suggest("inspcet", cmds, n), "inspect");
    assert_string_equal(tlm_suggest("tre", cmds, n), "tree");
    assert_string_equal(tlm_suggest("comp", cmds, n), "compare");
    assert_null(tlm_suggest("rank0_trace.json", cmds, n));
    assert_null(tlm_suggest("xyzzy", cmds, n));
    assert_null(tlm_suggest("", cmds, n));
}

static void test_option(void **state)
{
    (void)state;
    const char *usage = "usage: tlmpi report TRACE [--output_csvs_dir DIR]\n"
                        "  --output_md F   the Markdown\n"
                        "  --quiet, --force\n";
    char out[64];
    assert_int_equal(tlm_suggest_opt("--output_csv_dir", usage, out,
                                     sizeof out), 1);
    assert_string_equal(out, "--output_csvs_dir");
    assert_int_equal(tlm_suggest_opt("--qiuet=1", usage, out, sizeof out), 1);
    assert_string_equal(out, "--quiet");
    assert_int_equal(tlm_suggest_opt("--frce", usage, out, sizeof out), 1);
    assert_string_equal(out, "--force");
    assert_int_equal(tlm_suggest_opt("--bogus_thing", usage, out,
                                     sizeof out), 0);
    assert_int_equal(tlm_suggest_opt("--x", "no options here", out,
                                     sizeof out), 0);
    assert_int_equal(tlm_suggest_opt("--quiet", usage, out, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
