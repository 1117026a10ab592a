/* llmmem_timeline: the estimate's allocation timeline replayed through the
 * caching allocator model (replay/replay.c), written as JSON (the active
 * bytes by category and the reserved bytes over the events), as an SVG chart
 * of the same, or as the dictionary torch.cuda.memory._snapshot() returns
 * (device_traces and the final segments; pytorch.org/memory_viz reads it
 * as JSON), so a predicted run and a measured snapshot open in one viewer. */
#include "engines/engines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The chart's categories and the components each gathers. */
enum { K_WEIGHTS, K_GRADS, K_OPTIM, K_ACTS, K_LOGITS, K_KV, K_WS, K_OTHER, K_COUNT };
static const char *const cat_names[K_COUNT] = {"weights",     "gradients", "optimizer_state", "activations",
                                               "logits",      "kv_cache",  "workspace",       "other"};
static const char *const cat_colors[K_COUNT] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                "#59a14f", "#edc948", "#b07aa1", "#9c755f"};
#define CONTEXT_COLOR "#bab0ac" /* the CUDA context and memory outside PyTorch */

static int cat_of(int component)
{
    switch (component) {
    case LLMMEM_C_WEIGHTS: case LLMMEM_C_MASTER_WEIGHTS: return K_WEIGHTS;
    case LLMMEM_C_GRADIENTS: return K_GRADS;
    case LLMMEM_C_OPTIMIZER_STATE: case LLMMEM_C_OPTIMIZER_TRANSIENT: return K_OPTIM;
    case LLMMEM_C_ACTIVATIONS: case LLMMEM_C_ACTIVATION_TRANSIENT: case LLMMEM_C_AUTOCAST_CACHE: return K_ACTS;
    case LLMMEM_C_LOGITS: return K_LOGITS;
    case LLMMEM_C_KV_CACHE: return K_KV;
    case LLMMEM_C_WORKSPACE: return K_WS;
    default: return K_OTHER;
    }
}

/* ---- the recorded run ------------------------------------------------------------------ */

/* A boundary of the chart's x axis: a phase starting, or a mark inside one (a layer's
 * forward or backward, the head, a decode step), before event `at` of the timeline. */
typedef struct bound {
    size_t at;
    const char *phase; /* the phase it is in */
    const char *mark;  /* NULL: the phase's start */
    uint64_t index;    /* the mark's index (layer, decode step) */
    int step;          /* optimizer steps done before it, + 1 */
} bound;

typedef struct run {
    llmmem__tl tl;
    llmmem_result *r;
    const struct llmmem_config *c;
    uint64_t budget;      /* bytes the segments may take: GPU memory less the CUDA context */
    uint64_t ws_segment;  /* the segment holding the autograd thread's workspace (0: none) */
    bound *b;             /* the x axis's boundaries, in order (the marks taken out of tl) */
    size_t nb;
    uint64_t layers, decode_steps; /* layer marks of the first forward; decode-step marks */
} run;

/* Takes the marks out of the event list (the JSON and the snapshot read the events as
 * before) and keeps them, with the phase starts, as the x axis's boundaries. */
static int split_marks(run *x)
{
    llmmem__tl *t = &x->tl;
    x->b = malloc((t->n + 1) * sizeof *x->b);
    if (!x->b)
        return LLMMEM_E_NOMEM;
    size_t n = 0, forwards = 0;
    const char *phase = "";
    int step = 1;
    for (size_t i = 0; i < t->n; i++) {
        const llmmem__tl_event *e = &t->ev[i];
        if (e->op == LLMMEM__TL_PHASE) {
            if (!strcmp(phase, "optimizer"))
                step++;
            phase = e->what;
            forwards += !strcmp(phase, "forward");
            x->b[x->nb++] = (bound){n, phase, NULL, 0, step};
        } else if (e->op == LLMMEM__TL_MARK) {
            x->b[x->nb++] = (bound){n, phase, e->what, e->size, step};
            if (!strcmp(e->what, "layer") && forwards == 1 && !strcmp(phase, "forward"))
                x->layers++;
            if (!strcmp(e->what, "decode step"))
                x->decode_steps++;
            continue;
        }
        t->ev[n++] = *e;
    }
    t->n = n;
    return LLMMEM_OK;
}

/* The size of the segment that holds the first allocation labelled `what`. */
static uint64_t segment_of(const llmmem__tl *t, const char *what)
{
    for (size_t i = 0; i < t->n; i++) {
        const llmmem__tl_event *e = &t->ev[i];
        if (e->op != LLMMEM__TL_ALLOC || !e->what || strcmp(e->what, what))
            continue;
        uint64_t best = 0;
        for (size_t j = 0; j < i; j++) { /* the last segment made there before it */
            const llmmem__tl_event *s = &t->ev[j];
            if (s->op == LLMMEM__TL_SEG_ALLOC && s->addr <= e->addr && e->addr < s->addr + s->size)
                best = s->size;
        }
        return best;
    }
    return 0;
}

/* Why an estimate has no timeline: the note the replay left (a recipe, a
 * layer kind or a length the timeline does not draw), else the engine or
 * runtime. */
static int not_replayed(const llmmem_result *r)
{
    if (r->replay_skip_note >= 0)
        return llmmem__error(LLMMEM_E_UNSUPPORTED, "llmmem_timeline: no allocation timeline: %s",
                             r->notes[r->replay_skip_note] + sizeof LLMMEM__NO_REPLAY - 1);
    return llmmem__error(LLMMEM_E_UNSUPPORTED,
                         "llmmem_timeline: no allocation timeline for this engine or runtime (single-GPU "
                         "training and HF generate have one)");
}

static int record(run *x, const llmmem_model *model, const llmmem_config *cfg)
{
    memset(x, 0, sizeof *x);
    llmmem_config *c = NULL;
    int rc = llmmem_config_clone(&c, cfg);
    if (rc)
        return rc;
    c->allocator_replay = 1;
    rc = llmmem_result_new(&x->r);
    if (!rc)
        rc = llmmem__estimate(x->r, model, c, &x->tl);
    if (!rc && x->tl.nomem)
        rc = llmmem__error(LLMMEM_E_NOMEM, "llmmem_timeline: out of memory recording the timeline");
    if (!rc && !x->r->replayed)
        rc = not_replayed(x->r);
    if (!rc && split_marks(x) != 0)
        rc = llmmem__error(LLMMEM_E_NOMEM, "llmmem_timeline: out of memory");
    if (!rc) {
        llmmem__alloc_conf conf;
        llmmem__alloc_conf_of(&conf, c);
        x->budget = conf.budget;
        x->ws_segment = segment_of(&x->tl, "cuBLAS workspace (autograd thread)");
    }
    x->c = cfg;
    llmmem_config_free(c);
    return rc;
}

/* The note of a timeline that draws fewer micro-steps than the run makes
 * (reserved.c draws at most LLMMEM__TL_MAX_MICRO of each optimizer step),
 * into buf; NULL when it draws them all. */
static const char *cut_note(const run *x, char *buf, size_t n)
{
    const struct llmmem_config *c = x->c;
    if (x->r->mode == LLMMEM__MODE_INFERENCE || c->grad_accum_steps <= LLMMEM__TL_MAX_MICRO)
        return NULL;
    snprintf(buf, n,
             "gradient_accumulation_steps = %lld: the timeline draws %d micro-steps of each optimizer step "
             "(from the second on, each repeats the allocator's state of the one before: the peaks are those of "
             "all %lld)",
             (long long)c->grad_accum_steps, LLMMEM__TL_MAX_MICRO, (long long)c->grad_accum_steps);
    return buf;
}

static void release(run *x)
{
    free(x->b);
    llmmem__tl_release(&x->tl);
    llmmem_result_free(x->r);
}

static uint64_t key_u64(const run *x, int key)
{
    uint64_t v = 0;
    (void)llmmem_result_get_u64(&v, x->r, key);
    return v;
}

/* ---- points of the chart ----------------------------------------------------------------- */

typedef struct point {
    size_t event;
    uint64_t cat[K_COUNT];
    uint64_t reserved;
    const char *phase; /* a phase starting here, or NULL */
    int step;
} point;

#define MAX_POINTS 1600

/* The active bytes by category after each event, kept at most MAX_POINTS:
 * each bucket of events keeps its most allocated instant; phase starts are
 * always kept. Returns the count (0 and *pts NULL when out of memory). */
static size_t points_of(const llmmem__tl *t, point **pts)
{
    size_t cap = MAX_POINTS + 64, n = 0;
    point *p = malloc(cap * sizeof *p);
    *pts = p;
    if (!p)
        return 0;
    const size_t per = t->n / MAX_POINTS + 1;
    point cur;
    memset(&cur, 0, sizeof cur);
    point best;
    uint64_t best_tot = 0;
    bool have = false;
    int step = 0;
    for (size_t i = 0; i < t->n; i++) {
        const llmmem__tl_event *e = &t->ev[i];
        cur.event = i;
        cur.reserved = e->reserved;
        cur.phase = NULL;
        if (e->op == LLMMEM__TL_ALLOC)
            cur.cat[cat_of(e->cat)] += e->size;
        else if (e->op == LLMMEM__TL_FREE)
            cur.cat[cat_of(e->cat)] -= e->size;
        uint64_t tot = 0;
        for (int k = 0; k < K_COUNT; k++)
            tot += cur.cat[k];
        if (e->op == LLMMEM__TL_PHASE) {
            if (!strcmp(e->what, "forward") || !strcmp(e->what, "prefill"))
                step++;
            if (have && n < cap)
                p[n++] = best;
            have = false;
            cur.phase = e->what;
            cur.step = step;
            if (n < cap)
                p[n++] = cur;
            continue;
        }
        if (!have || tot >= best_tot || e->reserved > best.reserved) {
            best = cur;
            best_tot = tot;
            have = true;
        }
        if ((i + 1) % per == 0 && have && n < cap) {
            p[n++] = best;
            have = false;
        }
    }
    if (have && n < cap)
        p[n++] = best;
    return n;
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static void write_json(llmmem__buf *b, const run *x, const point *p, size_t n)
{
    llmmem__buf_printf(b, "{\"format\": \"llmmem-timeline-1\", \"model_type\": ");
    llmmem__buf_json_string(b, x->r->model_type);
    llmmem__buf_printf(b, ", \"mode\": ");
    llmmem__buf_json_string(b, x->r->mode == LLMMEM__MODE_INFERENCE ? "inference" : "training");
    llmmem__buf_printf(b,
                       ", \"gpu_memory_bytes\": %llu, \"cuda_context_bytes\": %llu, \"allocator_budget_bytes\": "
                       "%llu, \"peak_allocated_bytes\": %llu, \"peak_reserved_bytes\": %llu, "
                       "\"estimate_peak_allocated_bytes\": %llu, \"fits\": %s, "
                       "\"autograd_workspace_segment_bytes\": %llu, \"events\": %llu, \"categories\": [",
                       (unsigned long long)key_u64(x, LLMMEM_R_GPU_MEMORY_BYTES),
                       (unsigned long long)key_u64(x, LLMMEM_R_CUDA_CONTEXT_BYTES), (unsigned long long)x->budget,
                       (unsigned long long)x->r->replay_allocated, (unsigned long long)x->r->replay_reserved,
                       (unsigned long long)key_u64(x, LLMMEM_R_PEAK_ALLOCATED_BYTES),
                       x->r->replay_oom ? "false" : "true", (unsigned long long)x->ws_segment,
                       (unsigned long long)x->tl.n);
    for (int k = 0; k < K_COUNT; k++)
        llmmem__buf_printf(b, "%s\"%s\"", k ? ", " : "", cat_names[k]);
    char note[256];
    if (cut_note(x, note, sizeof note)) {
        llmmem__buf_printf(b, "], \"notes\": [");
        llmmem__buf_json_string(b, note);
    }
    llmmem__buf_printf(b, "], \"phases\": [");
    bool first = true;
    for (size_t i = 0; i < n; i++)
        if (p[i].phase) {
            llmmem__buf_printf(b, "%s{\"name\": ", first ? "" : ", ");
            llmmem__buf_json_string(b, p[i].phase);
            llmmem__buf_printf(b, ", \"step\": %d, \"event\": %llu, \"point\": %llu}", p[i].step,
                               (unsigned long long)p[i].event, (unsigned long long)i);
            first = false;
        }
    llmmem__buf_printf(b, "], \"point_fields\": [\"event\", ");
    for (int k = 0; k < K_COUNT; k++)
        llmmem__buf_printf(b, "\"%s\", ", cat_names[k]);
    llmmem__buf_printf(b, "\"reserved\"], \"points\": [");
    for (size_t i = 0; i < n; i++) {
        llmmem__buf_printf(b, "%s[%llu", i ? ", " : "", (unsigned long long)p[i].event);
        for (int k = 0; k < K_COUNT; k++)
            llmmem__buf_printf(b, ", %llu", (unsigned long long)p[i].cat[k]);
        llmmem__buf_printf(b, ", %llu]", (unsigned long long)p[i].reserved);
    }
    llmmem__buf_printf(b, "]}\n");
}

/* ---- SVG ---------------------------------------------------------------------------------------- */

#define W 960
#define H 430
#define X0 72
#define X1 800
#define Y0 40
#define Y1 370

static double gib(uint64_t v) { return (double)v / 1073741824.0; }

/* The chart's scales: GiB of the GPU up the y axis (the CUDA context at the bottom, the
 * allocator's bytes above it, so the capacity line is the GPU's memory, as every output
 * gives it), and the run's phases along x: each layer's forward and backward, each decode
 * step, a slot of its own, whatever its number of events. */
typedef struct frame {
    double ymax, unit;     /* GiB at the top; pixels per width unit */
    uint64_t cap, context; /* the GPU's memory; what the allocator cannot have of it */
    bool cap_on_scale;
    double *slot_x;        /* left edge of slot j (nb + 1 entries; slot j starts at b[j]) */
} frame;

static double py(const frame *f, double v) { return (double)Y1 - v / f->ymax * (double)(Y1 - Y0); }

/* How wide a slot is, in units (a layer's pass is 1). */
static double slot_width(const run *x, const bound *b)
{
    const double L = (double)(x->layers ? x->layers : 1), N = (double)x->decode_steps;
    if (b->mark)
        return !strcmp(b->mark, "embedding") ? 0.5 : 1.0;
    if (!strcmp(b->phase, "process start"))
        return 0.3;
    if (!strcmp(b->phase, "model build"))
        return x->decode_steps ? (N / 6 > 6 ? N / 6 : 6) : (L * 0.75 > 3 ? L * 0.75 : 3);
    if (!strcmp(b->phase, "forward"))
        return 0.5; /* the embedding */
    if (!strcmp(b->phase, "optimizer"))
        return L / 3 > 2 ? L / 3 : 2;
    if (!strcmp(b->phase, "prefill"))
        return N / 4 > 8 ? N / 4 : 8;
    if (!strcmp(b->phase, "decode"))
        return 0.2;
    return 1.0; /* the head's backward */
}

/* x of event `ev`: its slot's left edge, and its place among the slot's events. */
static double px(const frame *f, const run *x, size_t ev)
{
    size_t j = 0, lo = 0, hi = x->nb;
    while (lo < hi) { /* the last boundary at or before ev */
        size_t mid = (lo + hi) / 2;
        if (x->b[mid].at <= ev) {
            j = mid;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (x->nb == 0 || x->b[0].at > ev)
        return (double)X0;
    const size_t start = x->b[j].at, end = j + 1 < x->nb ? x->b[j + 1].at : x->tl.n;
    const double frac = end > start ? (double)(ev - start) / (double)(end - start) : 0.0;
    return f->slot_x[j] + frac * (f->slot_x[j + 1] - f->slot_x[j]);
}

static uint64_t active(const point *p)
{
    uint64_t t = 0;
    for (int k = 0; k < K_COUNT; k++)
        t += p->cat[k];
    return t;
}

static int frame_of(frame *f, const run *x, const point *p, size_t n)
{
    memset(f, 0, sizeof *f);
    f->cap = key_u64(x, LLMMEM_R_GPU_MEMORY_BYTES);
    f->context = f->cap > x->budget ? f->cap - x->budget : 0;
    uint64_t top = x->r->replay_reserved;
    for (size_t i = 0; i < n; i++)
        top = active(&p[i]) > top ? active(&p[i]) : top;
    /* the GPU fits the scale when it is near the peak; far above, its line marks the top
     * edge with the value */
    f->ymax = gib(top + f->context) * 1.12;
    f->cap_on_scale = f->cap && gib(f->cap) <= f->ymax * 1.6;
    if (f->cap_on_scale && gib(f->cap) * 1.05 > f->ymax)
        f->ymax = gib(f->cap) * 1.05;
    if (f->ymax <= 0)
        f->ymax = 1;
    f->slot_x = malloc((x->nb + 1) * sizeof *f->slot_x);
    if (!f->slot_x)
        return LLMMEM_E_NOMEM;
    double total = 0;
    for (size_t j = 0; j < x->nb; j++)
        total += slot_width(x, &x->b[j]);
    f->unit = total > 0 ? (double)(X1 - X0) / total : 0;
    double at = X0;
    for (size_t j = 0; j < x->nb; j++) {
        f->slot_x[j] = at;
        at += slot_width(x, &x->b[j]) * f->unit;
    }
    f->slot_x[x->nb] = (double)X1;
    return LLMMEM_OK;
}

/* The grid with its GiB labels, the CUDA context band, then one stacked area per category
 * above it. */
static void svg_areas(llmmem__buf *b, const frame *f, const run *x, const point *p, size_t n)
{
    double step = 1;
    while (f->ymax / step > 8)
        step *= 2;
    while (f->ymax / step < 3 && step > 0.125)
        step /= 2;
    for (double v = 0; v <= f->ymax; v += step) {
        llmmem__buf_printf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>",
                           X0, py(f, v), X1, py(f, v));
        llmmem__buf_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g GiB</text>\n", X0 - 6, py(f, v) + 4,
                           v);
    }
    llmmem__buf_printf(b,
                       "<rect class=\"area\" data-category=\"cuda_context\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
                       "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.85\"/>\n",
                       X0, py(f, gib(f->context)), X1 - X0, (double)Y1 - py(f, gib(f->context)), CONTEXT_COLOR);
    for (int k = 0; k < K_COUNT; k++) {
        llmmem__buf_printf(b, "<path class=\"area\" data-category=\"%s\" fill=\"%s\" fill-opacity=\"0.85\" d=\"",
                           cat_names[k], cat_colors[k]);
        for (size_t i = 0; i < n; i++) {
            uint64_t s = f->context;
            for (int j = 0; j <= k; j++)
                s += p[i].cat[j];
            llmmem__buf_printf(b, "%s%.1f %.1f", i ? " L" : "M", px(f, x, p[i].event), py(f, gib(s)));
        }
        for (size_t i = n; i-- > 0;) {
            uint64_t s = f->context;
            for (int j = 0; j < k; j++)
                s += p[i].cat[j];
            llmmem__buf_printf(b, " L%.1f %.1f", px(f, x, p[i].event), py(f, gib(s)));
        }
        llmmem__buf_printf(b, " Z\"/>\n");
    }
}

/* The reserved line (above the context), the GPU's capacity, the phase starts and the
 * layer ticks. */
static void svg_lines(llmmem__buf *b, const frame *f, const run *x, const point *p, size_t n)
{
    llmmem__buf_printf(b, "<polyline class=\"reserved\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" points=\"");
    for (size_t i = 0; i < n; i++)
        llmmem__buf_printf(b, "%s%.1f,%.1f", i ? " " : "", px(f, x, p[i].event),
                           py(f, gib(p[i].reserved + f->context)));
    llmmem__buf_printf(b, "\"/>\n");
    double ycap = f->cap_on_scale ? py(f, gib(f->cap)) : (double)Y0;
    llmmem__buf_printf(b,
                       "<line class=\"capacity\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" "
                       "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>",
                       X0, ycap, X1, ycap);
    /* above the line where the plot has room, else under it (the peak's label is above the
     * plot) */
    llmmem__buf_printf(b, "<text class=\"capacity-label\" x=\"%d\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"end\">GPU "
                          "%.2f GiB%s</text>\n",
                       X1 - 2, ycap - 15 > Y0 ? ycap - 4 : ycap + 12, gib(f->cap),
                       f->cap_on_scale ? "" : " (above the scale)");
    for (size_t j = 0; j < x->nb; j++) {
        const bound *c = &x->b[j];
        if (!c->mark && strcmp(c->phase, "process start"))
            llmmem__buf_printf(b, "<line class=\"phase\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
                                  "stroke-width=\"0.5\"/>",
                               f->slot_x[j], Y0, f->slot_x[j], Y1);
        else if (c->mark && (!strcmp(c->mark, "layer") || x->decode_steps <= 64 || c->index % 16 == 0))
            llmmem__buf_printf(b, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" "
                                  "stroke-width=\"0.5\"/>",
                               f->slot_x[j], Y1, f->slot_x[j], Y1 + 3);
    }
    llmmem__buf_printf(b, "\n");
}

/* A phase's label in the space it has: the name, a short form, or nothing. */
static const char *label_fit(const char *name, double width)
{
    static const struct {
        const char *name, *shorter;
    } shorts[] = {{"model build", "build"}, {"forward", "fwd"}, {"backward", "bwd"}, {"optimizer", "opt"},
                  {"prefill", "pre"}, {"decode", "dec"}};
    const double per_char = 5.6; /* font-size 10 */
    if ((double)strlen(name) * per_char + 4 <= width)
        return name;
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++)
        if (!strcmp(shorts[i].name, name))
            return (double)strlen(shorts[i].shorter) * per_char + 4 <= width ? shorts[i].shorter : NULL;
    return NULL;
}

/* Under the axis: each phase's name in its span (row 1), and each optimizer step's number
 * (training) or the prompt and the decode steps (inference) in theirs (row 2). Labels that
 * do not fit their span are shortened or left out, so none overlaps another. */
static void svg_axis(llmmem__buf *b, const frame *f, const run *x)
{
    llmmem__buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", X0, Y1, X1, Y1);
    for (size_t j = 0; j < x->nb;) {
        size_t k = j + 1;
        while (k < x->nb && x->b[k].mark)
            k++; /* the phase's span: up to the next phase start */
        const char *name = x->b[j].phase;
        const char *shown = strcmp(name, "process start") ? label_fit(name, f->slot_x[k] - f->slot_x[j]) : NULL;
        if (shown)
            llmmem__buf_printf(b, "<text class=\"phase-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                                  "font-size=\"10\" fill=\"#333\">%s</text>",
                               (f->slot_x[j] + f->slot_x[k]) / 2, Y1 + 14, shown);
        j = k;
    }
    char text[64];
    for (size_t j = 0; j < x->nb; j++) {
        const bound *c = &x->b[j];
        if (c->mark)
            continue;
        double from = f->slot_x[j], to = from;
        if (!strcmp(c->phase, "forward") && (j == 0 || x->b[j - 1].step != c->step || !strcmp(x->b[j - 1].phase, "model build") ||
                                             !strcmp(x->b[j - 1].phase, "process start"))) {
            size_t k = j; /* this optimizer step: up to the next phase of another step */
            while (k < x->nb && x->b[k].step == c->step)
                k++;
            to = f->slot_x[k];
            snprintf(text, sizeof text, (to - from) > 60 ? "optimizer step %d" : "step %d", c->step);
        } else if (!strcmp(c->phase, "prefill") || !strcmp(c->phase, "decode")) {
            size_t k = j + 1;
            while (k < x->nb && x->b[k].mark)
                k++;
            to = f->slot_x[k];
            if (!strcmp(c->phase, "prefill"))
                snprintf(text, sizeof text, "%lld-token prompt", (long long)x->c->prompt_len);
            else
                snprintf(text, sizeof text, "%llu decode steps", (unsigned long long)x->decode_steps);
        } else {
            continue;
        }
        if ((double)strlen(text) * 5.6 + 4 <= to - from)
            llmmem__buf_printf(b, "<text class=\"step-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                                  "font-size=\"10\" fill=\"#666\">%s</text>",
                               (from + to) / 2, Y1 + 28, text);
    }
    llmmem__buf_printf(b, "\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">the run's phases: %s its own "
                          "slot (not to time scale)</text>\n",
                       (X0 + X1) / 2, Y1 + 46,
                       x->layers ? "each layer's forward and backward" : "each decode step");
}

/* The highest allocated point, marked and named by where in the run it is. */
static void svg_peak(llmmem__buf *b, const frame *f, const run *x, const point *p, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (active(&p[i]) > active(&p[best]))
            best = i;
    if (n == 0)
        return;
    const double xx = px(f, x, p[best].event), yy = py(f, gib(active(&p[best]) + f->context));
    const bound *at = NULL; /* the boundary the peak follows */
    for (size_t j = 0; j < x->nb && x->b[j].at <= p[best].event; j++)
        at = &x->b[j];
    char where[96] = "";
    if (at && at->mark && !strcmp(at->mark, "layer"))
        snprintf(where, sizeof where, "%s, layer %llu of %llu, step %d", at->phase,
                 (unsigned long long)at->index + 1, (unsigned long long)x->layers, at->step);
    else if (at && at->mark && !strcmp(at->mark, "decode step"))
        snprintf(where, sizeof where, "decode step %llu of %llu", (unsigned long long)at->index,
                 (unsigned long long)x->decode_steps);
    else if (at && at->mark)
        snprintf(where, sizeof where, "%s, %s, step %d", at->phase, at->mark, at->step);
    else if (at && x->layers)
        snprintf(where, sizeof where, "%s, step %d", at->phase, at->step);
    else if (at)
        snprintf(where, sizeof where, "%s", at->phase);
    /* the label above the plot, where no line or other label is; a dashed line down to the
     * point */
    llmmem__buf_printf(b, "<line class=\"peak\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                          "stroke-dasharray=\"2 2\"/><circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
                          "fill=\"#000\"/>",
                       xx, Y0 - 3, xx, Y1, xx, yy);
    llmmem__buf_printf(b, "<text class=\"peak-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" font-size=\"11\" "
                          "font-weight=\"bold\">peak %.2f GiB allocated (+ %.2f GiB CUDA context): %s</text>\n",
                       xx, Y0 - 6, xx < (X0 + X1) / 2 ? "start" : "end", gib(active(&p[best])), gib(f->context),
                       where);
}

/* The legend (colours as data-category, as the areas have them) and the title line. */
static void svg_legend(llmmem__buf *b, const frame *f, const run *x)
{
    for (int k = 0; k <= K_COUNT; k++) {
        int ly = Y0 + 8 + k * 18;
        const char *name = k < K_COUNT ? cat_names[K_COUNT - 1 - k] : "cuda_context";
        const char *color = k < K_COUNT ? cat_colors[K_COUNT - 1 - k] : CONTEXT_COLOR;
        llmmem__buf_printf(b, "<rect class=\"legend\" data-category=\"%s\" x=\"%d\" y=\"%d\" width=\"12\" "
                              "height=\"12\" fill=\"%s\" fill-opacity=\"0.85\"/>",
                           name, X1 + 16, ly, color);
        llmmem__buf_printf(b, "<text x=\"%d\" y=\"%d\">%s</text>\n", X1 + 34, ly + 10,
                           k < K_COUNT ? name : "CUDA context");
    }
    int ly = Y0 + 8 + (K_COUNT + 1) * 18 + 6;
    llmmem__buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" stroke-width=\"1.5\"/>"
                          "<text x=\"%d\" y=\"%d\">reserved</text>\n",
                       X1 + 16, ly + 6, X1 + 28, ly + 6, X1 + 34, ly + 10);
    llmmem__buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c00\" stroke-dasharray=\"4 2\"/>"
                          "<text x=\"%d\" y=\"%d\">GPU capacity</text>\n",
                       X1 + 16, ly + 24, X1 + 28, ly + 24, X1 + 34, ly + 28);
    llmmem__buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\">peak allocated %.2f GiB, peak reserved %.2f GiB, "
                          "+ CUDA context %.2f GiB = %.2f GiB of the GPU's %.2f GiB%s</text>\n",
                       X0, Y0 - 22, gib(x->r->replay_allocated), gib(x->r->replay_reserved), gib(f->context),
                       gib(x->r->replay_reserved + f->context), gib(f->cap),
                       x->r->replay_oom ? " (does not fit)" : "");
    char note[256];
    if (cut_note(x, note, sizeof note))
        llmmem__buf_printf(b, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"9\">%s</text>\n", X0 / 4, H - 8,
                           note);
}

static int write_svg(llmmem__buf *b, const run *x, const point *p, size_t n)
{
    frame f;
    if (frame_of(&f, x, p, n) != 0) {
        free(f.slot_x);
        return LLMMEM_E_NOMEM;
    }
    llmmem__buf_printf(b,
                       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                       "font-family=\"sans-serif\" font-size=\"11\">\n",
                       W, H, W, H);
    llmmem__buf_printf(b, "<title>");
    llmmem__buf_printf(b, "Predicted memory timeline: %s, peak allocated %.2f GiB, peak reserved %.2f GiB",
                       x->r->model_type, gib(x->r->replay_allocated), gib(x->r->replay_reserved));
    llmmem__buf_printf(b, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    svg_areas(b, &f, x, p, n);
    svg_lines(b, &f, x, p, n);
    svg_axis(b, &f, x);
    svg_peak(b, &f, x, p, n);
    svg_legend(b, &f, x);
    llmmem__buf_printf(b, "</svg>\n");
    free(f.slot_x);
    return LLMMEM_OK;
}

/* ---- torch.cuda.memory._snapshot() ------------------------------------------------------------ */

static const char *action_of(int op)
{
    switch (op) {
    case LLMMEM__TL_ALLOC: return "alloc";
    case LLMMEM__TL_FREE: return "free_completed";
    case LLMMEM__TL_SEG_ALLOC: return "segment_alloc";
    case LLMMEM__TL_SEG_FREE: return "segment_free";
    case LLMMEM__TL_SEG_MAP: return "segment_map";
    case LLMMEM__TL_SEG_UNMAP: return "segment_unmap";
    default: return NULL;
    }
}

static void frames(llmmem__buf *b, const char *phase, int step, const char *what)
{
    char name[192];
    snprintf(name, sizeof name, "step %d %s: %s", step, phase ? phase : "", what ? what : "");
    llmmem__buf_printf(b, "\"frames\": [{\"filename\": \"llmmem\", \"line\": %d, \"name\": ", step);
    llmmem__buf_json_string(b, name);
    llmmem__buf_printf(b, "}]");
}

/* Live segments and blocks at the end, from the events (a block lies in the
 * segment whose range holds its address). */
typedef struct live {
    uint64_t addr, size, req;
    const char *what;
    int stream;
    bool seg;
} live;

/* The blocks and segments live at the end of the replay. */
typedef struct live_set {
    live *l;
    size_t n, cap;
    bool nomem;
} live_set;

static void live_track(live_set *s, const llmmem__tl_event *e)
{
    bool seg = e->op == LLMMEM__TL_SEG_ALLOC || e->op == LLMMEM__TL_SEG_MAP;
    if (e->op == LLMMEM__TL_ALLOC || seg) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 1024;
            live *q = realloc(s->l, cap * sizeof *q);
            if (!q) {
                s->nomem = true;
                return;
            }
            s->l = q;
            s->cap = cap;
        }
        s->l[s->n++] = (live){e->addr, e->size, e->req, e->what, e->stream, seg};
        return;
    }
    bool want_seg = e->op != LLMMEM__TL_FREE;
    for (size_t k = s->n; k-- > 0;)
        if (s->l[k].seg == want_seg && s->l[k].addr == e->addr) {
            s->l[k] = s->l[--s->n];
            return;
        }
}

/* device_traces: every event as memory_viz reads it, a free as free_requested
 * then free_completed; the live set at the end into *s. Returns the last step. */
static int snapshot_traces(llmmem__buf *b, const llmmem__tl *t, live_set *s)
{
    const char *phase = "";
    int step = 0;
    bool first = true;
    for (size_t i = 0; i < t->n && !s->nomem; i++) {
        const llmmem__tl_event *e = &t->ev[i];
        if (e->op == LLMMEM__TL_PHASE) {
            phase = e->what;
            if (!strcmp(phase, "forward") || !strcmp(phase, "prefill"))
                step++;
            continue;
        }
        if (e->op == LLMMEM__TL_FREE) {
            llmmem__buf_printf(b, "%s{\"action\": \"free_requested\", \"addr\": %llu, \"size\": %llu, \"stream\": %d, "
                                  "\"time_us\": %llu, ",
                               first ? "" : ",\n", (unsigned long long)e->addr, (unsigned long long)e->req, e->stream,
                               (unsigned long long)i);
            frames(b, phase, step, e->what);
            llmmem__buf_printf(b, "}");
            first = false;
        }
        llmmem__buf_printf(b, "%s{\"action\": \"%s\", \"addr\": %llu, \"size\": %llu, \"stream\": %d, \"time_us\": %llu, ",
                           first ? "" : ",\n", action_of(e->op), (unsigned long long)e->addr,
                           (unsigned long long)(e->op == LLMMEM__TL_ALLOC || e->op == LLMMEM__TL_FREE ? e->req : e->size),
                           e->stream, (unsigned long long)i);
        frames(b, phase, step, e->what);
        llmmem__buf_printf(b, "}");
        first = false;
        live_track(s, e);
    }
    return step;
}

/* segments: each live segment with the blocks inside it. */
static void snapshot_segments(llmmem__buf *b, const run *x, const live_set *s, int step)
{
    const live *l = s->l;
    bool fs = true;
    for (size_t g = 0; g < s->n; g++) {
        if (!l[g].seg)
            continue;
        uint64_t used = 0, req = 0;
        for (size_t k = 0; k < s->n; k++)
            if (!l[k].seg && l[k].addr >= l[g].addr && l[k].addr < l[g].addr + l[g].size) {
                used += l[k].size;
                req += l[k].req;
            }
        llmmem__buf_printf(b,
                           "%s{\"device\": 0, \"address\": %llu, \"total_size\": %llu, \"allocated_size\": %llu, "
                           "\"active_size\": %llu, \"requested_size\": %llu, \"stream\": %d, \"segment_type\": \"%s\", "
                           "\"segment_pool_id\": [0, 0], \"is_expandable\": %s, \"frames\": [], \"blocks\": [",
                           fs ? "" : ",\n", (unsigned long long)l[g].addr, (unsigned long long)l[g].size,
                           (unsigned long long)used, (unsigned long long)used, (unsigned long long)req, l[g].stream,
                           l[g].size <= (UINT64_C(2) << 20) ? "small" : "large",
                           x->c->expandable_segments ? "true" : "false");
        fs = false;
        bool fb = true;
        for (size_t k = 0; k < s->n; k++)
            if (!l[k].seg && l[k].addr >= l[g].addr && l[k].addr < l[g].addr + l[g].size) {
                llmmem__buf_printf(b, "%s{\"address\": %llu, \"size\": %llu, \"requested_size\": %llu, "
                                      "\"state\": \"active_allocated\", ",
                                   fb ? "" : ", ", (unsigned long long)l[k].addr, (unsigned long long)l[k].size,
                                   (unsigned long long)l[k].req);
                frames(b, "end", step, l[k].what);
                llmmem__buf_printf(b, "}");
                fb = false;
            }
        llmmem__buf_printf(b, "]}");
    }
}

/* The dictionary of torch.cuda.memory._snapshot(); LLMMEM_E_NOMEM when the
 * live set cannot be held. */
static int write_snapshot(llmmem__buf *b, const run *x)
{
    live_set s = {NULL, 0, 0, false};
    llmmem__buf_printf(b, "{\"device_traces\": [[");
    int step = snapshot_traces(b, &x->tl, &s);
    if (s.nomem) {
        free(s.l);
        return LLMMEM_E_NOMEM;
    }
    llmmem__buf_printf(b, "]], \"segments\": [");
    snapshot_segments(b, x, &s, step);
    free(s.l);
    llmmem__buf_printf(b, "], \"allocator_settings\": {\"PYTORCH_CUDA_ALLOC_CONF\": \"expandable_segments:%s",
                       x->c->expandable_segments ? "True" : "False");
    if (x->c->max_split_size_bytes > 0)
        llmmem__buf_printf(b, ",max_split_size_mb:%lld", (long long)(x->c->max_split_size_bytes >> 20));
    if (x->c->gc_threshold > 0) {
        llmmem__buf_printf(b, ",garbage_collection_threshold:");
        llmmem__buf_f64(b, x->c->gc_threshold);
    }
    llmmem__buf_printf(b, "\", \"source\": \"libllmmem %s allocator replay (predicted)\"}", LLMMEM_VERSION_STRING);
    char note[256];
    if (cut_note(x, note, sizeof note)) {
        llmmem__buf_printf(b, ", \"notes\": [");
        llmmem__buf_json_string(b, note);
        llmmem__buf_printf(b, "]");
    }
    llmmem__buf_printf(b, "}\n");
    return LLMMEM_OK;
}

/* ---- the entry point ---------------------------------------------------------------------------- */

int llmmem_timeline(char *buf, size_t cap, size_t *needed, const llmmem_model *model, const llmmem_config *cfg,
                    int format)
{
    if (needed)
        *needed = 0;
    if (!model || !cfg || (!buf && cap))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_timeline: NULL argument");
    if (format < LLMMEM_TIMELINE_JSON || format > LLMMEM_TIMELINE_SNAPSHOT)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_timeline: unknown format %d", format);
    run x;
    int rc = record(&x, model, cfg);
    if (rc) {
        release(&x);
        return rc;
    }
    llmmem__buf b = {buf, cap, 0};
    if (format == LLMMEM_TIMELINE_SNAPSHOT) {
        if (write_snapshot(&b, &x)) {
            release(&x);
            return llmmem__error(LLMMEM_E_NOMEM, "llmmem_timeline: out of memory");
        }
    } else {
        point *p = NULL;
        size_t n = points_of(&x.tl, &p);
        if (!p) {
            release(&x);
            return llmmem__error(LLMMEM_E_NOMEM, "llmmem_timeline: out of memory");
        }
        rc = format == LLMMEM_TIMELINE_SVG ? write_svg(&b, &x, p, n) : (write_json(&b, &x, p, n), LLMMEM_OK);
        free(p);
        if (rc) {
            release(&x);
            return llmmem__error(LLMMEM_E_NOMEM, "llmmem_timeline: out of memory");
        }
    }
    release(&x);
    return llmmem__buf_finish(&b, needed);
}

const char *llmmem_timeline_format_name(int format)
{
    static const char *const names[] = {"json", "svg", "snapshot"};
    return format >= 0 && format <= LLMMEM_TIMELINE_SNAPSHOT ? names[format] : NULL;
}
