/* Replays an event list through the library's model of PyTorch's CUDA caching
 * allocator (src/memory/replay.c) and prints what the allocator would count.
 *
 * Input (stdin), one event a line, as test/reference/replay_feed.py writes them:
 *   a ID BYTES STREAM   allocation of BYTES (the request) on STREAM, tensor ID
 *   f ID                free of tensor ID
 *   p NAME              a phase starts (no spaces in NAME)
 * Output (stdout), JSON: peak_allocated_bytes, peak_reserved_bytes and, per
 * phase in order, [name, peak allocated, peak reserved, allocated at its start].
 * Build: cc -std=c11 -Iinclude -Isrc replay_events.c lib/libllmmem.a -lm */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

int main(void)
{
    llmmem__alloc_conf conf = {false, 0, 0.0, 0};
    llmmem__replay r;
    llmmem__rp_init(&r, &conf);
    int32_t *map = NULL;
    size_t cap = 0;
    char line[512], name[256];
    printf("{\"phases\": [");
    int nph = 0;
    uint64_t pa = 0, pr = 0;
    while (fgets(line, sizeof line, stdin)) {
        char op = line[0];
        if (op == 'a') {
            unsigned long long id, bytes;
            int stream;
            if (sscanf(line + 1, "%llu %llu %d", &id, &bytes, &stream) != 3)
                return fprintf(stderr, "bad line: %s", line), 2;
            if (id >= cap) {
                size_t nc = cap ? cap : 1024;
                while (nc <= id)
                    nc *= 2;
                int32_t *nm = realloc(map, nc * sizeof *nm);
                if (!nm)
                    return 3;
                memset(nm + cap, 0xff, (nc - cap) * sizeof *nm);
                map = nm;
                cap = nc;
            }
            map[id] = llmmem__rp_alloc(&r, bytes, LLMMEM_C_OTHER, stream, "event");
            if (r.allocated > pa)
                pa = r.allocated;
            if (r.reserved > pr)
                pr = r.reserved;
        } else if (op == 'f') {
            unsigned long long id;
            if (sscanf(line + 1, "%llu", &id) != 1)
                return fprintf(stderr, "bad line: %s", line), 2;
            if (id < cap && map[id] >= 0) {
                llmmem__rp_free(&r, map[id]);
                map[id] = -1;
            }
        } else if (op == 'p') {
            if (sscanf(line + 1, "%255s", name) != 1)
                return fprintf(stderr, "bad line: %s", line), 2;
            if (nph)
                printf("%" PRIu64 ", %" PRIu64 "], ", pa, pr);
            printf("[\"%s\", %" PRIu64 ", ", name, r.allocated);
            pa = r.allocated;
            pr = r.reserved;
            nph++;
        }
    }
    if (nph)
        printf("%" PRIu64 ", %" PRIu64 "]", pa, pr);
    printf("], \"peak_allocated_bytes\": %" PRIu64 ", \"peak_reserved_bytes\": %" PRIu64 "}\n", r.peak_allocated,
           r.peak_reserved);
    llmmem__rp_release(&r);
    free(map);
    return r.oom ? 1 : 0;
}
