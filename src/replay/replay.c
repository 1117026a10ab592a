/* A replay of PyTorch's CUDA caching allocator over an allocation timeline,
 * after pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp (torch 2.11,
 * DeviceCachingAllocator): requests rounded to 512 B (round_size); pools of
 * small (<= 1 MiB, 2 MiB segments) and large blocks (20 MiB segments for
 * requests under 10 MiB, else the request rounded to 2 MiB:
 * get_allocation_size); one free set per pool ordered by (stream, size,
 * address) searched for the smallest block that fits (get_free_block, with
 * the max_split_size rules for oversize blocks); blocks split when the rest
 * is worth keeping (should_split) and merged with free neighbours on free
 * (free_block, try_merge_blocks); a miss cudaMallocs a segment (alloc_block),
 * past the budget after freeing the cached unsplit blocks
 * (release_available_cached_blocks, release_cached_blocks);
 * garbage_collection_threshold frees old unsplit blocks before a cudaMalloc
 * (garbage_collect_cached_blocks); empty_cache releases every unsplit free
 * segment (release_blocks). With expandable_segments each (pool, stream) has
 * one segment whose pages (2 MiB small, 20 MiB large) are mapped as needed
 * at its lowest free addresses (find_expandable_block, map_block) and
 * unmapped by empty_cache (unmap_block).
 *
 * Peak reserved is the largest sum of segment (mapped) bytes along the
 * timeline, what torch.cuda.max_memory_reserved() reports. Costs: each event
 * is a walk down the free set of its pool (a red-black tree threaded through
 * the blocks: tens to a few thousand of them) and an insertion or erasure of
 * O(log n) steps, without moving any other entry; the cache releases skip the
 * sets without a whole segment or an expandable block. */
#include "replay/replay.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BLOCK UINT64_C(512)            /* kMinBlockSize */
#define SMALL_SIZE (UINT64_C(1) << 20)      /* kSmallSize */
#define SMALL_BUFFER (UINT64_C(2) << 20)    /* kSmallBuffer */
#define LARGE_BUFFER UINT64_C(20971520)     /* kLargeBuffer */
#define MIN_LARGE_ALLOC UINT64_C(10485760)  /* kMinLargeAlloc */
#define ROUND_LARGE (UINT64_C(2) << 20)     /* kRoundLarge */
#define EXP_SPACE (UINT64_C(1) << 46)       /* virtual space of one expandable segment */
#define NONE (-1)

/* ---- storage -------------------------------------------------------------- */

static bool grow(void **p, int32_t *cap, int32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    int32_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static int32_t block_new(llmmem__replay *r)
{
    if (r->spare != NONE) {
        int32_t i = r->spare;
        r->spare = r->b[i].next;
        return i;
    }
    if (!grow((void **)&r->b, &r->capb, r->nb + 1, sizeof *r->b)) {
        r->nomem = true;
        return NONE;
    }
    return r->nb++;
}

static void block_drop(llmmem__replay *r, int32_t i)
{
    r->b[i].next = r->spare;
    r->spare = i;
}

/* ---- the free sets: block indices by (size, address) ------------------------ */

/* Each set is a red-black tree threaded through the blocks (up, lo, hi, red:
 * CLRS chapter 13), ordered by (size, address) as torch's std::set of
 * blocks (BlockComparatorSize): a search walks the tree; an insertion or an
 * erasure takes O(log n) steps and at most three rotations, and an erasure
 * needs no search (the block is the node). */
#define B(i) (bk[(i)])

static llmmem__rp_set *set_of(llmmem__replay *r, const llmmem__rp_block *b)
{
    return &r->free[b->pool][b->stream];
}

/* Whether block a comes before the key (size, addr). */
static inline bool key_before(const llmmem__rp_block *a, uint64_t size, uint64_t addr)
{
    return a->size < size || (a->size == size && a->addr < addr);
}

static inline bool is_red(const llmmem__rp_block *bk, int32_t i) { return i != NONE && bk[i].red; }

/* The first block not before (size, addr), or NONE. */
static int32_t lower_bound(const llmmem__replay *r, const llmmem__rp_set *s, uint64_t size, uint64_t addr)
{
    int32_t x = s->root, found = NONE;
    while (x != NONE) {
        const llmmem__rp_block *b = &r->b[x];
        if (key_before(b, size, addr)) {
            x = b->hi;
        } else {
            found = x;
            x = b->lo;
        }
    }
    return found;
}

static inline int32_t leftmost(const llmmem__rp_block *bk, int32_t x)
{
    while (bk[x].lo != NONE)
        x = bk[x].lo;
    return x;
}

static inline int32_t rightmost(const llmmem__rp_block *bk, int32_t x)
{
    while (bk[x].hi != NONE)
        x = bk[x].hi;
    return x;
}

/* The block after bi in its set, or NONE. */
static int32_t set_next(const llmmem__replay *r, const llmmem__rp_set *s, int32_t bi)
{
    (void)s;
    if (r->b[bi].hi != NONE)
        return leftmost(r->b, r->b[bi].hi);
    int32_t p = r->b[bi].up;
    while (p != NONE && r->b[p].hi == bi) {
        bi = p;
        p = r->b[p].up;
    }
    return p;
}

/* The block before bi (NONE: the last block) in its set, or NONE. */
static int32_t set_prev(const llmmem__replay *r, const llmmem__rp_set *s, int32_t bi)
{
    if (bi == NONE)
        return s->root == NONE ? NONE : rightmost(r->b, s->root);
    if (r->b[bi].lo != NONE)
        return rightmost(r->b, r->b[bi].lo);
    int32_t p = r->b[bi].up;
    while (p != NONE && r->b[p].lo == bi) {
        bi = p;
        p = r->b[p].up;
    }
    return p;
}

/* Replaces u by v (possibly NONE) under u's parent. */
static inline void transplant(llmmem__rp_block *bk, llmmem__rp_set *s, int32_t u, int32_t v)
{
    int32_t p = B(u).up;
    if (p == NONE)
        s->root = v;
    else if (B(p).lo == u)
        B(p).lo = v;
    else
        B(p).hi = v;
    if (v != NONE)
        B(v).up = p;
}

static inline void rotate_lo(llmmem__rp_block *bk, llmmem__rp_set *s, int32_t x) /* x's right child rises */
{
    int32_t y = B(x).hi;
    B(x).hi = B(y).lo;
    if (B(y).lo != NONE)
        B(B(y).lo).up = x;
    transplant(bk, s, x, y);
    B(y).lo = x;
    B(x).up = y;
}

static inline void rotate_hi(llmmem__rp_block *bk, llmmem__rp_set *s, int32_t x) /* x's left child rises */
{
    int32_t y = B(x).lo;
    B(x).lo = B(y).hi;
    if (B(y).hi != NONE)
        B(B(y).hi).up = x;
    transplant(bk, s, x, y);
    B(y).hi = x;
    B(x).up = y;
}

/* Whether a block in a set counts as whole (release_cached frees it) or
 * expandable; neither changes while the block is in its set. */
static void set_count(llmmem__rp_set *s, const llmmem__rp_block *b, int32_t d)
{
    s->n += d;
    if (b->exp)
        s->exp += d;
    else if (b->prev == NONE && b->next == NONE)
        s->whole += d;
}

static void set_insert(llmmem__replay *r, int32_t bi)
{
    llmmem__rp_block *const bk = r->b;
    if (B(bi).in_set)
        return;
    llmmem__rp_set *s = set_of(r, &B(bi));
    const uint64_t size = B(bi).size, addr = B(bi).addr;
    int32_t p = NONE, x = s->root;
    bool lo = false;
    while (x != NONE) {
        p = x;
        lo = !key_before(&B(x), size, addr);
        x = lo ? B(x).lo : B(x).hi;
    }
    B(bi).up = p;
    B(bi).lo = B(bi).hi = NONE;
    B(bi).red = 1;
    if (p == NONE)
        s->root = bi;
    else if (lo)
        B(p).lo = bi;
    else
        B(p).hi = bi;
    /* RB-INSERT-FIXUP */
    int32_t z = bi;
    while (is_red(bk, B(z).up)) {
        int32_t q = B(z).up, g = B(q).up;
        const bool left = q == B(g).lo;
        int32_t u = left ? B(g).hi : B(g).lo;
        if (is_red(bk, u)) {
            B(q).red = B(u).red = 0;
            B(g).red = 1;
            z = g;
            continue;
        }
        if (z == (left ? B(q).hi : B(q).lo)) {
            z = q;
            if (left)
                rotate_lo(bk, s, z);
            else
                rotate_hi(bk, s, z);
            q = B(z).up;
        }
        B(q).red = 0;
        B(g).red = 1;
        if (left)
            rotate_hi(bk, s, g);
        else
            rotate_lo(bk, s, g);
    }
    B(s->root).red = 0;
    llmmem__rp_block *b = &B(bi);
    set_count(s, b, 1);
    b->gc_base = r->gc_calls[b->pool];
    b->in_set = 1;
}

static void set_erase(llmmem__replay *r, int32_t z)
{
    llmmem__rp_block *const bk = r->b;
    if (!B(z).in_set)
        return;
    llmmem__rp_set *s = set_of(r, &B(z));
    B(z).in_set = 0;
    set_count(s, &B(z), -1);
    /* RB-DELETE, with x's parent kept apart (x may be NONE) */
    int32_t x, xp;
    bool black = !B(z).red;
    if (B(z).lo == NONE || B(z).hi == NONE) {
        x = B(z).lo != NONE ? B(z).lo : B(z).hi;
        xp = B(z).up;
        transplant(bk, s, z, x);
    } else {
        int32_t y = leftmost(bk, B(z).hi);
        black = !B(y).red;
        x = B(y).hi;
        if (B(y).up == z) {
            xp = y;
        } else {
            xp = B(y).up;
            transplant(bk, s, y, x);
            B(y).hi = B(z).hi;
            B(B(y).hi).up = y;
        }
        transplant(bk, s, z, y);
        B(y).lo = B(z).lo;
        B(B(y).lo).up = y;
        B(y).red = B(z).red;
    }
    if (!black)
        return;
    /* RB-DELETE-FIXUP */
    while (x != s->root && !is_red(bk, x)) {
        const bool left = x == B(xp).lo;
        int32_t w = left ? B(xp).hi : B(xp).lo;
        if (B(w).red) {
            B(w).red = 0;
            B(xp).red = 1;
            if (left)
                rotate_lo(bk, s, xp);
            else
                rotate_hi(bk, s, xp);
            w = left ? B(xp).hi : B(xp).lo;
        }
        int32_t near = left ? B(w).lo : B(w).hi, far = left ? B(w).hi : B(w).lo;
        if (!is_red(bk, near) && !is_red(bk, far)) {
            B(w).red = 1;
            x = xp;
            xp = B(x).up;
            continue;
        }
        if (!is_red(bk, far)) {
            B(near).red = 0;
            B(w).red = 1;
            if (left)
                rotate_hi(bk, s, w);
            else
                rotate_lo(bk, s, w);
            w = left ? B(xp).hi : B(xp).lo;
            far = left ? B(w).hi : B(w).lo;
        }
        B(w).red = B(xp).red;
        B(xp).red = 0;
        if (far != NONE)
            B(far).red = 0;
        if (left)
            rotate_lo(bk, s, xp);
        else
            rotate_hi(bk, s, xp);
        x = s->root;
        break;
    }
    if (x != NONE)
        B(x).red = 0;
}

/* The blocks of a set in order into r->scratch, those that `keep` accepts;
 * their count (-1: out of memory). */
static int32_t set_list(llmmem__replay *r, const llmmem__rp_set *s, bool (*keep)(const llmmem__replay *, int32_t))
{
    if (!grow((void **)&r->scratch, &r->capscratch, s->n + 64, sizeof *r->scratch)) {
        r->nomem = true;
        return -1;
    }
    int32_t n = 0;
    for (int32_t bi = s->root == NONE ? NONE : leftmost(r->b, s->root); bi != NONE; bi = set_next(r, s, bi))
        if (keep(r, bi))
            r->scratch[n++] = bi;
    return n;
}

/* ---- statistics ----------------------------------------------------------- */

static void reserve(llmmem__replay *r, const llmmem__rp_block *b, uint64_t bytes)
{
    r->reserved += bytes;
    if (r->reserved > r->peak_reserved)
        r->peak_reserved = r->reserved;
    if (r->rec)
        llmmem__tl_segment(r->rec, r, b->exp ? LLMMEM__TL_SEG_MAP : LLMMEM__TL_SEG_ALLOC, b->addr, bytes,
                           b->stream);
}

static void unreserve(llmmem__replay *r, const llmmem__rp_block *b, uint64_t bytes)
{
    r->reserved -= bytes;
    if (r->rec)
        llmmem__tl_segment(r->rec, r, b->exp ? LLMMEM__TL_SEG_UNMAP : LLMMEM__TL_SEG_FREE, b->addr, bytes,
                           b->stream);
}

/* ---- sizes (round_size, get_allocation_size, should_split) ------------------- */

static uint64_t round_size(uint64_t size)
{
    if (size < MIN_BLOCK)
        return MIN_BLOCK;
    return MIN_BLOCK * ((size + MIN_BLOCK - 1) / MIN_BLOCK);
}

static uint64_t allocation_size(uint64_t size)
{
    if (size <= SMALL_SIZE)
        return SMALL_BUFFER;
    if (size < MIN_LARGE_ALLOC)
        return LARGE_BUFFER;
    return ROUND_LARGE * ((size + ROUND_LARGE - 1) / ROUND_LARGE);
}

static bool should_split(const llmmem__replay *r, const llmmem__rp_block *b, uint64_t size)
{
    uint64_t remaining = b->size - size;
    if (b->pool == 0 || r->conf.expandable)
        return remaining >= MIN_BLOCK;
    return size < r->conf.max_split && remaining > SMALL_SIZE;
}

/* ---- get_free_block ------------------------------------------------------- */

/* Size a block of an expandable segment can grow to: itself and the
 * unmapped range after it. */
static uint64_t expandable_size(const llmmem__replay *r, int32_t bi)
{
    const llmmem__rp_block *b = &r->b[bi];
    uint64_t s = b->size;
    if (b->next != NONE && !r->b[b->next].mapped)
        s += r->b[b->next].size;
    return s;
}

static int32_t get_free_block(llmmem__replay *r, int pool, int stream, uint64_t size)
{
    llmmem__rp_set *s = &r->free[pool][stream];
    if (r->conf.gc_threshold > 0.0)
        r->gc_calls[pool]++;
    int32_t bi = lower_bound(r, s, size, 0);
    if (bi == NONE)
        return NONE;
    if (r->b[bi].exp && r->conf.expandable) {
        for (;;) {
            int32_t nx = set_next(r, s, bi);
            if (nx == NONE || !r->b[bi].exp || expandable_size(r, nx) >= expandable_size(r, bi))
                break;
            bi = nx;
        }
    }
    const llmmem__rp_block *b = &r->b[bi];
    /* Do not return an oversized block for a large request, and an oversize
     * request only within kLargeBuffer of its size. */
    if (size < r->conf.max_split && b->size >= r->conf.max_split)
        return NONE;
    if (size >= r->conf.max_split && b->size >= size + LARGE_BUFFER)
        return NONE;
    set_erase(r, bi);
    return bi;
}

/* ---- segments ------------------------------------------------------------- */

static void release_block(llmmem__replay *r, int32_t bi)
{
    llmmem__rp_block *b = &r->b[bi];
    set_erase(r, bi);
    unreserve(r, b, b->size);
    block_drop(r, bi);
}

/* Frees every cached block that is a whole segment (release_blocks), of both
 * pools and every stream, and unmaps the free pages of expandable segments. */
static void unmap_free_pages(llmmem__replay *r, int32_t bi);

static bool whole(const llmmem__replay *r, int32_t bi)
{
    const llmmem__rp_block *b = &r->b[bi];
    return !b->exp && b->prev == NONE && b->next == NONE;
}

static bool whole_or_exp(const llmmem__replay *r, int32_t bi)
{
    return r->b[bi].exp || whole(r, bi);
}

static void release_cached(llmmem__replay *r)
{
    for (int pool = 0; pool < 2; pool++)
        for (int st = 0; st < LLMMEM__STREAMS; st++) {
            llmmem__rp_set *s = &r->free[pool][st];
            if (!s->whole && !s->exp)
                continue; /* nothing to release */
            /* in order: the whole segments go, then the expandable blocks unmap */
            int32_t n = set_list(r, s, whole_or_exp);
            if (n < 0)
                return;
            for (int32_t i = 0; i < n; i++)
                if (!r->b[r->scratch[i]].exp)
                    release_block(r, r->scratch[i]);
            for (int32_t i = 0; i < n; i++)
                if (r->b[r->scratch[i]].exp)
                    unmap_free_pages(r, r->scratch[i]);
        }
}

/* release_available_cached_blocks: with max_split_size set, frees one
 * oversize cached block large enough, or the largest ones until enough. */
static bool release_available(llmmem__replay *r, int pool, int stream, uint64_t size)
{
    if (r->conf.max_split == UINT64_MAX)
        return false;
    llmmem__rp_set *s = &r->free[pool][stream];
    uint64_t key = size < r->conf.max_split ? r->conf.max_split : size;
    int32_t at = lower_bound(r, s, key, 0);
    if (at != NONE) {
        if (r->b[at].prev != NONE || r->b[at].next != NONE)
            return false;
        release_block(r, at);
        return true;
    }
    uint64_t total = 0;
    for (int32_t bi = set_prev(r, s, NONE); bi != NONE && total < key;) {
        int32_t pv = set_prev(r, s, bi);
        if (r->b[bi].size < r->conf.max_split)
            break;
        if (r->b[bi].prev == NONE && r->b[bi].next == NONE) {
            total += r->b[bi].size;
            release_block(r, bi);
        }
        bi = pv;
    }
    return total >= key;
}

/* garbage_collect_cached_blocks: past threshold x budget, frees the unsplit
 * cached large blocks at least as old (in free-block searches) as the
 * average, until the excess is reclaimed. */
static void garbage_collect(llmmem__replay *r)
{
    if (r->conf.gc_threshold <= 0.0 || !r->conf.budget)
        return;
    uint64_t threshold = (uint64_t)(r->conf.gc_threshold * (double)r->conf.budget);
    if (r->reserved <= threshold)
        return;
    uint64_t target = r->reserved - threshold, reclaimed = 0;
    bool freed = true;
    while (reclaimed < target && freed) {
        uint64_t age = 0, count = 0;
        for (int st = 0; st < LLMMEM__STREAMS; st++) {
            if (!r->free[1][st].whole)
                continue;
            int32_t n = set_list(r, &r->free[1][st], whole);
            if (n < 0)
                return;
            for (int32_t i = 0; i < n; i++) {
                age += (uint64_t)(r->gc_calls[1] - r->b[r->scratch[i]].gc_base);
                count++;
            }
        }
        if (!count)
            return;
        double avg = (double)age / (double)count;
        freed = false;
        for (int st = 0; st < LLMMEM__STREAMS; st++) {
            llmmem__rp_set *s = &r->free[1][st];
            if (!s->whole)
                continue;
            int32_t n = set_list(r, s, whole);
            if (n < 0)
                return;
            for (int32_t i = 0; i < n; i++) {
                int32_t bi = r->scratch[i];
                if ((double)(r->gc_calls[1] - r->b[bi].gc_base) >= avg) {
                    reclaimed += r->b[bi].size;
                    freed = true;
                    release_block(r, bi);
                }
            }
        }
    }
}

/* A new cudaMalloc'd segment of `bytes` as one free block (not in the set). */
static int32_t new_segment(llmmem__replay *r, int pool, int stream, uint64_t bytes)
{
    int32_t bi = block_new(r);
    if (bi == NONE)
        return NONE;
    llmmem__rp_block *b = &r->b[bi];
    memset(b, 0, sizeof *b);
    b->addr = r->next_addr;
    b->size = bytes;
    b->prev = b->next = NONE;
    b->id = NONE;
    b->pool = (uint8_t)pool;
    b->stream = (uint8_t)stream;
    b->mapped = 1;
    r->next_addr += (bytes + SMALL_BUFFER - 1) / SMALL_BUFFER * SMALL_BUFFER;
    reserve(r, b, bytes);
    return bi;
}

static bool fits_budget(const llmmem__replay *r, uint64_t bytes)
{
    return !r->conf.budget || r->reserved + bytes <= r->conf.budget;
}

/* ---- expandable segments ----------------------------------------------------- */

static uint64_t page_of(int pool) { return pool == 0 ? SMALL_BUFFER : LARGE_BUFFER; }

static bool try_merge(llmmem__replay *r, int32_t dst, int32_t src);

/* The (pool, stream) segment, made on first use with EXP_SPACE bytes of
 * address space, one unmapped block (ExpandableSegment). */
static int32_t exp_segment(llmmem__replay *r, int pool, int stream)
{
    int32_t *head = &r->exp_head[pool][stream];
    if (*head != NONE)
        return *head;
    int32_t bi = block_new(r);
    if (bi == NONE)
        return NONE;
    llmmem__rp_block *b = &r->b[bi];
    memset(b, 0, sizeof *b);
    r->next_addr = (r->next_addr + EXP_SPACE - 1) / EXP_SPACE * EXP_SPACE;
    b->addr = r->exp_base[pool][stream] = r->next_addr;
    b->size = EXP_SPACE;
    b->prev = b->next = NONE;
    b->id = NONE;
    b->pool = (uint8_t)pool;
    b->stream = (uint8_t)stream;
    b->exp = 1;
    r->next_addr += EXP_SPACE;
    *head = bi;
    return bi;
}

/* find_expandable_block: the lowest unmapped range, with the free block
 * before it, from which free and unmapped blocks add up to `size`; *free_b
 * receives the mapped free bytes among them. */
static int32_t find_expandable(llmmem__replay *r, int pool, int stream, uint64_t size, uint64_t *free_b)
{
    if (exp_segment(r, pool, stream) == NONE)
        return NONE;
    for (int32_t u = r->exp_head[pool][stream]; u != NONE; u = r->b[u].next) {
        if (r->b[u].mapped)
            continue;
        int32_t c = u, p = r->b[u].prev;
        if (p != NONE && !r->b[p].alloc)
            c = p;
        uint64_t bytes = 0;
        *free_b = 0;
        for (int32_t w = c; w != NONE && bytes < size && !r->b[w].alloc; w = r->b[w].next) {
            bytes += r->b[w].size;
            if (r->b[w].mapped)
                *free_b += r->b[w].size;
        }
        if (bytes >= size)
            return c;
    }
    return NONE;
}

/* map_block: maps whole pages over [ptr, ptr + size) of an unmapped block;
 * the rest stays unmapped; merges with free mapped neighbours. Returns the
 * merged free block (in the free set). */
static int32_t map_block(llmmem__replay *r, int32_t bi, uint64_t size)
{
    llmmem__rp_block *b = &r->b[bi];
    const uint64_t page = page_of(b->pool);
    uint64_t mapped = (size + page - 1) / page * page;
    if (mapped > b->size)
        mapped = b->size;
    if (mapped < b->size) {
        int32_t ri = block_new(r);
        if (ri == NONE)
            return NONE;
        b = &r->b[bi];
        llmmem__rp_block *rest = &r->b[ri];
        *rest = *b;
        rest->addr = b->addr + mapped;
        rest->size = b->size - mapped;
        rest->prev = bi;
        rest->next = b->next;
        if (b->next != NONE)
            r->b[b->next].prev = ri;
        b->next = ri;
        b->size = mapped;
    }
    b->mapped = 1;
    reserve(r, b, mapped);
    int32_t p = b->prev, n = b->next;
    if (p != NONE && try_merge(r, p, bi))
        bi = p;
    if (n != NONE)
        try_merge(r, bi, n);
    set_insert(r, bi);
    return bi;
}

/* try_allocate_expandable_block: maps pages after the candidate until it
 * holds `size`. */
static int32_t alloc_expandable(llmmem__replay *r, int pool, int stream, uint64_t size)
{
    uint64_t free_b = 0;
    int32_t c = find_expandable(r, pool, stream, size, &free_b);
    if (c == NONE)
        return NONE;
    const uint64_t page = page_of(pool);
    if (!fits_budget(r, (size - (free_b < size ? free_b : size) + page - 1) / page * page))
        return NONE;
    if (!r->b[c].mapped)
        c = map_block(r, c, size < r->b[c].size ? size : r->b[c].size);
    while (c != NONE && r->b[c].size < size) {
        int32_t u = r->b[c].next;
        uint64_t want = size - r->b[c].size;
        c = map_block(r, u, want < r->b[u].size ? want : r->b[u].size);
    }
    if (c != NONE)
        set_erase(r, c);
    return c;
}

/* unmap_block: whole pages inside a free block go back; its mapped ends stay
 * free blocks. */
static void unmap_free_pages(llmmem__replay *r, int32_t bi)
{
    llmmem__rp_block *b = &r->b[bi];
    const uint64_t page = page_of(b->pool);
    const uint64_t base = r->exp_base[b->pool][b->stream];
    uint64_t lo = (b->addr - base + page - 1) / page * page + base;
    uint64_t hi = (b->addr + b->size - base) / page * page + base;
    if (lo >= hi)
        return;
    set_erase(r, bi);
    if (lo > b->addr) { /* a free mapped head stays */
        int32_t hi_i = block_new(r);
        if (hi_i == NONE)
            return;
        b = &r->b[bi];
        llmmem__rp_block *head = &r->b[hi_i];
        *head = *b;
        head->size = lo - b->addr;
        head->prev = b->prev;
        head->next = bi;
        if (b->prev != NONE)
            r->b[b->prev].next = hi_i;
        else
            r->exp_head[b->pool][b->stream] = hi_i;
        b->prev = hi_i;
        b->addr = lo;
        b->size -= head->size;
        set_insert(r, hi_i);
    }
    if (b->addr + b->size > hi) { /* a free mapped tail stays */
        int32_t ti = block_new(r);
        if (ti == NONE)
            return;
        b = &r->b[bi];
        llmmem__rp_block *tail = &r->b[ti];
        *tail = *b;
        tail->addr = hi;
        tail->size = b->addr + b->size - hi;
        tail->prev = bi;
        tail->next = b->next;
        if (b->next != NONE)
            r->b[b->next].prev = ti;
        b->next = ti;
        b->size = hi - b->addr;
        set_insert(r, ti);
    }
    b->mapped = 0;
    unreserve(r, b, b->size);
    int32_t p = b->prev, n = b->next;
    if (p != NONE && try_merge(r, p, bi))
        bi = p;
    if (n != NONE)
        try_merge(r, bi, n);
}

/* ---- malloc and free ---------------------------------------------------------- */

/* try_merge_blocks: src (a neighbour of dst) joins dst when free and of the
 * same mapping. */
static bool try_merge(llmmem__replay *r, int32_t dst, int32_t src)
{
    llmmem__rp_block *d = &r->b[dst], *s = &r->b[src];
    if (s->alloc || d->alloc || s->mapped != d->mapped)
        return false;
    if (s->in_set)
        set_erase(r, src);
    bool was = d->in_set;
    if (was)
        set_erase(r, dst);
    if (d->prev == src) {
        d->addr = s->addr;
        d->prev = s->prev;
        if (d->prev != NONE)
            r->b[d->prev].next = dst;
        else if (d->exp)
            r->exp_head[d->pool][d->stream] = dst;
    } else {
        d->next = s->next;
        if (d->next != NONE)
            r->b[d->next].prev = dst;
    }
    d->size += s->size;
    block_drop(r, src);
    if (was)
        set_insert(r, dst);
    return true;
}

/* A block for a rounded request: the cache, else a new segment, releasing
 * cached segments when the budget is reached; past the budget the request
 * is an OOM (recorded; the replay goes on as if it had succeeded). */
static int32_t find_block(llmmem__replay *r, int pool, int stream, uint64_t size)
{
    int32_t bi = get_free_block(r, pool, stream, size);
    if (bi != NONE)
        return bi;
    garbage_collect(r);
    if (r->conf.expandable) {
        bi = alloc_expandable(r, pool, stream, size);
        if (bi == NONE && !r->nomem) {
            release_cached(r);
            bi = alloc_expandable(r, pool, stream, size);
        }
        if (bi == NONE && !r->nomem) {
            r->oom = true;
            uint64_t keep = r->conf.budget;
            r->conf.budget = 0;
            bi = alloc_expandable(r, pool, stream, size);
            r->conf.budget = keep;
        }
        return bi;
    }
    uint64_t bytes = allocation_size(size);
    if (!fits_budget(r, bytes)) {
        if (!(release_available(r, pool, stream, size) && fits_budget(r, bytes))) {
            release_cached(r);
            if (!fits_budget(r, bytes))
                r->oom = true;
        }
    }
    return new_segment(r, pool, stream, bytes);
}

int32_t llmmem__rp_alloc(llmmem__replay *r, uint64_t request, int cat, int stream, const char *what)
{
    if (r->nomem)
        return NONE;
    if (stream < 0 || stream >= LLMMEM__STREAMS)
        stream = 0;
    uint64_t size = round_size(request);
    int pool = size <= SMALL_SIZE ? 0 : 1;
    int32_t bi = find_block(r, pool, stream, size);
    if (bi == NONE)
        return NONE;
    llmmem__rp_block *b = &r->b[bi];
    if (should_split(r, b, size)) {
        int32_t ri = block_new(r);
        if (ri == NONE)
            return NONE;
        b = &r->b[bi];
        llmmem__rp_block *rest = &r->b[ri];
        *rest = *b;
        rest->addr = b->addr + size;
        rest->size = b->size - size;
        rest->prev = bi;
        rest->next = b->next;
        if (b->next != NONE)
            r->b[b->next].prev = ri;
        b->next = ri;
        b->size = size;
        set_insert(r, ri);
    }
    b = &r->b[bi];
    b->alloc = 1;
    b->req = request;
    b->cat = (uint8_t)cat;
    b->what = what;
    if (!grow((void **)&r->id2b, &r->capid, r->nid + 1, sizeof *r->id2b)) {
        r->nomem = true;
        return NONE;
    }
    int32_t id = r->nid++;
    r->id2b[id] = bi;
    b->id = id;
    r->allocated += b->size;
    if (cat >= 0 && cat < LLMMEM__COMPONENTS)
        r->cat_bytes[cat] += b->size;
    if (r->allocated > r->peak_allocated)
        r->peak_allocated = r->allocated;
    if (r->rec)
        llmmem__tl_alloc(r->rec, r, b);
    return id;
}

void llmmem__rp_free(llmmem__replay *r, int32_t id)
{
    if (id < 0 || id >= r->nid || r->id2b[id] == NONE)
        return;
    int32_t bi = r->id2b[id];
    r->id2b[id] = NONE;
    llmmem__rp_block *b = &r->b[bi];
    r->allocated -= b->size;
    if (b->cat < LLMMEM__COMPONENTS)
        r->cat_bytes[b->cat] -= b->size;
    b->alloc = 0;
    if (r->rec)
        llmmem__tl_free(r->rec, r, b);
    b->id = NONE;
    /* free_block: try_merge_blocks with both neighbours (the freed block, not in a set
     * yet, survives), then the merged block enters the set once */
    if (b->prev != NONE)
        try_merge(r, bi, b->prev);
    if (r->b[bi].next != NONE)
        try_merge(r, bi, r->b[bi].next);
    set_insert(r, bi);
}

void llmmem__rp_empty_cache(llmmem__replay *r)
{
    release_cached(r);
}

/* ---- lifetime ------------------------------------------------------------------ */

void llmmem__rp_init(llmmem__replay *r, const llmmem__alloc_conf *conf)
{
    memset(r, 0, sizeof *r);
    r->conf = *conf;
    if (!r->conf.max_split)
        r->conf.max_split = UINT64_MAX;
    r->spare = NONE;
    r->next_addr = UINT64_C(0x7f0000000000);
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < LLMMEM__STREAMS; s++) {
            r->exp_head[p][s] = NONE;
            r->free[p][s].root = NONE;
        }
}

void llmmem__rp_release(llmmem__replay *r)
{
    free(r->b);
    free(r->id2b);
    free(r->scratch);
    r->b = NULL;
    r->id2b = NULL;
}

int32_t llmmem__rp_prior_segment(llmmem__replay *r, uint64_t segment, uint64_t request, int cat, const char *what)
{
    if (r->nomem || segment < request || r->conf.expandable)
        return NONE;
    int32_t bi = new_segment(r, 1, 0, (segment + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE);
    if (bi == NONE)
        return NONE;
    set_insert(r, bi);
    return llmmem__rp_alloc(r, request, cat, 0, what);
}

/* ---- invariants (tests) ---------------------------------------------------------- */

/* Black height of the subtree at x, -1 when a rule is broken below it (order
 * within (lo, hi) keys, parent links, no red child of a red node, equal
 * black heights); *n counts its blocks. */
static int check_tree(const llmmem__replay *r, int32_t x, int32_t up, const llmmem__rp_block *lo,
                      const llmmem__rp_block *hi, int32_t *n)
{
    if (x == NONE)
        return 1;
    const llmmem__rp_block *b = &r->b[x];
    if (b->up != up || !b->in_set || (lo && !key_before(lo, b->size, b->addr)) ||
        (hi && !key_before(b, hi->size, hi->addr)))
        return -1;
    if (b->red && (is_red(r->b, b->lo) || is_red(r->b, b->hi)))
        return -1;
    (*n)++;
    int hl = check_tree(r, b->lo, x, lo, b, n), hh = check_tree(r, b->hi, x, b, hi, n);
    if (hl < 0 || hl != hh)
        return -1;
    return hl + !b->red;
}

const char *llmmem__rp_check(llmmem__replay *r)
{
    char *spare = calloc((size_t)(r->nb ? r->nb : 1), 1);
    if (!spare)
        return "out of memory";
    const char *bad = NULL;
    for (int32_t i = r->spare; i != NONE && !bad; i = r->b[i].next)
        if (spare[i]++)
            bad = "a spare block twice";
    uint64_t reserved = 0, allocated = 0;
    int32_t want[2][LLMMEM__STREAMS][3] = {{{0}}};
    for (int32_t i = 0; i < r->nb && !bad; i++) {
        const llmmem__rp_block *b = &r->b[i];
        if (spare[i])
            continue;
        if (b->mapped)
            reserved += b->size;
        if (b->alloc) {
            allocated += b->size;
            if (b->in_set || !b->mapped || b->id < 0 || r->id2b[b->id] != i)
                bad = "an allocated block in a set, unmapped or without its id";
        } else if (b->mapped != b->in_set) {
            bad = "a free block outside its set, or an unmapped one in it";
        }
        if (b->in_set) {
            want[b->pool][b->stream][0]++;
            if (b->exp)
                want[b->pool][b->stream][2]++;
            else if (b->prev == NONE && b->next == NONE)
                want[b->pool][b->stream][1]++;
        }
        if (b->next != NONE && (r->b[b->next].prev != i || r->b[b->next].addr != b->addr + b->size))
            bad = "a segment's neighbours out of step";
        if (b->prev != NONE && r->b[b->prev].next != i)
            bad = "a segment's neighbours out of step";
        if (!b->alloc && b->next != NONE && !r->b[b->next].alloc && r->b[b->next].mapped == b->mapped)
            bad = "two free neighbours not merged";
    }
    for (int pool = 0; pool < 2 && !bad; pool++)
        for (int st = 0; st < LLMMEM__STREAMS && !bad; st++) {
            const llmmem__rp_set *s = &r->free[pool][st];
            int32_t n = 0;
            if (is_red(r->b, s->root) || check_tree(r, s->root, NONE, NULL, NULL, &n) < 0)
                bad = "a free set that is not a red-black tree in (size, address) order";
            else if (n != s->n || s->n != want[pool][st][0] || s->whole != want[pool][st][1] ||
                     s->exp != want[pool][st][2])
                bad = "a free set's counts";
            /* the search: the first block not before each block's own size */
            for (int32_t bi = s->root == NONE ? NONE : leftmost(r->b, s->root); bi != NONE && !bad;
                 bi = set_next(r, s, bi)) {
                int32_t first = NONE;
                for (int32_t c = leftmost(r->b, s->root); c != NONE; c = set_next(r, s, c))
                    if (r->b[c].size >= r->b[bi].size) {
                        first = c;
                        break;
                    }
                if (lower_bound(r, s, r->b[bi].size, 0) != first || set_prev(r, s, set_next(r, s, bi)) != bi)
                    bad = "a search of a free set";
            }
        }
    if (!bad && reserved != r->reserved)
        bad = "reserved bytes differ from the mapped segments";
    if (!bad && allocated != r->allocated)
        bad = "allocated bytes differ from the allocated blocks";
    free(spare);
    return bad;
}
