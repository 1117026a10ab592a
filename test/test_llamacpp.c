/* The llama.cpp memory model (src/memory/llamacpp.c, lcpp_graph.c) against what llama.cpp
 * itself printed on its CPU backend (test/data/llamacpp/logs.jsonl, written by
 * make_logs.py with llama-cpp-python; the headers of the files it loaded are in
 * test/data/llamacpp/headers/, read here as slices of files of the recorded size).
 *
 * Weights and KV are exact: llama_model_size() in bytes, the K and V caches and the output
 * buffer to the 0.01 MiB llama.cpp prints. Compute buffers: the bound is 5% of the
 * 4-decimal size llama.cpp's debug log gives; the replay is exact on every record (to that
 * 0.0001 MiB), quantized caches (which llama.cpp rotates, llama-kv-cache.cpp attn_rot_k/_v)
 * included, and the test holds it there: a record off by more than the print's rounding fails.
 * Prints one line per record with the errors. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "core/ggml.h"
#include "input/gguf.h"
#include "engines/llamacpp/llamacpp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR "test/data/llamacpp/"
#define MIB 1048576.0

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    b[len] = '\0';
    fclose(f);
    *n = (size_t)len;
    return b;
}

static double num(const cJSON *o, const char *k, double def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? 1 : 0) : def;
}

static double sum_obj(const cJSON *o)
{
    double s = 0;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next)
        s += c->valuedouble;
    return s;
}

/* |ours in MiB - printed| within the print's rounding */
static bool same_mib(uint64_t ours, double printed) { return fabs(ours / MIB - printed) <= 0.0051; }

typedef struct tally {
    int records, exact_fail, compute_n, compute_fail, compute_inexact, rot_n, none_n;
    double worst;
} tally;

static void check_record(const cJSON *r, tally *t)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(r, "model")->valuestring;
    if (num(r, "rc", 1) != 0)
        return; /* llama.cpp refused the setting: recorded, nothing to compare */
    char path[256];
    snprintf(path, sizeof path, DIR "headers/%s.gguf", name);
    size_t n = 0;
    char *hdr = slurp(path, &n);
    if (!hdr)
        fail_msg("cannot read %s", path);
    llmmem_model *m = NULL;
    if (llmmem_model_from_gguf(&m, hdr, n, (uint64_t)num(r, "file_size", 0)) != 0)
        fail_msg("%s: %s", path, llmmem_last_error());
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "setting");
    llmmem__lcpp_cfg c = {0};
    c.n_ctx = (uint32_t)num(s, "n_ctx", 0);
    c.n_batch = (uint32_t)num(s, "n_batch", 2048);
    c.n_ubatch = (uint32_t)num(s, "n_ubatch", 512);
    c.n_seq_max = (uint32_t)num(s, "n_seq_max", 1);
    c.kv_unified = num(s, "kv_unified", 0) != 0;
    c.swa_full = num(s, "swa_full", 0) != 0;
    c.offload_kqv = true;
    /* flash attention "auto" resolves to on for the CPU backend (llama-context.cpp probe) */
    c.flash_attn = num(s, "flash_attn", -1) != 0;
    c.type_k = (uint32_t)llmmem__ggml_type_find(cJSON_GetObjectItemCaseSensitive(s, "type_k")->valuestring);
    c.type_v = (uint32_t)llmmem__ggml_type_find(cJSON_GetObjectItemCaseSensitive(s, "type_v")->valuestring);
    c.n_gpu_layers = 0;
    c.gpu = false;
    llmmem__lcpp_mem mem;
    if (llmmem__lcpp_memory(&mem, m->gguf, &c) != 0)
        fail_msg("%s: %s", name, llmmem_last_error());
    t->records++;
    bool ok = true;
    /* weights: llama_model_size, exact bytes */
    const double size = num(r, "model_size", -1);
    if ((double)(mem.w_cpu + mem.w_gpu) != size) {
        printf("  %s: weights %llu B, llama_model_size %.0f B\n", name,
               (unsigned long long)(mem.w_cpu + mem.w_gpu), size);
        ok = false;
    }
    /* KV caches, in the order llama.cpp prints them (the full cache, then the SWA one) */
    const cJSON *kvs = cJSON_GetObjectItemCaseSensitive(r, "kv");
    const uint64_t ours_k[2] = {mem.kv_k, mem.kv_k_swa}, ours_v[2] = {mem.kv_v, mem.kv_v_swa};
    const uint32_t cells[2] = {mem.kv_cells, mem.kv_cells_swa};
    int which = mem.kv_layers ? 0 : 1;
    for (const cJSON *kv = kvs ? kvs->child : NULL; kv; kv = kv->next, which++) {
        if (which > 1 || !same_mib(ours_k[which], num(kv, "k", -1)) ||
            !same_mib(ours_v[which], num(kv, "v", -1)) || cells[which] != (uint32_t)num(kv, "cells", -1)) {
            printf("  %s: KV cache %d: ours K %.2f V %.2f MiB %u cells, printed K %.2f V %.2f MiB %.0f cells\n",
                   name, which, which < 2 ? ours_k[which] / MIB : 0, which < 2 ? ours_v[which] / MIB : 0,
                   which < 2 ? cells[which] : 0, num(kv, "k", -1), num(kv, "v", -1), num(kv, "cells", -1));
            ok = false;
        }
    }
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(r, "recurrent");
    if (rs && (!same_mib(mem.rs_r, num(rs, "r", -1)) || !same_mib(mem.rs_s, num(rs, "s", -1)))) {
        printf("  %s: recurrent ours R %.2f S %.2f MiB, printed R %.2f S %.2f\n", name, mem.rs_r / MIB,
               mem.rs_s / MIB, num(rs, "r", -1), num(rs, "s", -1));
        ok = false;
    }
    const double out = sum_obj(cJSON_GetObjectItemCaseSensitive(r, "output"));
    if (!same_mib(mem.output, out)) {
        printf("  %s: output ours %.2f MiB, printed %.2f\n", name, mem.output / MIB, out);
        ok = false;
    }
    if (!ok)
        t->exact_fail++;
    /* compute buffer: the replay of ggml's allocator, exact to the 4 decimals of the debug
     * log (a record beyond 5% is out of the bound; one off by more than the rounding
     * is a replay that no longer matches llama.cpp's graph); an architecture without a graph
     * gives none (LLMMEM__LCPP_GRAPH_NONE, refused by the runtime) */
    const double comp = sum_obj(cJSON_GetObjectItemCaseSensitive(r, "compute_exact"));
    if (mem.compute_inexact == LLMMEM__LCPP_GRAPH_NONE) {
        assert_int_equal(mem.compute_cpu, 0);
        t->none_n++;
    } else if (comp > 0) {
        const llmmem__ggml_traits *tk = llmmem__ggml_type(c.type_k), *tv = llmmem__ggml_type(c.type_v);
        const bool rot = (tk && tk->block > 1) || (tv && tv->block > 1);
        const double err = (mem.compute_cpu / MIB - comp) / comp;
        const bool exact = fabs(mem.compute_cpu / MIB - comp) <= 0.00006;
        if (fabs(err) > fabs(t->worst))
            t->worst = err;
        t->compute_n++;
        t->rot_n += rot;
        t->compute_fail += fabs(err) > 0.05;
        t->compute_inexact += !exact;
        printf("%-20s ctx %5.0f ub %4.0f fa %2.0f %-4s/%-4s seqs %.0f: compute ours %9.4f MiB llama.cpp %9.4f "
               "(%+6.2f%%)%s%s\n",
               name, num(s, "n_ctx", 0), num(s, "n_ubatch", 0), num(s, "flash_attn", -1),
               cJSON_GetObjectItemCaseSensitive(s, "type_k")->valuestring,
               cJSON_GetObjectItemCaseSensitive(s, "type_v")->valuestring, num(s, "n_seq_max", 1),
               mem.compute_cpu / MIB, comp, 100 * err, rot ? " rotated cache" : "",
               fabs(err) > 0.05 ? "  OUT OF BOUND" : !exact ? "  NOT EXACT" : "");
    }
    llmmem_model_free(m);
    free(hdr);
}

static void test_logs(void **state)
{
    (void)state;
    size_t n = 0;
    char *text = slurp(DIR "logs.jsonl", &n);
    if (!text)
        fail_msg("no " DIR "logs.jsonl (regenerate with make_logs.py)");
    tally t = {0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *r = cJSON_Parse(line);
        assert_non_null(r);
        check_record(r, &t);
        cJSON_Delete(r);
    }
    free(text);
    printf("llama.cpp CPU logs: %d records; weights, KV and output off in %d; compute replayed in %d "
           "(%d with a rotated quantized cache): worst %+.4f%%, %d beyond 5%%, %d not exact to 0.0001 MiB; "
           "no graph (recurrent) in %d\n",
           t.records, t.exact_fail, t.compute_n, t.rot_n, 100 * t.worst, t.compute_fail, t.compute_inexact,
           t.none_n);
    assert_true(t.records >= 90); /* 6 architectures x 5 types x 3 settings at least */
    assert_true(t.compute_n >= 90 && t.rot_n >= 30);
    assert_int_equal(t.exact_fail, 0);
    assert_int_equal(t.compute_fail, 0);
    assert_int_equal(t.compute_inexact, 0);
}

/* -ngl as llama-model.cpp load_tensors places layers: of the n_layer + 1 "layers" (the output
 * layer last) the last N go to the GPU; token embeddings stay on the CPU; --n-cpu-moe keeps
 * the first layers' experts on the CPU. Checked on the committed headers: which tensors end on
 * the GPU, by their names, summed here from the tensor list. */
static uint64_t sum_where(const llmmem__gguf *g, int lo, int hi, bool output, bool experts_too, int moe_cpu)
{
    uint64_t s = 0;
    for (uint32_t k = 0; k < g->n_tensors; k++) {
        const llmmem__gguf_tensor *x = &g->t[k];
        const char *name = llmmem__gguf_tensor_name(g, x);
        const bool exp = strstr(name, "_exps") != NULL;
        if (x->layer >= lo && x->layer < hi && (experts_too || !exp) && !(exp && x->layer < moe_cpu))
            s += x->bytes;
        if (output && x->layer == LLMMEM__GGUF_OUTPUT)
            s += x->bytes;
    }
    return s;
}

static llmmem_model *load_header(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, DIR "headers/%s.gguf", name);
    size_t n = 0;
    char *hdr = slurp(path, &n);
    if (!hdr)
        fail_msg("cannot read %s", path);
    /* the whole file's size does not matter for placement: a slice of a large file */
    llmmem_model *m = NULL;
    if (llmmem_model_from_gguf(&m, hdr, n, UINT64_C(1) << 40) != 0)
        fail_msg("%s: %s", path, llmmem_last_error());
    free(hdr);
    return m;
}

static void test_ngl(void **state)
{
    (void)state;
    static const char *const names[] = {"llama-f16", "qwen3moe-q4_k_m"};
    for (int i = 0; i < 2; i++) {
        llmmem_model *m = load_header(names[i]);
        const llmmem__gguf *g = m->gguf;
        const int L = (int)g->hp.n_layer;
        llmmem__lcpp_cfg c = {0};
        c.n_ctx = 512;
        c.n_batch = c.n_ubatch = 512;
        c.n_seq_max = 1;
        c.offload_kqv = true;
        c.flash_attn = true;
        c.type_k = c.type_v = LLMMEM__GGML_F16;
        c.gpu = true;
        uint64_t total = 0;
        for (uint32_t k = 0; k < g->n_tensors; k++)
            total += g->t[k].bytes;
        for (int ngl = 0; ngl <= L + 2; ngl++) {
            c.n_gpu_layers = ngl;
            llmmem__lcpp_mem mem;
            assert_int_equal(llmmem__lcpp_memory(&mem, g, &c), 0);
            /* all these tensors have rows of 512: no CUDA row padding; sizes are multiples of 128 */
            const int start = L + 1 - (ngl > L + 1 ? L + 1 : ngl);
            const uint64_t want = sum_where(g, start, L, ngl >= 1, true, 0);
            assert_int_equal(mem.w_gpu, want);
            assert_int_equal(mem.w_cpu + mem.w_gpu, total);
            assert_int_equal(mem.layers_gpu, L - start < 0 ? 0 : L - start);
            assert_int_equal(mem.output_gpu, ngl >= 1);
        }
        /* --n-cpu-moe 2 with every layer offloaded */
        c.n_gpu_layers = -1;
        c.n_cpu_moe = 2;
        llmmem__lcpp_mem mem;
        assert_int_equal(llmmem__lcpp_memory(&mem, g, &c), 0);
        assert_int_equal(mem.w_gpu, sum_where(g, 0, L, true, true, 2));
        llmmem_model_free(m);
    }
}

/* The runtime row through the public API: llmmem_estimate with runtime llama_cpp on a committed
 * header. The KV cache is the device-independent one llama.cpp printed for the same settings
 * (logs.jsonl); with every layer on the GPU the weights there are every tensor but the token
 * embeddings; a config.json model and a second GPU are refused; -ngl 0 leaves no weight on it. */
static void test_runtime(void **state)
{
    (void)state;
    llmmem_model *m = load_header("qwen3-q8_0");
    llmmem_config *c = NULL;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_config_set(c, "mode", "inference"), 0);
    assert_int_equal(llmmem_config_set(c, "runtime", "llama_cpp"), 0);
    /* the second setting of make_logs.py: ctx 4096, batch 2048, ubatch 512, flash attention off */
    assert_int_equal(llmmem_config_set(c, "ctx_size", "4096"), 0);
    assert_int_equal(llmmem_config_set(c, "n_batch", "2048"), 0);
    assert_int_equal(llmmem_config_set(c, "n_ubatch", "512"), 0);
    assert_int_equal(llmmem_config_set(c, "flash_attn", "off"), 0);
    if (llmmem_estimate(r, m, c) != 0)
        fail_msg("%s", llmmem_last_error());
    uint64_t kv = 0, w = 0;
    assert_int_equal(llmmem_result_get_u64(&kv, r, LLMMEM_R_KV_CACHE_BYTES), 0);
    assert_int_equal(llmmem_result_get_u64(&w, r, LLMMEM_R_WEIGHTS_BYTES), 0);
    assert_true(fabs(kv / MIB - 8.00) <= 0.0051); /* "llama_kv_cache: size = 8.00 MiB" */
    const llmmem__gguf *g = m->gguf;
    uint64_t want = 0;
    for (uint32_t k = 0; k < g->n_tensors; k++)
        if (g->t[k].layer != LLMMEM__GGUF_INPUT)
            want += g->t[k].bytes;
    assert_int_equal(w, want);
    int64_t ngl = -2;
    assert_int_equal(llmmem_plan_max_gpu_layers(&ngl, m, c), 0);
    assert_int_equal(ngl, g->hp.n_layer + 1); /* a tiny model fits on an H100 whole */
    assert_int_equal(llmmem_config_set(c, "n_gpu_layers", "0"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), 0);
    assert_int_equal(llmmem_result_get_u64(&w, r, LLMMEM_R_WEIGHTS_BYTES), 0);
    assert_int_equal(w, 0);
    assert_int_equal(llmmem_config_set(c, "tensor_parallel_size", "2"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_UNSUPPORTED);
    assert_int_equal(llmmem_config_set(c, "tensor_parallel_size", "1"), 0);
    /* a quantized V cache without flash attention: llama.cpp refuses it */
    assert_int_equal(llmmem_config_set(c, "cache_type_v", "q8_0"), 0);
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_INCONSISTENT);
    assert_non_null(strstr(llmmem_last_error(), "needs flash attention"));
    llmmem_model *p = NULL;
    assert_int_equal(llmmem_model_from_preset(&p, "qwen3-0.6b"), 0);
    assert_int_equal(llmmem_config_set(c, "cache_type_v", "f16"), 0);
    assert_int_equal(llmmem_estimate(r, p, c), LLMMEM_E_UNSUPPORTED);
    assert_non_null(strstr(llmmem_last_error(), "GGUF"));
    /* mamba: no graph of its own here, refused rather than guessed */
    llmmem_model *mb = load_header("mamba-f16");
    assert_int_equal(llmmem_estimate(r, mb, c) < 0, 1);
    llmmem_model_free(mb);
    llmmem_model_free(p);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_logs), cmocka_unit_test(test_ngl),
                                       cmocka_unit_test(test_runtime)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
