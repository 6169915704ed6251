/*
 * test_perf_inductor.c - the Inductor cache of --inductor_cache_dir (the
 * Triton model's V1 fallback, perf_inductor*.c): a wrapper's kernels
 * (fused ops, size_hints, signature dtypes) and the FLOPs and bytes they
 * give; the fallback only where the arguments cannot model; files left out
 * (bad size_hints, not UTF-8), universal newlines, a missing block end, the
 * first file winning; the folder walk (sub-folders, hidden names, symbolic
 * links, a FIFO, non-.py files) and a missing folder.
 */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

static const char POI[] =
    "# Topologically Sorted Source Nodes: [add, mul], Original ATen: "
    "[aten.add, aten.mul]\n"
    "triton_poi_fused_add_mul_0 = async_compile.triton("
    "'triton_poi_fused_add_mul_0', '''\n"
    "@triton_heuristics.pointwise(\n"
    "    size_hints=[1024], \n"
    "    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', "
    "'out_ptr0': '*bf16', 'xnumel': 'i32'}, 'device': 0},\n"
    ")\n"
    "''', device_str='cuda')\n";

static const char RED[] =
    "# Original ATen: [aten.sum, aten.foo]\n"
    "triton_red_fused_sum_1 = async_compile.triton('x', '''\n"
    "    size_hints=[64, 256],\n"
    "    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32',"
    " 'xnumel': 'i32'}},\n"
    "''', device_str='cuda')\n";

static tlm_perf_result compute(const tlm_inductor_cache *c, const char *name,
                               const char *concrete, tlm_status want)
{
    tlm_perf_args a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.inductor = c;
    if (concrete) {
        a.input_dims = "[[8, 4]]";
        a.input_types = "[\"c10::BFloat16\"]";
        a.concrete_inputs = concrete;
    }
    tlm_perf_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(tlm_perf_compute(&a, 0, &r, NULL), want);
    return r;
}

static void test_kernels(void **state)
{
    (void)state;
    tlm_inductor_cache *c = tlm_inductor_cache_new();
    assert_int_equal(tlm_inductor_cache_parse(c, POI, strlen(POI)), TLM_OK);
    assert_int_equal(tlm_inductor_cache_parse(c, RED, strlen(RED)), TLM_OK);
    assert_int_equal(tlm_inductor_cache_stats(c)->kernels, 2);
    tlm_inductor_v1_meta m;
    assert_true(tlm_inductor_v1(c, "triton_poi_fused_add_mul_0", &m));
    assert_string_equal(m.fused_ops, "aten.add, aten.mul");
    assert_true(m.fpe == 2.0 && m.xnumel == 1024 && m.rnumel == 1);
    assert_true(m.nptr == 3 && m.bpe0 == 2);
    /* pointwise: n * xnumel * b; FLOPs Σ fpe * x * r */
    tlm_perf_result r = compute(c, "triton_poi_fused_add_mul_0", NULL,
                                TLM_OK);
    assert_true(r.flops == 2048.0 && r.bytes == 6144.0);
    assert_string_equal(tlm_perf_result_param(&r, "fused_ops")->value,
                        "aten.add, aten.mul");
    /* reduction: (n-1) x r b + x b; an unknown op counts 1 (V1) */
    r = compute(c, "triton_red_fused_sum_1", NULL, TLM_OK);
    assert_true(r.flops == 2.0 * 64 * 256);
    assert_true(r.bytes == 64.0 * 256 * 4 + 64 * 4);
    /* arguments that can model: V2, not the cache */
    r = compute(c, "triton_poi_fused_add_mul_0", "[\"\", \"32\"]", TLM_OK);
    assert_true(r.flops == 2.0 * 32);
    /* not in the cache and no arguments: no model */
    compute(c, "triton_poi_fused_cos_2", NULL, TLM_ENOTFOUND);
    tlm_perf_args a = {.name = "triton_red_fused_sum_1", .inductor = c};
    assert_true(tlm_perf_can_model(&a));
    a.inductor = NULL;
    assert_false(tlm_perf_can_model(&a));
    tlm_inductor_cache_free(c);
}

static void parse(tlm_inductor_cache *c, const char *s)
{
    assert_int_equal(tlm_inductor_cache_parse(c, s, strlen(s)), TLM_OK);
}

static void test_left_out(void **state)
{
    (void)state;
    tlm_inductor_cache *c = tlm_inductor_cache_new();
    /* int() refuses an item: the whole file is left out */
    parse(c, "triton_poi_a = async_compile.triton('a', '''\n"
             "size_hints=[1024]\n''', device_str='cuda')\n"
             "triton_poi_b = async_compile.triton('b', '''\n"
             "size_hints=[s0, 4]\n''', device_str='cuda')\n");
    assert_false(tlm_inductor_cache_has(c, "triton_poi_a"));
    assert_int_equal(tlm_inductor_cache_stats(c)->skipped, 1);
    /* not UTF-8 (a stray byte, a surrogate): left out; UTF-8 text kept */
    parse(c, "triton_poi_c = async_compile.triton('c', '''\n\xff\n"
             "''', device_str='cuda')\n");
    assert_false(tlm_inductor_cache_has(c, "triton_poi_c"));
    parse(c, "triton_poi_c2 = async_compile.triton('c', '''\n\xed\xa0\x80"
             "\n''', device_str='cuda')\n");
    assert_false(tlm_inductor_cache_has(c, "triton_poi_c2"));
    parse(c, "# \xc2\xb5s Original ATen: [aten.mul]\n"
             "triton_poi_c3 = async_compile.triton('c', '''\n"
             "''', device_str='cuda')\n");
    assert_true(tlm_inductor_cache_has(c, "triton_poi_c3"));
    /* CR line ends, '_' in numbers, dict size_hints (newer Inductor): 0/1 */
    parse(c, "x = 1\rtriton_poi_d = async_compile.triton('d', '''\r\n"
             "size_hints=[1_024]\r''', device_str='cuda')\r"
             "triton_poi_e = async_compile.triton('e', '''\n"
             "size_hints={'x': 64}\n''', device_str='cuda')\n");
    tlm_inductor_v1_meta m;
    assert_true(tlm_inductor_v1(c, "triton_poi_d", &m) && m.xnumel == 1024);
    assert_true(tlm_inductor_v1(c, "triton_poi_e", &m) && m.xnumel == 0 &&
                m.rnumel == 1 && !strcmp(m.fused_ops, ""));
    /* no block end: no kernel; not at a line start: none */
    parse(c, "triton_poi_f = async_compile.triton('f', '''\n"
             " triton_poi_g = async_compile.triton(\n");
    assert_false(tlm_inductor_cache_has(c, "triton_poi_f"));
    assert_false(tlm_inductor_cache_has(c, "triton_poi_g"));
    /* the comment counts within 600 characters (code points) only */
    {
        char t[4096];
        int k = snprintf(t, sizeof t, "# Original ATen: [aten.mul]\n#");
        for (int i = 0; i < 560; i++) /* 560 characters, 1120 bytes */
            k += snprintf(t + k, sizeof t - (size_t)k, "\xc2\xb5");
        snprintf(t + k, sizeof t - (size_t)k,
                 "\ntriton_poi_w1 = async_compile.triton('w', '''\n"
                 "''', device_str='cuda')\n");
        parse(c, t);
        assert_true(tlm_inductor_v1(c, "triton_poi_w1", &m));
        assert_string_equal(m.fused_ops, "aten.mul");
        k = snprintf(t, sizeof t, "# Original ATen: [aten.mul]\n#%0600d"
                     "\ntriton_poi_w2 = async_compile.triton('w', '''\n"
                     "''', device_str='cuda')\n", 0);
        parse(c, t);
        assert_true(tlm_inductor_v1(c, "triton_poi_w2", &m));
        assert_string_equal(m.fused_ops, "");
    }
    /* the first file wins; in a file the last definition */
    parse(c, "triton_poi_h = async_compile.triton('h', '''\n"
             "size_hints=[1]\n''', device_str='cuda')\n"
             "triton_poi_h = async_compile.triton('h', '''\n"
             "size_hints=[2]\n''', device_str='cuda')\n");
    parse(c, "triton_poi_h = async_compile.triton('h', '''\n"
             "size_hints=[3]\n''', device_str='cuda')\n");
    assert_true(tlm_inductor_v1(c, "triton_poi_h", &m) && m.xnumel == 2);
    tlm_inductor_cache_free(c);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/tlm_inductor_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[64], hid[64], p[128];
    snprintf(sub, sizeof sub, "%s/ab", dir);
    snprintf(hid, sizeof hid, "%s/.hidden", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(mkdir(hid, 0700), 0);
    put(sub, "c1.py", POI);
    put(hid, "c2.py", RED);           /* hidden: left out, as glob */
    put(dir, "notes.txt", RED);       /* not .py */
    snprintf(p, sizeof p, "%s/c2.py", hid);
    char l[128];
    snprintf(l, sizeof l, "%s/link.py", dir);
    assert_int_equal(symlink(p, l), 0); /* not followed */
    snprintf(p, sizeof p, "%s/fifo.py", dir);
    assert_int_equal(mkfifo(p, 0600), 0); /* never opened */
    tlm_inductor_cache *c = NULL;
    tlm_error err;
    assert_int_equal(tlm_inductor_cache_load(dir, &c, &err), TLM_OK);
    assert_true(tlm_inductor_cache_has(c, "triton_poi_fused_add_mul_0"));
    assert_false(tlm_inductor_cache_has(c, "triton_red_fused_sum_1"));
    assert_int_equal(tlm_inductor_cache_stats(c)->files, 1);
    tlm_inductor_cache_free(c);
    snprintf(p, sizeof p, "%s/none", dir);
    assert_int_equal(tlm_inductor_cache_load(p, &c, &err), TLM_EIO);
    assert_null(c);
    assert_non_null(strstr(err.msg, "--inductor_cache_dir"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_left_out),
        cmocka_unit_test(test_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
