/* The verdict is a function of the numbers (issue 25 item 3): fits iff total <= capacity,
 * headroom = capacity - total with the sign of the verdict, utilization = total /
 * capacity, on every path (the allocator replay running out of memory, vLLM refusing to
 * start, --num-gpu-blocks-override past the GPU); exact boundaries (total == capacity
 * fits, one byte less does not); the margin that tells a near-boundary verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llmmem.h"
#include "core/result.h" /* replay_oom: what the allocator replay itself concluded */

static llmmem_model *preset(const char *name)
{
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, name), 0);
    return m;
}

static void set(llmmem_config *c, const char *name, const char *value)
{
    if (llmmem_config_set(c, name, value))
        fail_msg("%s=%s: %s", name, value, llmmem_last_error());
}

typedef struct verdict {
    bool oom;
    int64_t fits, headroom;
    uint64_t total, cap, margin;
    double util;
} verdict;

/* Estimates and checks the verdict against the numbers. */
static verdict estimate(const llmmem_model *m, const llmmem_config *c)
{
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    if (llmmem_estimate(r, m, c))
        fail_msg("estimate: %s", llmmem_last_error());
    verdict v;
    assert_int_equal(llmmem_result_get_i64(&v.fits, r, LLMMEM_R_FITS), 0);
    assert_int_equal(llmmem_result_get_i64(&v.headroom, r, LLMMEM_R_HEADROOM_BYTES), 0);
    assert_int_equal(llmmem_result_get_u64(&v.total, r, LLMMEM_R_TOTAL_BYTES_PER_GPU), 0);
    assert_int_equal(llmmem_result_get_u64(&v.cap, r, LLMMEM_R_GPU_MEMORY_BYTES), 0);
    assert_int_equal(llmmem_result_get_u64(&v.margin, r, LLMMEM_R_MARGIN_BYTES), 0);
    assert_int_equal(llmmem_result_get_f64(&v.util, r, LLMMEM_R_UTILIZATION), 0);
    uint64_t reserved;
    assert_int_equal(llmmem_result_get_u64(&reserved, r, LLMMEM_R_PEAK_RESERVED_BYTES), 0);
    if (v.fits != (v.total <= v.cap))
        fail_msg("fits %lld but total %llu, capacity %llu", (long long)v.fits, (unsigned long long)v.total,
                 (unsigned long long)v.cap);
    assert_true(v.headroom == (int64_t)(v.cap - v.total));
    assert_true((v.headroom >= 0) == (v.fits != 0));
    assert_true(v.util == (double)v.total / (double)v.cap);
    /* a replay that ran out of memory (a segment the GPU could not hold even after the
     * cache was released: torch's OutOfMemoryError) never fits, whatever peak + slack says */
    if (r->replay_oom && v.fits)
        fail_msg("the allocator replay ran out of memory, yet fits (total %llu, capacity %llu)",
                 (unsigned long long)v.total, (unsigned long long)v.cap);
    v.oom = r->replay_oom;
    /* 5% of the reserved bytes, rounded up */
    assert_true(v.margin * 20 >= reserved && (v.margin - 1) * 20 < reserved);
    llmmem_result_free(r);
    return v;
}

/* Llama-3.1-8B on one H100: the replay runs out of memory at lengths whose total it used to
 * put under the capacity (seq 4280, 4281, 4362: fits false, headroom +91, +88, +65 MB before).
 * Every ninth length up to 4000, then each up to 4500: the verdict follows the numbers. */
static void replay_out_of_memory(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.1-8b");
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    int flips = 0, prev = -1, ooms = 0;
    for (int64_t s = 1; s <= 4500; s += s < 4000 ? 9 : 1) {
        assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_SEQ_LEN, s), 0);
        verdict v = estimate(m, c);
        flips += prev >= 0 && prev != (int)v.fits;
        prev = (int)v.fits;
        ooms += v.oom;
    }
    assert_true(flips > 2); /* the shape that makes the planner check every value */
    assert_true(ooms > 0);  /* lengths where the replay itself runs out of memory */
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* total == capacity fits with headroom 0, one byte less capacity does not (-1 B). The rule of
 * thumb (no replay) keeps the total independent of the capacity. */
static void exact_boundary(void **state)
{
    (void)state;
    static const char *const presets[] = {"llama-3.2-1b", "qwen2.5-0.5b", "mixtral-8x7b"};
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        llmmem_model *m = preset(presets[i]);
        llmmem_config *c = NULL;
        assert_int_equal(llmmem_config_new(&c), 0);
        set(c, "allocator_replay", "false");
        verdict v = estimate(m, c);
        assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)v.total), 0);
        verdict at = estimate(m, c);
        assert_int_equal(at.total, v.total);
        assert_int_equal(at.fits, 1);
        assert_int_equal(at.headroom, 0);
        assert_true(at.margin > 0); /* headroom 0 is within the margin: near the boundary */
        assert_int_equal(llmmem_config_set_i64(c, LLMMEM_P_GPU_MEMORY_BYTES, (int64_t)v.total - 1), 0);
        verdict over = estimate(m, c);
        assert_int_equal(over.total, v.total);
        assert_int_equal(over.fits, 0);
        assert_int_equal(over.headroom, -1);
        llmmem_config_free(c);
        llmmem_model_free(m);
    }
}

/* vLLM: an override of the block count past the GPU does not fit (it printed "Fits yes
 * (6171.5% ...)"); a vLLM that refuses its budget does not fit and its headroom is negative
 * (it was +48 GB at gpu_memory_utilization 0.2). */
static void vllm_verdicts(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.1-8b");
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    set(c, "mode", "inference");
    set(c, "runtime", "vllm");
    verdict plain = estimate(m, c);
    assert_int_equal(plain.fits, 1);
    set(c, "num_gpu_blocks_override", "10000000");
    verdict over = estimate(m, c);
    assert_int_equal(over.fits, 0);
    assert_true(over.total > 10 * over.cap);
    set(c, "num_gpu_blocks_override", "0");
    set(c, "gpu_memory_utilization", "0.2");
    verdict low = estimate(m, c);
    assert_int_equal(low.fits, 0);
    assert_true(low.headroom < 0);
    set(c, "gpu_memory_utilization", "0.9");
    set(c, "gpu", "L4");
    verdict small = estimate(m, c); /* the 128k default context on a 22 GiB GPU */
    assert_int_equal(small.fits, 0);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* The margin tells a near-boundary fit from a clear one. */
static void margin(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    verdict clear = estimate(m, c);
    assert_true(clear.fits && (uint64_t)clear.headroom > clear.margin);
    llmmem_model *big = preset("llama-3.1-8b");
    verdict near = estimate(big, c);
    assert_true(near.fits && (uint64_t)near.headroom < near.margin);
    llmmem_model_free(big);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_out_of_memory),
        cmocka_unit_test(exact_boundary),
        cmocka_unit_test(vllm_verdicts),
        cmocka_unit_test(margin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
