/*
 * test_gpu.c - the GPU a report uses (src/report/gpu.c): taken from the
 * trace's deviceProperties, overridden by --gpu_arch / --gpu_arch_json_path
 * or --gpu_arch none, turned off by the TraceLens compat bit, refused for
 * unknown names; mixed and unknown devices; the report built with the
 * detected GPU gets roofline columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"
#include "tlm_test_util.h"

/* A trace whose header lists devices (a JSON array text, ' for "). */
static tlm_trace *with_devices(const char *devices)
{
    char sq[4096];
    snprintf(sq, sizeof sq,
             "{'deviceProperties': %s, 'traceEvents': [" TT_CPU("a", 0, 5, 1)
             "]}",
             devices);
    return tt_read_sq(sq);
}

static void test_source_names(void **state)
{
    (void)state;
    assert_string_equal(tlm_arch_source_name(TLM_ARCH_SRC_NONE), "none");
    assert_string_equal(tlm_arch_source_name(TLM_ARCH_SRC_OPTION), "option");
    assert_string_equal(tlm_arch_source_name(TLM_ARCH_SRC_JSON), "json");
    assert_string_equal(tlm_arch_source_name(TLM_ARCH_SRC_TRACE), "trace");
    assert_string_equal(tlm_arch_source_name((tlm_arch_source)42), "none");
}

/* From the trace, unless an option or the compat bit says otherwise. */
static void test_from_trace(void **state)
{
    (void)state;
    tlm_trace *t = with_devices("[{'id':0,'name':'AMD Instinct MI300X'},"
                                "{'id':1,'name':'AMD Instinct MI300X'}]");
    tlm_report_opts o;
    tlm_report_gpu g;
    tlm_error err;
    tlm_report_opts_init(&o);
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_OK);
    assert_int_equal(g.has_arch, 1);
    assert_int_equal(g.source, TLM_ARCH_SRC_TRACE);
    assert_string_equal(g.arch.name, "MI300X");
    assert_string_equal(g.devices.name, "AMD Instinct MI300X");
    assert_int_equal(g.devices.n_devices, 2);
    /* NULL options are the defaults */
    assert_int_equal(tlm_report_gpu_select(NULL, t, &g, &err), TLM_OK);
    assert_int_equal(g.source, TLM_ARCH_SRC_TRACE);
    /* the option wins */
    o.gpu_arch = "h100";
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_OK);
    assert_int_equal(g.source, TLM_ARCH_SRC_OPTION);
    assert_string_equal(g.arch.name, "H100");
    assert_string_equal(g.devices.name, "AMD Instinct MI300X");
    /* none: no GPU, on purpose */
    o.gpu_arch = "none";
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_OK);
    assert_int_equal(g.has_arch, 0);
    assert_int_equal(g.source, TLM_ARCH_SRC_OPTION);
    /* TraceLens never detects */
    o.gpu_arch = NULL;
    o.compat = TLM_COMPAT_NO_ARCH_FROM_TRACE;
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_OK);
    assert_int_equal(g.has_arch, 0);
    assert_int_equal(g.source, TLM_ARCH_SRC_NONE);
    /* an unreadable arch file is an error */
    o.compat = 0;
    o.gpu_arch_json_path = "/nonexistent/arch.json";
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_EIO);
    assert_int_equal(g.has_arch, 0);
    o.gpu_arch = "MI300X";
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_EINVAL);
    assert_string_equal(err.msg, "--gpu_arch and --gpu_arch_json_path are "
                                 "mutually exclusive");
    o.gpu_arch_json_path = NULL;
    o.gpu_arch = "MI300";
    assert_int_equal(tlm_report_gpu_select(&o, t, &g, &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "unknown GPU 'MI300' for --gpu_arch "
                                    "(known: H100, "));
    tlm_trace_free(t);
}

/* Unknown, mixed and absent devices: no GPU from the trace. */
static void test_no_detection(void **state)
{
    (void)state;
    tlm_report_gpu g;
    tlm_trace *t = with_devices("[{'id':0,'name':'NVIDIA A10G'}]");
    assert_int_equal(tlm_report_gpu_select(NULL, t, &g, NULL), TLM_OK);
    assert_int_equal(g.has_arch, 0);
    assert_int_equal(g.source, TLM_ARCH_SRC_NONE);
    assert_string_equal(g.devices.name, "NVIDIA A10G");
    tlm_trace_free(t);
    t = with_devices("[{'name':'NVIDIA H100 80GB HBM3'},"
                     "{'name':'NVIDIA A100-SXM4-80GB'}]");
    assert_int_equal(tlm_report_gpu_select(NULL, t, &g, NULL), TLM_OK);
    assert_int_equal(g.has_arch, 0);
    assert_int_equal(g.devices.mixed, 1);
    tlm_trace_free(t);
    t = tt_read_sq("{'traceEvents': [" TT_CPU("a", 0, 5, 1) "]}");
    assert_int_equal(tlm_report_gpu_select(NULL, t, &g, NULL), TLM_OK);
    assert_int_equal(g.has_arch, 0);
    assert_int_equal(g.devices.n_devices, 0);
    tlm_trace_free(t);
}

/* A report of an H100 trace built without options has the roofline. */
static void test_report_uses_it(void **state)
{
    (void)state;
    const char *ops = tr_ops_json();
    const char *devs = "{'deviceProperties': "
                       "[{'id':0,'name':'NVIDIA H100 80GB HBM3'}], ";
    char *sq = malloc(strlen(ops) + strlen(devs) + 1);
    assert_non_null(sq);
    /* tr_ops_json() starts with "{'traceEvents'" */
    strcpy(sq, devs);
    strcat(sq, ops + 1);
    tlm_trace *t = tt_read_sq(sq);
    free(sq);
    tlm_tree *tree = NULL;
    tlm_report *r = tr_build(t, NULL, &tree);
    const tlm_report_gpu *g = tlm_report_gpu_get(r);
    assert_int_equal(g->source, TLM_ARCH_SRC_TRACE);
    assert_string_equal(g->arch.name, "H100");
    assert_string_equal(tr_cell(r, "GEMM", 0, "Roofline Bound_first"),
                        "MEMORY_BOUND");
    tlm_report_free(r);
    tlm_tree_free(tree);
    tlm_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_names),
        cmocka_unit_test(test_from_trace),
        cmocka_unit_test(test_no_detection),
        cmocka_unit_test(test_report_uses_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
