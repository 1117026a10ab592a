/* Per-record bounds of test/data/tolerances.tsv for the C tests that compare an
 * estimate with a measured figure of an H200 record: the same rows test/accuracy.py
 * reads (the file's header says how they are set and tightened). The measured number
 * is compared as recorded; where the measuring process explains part of an error, the
 * row's note says so. Include after <cmocka.h>; tests run from the repository root. */
#ifndef LLMMEM_TEST_TOLERANCES_H
#define LLMMEM_TEST_TOLERANCES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCES_TSV "test/data/tolerances.tsv"

/* The bound in percent of (id, figure); fails the test when the file has no such row. */
static inline double tolerance_pct(const char *id, const char *figure)
{
    FILE *f = fopen(TOLERANCES_TSV, "r");
    if (!f)
        fail_msg("cannot open %s (run from the repository root)", TOLERANCES_TSV);
    char line[4096];
    double t = -1.0;
    while (t < 0 && fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *save = NULL;
        const char *a = strtok_r(line, "\t\n", &save);
        const char *b = strtok_r(NULL, "\t\n", &save);
        const char *c = strtok_r(NULL, "\t\n", &save);
        if (a && b && c && strcmp(a, id) == 0 && strcmp(b, figure) == 0)
            t = strtod(c, NULL);
    }
    fclose(f);
    if (t < 0)
        fail_msg("%s: no row \"%s\t%s\"", TOLERANCES_TSV, id, figure);
    return t;
}

/* Requires |estimate - measured| / measured within the row's bound; prints the error. */
static inline void check_measured(const char *id, const char *figure, uint64_t estimate,
                                  uint64_t measured)
{
    double tol = tolerance_pct(id, figure);
    double e = 100.0 * ((double)estimate - (double)measured) / (double)measured;
    printf("  %s %s: estimate %llu, measured %llu, %+.4f%% (bound %.2f%%)\n", id, figure,
           (unsigned long long)estimate, (unsigned long long)measured, e, tol);
    if (fabs(e) > tol)
        fail_msg("%s %s: %+.4f%% from the measurement, bound %.2f%% (%s)", id, figure, e, tol,
                 TOLERANCES_TSV);
}

#endif /* LLMMEM_TEST_TOLERANCES_H */
