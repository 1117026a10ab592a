/* What the shortcut tests share (test_megatron_stages.c, test_vllm_layers.c): a fast path
 * held to the slow one it stands for, on random settings. A seeded splitmix64 and a pick
 * among strings; the estimate's JSON, or its status and message, with the test-only switch
 * that forces the slow path set for one estimate. Include after cmocka.h and llmmem.h,
 * with SHORTCUT_SEED defined (each test its own sequence). */
#ifndef LLMMEM_TEST_SHORTCUT_H
#define LLMMEM_TEST_SHORTCUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_CAP (1 << 17)

static char json_a[JSON_CAP], json_b[JSON_CAP];

static uint64_t rng_state = SHORTCUT_SEED;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static const char *pick(const char *const *v, size_t n) { return v[rnd() % n]; }
#define PICK(a) pick(a, sizeof a / sizeof a[0])

/* The estimate's JSON into buf, or its status and message, with *slow set to slow for
 * this estimate alone; its status returned. */
static int estimate_json(char *buf, llmmem_model *m, llmmem_config *c, bool *slow_switch, bool slow)
{
    *slow_switch = slow;
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    int rc = llmmem_estimate(r, m, c);
    size_t need = 0;
    if (rc == 0)
        assert_int_equal(llmmem_result_to_json(buf, JSON_CAP, &need, r), 0);
    else
        snprintf(buf, JSON_CAP, "error %d: %s", rc, llmmem_last_error());
    llmmem_result_free(r);
    *slow_switch = false;
    return rc;
}

static void set(llmmem_config *c, const char *k, const char *v)
{
    if (llmmem_config_set(c, k, v))
        fail_msg("config_set %s=%s: %s", k, v, llmmem_last_error());
}

#endif /* LLMMEM_TEST_SHORTCUT_H */
