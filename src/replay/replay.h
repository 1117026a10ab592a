/* The allocator replay (replay.c: PyTorch's caching allocator), the
 * recorded timeline (record.c), the timelines of a training run (tl_train.c
 * and the generators of tl_gen.h) and of a generate call (tl_infer.c), and
 * their replay into a result (reserved.c; docs/allocator.md). The engines'
 * skeletons call it after the phases are built; a recording sink, when
 * llmmem_timeline asks for one, is passed to it explicitly. Not installed. */
#ifndef LLMMEM_REPLAY_REPLAY_H
#define LLMMEM_REPLAY_REPLAY_H

#include "train/train.h"
#include "infer/infer.h"

/* Streams whose blocks the allocator keeps apart (a pool per stream). */
enum llmmem__stream { LLMMEM__ST_DEFAULT = 0, LLMMEM__ST_COMM = 1, LLMMEM__STREAMS = 4 };

typedef struct llmmem__rp_block {
    uint64_t addr, size, req;
    int32_t prev, next; /* address neighbours in the segment; `next` chains spare slots */
    int32_t id;         /* tensor while allocated */
    int32_t up, lo, hi; /* in a free set: parent, children (a red-black tree by (size, addr)) */
    int64_t gc_base;    /* free-block searches when it was cached */
    uint8_t alloc, pool, stream, cat, mapped, exp, in_set, red;
    const char *what;   /* static label of the tensor */
} llmmem__rp_block;
typedef struct llmmem__rp_set { /* free blocks by (size, address) */
    int32_t root;  /* of the tree; -1: empty */
    int32_t n;     /* blocks in it */
    int32_t whole; /* of them, whole (unsplit) ordinary segments */
    int32_t exp;   /* of them, blocks of an expandable segment */
} llmmem__rp_set;
struct llmmem__tl;
typedef struct llmmem__replay {
    llmmem__alloc_conf conf;
    llmmem__rp_block *b;
    int32_t nb, capb, spare;
    int32_t *id2b;
    int32_t nid, capid;
    int32_t *scratch;
    int32_t capscratch;
    llmmem__rp_set free[2][LLMMEM__STREAMS]; /* [small, large][stream] */
    int32_t exp_head[2][LLMMEM__STREAMS];    /* first block of each expandable segment */
    uint64_t exp_base[2][LLMMEM__STREAMS];
    int64_t gc_calls[2];
    uint64_t next_addr;
    uint64_t reserved, allocated, peak_reserved, peak_allocated;
    uint64_t cat_bytes[LLMMEM__COMPONENTS];
    bool oom;   /* a segment did not fit the budget even after releasing the cache */
    bool nomem; /* the replay could not allocate its own bookkeeping */
    struct llmmem__tl *rec; /* NULL, or where every event is recorded */
} llmmem__replay;

void llmmem__rp_init(llmmem__replay *r, const llmmem__alloc_conf *conf);
void llmmem__rp_release(llmmem__replay *r);
/* Allocates `request` bytes of component `cat` on `stream`; returns the
 * tensor's id (negative when the replay ran out of its own memory). */
int32_t llmmem__rp_alloc(llmmem__replay *r, uint64_t request, int cat, int stream, const char *what);
void llmmem__rp_free(llmmem__replay *r, int32_t id);
void llmmem__rp_empty_cache(llmmem__replay *r);
/* A segment of `segment` bytes an earlier run left, holding a live block of
 * `request` bytes at its start (the autograd thread's cuBLAS workspace): its
 * id, or -1 (expandable segments, or a segment smaller than the block). */
int32_t llmmem__rp_prior_segment(llmmem__replay *r, uint64_t segment, uint64_t request, int cat, const char *what);
/* NULL, or the first rule of the replay's bookkeeping found broken (the free
 * sets' order, balance and counts, segment neighbours, merged free blocks,
 * the reserved and allocated sums): for tests; O(n^2) in the free blocks. */
const char *llmmem__rp_check(llmmem__replay *r);
/* The replays the model's memo holds (reserved.c; tests). */
int llmmem__memo_entries(const struct llmmem_model *m);

/* A recorded timeline (record.c): every event with the allocator's state. */
enum llmmem__tl_op {
    LLMMEM__TL_ALLOC = 0, LLMMEM__TL_FREE, LLMMEM__TL_SEG_ALLOC, LLMMEM__TL_SEG_FREE,
    LLMMEM__TL_SEG_MAP, LLMMEM__TL_SEG_UNMAP, LLMMEM__TL_PHASE,
    LLMMEM__TL_MARK /* a point inside a phase (a layer, a decode step): `what`, index in `size` */
};
typedef struct llmmem__tl_event {
    uint64_t addr, size, req;
    uint64_t reserved; /* segment bytes after the event */
    const char *what;  /* static label (PHASE: the phase's name) */
    uint8_t op, cat, stream;
} llmmem__tl_event;
typedef struct llmmem__tl {
    llmmem__tl_event *ev;
    size_t n, cap;
    uint64_t capacity; /* the GPU's bytes for the allocator (budget) */
    bool nomem;
} llmmem__tl;
void llmmem__tl_alloc(struct llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b);
void llmmem__tl_free(struct llmmem__tl *t, const llmmem__replay *r, const llmmem__rp_block *b);
void llmmem__tl_segment(struct llmmem__tl *t, const llmmem__replay *r, int op, uint64_t addr, uint64_t bytes,
                        int stream);
void llmmem__tl_phase(struct llmmem__tl *t, const llmmem__replay *r, const char *name);
/* A mark inside a phase, for the chart's x axis: "layer" i (forward, or backward in the
 * backward phase), "head", "embedding", "decode step" i. */
void llmmem__tl_mark(struct llmmem__tl *t, const llmmem__replay *r, const char *what, uint64_t index);
void llmmem__tl_release(struct llmmem__tl *t);

/* The most micro-steps of each optimizer step a timeline draws (reserved.c):
 * the allocator's state repeats from the second micro-step, so a run of more
 * has the same peaks; llmmem_timeline says so in its output when it cuts. */
#define LLMMEM__TL_MAX_MICRO 8

/* The replays the model's memo holds (reserved.c; tests). */
int llmmem__memo_entries(const struct llmmem_model *m);

/* The timeline of a training run over `layers` decoder layers, `steps`
 * optimizer steps of at most `micro` micro-steps each (0: the configured
 * gradient accumulation) (tl_train.c), replayed into rp; *act_prog: the
 * first layer's saved bytes the layer program made (before the estimator's
 * remainder). */
int llmmem__timeline_train(llmmem__replay *rp, const struct llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t layers, int steps, int micro, uint64_t *act_prog);
/* Replays the training run's allocations (tl_train.c) through the caching
 * allocator and keeps its peaks in the result (reserved.c); sink: NULL, or
 * where llmmem_timeline records every event (then three steps are replayed,
 * as measured). */
int llmmem__reserved_train(struct llmmem_result *r, const llmmem__train *t, const struct llmmem_model *m,
                           const struct llmmem_config *c, struct llmmem__tl *sink);
/* The timeline of one generate call over `layers` decoder layers
 * (tl_infer.c), replayed into r; lt_ws: the cuBLASLt workspace of the first
 * biased matmul (0: none); prior: a segment an earlier run left around the
 * autograd thread's workspace (0: a fresh process). */
int llmmem__timeline_infer(llmmem__replay *r, const llmmem__infer *x, const struct llmmem_model *m,
                           uint64_t weights, uint64_t ws, uint64_t lt_ws, uint64_t prior, uint64_t layers);
/* The replay of a generate call's timeline into the result (reserved.c);
 * sink: NULL, or where llmmem_timeline records every event. */
int llmmem__reserved_infer(struct llmmem_result *r, const llmmem__infer *x, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t weights, uint64_t ws, struct llmmem__tl *sink);

#endif /* LLMMEM_REPLAY_REPLAY_H */
