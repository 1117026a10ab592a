/* libFuzzer target: the command-line parser and commands of examples/cli/, each file compiled
 * with -include fuzz/cli_shim.h (main -> llmmem_cli_main, exit -> a longjmp back here,
 * output to /dev/null). The input is split on NUL bytes into argv[1..] (at most 64).
 *
 * The CLI exits on errors without freeing what it holds (a process would give it back).
 * To keep LeakSanitizer meaningful, the link wraps malloc/calloc/realloc/free
 * (-Wl,--wrap=...): while the CLI runs, every live block is tracked, and when the CLI
 * "exits" the harness frees the blocks still live and closes the streams still open.
 * On a normal return nothing is freed here: a block left live is a real leak and
 * LeakSanitizer reports it. */
#include "fuzz_common.h"

#include <errno.h>
#include <setjmp.h>
#include <sys/stat.h>

#define MAX_ARGS 64
#define TRACK_CAP (1u << 16) /* open addressing; power of two */
#define MAX_FILES 16

int llmmem_cli_main(int argc, char **argv);
_Noreturn void llmmem_fuzz_exit(int code); /* the four of fuzz/cli_shim.h */
int llmmem_fuzz_puts(const char *s);
FILE *llmmem_fuzz_fopen(const char *path, const char *mode);
int llmmem_fuzz_fclose(FILE *f);
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

FILE *llmmem_fuzz_out;
static jmp_buf exit_jump;
static int exit_code;
static int tracking;
static int track_overflow;
static void *live[TRACK_CAP];
static void *const TOMB = (void *)&live; /* a freed slot */
static FILE *open_files[MAX_FILES];

static size_t slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 16) & (TRACK_CAP - 1);
}

static void track_add(void *p)
{
    if (!tracking || !p)
        return;
    for (size_t i = slot_of(p), n = 0; n < TRACK_CAP; i = (i + 1) & (TRACK_CAP - 1), n++)
        if (live[i] == NULL || live[i] == TOMB) {
            live[i] = p;
            return;
        }
    track_overflow = 1;
}

static void track_remove(void *p)
{
    if (!p)
        return;
    for (size_t i = slot_of(p), n = 0; n < TRACK_CAP && live[i]; i = (i + 1) & (TRACK_CAP - 1), n++)
        if (live[i] == p) {
            live[i] = TOMB;
            return;
        }
}

void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    track_add(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
    void *p = __real_calloc(n, m);
    track_add(p);
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    void *q = __real_realloc(p, n);
    if (q) {
        track_remove(p);
        track_add(q);
    }
    return q;
}

void __wrap_free(void *p)
{
    if (tracking)
        track_remove(p);
    __real_free(p);
}

_Noreturn void llmmem_fuzz_exit(int code)
{
    exit_code = code;
    longjmp(exit_jump, 1);
}

int llmmem_fuzz_puts(const char *s)
{
    return fprintf(llmmem_fuzz_out, "%s\n", s);
}

#undef fopen
#undef fclose
FILE *llmmem_fuzz_fopen(const char *path, const char *mode)
{
    FILE *f;
    if (mode[0] == 'r') {
        struct stat st;
        if (stat(path, &st) != 0)
            return NULL;
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            errno = EACCES;
            return NULL;
        }
        f = fopen(path, mode);
    } else {
        f = fopen("/dev/null", mode);
    }
    for (int i = 0; f && i < MAX_FILES; i++)
        if (!open_files[i]) {
            open_files[i] = f;
            break;
        }
    return f;
}

int llmmem_fuzz_fclose(FILE *f)
{
    for (int i = 0; i < MAX_FILES; i++)
        if (open_files[i] == f)
            open_files[i] = NULL;
    return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!llmmem_fuzz_out) {
        llmmem_fuzz_out = fopen("/dev/null", "w");
        FUZZ_CHECK(llmmem_fuzz_out != NULL);
    }
    /* argv strings, each NUL-terminated, in one private copy */
    char *text = fuzz_dup(data, size);
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"llmmem";
    for (size_t pos = 0; pos < size && argc <= MAX_ARGS;) {
        argv[argc++] = text + pos;
        pos += strlen(text + pos) + 1;
    }
    argv[argc] = NULL;

    memset(live, 0, sizeof live);
    track_overflow = 0;
    exit_code = -1;
    tracking = 1;
    volatile int rc = -1;
    if (setjmp(exit_jump) == 0) {
        rc = llmmem_cli_main(argc, argv);
    } else {
        /* the CLI called exit(): give back what it held */
        tracking = 0;
        rc = exit_code;
        for (size_t i = 0; i < TRACK_CAP; i++)
            if (live[i] && live[i] != TOMB)
                __real_free(live[i]);
        for (int i = 0; i < MAX_FILES; i++)
            if (open_files[i]) {
                fclose(open_files[i]);
                open_files[i] = NULL;
            }
    }
    tracking = 0;
    fflush(llmmem_fuzz_out);
    FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2); /* the CLI's documented exit statuses */
    FUZZ_CHECK(!track_overflow);
    free(text);
    return 0;
}
