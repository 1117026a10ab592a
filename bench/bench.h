/* The timing harness of the bench programs (`make bench`; never a timed test).
 *
 * A case is a body called with an index i; the body picks its input from a
 * cycle of different models and configurations by i, so consecutive calls
 * never repeat an input, and returns the library's status. Every status is
 * checked: a call that fails stops the bench with exit status 1, naming the
 * case and the input.
 *
 * A case is warmed up with one whole cycle, then timed in BENCH_ROUNDS rounds;
 * a round runs whole cycles until it has lasted at least BENCH_ROUND_S of CPU
 * time, and its time per call is the round's time / its calls. Time is the CPU
 * time of the bench's thread (CLOCK_THREAD_CPUTIME_ID): on a machine shared
 * with other work, the time the thread waits for a core is not counted; the
 * wall-clock median is printed beside it. The table shows the median and the
 * fastest of the rounds: the median is the figure to compare, the spread to
 * the minimum shows what the rest of the machine costs (caches, frequency). */
#ifndef LLMMEM_BENCH_BENCH_H
#define LLMMEM_BENCH_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llmmem.h>

#define BENCH_ROUNDS 7
#define BENCH_ROUND_S 0.1

static inline double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread, seconds. */
static inline double bench_cpu(void) { return bench_clock(CLOCK_THREAD_CPUTIME_ID); }
/* Wall-clock time, seconds. */
static inline double bench_wall(void) { return bench_clock(CLOCK_MONOTONIC); }

/* A library call that failed: the bench stops (exit status 1). */
static inline void bench_fail(int rc, const char *what, const char *input)
{
    fprintf(stderr, "bench: %s%s%s: %s: %s\n", what, input ? ", input " : "", input ? input : "",
            llmmem_status_name(rc), llmmem_last_error());
    exit(1);
}

static inline void bench_check(int rc, const char *what)
{
    if (rc != 0)
        bench_fail(rc, what, NULL);
}

/* A case: body(ctx, i) runs the call on input i % cycle and returns its status;
 * name(ctx, i) names input i for an error message (NULL: none). */
typedef int (*bench_body)(void *ctx, long i);
typedef const char *(*bench_namer)(void *ctx, long i);
typedef struct bench_case {
    const char *what;
    bench_body body;
    bench_namer name;
    void *ctx;
    long cycle; /* inputs in the cycle; a round runs whole cycles */
} bench_case;

typedef struct bench_stat {
    double median, min; /* CPU seconds per call over the rounds */
    double wall;        /* wall-clock seconds per call, median of the rounds */
    long calls;         /* calls timed in all rounds */
} bench_stat;

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v and returns its median. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void bench_call(const bench_case *c, long i)
{
    int rc = c->body(c->ctx, i);
    if (rc != 0)
        bench_fail(rc, c->what, c->name ? c->name(c->ctx, i % c->cycle) : NULL);
}

/* Whole cycles between two readings of the clocks: about 200 us of work,
 * from the warm-up cycle's time t. */
static inline long bench_cycles_per_check(double t)
{
    long n = t > 0 ? (long)(200e-6 / t) : 1;
    return n < 1 ? 1 : n > 1000 ? 1000 : n;
}

static inline bench_stat bench_time(const bench_case *c)
{
    double cpu[BENCH_ROUNDS], wall[BENCH_ROUNDS];
    bench_stat st = {0, 0, 0, 0};
    double t0 = bench_cpu();
    for (long i = 0; i < c->cycle; i++) /* warm-up: every input once */
        bench_call(c, i);
    const long per_check = bench_cycles_per_check(bench_cpu() - t0);
    for (int r = 0; r < BENCH_ROUNDS; r++) {
        long calls = 0;
        double c0 = bench_cpu(), w0 = bench_wall(), t;
        do {
            for (long n = 0; n < per_check; n++)
                for (long k = 0; k < c->cycle; k++)
                    bench_call(c, calls++);
            t = bench_cpu();
        } while (t - c0 < BENCH_ROUND_S);
        cpu[r] = (t - c0) / (double)calls;
        wall[r] = (bench_wall() - w0) / (double)calls;
        st.calls += calls;
    }
    st.median = bench_median(cpu, BENCH_ROUNDS);
    st.min = cpu[0]; /* sorted by bench_median */
    st.wall = bench_median(wall, BENCH_ROUNDS);
    return st;
}

/* ---- the table -------------------------------------------------------------- */

static int bench_slow; /* a measured case over its target */

static inline double bench_scale(const char *unit)
{
    return strcmp(unit, "ns") == 0 ? 1e9 : strcmp(unit, "us") == 0 ? 1e6 : 1e3;
}

static inline void bench_header(void)
{
    printf("| %-46s | %12s | %12s | %12s | %9s | %-4s | %s\n", "case", "median", "min", "wall median",
           "target", "", "notes");
    printf("|%s|%s|%s|%s|%s|%s|%s\n", "------------------------------------------------", "--------------",
           "--------------", "--------------", "-----------", "------", "------");
}

/* target <= 0: no target (no verdict). Times in seconds; unit scales the printout. */
static inline void bench_row(const char *name, bench_stat st, double target, const char *unit,
                             const char *note)
{
    const double s = bench_scale(unit);
    char tgt[32] = "-";
    const char *verdict = "";
    if (target > 0) {
        snprintf(tgt, sizeof tgt, "%.0f %s", target * s, unit);
        verdict = st.median <= target ? "ok" : "SLOW";
        if (st.median > target)
            bench_slow = 1;
    }
    printf("| %-46s | %9.3f %s | %9.3f %s | %9.3f %s | %9s | %-4s |%s%s\n", name, st.median * s, unit,
           st.min * s, unit, st.wall * s, unit, tgt, verdict, note && *note ? " " : "", note ? note : "");
}

/* A case that could not run: why, in place of the figures. */
static inline void bench_row_na(const char *name, const char *why)
{
    printf("| %-46s | %12s | %12s | %12s | %9s | n/a  | %s\n", name, "-", "-", "-", "-", why);
}

/* Exit status: 0, or with BENCH_STRICT=1 in the environment 1 when a case is SLOW. */
static inline int bench_exit_status(void)
{
    const char *strict = getenv("BENCH_STRICT");
    return strict && strcmp(strict, "1") == 0 ? bench_slow : 0;
}

#endif /* LLMMEM_BENCH_BENCH_H */
