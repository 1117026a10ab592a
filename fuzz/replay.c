/* Standalone replay driver for the fuzz targets: built with any C compiler, no libFuzzer.
 * Links with one fuzz/fuzz_<target>.c and calls its LLVMFuzzerTestOneInput once per file
 * named on the command line (a directory: every regular file in it, sorted order is not
 * needed). Exit status 0 when every input ran; a crash or an invariant failure aborts. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return 1;
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    /* an exact-size copy, so a read past the end is caught by ASan as in libFuzzer */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    if (n)
        memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int failures = 0, ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no %s\n", argv[i]);
            failures++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += run_file(argv[i]);
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            failures++;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *path = malloc(len);
            if (!path) {
                failures++;
                break;
            }
            snprintf(path, len, "%s/%s", argv[i], e->d_name);
            struct stat fst;
            if (stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
                failures += run_file(path);
                ran++;
            }
            free(path);
        }
        closedir(d);
    }
    printf("replay: %d inputs, %d failures\n", ran, failures);
    return failures ? 1 : 0;
}
