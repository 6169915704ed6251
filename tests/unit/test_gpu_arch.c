/*
 * test_gpu_arch.c - bundled GPU table, name lookup and the GPU-arch JSON
 * loader (src/perf/gpu_arch.c): valid files and malformed ones, with
 * exact error offsets.  The JSON parser underneath: test_perf_json.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perf_internal.h"
#include "tlmpi/tlm_perf.h"

static void test_lookup_aliases(void **state)
{
    static const struct {
        const char *query;
        const char *name;
    } t[] = {
        {"H100", "H100"},          {"h100", "H100"},
        {"H100-SXM", "H100"},      {"h100_sxm5", "H100"},
        {"H 100", "H100"},         {"H200", "H200"},
        {"b200", "B200"},          {"A100", "A100"},
        {"a100-sxm4-80gb", "A100"}, {"MI300X", "MI300X"},
        {"mi300x", "MI300X"},      {"gfx942", "MI300X"},
        {"MI325X", "MI325X"},      {"MI355X", "MI355X"},
        {"MI300X-MAF", "MI300X-MAF"}, {"mi300x_maf", "MI300X-MAF"},
        {"mi325x-maf", "MI325X-MAF"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const tlm_gpu_arch *a = tlm_gpu_arch_lookup(t[i].query);
        if (a == NULL) {
            fail_msg("lookup(%s) = NULL", t[i].query);
        }
        assert_string_equal(a->name, t[i].name);
    }
    assert_null(tlm_gpu_arch_lookup("V100"));
    assert_null(tlm_gpu_arch_lookup(""));
    assert_null(tlm_gpu_arch_lookup(NULL));
}

/* Ambiguous names are unknown: "MI300" could be an MI300A. */
static void test_lookup_ambiguous(void **state)
{
    char buf[256];
    (void)state;
    assert_null(tlm_gpu_arch_lookup("MI300"));
    assert_null(tlm_gpu_arch_lookup("mi-300"));
    assert_string_equal(tlm_gpu_arch_names(buf, sizeof buf),
                        "H100, H200, B200, A100, MI300X, MI325X, MI355X, "
                        "V100-SXM2-32GB, V100-SXM2-16GB, V100-PCIe-32GB, "
                        "V100-PCIe-16GB, A10, A40, L4, L40S, MI250X, MI210, "
                        "MI300X-MAF, MI325X-MAF");
    /* truncated at a whole name */
    assert_string_equal(tlm_gpu_arch_names(buf, 12), "H100, H200");
    assert_string_equal(tlm_gpu_arch_names(buf, 1), "");
}

/* Device names as drivers report them. */
static void test_match_device(void **state)
{
    static const struct {
        const char *device;
        const char *name; /* NULL: no match */
    } t[] = {
        {"NVIDIA H100 80GB HBM3", "H100"},
        {"NVIDIA H100 PCIe", "H100"},
        {"NVIDIA H100-SXM5-80GB", "H100"},
        {"NVIDIA H200", "H200"},
        {"NVIDIA B200", "B200"},
        {"NVIDIA A100-SXM4-80GB", "A100"},
        {"NVIDIA A100-PG509-200", "A100"},
        {"nvidia a100 80gb pcie", "A100"},
        {"AMD Instinct MI300X", "MI300X"},
        {"AMD Instinct MI300X VF", "MI300X"},
        {"AMD Instinct MI325X", "MI325X"},
        {"AMD Instinct MI355X", "MI355X"},
        {"Tesla V100-SXM2-32GB", "V100-SXM2-32GB"},
        {"Tesla V100-SXM2-16GB", "V100-SXM2-16GB"},
        {"Tesla V100-PCIE-32GB", "V100-PCIe-32GB"},
        {"Tesla V100-PCIE-16GB", "V100-PCIe-16GB"},
        {"Tesla V100S-PCIE-32GB", NULL}, /* other clocks */
        {"Tesla V100-SXM3-32GB", NULL},
        {"Tesla V100-SXM2", NULL},       /* which memory? */
        {"NVIDIA A10", "A10"},
        {"NVIDIA A10G", NULL},           /* AWS's part, other rates */
        {"NVIDIA A40", "A40"},
        {"NVIDIA L4", "L4"},
        {"NVIDIA L40S", "L40S"},
        {"NVIDIA L40", NULL},
        {"AMD Instinct MI250X", "MI250X"},
        {"AMD Instinct MI250X/MI250", NULL}, /* either part */
        {"AMD Instinct MI250", NULL},
        {"AMD Instinct MI210", "MI210"},
        {"NVIDIA GH200 480GB", NULL},
        {"AMD Instinct MI300A", NULL},
        {"AMD Instinct MI300", NULL},
        {"MI300X-MAF", "MI300X"}, /* a device is never a MAF entry */
        {"H100H100H100H100H100", NULL}, /* one long token */
        {"", NULL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const tlm_gpu_arch *a = tlm_gpu_arch_match_device(t[i].device);
        if (t[i].name == NULL && a != NULL)
            fail_msg("match(%s) = %s", t[i].device, a->name);
        if (t[i].name != NULL && (a == NULL || strcmp(a->name, t[i].name)))
            fail_msg("match(%s) = %s, want %s", t[i].device,
                     a ? a->name : "NULL", t[i].name);
    }
    assert_null(tlm_gpu_arch_match_device(NULL));
}

static tlm_status devs(const char *json, tlm_gpu_devices *d)
{
    return tlm_gpu_devices_parse(json, strlen(json), d);
}

/* deviceProperties texts: one model, mixed models, odd entries, hostile
 * names, not JSON. */
static void test_devices_parse(void **state)
{
    tlm_gpu_devices d;
    char big[400];
    (void)state;
    assert_int_equal(devs("[{\"id\": 0, \"name\": \"AMD Instinct MI300X\"},"
                          " {\"id\": 1, \"name\": \"AMD Instinct MI300X\"}]",
                          &d),
                     TLM_OK);
    assert_int_equal(d.n_devices, 2);
    assert_int_equal(d.mixed, 0);
    assert_string_equal(d.name, "AMD Instinct MI300X");
    assert_string_equal(d.arch->name, "MI300X");
    /* two names, one GPU: mixed names, the arch stays */
    assert_int_equal(devs("[{\"name\": \"NVIDIA H100 80GB HBM3\"},"
                          " {\"name\": \"NVIDIA H100 PCIe\"}]", &d),
                     TLM_OK);
    assert_int_equal(d.mixed, 1);
    assert_string_equal(d.arch->name, "H100");
    /* two GPUs: no arch */
    assert_int_equal(devs("[{\"name\": \"NVIDIA H100 80GB HBM3\"},"
                          " {\"name\": \"AMD Instinct MI300X\"}]", &d),
                     TLM_OK);
    assert_int_equal(d.mixed, 1);
    assert_null(d.arch);
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
    /* entries that are not objects or have no string name are skipped */
    assert_int_equal(devs("[1, null, {\"name\": 5}, {\"id\": 3},"
                          " {\"name\": \"NVIDIA A100-SXM4-80GB\"}]", &d),
                     TLM_OK);
    assert_int_equal(d.n_devices, 1);
    assert_int_equal(d.n_entries, 5); /* TraceLens's GPUs per node: all */
    assert_string_equal(d.arch->name, "A100");
    /* not an array, empty, absent */
    assert_int_equal(devs("{\"name\": \"NVIDIA H100\"}", &d), TLM_OK);
    assert_int_equal(d.n_devices, 0);
    assert_int_equal(d.n_entries, 0);
    assert_null(d.arch);
    assert_int_equal(tlm_gpu_devices_parse(NULL, 0, &d), TLM_OK);
    assert_int_equal(d.n_devices, 0);
    assert_string_equal(d.name, "");
    /* hostile name: control characters, non-ASCII, longer than 63 */
    assert_int_equal(devs("[{\"name\": \"H100\\n\\u0000\\u00e9\\t|x\"}]", &d),
                     TLM_OK);
    /* \n, NUL, the two bytes of e-acute, \t */
    assert_string_equal(d.name, "H100?????|x");
    assert_string_equal(d.arch->name, "H100");
    memset(big, 0, sizeof big);
    strcpy(big, "[{\"name\": \"NVIDIA H100 ");
    memset(big + strlen(big), 'x', 200);
    strcat(big, "\"}]");
    assert_int_equal(devs(big, &d), TLM_OK);
    assert_int_equal(strlen(d.name), TLM_GPU_DEVICE_NAME_LEN - 1);
    assert_string_equal(d.arch->name, "H100");
    /* not JSON, too deep: an error, nothing kept */
    assert_int_equal(devs("[{\"name\": \"H100\"", &d), TLM_EFORMAT);
    assert_int_equal(d.n_devices, 0);
    assert_int_equal(devs("[[[[[[[[[[[[1]]]]]]]]]]]]", &d), TLM_ELIMIT);
    assert_int_equal(tlm_gpu_devices_parse("[]", 2, NULL), TLM_EINVAL);
}

static void test_bundled_values(void **state)
{
    const tlm_gpu_arch *h100 = tlm_gpu_arch_lookup("H100");
    const tlm_gpu_arch *mi300 = tlm_gpu_arch_lookup("MI300X");
    const tlm_gpu_arch *maf = tlm_gpu_arch_lookup("MI300X-MAF");
    const tlm_gpu_arch *a100 = tlm_gpu_arch_lookup("A100");
    size_t i, j, k;
    (void)state;
    assert_true(h100->mem_bw_gbps == 3350.0);
    assert_true(tlm_gpu_arch_peak_tflops(h100, "matrix_bf16") == 989.4);
    assert_true(tlm_gpu_arch_peak_tflops(h100, "matrix_fp8") == 1978.9);
    assert_true(tlm_gpu_arch_peak_tflops(h100, "matrix_tf32") == 494.7);
    assert_true(tlm_gpu_arch_peak_tflops(h100, "vector_fp32") == 66.9);
    assert_true(tlm_gpu_arch_lookup("H200")->mem_bw_gbps == 4800.0);
    assert_true(mi300->mem_bw_gbps == 5300.0);
    assert_true(tlm_gpu_arch_peak_tflops(mi300, "matrix_bf16") == 1307.4);
    assert_true(tlm_gpu_arch_peak_tflops(mi300, "matrix_fp8") == 2614.9);
    /* TraceLens's max-achievable numbers (spec 6.1) */
    assert_true(maf->mem_bw_gbps == 5300.0);
    assert_true(tlm_gpu_arch_peak_tflops(maf, "matrix_bf16") == 708.0);
    assert_true(tlm_gpu_arch_peak_tflops(maf, "vector_fp64") == 40.0);
    assert_true(tlm_gpu_arch_peak_tflops(tlm_gpu_arch_lookup("mi325x-maf"),
                                         "matrix_int8") == 3094.0);
    /* A100 has no FP8 */
    assert_true(isnan(tlm_gpu_arch_peak_tflops(a100, "matrix_fp8")));
    assert_true(isnan(tlm_gpu_arch_peak_tflops(a100, "")));
    assert_true(isnan(tlm_gpu_arch_peak_tflops(a100, NULL)));
    assert_true(isnan(tlm_gpu_arch_peak_tflops(NULL, "matrix_bf16")));

    /* table sanity: positive numbers, unique well-formed keys, a source */
    assert_int_equal(tlm_gpu_arch_count(), 19);
    assert_null(tlm_gpu_arch_at(tlm_gpu_arch_count()));
    for (i = 0; i < tlm_gpu_arch_count(); i++) {
        const tlm_gpu_arch *a = tlm_gpu_arch_at(i);
        assert_non_null(a);
        assert_ptr_equal(tlm_gpu_arch_lookup(a->name), a);
        assert_true(a->mem_bw_gbps > 0.0);
        assert_true(a->memory_gb > 0.0);
        assert_true(a->n_peaks >= 5);
        assert_true(strlen(a->source) > 0);
        for (j = 0; j < a->n_peaks; j++) {
            const char *key = a->peaks[j].key;
            assert_true(strncmp(key, "matrix_", 7) == 0 ||
                        strncmp(key, "vector_", 7) == 0);
            assert_true(a->peaks[j].tflops > 0.0);
            for (k = j + 1; k < a->n_peaks; k++) {
                assert_string_not_equal(key, a->peaks[k].key);
            }
        }
        /* matrix bf16 at least the vector rate wherever both exist */
        if (!isnan(tlm_gpu_arch_peak_tflops(a, "vector_bf16"))) {
            assert_true(tlm_gpu_arch_peak_tflops(a, "matrix_bf16") >=
                        tlm_gpu_arch_peak_tflops(a, "vector_bf16"));
        }
    }
}

static const char *const good_json =
    "{\n"
    "  \"name\": \"MI300X\",\n"
    "  \"mem_bw_gbps\": 5300,\n"
    "  \"memory_gb\": 192,\n"
    "  \"freq_mhz\": 2100, \"num_cus\": 304,\n"
    "  \"_reference\": \"https://rocm.blogs.amd.com/max-achievable-flops\",\n"
    "  \"max_achievable_tflops\": {\n"
    "    \"matrix_fp16\": 654, \"matrix_bf16\": 708, \"matrix_fp32\": 163,\n"
    "    \"matrix_fp64\": 81, \"matrix_fp8\": 1273, \"matrix_int8\": 2600,\n"
    "    \"vector_fp16\": 163, \"vector_bf16\": 163, \"vector_fp32\": 81,\n"
    "    \"vector_fp64\": 40.5, \"matrix_fp4\": null\n"
    "  }\n"
    "}\n";

static void test_parse_good(void **state)
{
    tlm_gpu_arch a;
    tlm_error err;
    (void)state;
    tlm_error_clear(&err);
    assert_int_equal(tlm_gpu_arch_parse_json(good_json, strlen(good_json),
                                             "arch.json", &a, &err),
                     TLM_OK);
    assert_string_equal(a.name, "MI300X");
    assert_true(a.mem_bw_gbps == 5300.0);
    assert_true(a.memory_gb == 192.0);
    assert_int_equal(a.n_peaks, 10); /* the null entry is skipped */
    assert_true(tlm_gpu_arch_peak_tflops(&a, "matrix_bf16") == 708.0);
    assert_true(tlm_gpu_arch_peak_tflops(&a, "vector_fp64") == 40.5);
    assert_true(isnan(tlm_gpu_arch_peak_tflops(&a, "matrix_fp4")));
    assert_string_equal(a.source,
                        "https://rocm.blogs.amd.com/max-achievable-flops");

    /* minimal: no name, no reference -> source = file name */
    {
        const char *j = "{\"mem_bw_gbps\":3350.5,\"max_achievable_tflops\":"
                        "{\"matrix_bf16\":989.4}}";
        assert_int_equal(tlm_gpu_arch_parse_json(j, strlen(j), "h.json", &a,
                                                 NULL),
                         TLM_OK);
        assert_string_equal(a.name, "");
        assert_true(a.mem_bw_gbps == 3350.5);
        assert_string_equal(a.source, "h.json");
        assert_int_equal(a.n_peaks, 1);
    }
}

typedef struct bad_case {
    const char *label;
    const char *json;
    tlm_status st;
    const char *at; /* the error offset is where this text first occurs,
                       NULL for offset 0 */
} bad_case;

static void test_parse_bad(void **state)
{
    static const bad_case t[] = {
        {"trailing comma in object",
         "{\"mem_bw_gbps\": 5300, \"max_achievable_tflops\": "
         "{\"matrix_bf16\": 708,}}",
         /*                    ^ */
         TLM_EFORMAT, "}}"},
        {"missing max_achievable_tflops", "{\"mem_bw_gbps\": 5300}",
         TLM_ESCHEMA, NULL},
        {"missing mem_bw_gbps", "{\"max_achievable_tflops\": {}}",
         TLM_ESCHEMA, NULL},
        {"mem_bw_gbps not a number",
         "{\"mem_bw_gbps\": \"fast\", \"max_achievable_tflops\": {}}",
         TLM_ESCHEMA, "\"fast\""},
        {"mem_bw_gbps zero",
         "{\"mem_bw_gbps\": 0, \"max_achievable_tflops\": {}}", TLM_ESCHEMA,
         "0,"},
        {"peak not a number",
         "{\"mem_bw_gbps\": 5300, \"max_achievable_tflops\": "
         "{\"matrix_bf16\": \"708\"}}",
         TLM_ESCHEMA, "\"708\""},
        {"peaks not an object",
         "{\"mem_bw_gbps\": 5300, \"max_achievable_tflops\": [708]}",
         TLM_ESCHEMA, "[708]"},
        {"top level array", "[1, 2]", TLM_ESCHEMA, NULL},
        {"name not a string",
         "{\"name\": 5, \"mem_bw_gbps\": 5300, \"max_achievable_tflops\": {}}",
         TLM_ESCHEMA, "5,"},
        {"memory_gb not a number",
         "{\"memory_gb\": [], \"mem_bw_gbps\": 5300, "
         "\"max_achievable_tflops\": {}}",
         TLM_ESCHEMA, "[]"},
        {"empty document", "", TLM_EFORMAT, NULL},
        {"trailing garbage",
         "{\"mem_bw_gbps\": 1, \"max_achievable_tflops\": {}} @", TLM_EFORMAT,
         "@"},
        {"unterminated string", "{\"mem_bw_gbps", TLM_EFORMAT, NULL},
        {"bad literal", "{\"mem_bw_gbps\": nul}", TLM_EFORMAT, "nul}"},
        {"missing colon", "{\"mem_bw_gbps\" 5}", TLM_EFORMAT, "5}"},
        {"bad number", "{\"mem_bw_gbps\": 1.}", TLM_EFORMAT, "}"},
        {"key too long",
         "{\"mem_bw_gbps\": 1, \"max_achievable_tflops\": "
         "{\"matrix_a_very_long_precision_name_x\": 1}}",
         TLM_ELIMIT, "1}}"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        tlm_gpu_arch a;
        tlm_error err;
        tlm_status st;
        int64_t want_off = 0;
        tlm_error_clear(&err);
        memset(&a, 0x5a, sizeof(a));
        st = tlm_gpu_arch_parse_json(t[i].json, strlen(t[i].json), "x.json",
                                     &a, &err);
        if (st != t[i].st) {
            fail_msg("%s: status %d want %d (%s)", t[i].label, (int)st,
                     (int)t[i].st, err.msg);
        }
        assert_int_equal(err.code, st);
        assert_string_equal(err.file, "x.json");
        if (t[i].at != NULL) {
            /* the last occurrence for "}" style anchors at the end */
            const char *p = strstr(t[i].json, t[i].at);
            assert_non_null(p);
            want_off = (int64_t)(p - t[i].json);
        }
        if (t[i].st == TLM_EFORMAT && t[i].at == NULL) {
            /* syntax errors at the end of the input */
            want_off = (int64_t)strlen(t[i].json);
        }
        if (err.offset != want_off) {
            fail_msg("%s: offset %lld want %lld (%s)", t[i].label,
                     (long long)err.offset, (long long)want_off, err.msg);
        }
        /* out is cleared on failure */
        assert_int_equal(a.n_peaks, 0);
        assert_true(a.mem_bw_gbps == 0.0);
    }
}

static void test_parse_limits(void **state)
{
    char buf[4096];
    size_t o = 0;
    int i;
    tlm_gpu_arch a;
    tlm_error err;
    (void)state;
    /* 25 peak entries: one too many */
    o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                          "{\"mem_bw_gbps\": 1, \"max_achievable_tflops\": {");
    for (i = 0; i < TLM_GPU_ARCH_MAX_PEAKS + 1; i++) {
        o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\"k%d\": %d",
                              i ? ", " : "", i, i + 1);
    }
    o += (size_t)snprintf(buf + o, sizeof(buf) - o, "}}");
    assert_int_equal(tlm_gpu_arch_parse_json(buf, o, NULL, &a, &err),
                     TLM_ELIMIT);
    /* nesting deeper than 32 */
    o = 0;
    for (i = 0; i < 40; i++) {
        buf[o++] = '[';
    }
    for (i = 0; i < 40; i++) {
        buf[o++] = ']';
    }
    assert_int_equal(tlm_gpu_arch_parse_json(buf, o, NULL, &a, &err),
                     TLM_ELIMIT);
    assert_int_equal(err.offset, 33);
    /* NULL arguments */
    assert_int_equal(tlm_gpu_arch_parse_json(NULL, 0, NULL, &a, &err),
                     TLM_EINVAL);
    assert_int_equal(tlm_gpu_arch_parse_json("{}", 2, NULL, NULL, &err),
                     TLM_EINVAL);
    assert_int_equal(tlm_gpu_arch_load_json(NULL, &a, &err), TLM_EINVAL);
}

static void tmp_path(char *buf, size_t size, const char *tag)
{
    const char *dir = getenv("TLM_BUILD_DIR");
    if (dir == NULL || dir[0] == '\0') {
        dir = "/tmp";
    }
    snprintf(buf, size, "%s/test_gpu_arch_%ld_%s.json", dir, (long)getpid(),
             tag);
}

static void test_load_file(void **state)
{
    char path[1024];
    FILE *f;
    tlm_gpu_arch a;
    tlm_error err;
    size_t i;
    (void)state;
    tmp_path(path, sizeof(path), "good");
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs(good_json, f);
    fclose(f);
    tlm_error_clear(&err);
    assert_int_equal(tlm_gpu_arch_load_json(path, &a, &err), TLM_OK);
    assert_string_equal(a.name, "MI300X");
    assert_true(tlm_gpu_arch_peak_tflops(&a, "matrix_fp8") == 1273.0);
    remove(path);

    /* missing file */
    assert_int_equal(tlm_gpu_arch_load_json(path, &a, &err), TLM_EIO);
    assert_string_equal(err.file, path);

    /* malformed file: the error names the file and the offset */
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"mem_bw_gbps\": 5300,\n \"max_achievable_tflops\": {\"a\" 1}}",
          f);
    fclose(f);
    assert_int_equal(tlm_gpu_arch_load_json(path, &a, &err), TLM_EFORMAT);
    assert_string_equal(err.file, path);
    assert_int_equal(err.offset, 53); /* the '1' after "a" */
    remove(path);

    /* larger than 1 MiB */
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs(good_json, f);
    for (i = 0; i < 1024 * 1024; i++) {
        fputc(' ', f);
    }
    fclose(f);
    assert_int_equal(tlm_gpu_arch_load_json(path, &a, &err), TLM_ELIMIT);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_aliases),
        cmocka_unit_test(test_lookup_ambiguous),
        cmocka_unit_test(test_match_device),
        cmocka_unit_test(test_devices_parse),
        cmocka_unit_test(test_bundled_values),
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
