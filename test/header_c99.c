/* include/llmmem.h must compile alone as C99 (-std=c99 -Wall -Wextra -pedantic -Werror),
 * twice (include guard), and its declarations must be usable. Built by test/test_header.sh. */
#include "llmmem.h"
#include "llmmem.h"

int main(void)
{
    /* Take the address of a few functions so the declarations are checked, without linking. */
    int (*estimate)(llmmem_result *, const llmmem_model *, const llmmem_config *) = llmmem_estimate;
    const char *(*name)(int) = llmmem_param_name;
    llmmem_status st = LLMMEM_OK;
    enum { VERSION_OK = LLMMEM_VERSION_NUMBER >= 100 };
    (void)estimate;
    (void)name;
    return (int)st + (VERSION_OK ? 0 : 1);
}
