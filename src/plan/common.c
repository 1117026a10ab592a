/* What the planner's searches share: divisor lists and parameter bounds. */
#include "plan/plan.h"

int llmmem__plan_divisors(int64_t *d, int cap, int64_t n)
{
    int lo = 0, hi = 0;
    int64_t big[LLMMEM__PLAN_MAX_B_DIV];
    for (int64_t i = 1; i <= n / i; i++) {
        if (n % i)
            continue;
        if (lo < cap)
            d[lo++] = i;
        if (i != n / i && hi < LLMMEM__PLAN_MAX_B_DIV)
            big[hi++] = n / i;
    }
    for (int j = hi - 1; j >= 0 && lo < cap; j--)
        d[lo++] = big[j];
    return lo;
}

int64_t llmmem__plan_param_hi(int param)
{
    const llmmem__param_info *p = llmmem__param_find(param);
    return p ? p->hi : 1;
}
