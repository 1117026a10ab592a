// include/llmmem.h must compile alone as C++11 (-std=c++11 -Wall -Wextra -pedantic -Werror)
// with C linkage. Built by test/test_header.sh.
#include "llmmem.h"
#include "llmmem.h"

static_assert(LLMMEM_VERSION_NUMBER ==
                  LLMMEM_VERSION_MAJOR * 10000 + LLMMEM_VERSION_MINOR * 100 + LLMMEM_VERSION_PATCH,
              "version macros agree");

int main()
{
    int (*estimate)(llmmem_result *, const llmmem_model *, const llmmem_config *) = llmmem_estimate;
    void (*model_free)(llmmem_model *) = llmmem_model_free;
    llmmem_param p = LLMMEM_P_MICRO_BATCH_SIZE;
    (void)estimate;
    (void)model_free;
    return p == LLMMEM_P_MICRO_BATCH_SIZE ? 0 : 1;
}
