/* The replay of PyTorch's CUDA caching allocator (src/memory/replay.c), rule by rule of
 * c10/cuda/CUDACachingAllocator.cpp: 512-byte rounding; the small pool (<= 1 MiB in 2 MiB
 * segments) and the large pool (20 MiB segments for requests under 10 MiB, else the
 * request rounded to 2 MiB); best fit with the address as tie-break; splitting (the rest
 * kept when over 1 MiB in the large pool, 512 B in the small one); merging with free
 * neighbours; max_split_size (oversize blocks not split, reused within kLargeBuffer);
 * per-stream pools; empty_cache; garbage_collection_threshold; the budget (release of the
 * cache, then OOM); expandable segments (20 MiB pages, grown in place). Each expectation is
 * the allocator's own arithmetic on the sizes the test chooses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "replay/replay.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

static void start(llmmem__replay *r, bool expandable, uint64_t max_split, double gc, uint64_t budget)
{
    llmmem__alloc_conf conf = {expandable, max_split, gc, budget};
    llmmem__rp_init(r, &conf);
}

static int32_t a(llmmem__replay *r, uint64_t n) { return llmmem__rp_alloc(r, n, LLMMEM_C_OTHER, 0, "t"); }

static uint64_t size_of(const llmmem__replay *r, int32_t id) { return r->b[r->id2b[id]].size; }
static uint64_t addr_of(const llmmem__replay *r, int32_t id) { return r->b[r->id2b[id]].addr; }

static void rounding_and_pools(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 0);
    int32_t t1 = a(&r, 1);
    assert_int_equal(size_of(&r, t1), 512);            /* kMinBlockSize */
    assert_int_equal(r.reserved, 2 * MiB);             /* a small-pool segment */
    int32_t t2 = a(&r, 1000);
    assert_int_equal(size_of(&r, t2), 1024);
    assert_int_equal(r.reserved, 2 * MiB);             /* packed into the same segment */
    int32_t t3 = a(&r, 4 * MiB);
    assert_int_equal(r.reserved, 2 * MiB + 20 * MiB);  /* kLargeBuffer for 1-10 MiB */
    int32_t t4 = a(&r, 4 * MiB);
    assert_int_equal(r.reserved, 22 * MiB);            /* split from the same 20 MiB */
    assert_int_equal(addr_of(&r, t4), addr_of(&r, t3) + 4 * MiB);
    /* 11 MiB fits the 12 MiB left of that segment; the rest (1 MiB - 512 B) is not
     * worth a block: the whole 12 MiB is handed out */
    int32_t t5 = a(&r, 11 * MiB + 1);
    assert_int_equal(r.reserved, 22 * MiB);
    assert_int_equal(size_of(&r, t5), 12 * MiB);
    int32_t t6 = a(&r, 13 * MiB + 1);
    assert_int_equal(r.reserved, 22 * MiB + 14 * MiB); /* a new segment, rounded to 2 MiB */
    assert_int_equal(size_of(&r, t6), 14 * MiB);        /* its rest is under 1 MiB too */
    assert_int_equal(r.allocated, 512 + 1024 + 8 * MiB + 12 * MiB + 14 * MiB);
    (void)t1;
    (void)t2;
    llmmem__rp_release(&r);
}

/* Exact boundaries (issue 25 item 7), each side of torch's constants
 * (CUDACachingAllocator.cpp get_allocation_size and get_pool): a request of exactly
 * kSmallSize (1 MiB) is small (a 2 MiB segment, two of them share it), one 512-byte block
 * more is large (a kLargeBuffer of 20 MiB); a request under kMinLargeAlloc (10 MiB - 512 B)
 * gets a 20 MiB kLargeBuffer, exactly 10 MiB its own segment rounded to kRoundLarge. */
static void exact_boundaries(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 0);
    int32_t s1 = a(&r, MiB);
    assert_int_equal(r.reserved, 2 * MiB); /* size <= kSmallSize: kSmallBuffer */
    assert_int_equal(size_of(&r, s1), MiB);
    int32_t s2 = a(&r, MiB);
    assert_int_equal(r.reserved, 2 * MiB); /* the rest of the same small segment */
    assert_int_equal(addr_of(&r, s2), addr_of(&r, s1) + MiB);
    int32_t l1 = a(&r, MiB + 1);           /* rounded to 1 MiB + 512: the large pool */
    assert_int_equal(r.reserved, 2 * MiB + 20 * MiB);
    assert_int_equal(size_of(&r, l1), MiB + 512);
    llmmem__rp_release(&r);

    start(&r, false, 0, 0, 0);
    (void)a(&r, 10 * MiB - 512);           /* under kMinLargeAlloc: kLargeBuffer */
    assert_int_equal(r.reserved, 20 * MiB);
    llmmem__rp_release(&r);

    start(&r, false, 0, 0, 0);
    int32_t l2 = a(&r, 10 * MiB);          /* kMinLargeAlloc: its own 10 MiB segment */
    assert_int_equal(r.reserved, 10 * MiB);
    assert_int_equal(size_of(&r, l2), 10 * MiB);
    (void)a(&r, 10 * MiB + 1);             /* rounded up to 12 MiB (kRoundLarge) */
    assert_int_equal(r.reserved, 22 * MiB);
    llmmem__rp_release(&r);
}

static void best_fit_split_merge(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 0);
    int32_t big = a(&r, 100 * MiB), mid = a(&r, 40 * MiB);
    llmmem__rp_free(&r, big);
    llmmem__rp_free(&r, mid);
    uint64_t res = r.reserved;
    /* 30 MiB: the smallest free block that fits is the 40 MiB one, split (10 MiB left > 1 MiB) */
    int32_t x = a(&r, 30 * MiB);
    assert_int_equal(r.reserved, res);
    assert_int_equal(size_of(&r, x), 30 * MiB);
    /* 39.5 MiB fits neither the 10 MiB rest: the 100 MiB block is split */
    int32_t y = a(&r, 39 * MiB + 512 * KiB);
    assert_int_equal(r.reserved, res);
    /* a block whose rest would be <= 1 MiB is not split: the whole block is handed out */
    llmmem__rp_free(&r, x);
    int32_t z = a(&r, 39 * MiB + 512 * KiB);
    assert_int_equal(size_of(&r, z), 40 * MiB);
    /* freeing both halves merges them back into one block of the segment */
    llmmem__rp_free(&r, y);
    llmmem__rp_free(&r, z);
    int32_t w = a(&r, 100 * MiB);
    assert_int_equal(r.reserved, res);
    assert_int_equal(size_of(&r, w), 100 * MiB);
    llmmem__rp_release(&r);
}

static void streams_and_empty_cache(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 0);
    int32_t t = a(&r, 64 * MiB);
    llmmem__rp_free(&r, t);
    /* another stream does not reuse the default stream's cached block */
    int32_t c = llmmem__rp_alloc(&r, 64 * MiB, LLMMEM_C_COMM_BUFFERS, LLMMEM__ST_COMM, "comm");
    assert_int_equal(r.reserved, 128 * MiB);
    /* 8 MiB on the default stream: best fit is the cached 64 MiB block, split; its live
     * part keeps the whole segment from empty_cache */
    int32_t keep = a(&r, 8 * MiB);
    assert_int_equal(r.reserved, 128 * MiB);
    llmmem__rp_empty_cache(&r);
    assert_int_equal(r.reserved, 128 * MiB);
    llmmem__rp_free(&r, c);
    llmmem__rp_empty_cache(&r);
    assert_int_equal(r.reserved, 64 * MiB);
    llmmem__rp_free(&r, keep);
    llmmem__rp_empty_cache(&r);
    assert_int_equal(r.reserved, 0);
    assert_int_equal(r.peak_reserved, 128 * MiB);
    llmmem__rp_release(&r);
}

static void max_split_size(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 64 * MiB, 0, 0);
    int32_t big = a(&r, 200 * MiB);
    llmmem__rp_free(&r, big);
    /* a request under max_split_size never takes an oversize block */
    int32_t small = a(&r, 30 * MiB);
    assert_int_equal(r.reserved, 230 * MiB);
    /* an oversize request reuses an oversize block only within kLargeBuffer (20 MiB) */
    int32_t near = a(&r, 190 * MiB);
    assert_int_equal(r.reserved, 230 * MiB);
    assert_int_equal(size_of(&r, near), 200 * MiB); /* not split */
    llmmem__rp_free(&r, near);
    int32_t far = a(&r, 150 * MiB);
    assert_int_equal(r.reserved, 380 * MiB);
    (void)small;
    (void)far;
    llmmem__rp_release(&r);
}

static void budget_releases_cache_then_oom(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 1 * GiB);
    int32_t t = a(&r, 600 * MiB);
    llmmem__rp_free(&r, t);
    /* 700 MiB does not fit the cached 600: cudaMalloc would pass the budget, so the
     * cached segment is released first */
    int32_t u = a(&r, 700 * MiB);
    assert_false(r.oom);
    assert_int_equal(r.reserved, 700 * MiB);
    assert_int_equal(r.peak_reserved, 700 * MiB);
    int32_t v = a(&r, 400 * MiB); /* past the budget with nothing to release */
    assert_true(r.oom);
    (void)u;
    (void)v;
    llmmem__rp_release(&r);
}

static void garbage_collection(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0.5, 1 * GiB);
    int32_t t = a(&r, 300 * MiB);
    int32_t u = a(&r, 300 * MiB);
    llmmem__rp_free(&r, t);
    llmmem__rp_free(&r, u);
    /* 600 MiB cached > 0.5 x 1 GiB: before the next cudaMalloc the old unsplit blocks go */
    int32_t v = a(&r, 400 * MiB);
    assert_int_equal(r.reserved, 400 * MiB);
    (void)v;
    llmmem__rp_release(&r);
}

static void expandable_segments(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, true, 0, 0, 0);
    int32_t t = a(&r, 30 * MiB);
    assert_int_equal(r.reserved, 40 * MiB); /* 20 MiB pages of the large pool */
    int32_t u = a(&r, 30 * MiB);
    assert_int_equal(r.reserved, 60 * MiB); /* grown in place: 10 MiB left + one page */
    assert_int_equal(addr_of(&r, u), addr_of(&r, t) + 30 * MiB);
    llmmem__rp_free(&r, t);
    llmmem__rp_free(&r, u);
    int32_t v = a(&r, 55 * MiB); /* the freed range is one block again */
    assert_int_equal(r.reserved, 60 * MiB);
    llmmem__rp_free(&r, v);
    llmmem__rp_empty_cache(&r); /* the free pages are unmapped */
    assert_int_equal(r.reserved, 0);
    llmmem__rp_release(&r);
}

static void prior_segment(void **state)
{
    (void)state;
    llmmem__replay r;
    start(&r, false, 0, 0, 0);
    int32_t ws = llmmem__rp_prior_segment(&r, 2 * GiB, 32 * MiB, LLMMEM_C_WORKSPACE, "ws");
    assert_true(ws >= 0);
    assert_int_equal(r.reserved, 2 * GiB);
    int32_t t = a(&r, 1 * GiB); /* the rest of the segment is reusable */
    assert_int_equal(r.reserved, 2 * GiB);
    (void)t;
    llmmem__rp_release(&r);
}

/* xorshift64*: the random programs below are the same on every run */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/* Random allocation programs under each allocator setting (plain, max_split_size,
 * garbage collection, expandable segments, a budget tight enough to release the cache
 * and to fail): after every event the bookkeeping keeps its rules (llmmem__rp_check:
 * the free sets ordered by (size, address) and balanced, their searches equal to a
 * linear scan, neighbours merged, reserved and allocated equal to the blocks' sums). */
static void random_programs(void **state)
{
    (void)state;
    static const struct {
        bool exp;
        uint64_t max_split;
        double gc;
        uint64_t budget;
    } confs[] = {{false, 0, 0, 0}, {false, 64 * MiB, 0, 0}, {false, 0, 0.5, 2 * GiB},
                 {true, 0, 0, 0},  {false, 0, 0, 1 * GiB},  {true, 0, 0, 1 * GiB},
                 {false, 32 * MiB, 0.7, 1536 * MiB}};
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t k = 0; k < sizeof confs / sizeof confs[0]; k++)
        for (int run = 0; run < 3; run++) {
            llmmem__replay r;
            start(&r, confs[k].exp, confs[k].max_split, confs[k].gc, confs[k].budget);
            int32_t live[256];
            int n = 0;
            for (int e = 0; e < 1500; e++) {
                uint64_t u = rnd(&x);
                if (n > 0 && (u % 100 < 45 || n == 256)) { /* free a live tensor */
                    int i = (int)((u >> 8) % (uint64_t)n);
                    llmmem__rp_free(&r, live[i]);
                    live[i] = live[--n];
                } else if (u % 100 < 47) {
                    llmmem__rp_empty_cache(&r);
                } else { /* small, mid-size (20 MiB segments) and large requests */
                    uint64_t kind = (u >> 8) % 10, v = rnd(&x);
                    uint64_t bytes = kind < 5   ? 1 + v % MiB
                                     : kind < 8 ? MiB + v % (9 * MiB)
                                                : 10 * MiB + v % (150 * MiB);
                    if (v % 7 == 0) /* many requests of a size seen before */
                        bytes = (1 + v % 4) * 2 * MiB;
                    int32_t id = llmmem__rp_alloc(&r, bytes, LLMMEM_C_OTHER, (int)(v >> 60) % 2, "t");
                    assert_true(id >= 0);
                    live[n++] = id;
                }
                const char *bad = llmmem__rp_check(&r);
                if (bad)
                    fail_msg("setting %zu, run %d, event %d: %s", k, run, e, bad);
            }
            llmmem__rp_release(&r);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounding_and_pools),
        cmocka_unit_test(exact_boundaries),
        cmocka_unit_test(best_fit_split_merge),
        cmocka_unit_test(streams_and_empty_cache),
        cmocka_unit_test(max_split_size),
        cmocka_unit_test(budget_releases_cache_then_oom),
        cmocka_unit_test(garbage_collection),
        cmocka_unit_test(expandable_segments),
        cmocka_unit_test(prior_segment),
        cmocka_unit_test(random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
