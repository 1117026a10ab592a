/* Force-included (-include fuzz/cli_shim.h) when each file of examples/cli/ is compiled into
 * fuzz_cli (libFuzzer) or its replay driver. Makes the CLI callable in a loop without
 * editing it:
 *   - main becomes llmmem_cli_main;
 *   - exit() becomes llmmem_fuzz_exit(), which longjmps back to the harness (fuzz_cli.c);
 *   - stdout and stderr go to /dev/null (printf, puts, putchar included);
 *   - fopen() for writing (--svg FILE) opens /dev/null; for reading, only regular files
 *     are opened (a FIFO or a terminal would block the fuzzer);
 *   - fclose() forgets the stream, so the harness can close what an exit left open.
 * stdio.h and stdlib.h are included first so their own declarations are untouched. */
#ifndef LLMMEM_FUZZ_CLI_SHIM_H
#define LLMMEM_FUZZ_CLI_SHIM_H

#include <stdio.h>
#include <stdlib.h>

extern FILE *llmmem_fuzz_out;
_Noreturn void llmmem_fuzz_exit(int code);
FILE *llmmem_fuzz_fopen(const char *path, const char *mode);
int llmmem_fuzz_fclose(FILE *f);
int llmmem_fuzz_puts(const char *s);
int llmmem_cli_main(int argc, char **argv);

#undef stdout
#undef stderr
#define stdout llmmem_fuzz_out
#define stderr llmmem_fuzz_out
#define printf(...) fprintf(llmmem_fuzz_out, __VA_ARGS__)
#define puts(s) llmmem_fuzz_puts(s)
#undef putchar
#define putchar(c) fputc((c), llmmem_fuzz_out)
#define exit(c) llmmem_fuzz_exit(c)
#define fopen(p, m) llmmem_fuzz_fopen((p), (m))
#define fclose(f) llmmem_fuzz_fclose(f)
#define main llmmem_cli_main

#endif
