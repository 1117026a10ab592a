/* Models: exact parameter counts from the architecture fields, the public
 * llmmem_model_* API, raw models described by numbers.
 *
 * Counts equal sum(p.numel() for p in model.parameters()) of the HF class
 * (huggingface/transformers src/transformers/models/<type>/modeling_<type>.py);
 * per-family layouts are in shared research formulas.md 1.2 and in the
 * comments below. Buffers (rotary inv_freq, DeepSeek-V3's
 * e_score_correction_bias, which modular_deepseek_v3.py registers with
 * register_buffer) are not parameters. */
#include "model/model.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void llmmem__model_note(struct llmmem_model *m, const char *fmt, ...)
{
    if (!m || m->note_count >= LLMMEM__MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->notes[m->note_count], LLMMEM__NOTE_MAX, fmt, ap);
    va_end(ap);
    m->note_count++;
}

/* ---- counting --------------------------------------------------------------- */

/* A model built field by field (llmmem_model_new and the setters, or a test)
 * counts with the `raw` registry entry: its canonical fields become the
 * entry's quantities. */
static void sync_raw(struct llmmem_model *m)
{
    const llmmem__arch *raw = llmmem__arch_find("raw");
    if (m->fam != raw) {
        int family = m->family;
        llmmem__registry_init(m, raw);
        m->family = family;
    }
    static const struct {
        const char *sym;
        size_t off;
    } fields[] = {
        {"V", offsetof(struct llmmem_model, vocab_size)},
        {"h", offsetof(struct llmmem_model, hidden_size)},
        {"L", offsetof(struct llmmem_model, num_layers)},
        {"a", offsetof(struct llmmem_model, num_heads)},
        {"k", offsetof(struct llmmem_model, num_kv_heads)},
        {"d", offsetof(struct llmmem_model, head_dim)},
        {"f", offsetof(struct llmmem_model, intermediate_size)},
        {"pos", offsetof(struct llmmem_model, max_positions)},
        {"sw", offsetof(struct llmmem_model, sliding_window)},
        {"E", offsetof(struct llmmem_model, num_experts)},
        {"K", offsetof(struct llmmem_model, experts_per_token)},
        {"fm", offsetof(struct llmmem_model, moe_intermediate_size)},
    };
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(fields); i++) {
        int64_t v = *(const int64_t *)((const char *)m + fields[i].off);
        if (v > 0 || !strcmp(fields[i].sym, "sw") || !strcmp(fields[i].sym, "E") || !strcmp(fields[i].sym, "K"))
            llmmem__registry_set(m, fields[i].sym, v);
    }
    llmmem__registry_set(m, "tie", m->tie_embeddings);
}

/* Zero bytes over [from, to) of m, in pieces (offsets ascending). */
static void clear_span(struct llmmem_model *m, size_t from, size_t to)
{
    if (to > from)
        memset((char *)m + from, 0, to - from);
}

void llmmem__model_clear(struct llmmem_model *m)
{
    /* the arrays left as they are, each read only below its count (which is
     * cleared): the quantities (registry_init fills them), the layer
     * variants' values and counts (registry_layer_add_at), a composite's parts
     * (registry_composite clears them), the tensors, the notes */
#define AT(f) offsetof(struct llmmem_model, f)
#define END(f) (offsetof(struct llmmem_model, f) + sizeof m->f)
    static const struct {
        size_t from, to;
    } keep[] = {
        {offsetof(struct llmmem_model, q) + offsetof(llmmem__qvals, sym), END(q)},
        {AT(variants.v), END(variants.layers)},
        {AT(mm.tq), END(mm.tq)},
        {AT(mm.tensors.t), END(mm.tensors.t)},
        {AT(tensors.t), END(tensors.t)},
        {AT(notes), END(notes)},
    };
#undef AT
#undef END
    size_t at = 0;
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(keep); i++) {
        clear_span(m, at, keep[i].from);
        at = keep[i].to;
    }
    clear_span(m, at, sizeof *m);
}

static void zero_counts(struct llmmem_model *m)
{
    m->params = m->params_embedding = m->params_attention = m->params_mlp = 0;
    m->params_experts = m->params_router = m->params_norm = m->params_head = 0;
    m->params_active = m->largest_module_params = m->layer_linear_params = 0;
    m->tensors.n = 0;
}

int llmmem__model_count(struct llmmem_model *m)
{
    if (!m)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem__model_count: NULL model");
    if (m->vision_params < 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model: negative vision parameters");
    bool raw = !m->fam || !strcmp(m->fam->type, "raw");
    if (raw) {
        if (m->hidden_size <= 0 || m->num_layers <= 0 || m->num_heads <= 0 || m->vocab_size <= 0) {
            zero_counts(m);
            return 0;
        }
        sync_raw(m);
    }
    int rc = llmmem__registry_count(m);
    if (rc)
        return rc;
    m->tensors.exact = true;
    return 0;
}

/* The tensor list of any model (one counted by the registry has it already). */
void llmmem__tensors_of(llmmem__tensors *t, const struct llmmem_model *m)
{
    if (m->fam && m->tensors.n > 0) {
        *t = m->tensors;
        return;
    }
    struct llmmem_model tmp = *m;
    int64_t params = tmp.params;
    if (llmmem__model_count(&tmp) != 0) {
        t->n = 0;
        t->exact = false;
        t->overflow = true;
        return;
    }
    *t = tmp.tensors;
    /* a hand-built model keeps its own count: the list is exact only when it agrees */
    t->exact = params == 0 || params == tmp.params;
}

bool llmmem__kv_heads_divide(const struct llmmem_model *m)
{
    return m->family != LLMMEM__FAM_DEEPSEEK && !llmmem__qvals_get(&m->q, "kv_nodiv", 0);
}

int llmmem__model_validate(const struct llmmem_model *m)
{
    if (!m)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "model: NULL");
    if (m->hidden_size <= 0 || m->num_layers <= 0)
        return llmmem__error(LLMMEM_E_SCHEMA, "model \"%s\": no shape: set num_parameters, or "
                                              "hidden_size and num_hidden_layers",
                             m->model_type);
    /* every estimate asks: the list that names the culprit only when one is not positive */
    if (m->vocab_size <= 0 || m->num_heads <= 0 || m->num_kv_heads <= 0 || m->head_dim <= 0 ||
        m->intermediate_size <= 0 || m->max_positions <= 0) {
        const struct {
            const char *name;
            int64_t v;
        } pos[] = {{"vocab_size", m->vocab_size},
                   {"num_attention_heads", m->num_heads},
                   {"num_key_value_heads", m->num_kv_heads},
                   {"head_dim", m->head_dim},
                   {"intermediate_size", m->intermediate_size},
                   {"max_position_embeddings", m->max_positions}};
        for (size_t i = 0; i < LLMMEM_ARRAY_LEN(pos); i++)
            if (pos[i].v <= 0)
                return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model \"%s\": %s must be positive, got %lld",
                                     m->model_type, pos[i].name, (long long)pos[i].v);
    }
    if (m->num_heads % m->num_kv_heads != 0 && llmmem__kv_heads_divide(m))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "model \"%s\": num_attention_heads %lld is not a multiple of "
                             "num_key_value_heads %lld",
                             m->model_type, (long long)m->num_heads, (long long)m->num_kv_heads);
    if (m->num_experts < 0 || m->experts_per_token < 0 ||
        (m->num_experts > 0 && m->experts_per_token > m->num_experts))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "model \"%s\": num_experts_per_tok %lld with %lld experts",
                             m->model_type, (long long)m->experts_per_token,
                             (long long)m->num_experts);
    if (m->num_experts > 0 && m->moe_intermediate_size <= 0)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "model \"%s\": moe_intermediate_size must be positive", m->model_type);
    if (m->params <= 0)
        return llmmem__error(LLMMEM_E_INTERNAL, "model \"%s\": no parameters counted",
                             m->model_type);
    return 0;
}

/* ---- keys ---------------------------------------------------------------------- */

typedef struct key_info {
    int key;
    const char *name;
    size_t off; /* int64_t field, or SIZE_MAX for special ones */
    bool read_only;
    int64_t lo;
    const char *aliases; /* comma-separated, for llmmem_model_set */
    const char *sym;     /* the registry quantity an override sets (registry.c bind), or NULL */
    int kind;            /* llmmem_value_kind of its text (llmmem_model_set) */
} key_info;

#define F(x) offsetof(struct llmmem_model, x)
#define SPECIAL ((size_t)-1)
static const key_info keys[] = {
    {LLMMEM_M_NUM_LAYERS, "num_hidden_layers", F(num_layers), false, 1, "num_layers,layers,n_layer", "L", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_HIDDEN_SIZE, "hidden_size", F(hidden_size), false, 1, "hidden,n_embd,d_model", "h", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_NUM_HEADS, "num_attention_heads", F(num_heads), false, 1, "num_heads,heads,n_head", "a", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_NUM_KV_HEADS, "num_key_value_heads", F(num_kv_heads), false, 1, "num_kv_heads,kv_heads", "k", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_HEAD_DIM, "head_dim", F(head_dim), false, 1, "", "d", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_INTERMEDIATE_SIZE, "intermediate_size", F(intermediate_size), false, 1, "ffn,ffn_dim,n_inner", "f", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_VOCAB_SIZE, "vocab_size", F(vocab_size), false, 1, "vocab", "V", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_MAX_POSITIONS, "max_position_embeddings", F(max_positions), false, 1, "max_positions,n_positions", "pos", LLMMEM_VALUE_TOKENS},
    {LLMMEM_M_NUM_EXPERTS, "num_experts", F(num_experts), false, 0, "num_local_experts,experts", "E", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_EXPERTS_PER_TOKEN, "num_experts_per_tok", F(experts_per_token), false, 0, "experts_per_token,top_k", "K", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_MOE_INTERMEDIATE_SIZE, "moe_intermediate_size", F(moe_intermediate_size), false, 1, "", "fm", LLMMEM_VALUE_WHOLE},
    {LLMMEM_M_TIE_EMBEDDINGS, "tie_word_embeddings", SPECIAL, false, 0, "tie_embeddings,tie", "tie", LLMMEM_VALUE_BOOL},
    {LLMMEM_M_SLIDING_WINDOW, "sliding_window", F(sliding_window), false, 0, "", "sw", LLMMEM_VALUE_TOKENS},
    {LLMMEM_M_NUM_PARAMETERS, "num_parameters", SPECIAL, false, 1, "size,model_size,num_params", NULL, LLMMEM_VALUE_SIZE},
    {LLMMEM_M_PARAMS, "params", F(params), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_EMBEDDING, "params_embedding", F(params_embedding), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_ATTENTION, "params_attention", F(params_attention), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_MLP, "params_mlp", F(params_mlp), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_NORM, "params_norm", F(params_norm), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_HEAD, "params_head", F(params_head), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_VISION, "params_vision", F(vision_params), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_ACTIVE, "params_active", F(params_active), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_ROUTER, "params_router", F(params_router), true, 0, "", NULL, 0},
    {LLMMEM_M_PARAMS_EXPERTS, "params_experts", F(params_experts), true, 0, "", NULL, 0},
    {LLMMEM_M_APPROXIMATE, "approximate", SPECIAL, true, 0, "", NULL, 0},
};
#undef F

static const key_info *key_find(int key)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(keys); i++)
        if (keys[i].key == key)
            return &keys[i];
    return NULL;
}

static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static const key_info *key_by_name(const char *name)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(keys); i++)
        if (strcasecmp(keys[i].name, name) == 0 || in_list(keys[i].aliases, name))
            return &keys[i];
    return NULL;
}

const char *llmmem_model_key_name(int key)
{
    const key_info *k = key_find(key);
    return k ? k->name : NULL;
}

int llmmem_model_key_count(void) { return (int)LLMMEM_ARRAY_LEN(keys); }

int llmmem_model_key_at(int index)
{
    if (index < 0 || index >= (int)LLMMEM_ARRAY_LEN(keys))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "model key index %d out of range [0, %d)", index,
                             (int)LLMMEM_ARRAY_LEN(keys));
    return keys[index].key;
}

/* ---- raw models ------------------------------------------------------------------ */

static bool is_raw(const struct llmmem_model *m) { return strcmp(m->model_type, "raw") == 0; }

static int64_t round_up(int64_t v, int64_t mult) { return (v + mult - 1) / mult * mult; }

/* The shape fields of a raw model a caller can give; what is not given is derived from
 * what is, whatever the order of the calls (docs/models.md "Raw models"). */
enum {
    RAW_L = 1 << 0,   /* num_hidden_layers */
    RAW_H = 1 << 1,   /* hidden_size */
    RAW_A = 1 << 2,   /* num_attention_heads */
    RAW_K = 1 << 3,   /* num_key_value_heads */
    RAW_D = 1 << 4,   /* head_dim */
    RAW_F = 1 << 5,   /* intermediate_size */
    RAW_V = 1 << 6,   /* vocab_size */
    RAW_POS = 1 << 7, /* max_position_embeddings */
};

static unsigned raw_bit(int key)
{
    switch (key) {
    case LLMMEM_M_NUM_LAYERS: return RAW_L;
    case LLMMEM_M_HIDDEN_SIZE: return RAW_H;
    case LLMMEM_M_NUM_HEADS: return RAW_A;
    case LLMMEM_M_NUM_KV_HEADS: return RAW_K;
    case LLMMEM_M_HEAD_DIM: return RAW_D;
    case LLMMEM_M_INTERMEDIATE_SIZE: return RAW_F;
    case LLMMEM_M_VOCAB_SIZE: return RAW_V;
    case LLMMEM_M_MAX_POSITIONS: return RAW_POS;
    default: return 0;
    }
}

/* Heads for a given hidden size: hidden/head_dim when head_dim is given and divides,
 * else head_dim 128 where it divides (Llama-2/3), else 64, else 1 head. */
static int64_t raw_heads(const struct llmmem_model *m, int64_t h)
{
    if ((m->raw_given & RAW_D) && m->head_dim > 0 && h % m->head_dim == 0)
        return h / m->head_dim;
    if (h % 128 == 0)
        return h / 128;
    if (h % 64 == 0)
        return h / 64;
    return 1;
}

/* Heads of a size-derived shape near `want`: 1, 2, 4 or a multiple of 8, so that
 * tensor-parallel sizes 2, 4 and 8 divide them (Llama-2 7B/13B/70B have 32, 40, 64). */
static int64_t size_heads(int64_t want)
{
    if (want < 6)
        return want <= 1 ? 1 : want <= 2 ? 2 : 4;
    return (want + 4) / 8 * 8;
}

/* Exact count of a llama-like raw shape, without touching the model. */
static int64_t raw_count(struct llmmem_model *m)
{
    struct llmmem_model t = *m;
    if (llmmem__model_count(&t) != 0)
        return INT64_MAX;
    return t.params;
}

/* The fields derived from the given ones: heads, head_dim, KV heads (MHA), the SwiGLU
 * width 8h/3 rounded up to 256, vocab 32000 and 4096 positions; `notes` says which. */
static void raw_defaults(struct llmmem_model *m, bool notes)
{
    const unsigned g = m->raw_given;
    const int64_t h = m->hidden_size;
    if (!(g & RAW_A)) {
        m->num_heads = raw_heads(m, h);
        if (notes)
            llmmem__model_note(m, "num_attention_heads not given: %lld (head_dim %lld)",
                               (long long)m->num_heads, (long long)(h / m->num_heads));
    }
    if (!(g & RAW_D)) {
        m->head_dim = h / m->num_heads > 0 ? h / m->num_heads : 1;
        if (notes && h % m->num_heads != 0)
            llmmem__model_note(m, "hidden_size %lld is not a multiple of num_attention_heads %lld: "
                                  "head_dim %lld (give head_dim to choose)",
                               (long long)h, (long long)m->num_heads, (long long)m->head_dim);
    }
    if (!(g & RAW_K))
        m->num_kv_heads = m->num_heads;
    if (!(g & RAW_F)) {
        m->intermediate_size = round_up(8 * h / 3, 256);
        if (notes)
            llmmem__model_note(m, "intermediate_size not given: %lld (8h/3 rounded up to 256, "
                                  "SwiGLU)",
                               (long long)m->intermediate_size);
    }
    if (!(g & RAW_V)) {
        m->vocab_size = 32000;
        if (notes)
            llmmem__model_note(m, "vocab_size not given: 32000 (Llama-2)");
    }
    if (!(g & RAW_POS))
        m->max_positions = 4096;
}

/* The shape of layer count L for a size target: the given fields, else Llama-2's aspect
 * ratio (heads near L, head_dim 128: hidden = 128 x heads), then raw_defaults. */
static void size_shape(struct llmmem_model *m, int64_t L)
{
    const unsigned g = m->raw_given;
    m->num_layers = L;
    if (!(g & RAW_H)) {
        int64_t a = (g & RAW_A) ? m->num_heads : size_heads(L);
        int64_t d = (g & RAW_D) ? m->head_dim : 128;
        m->hidden_size = a * d;
    }
    raw_defaults(m, false);
}

/* Shape from a size target (docs/models.md "Raw models"): the given fields are kept;
 * the layer count (unless given: 1 to 7 or a multiple of 4) whose shape comes closest to
 * the target is taken, then
 * intermediate_size (unless given) is solved in multiples of 8 so that the total lands
 * within 12 x hidden x layers of the target. */
static void derive_from_size(struct llmmem_model *m, int64_t target)
{
    const unsigned g = m->raw_given;
    int64_t lo = (g & RAW_L) ? m->num_layers : 1, hi = (g & RAW_L) ? m->num_layers : 256;
    int64_t best_L = lo, best_err = INT64_MAX;
    for (int64_t L = lo; L <= hi; L++) {
        if (!(g & RAW_L) && L >= 8 && L % 4 != 0)
            continue; /* layer counts that pipeline sizes 2 and 4 divide */
        size_shape(m, L);
        int64_t c = raw_count(m);
        int64_t err = c > target ? c - target : target - c;
        if (err < best_err) {
            best_err = err;
            best_L = L;
        }
    }
    size_shape(m, best_L);
    if (!(g & RAW_F)) {
        const int64_t per = 3 * m->hidden_size * m->num_layers; /* gate, up, down per unit */
        m->intermediate_size = 8;
        int64_t base = raw_count(m) - 8 * per; /* everything but the MLP width */
        int64_t units = (target - base + 4 * per) / (8 * per);
        m->intermediate_size = 8 * (units < 1 ? 1 : units);
    }
}

/* Derives what was not given (raw_given) from what was: from the size target when
 * there is one, else from hidden_size and num_hidden_layers (nothing without them). */
static void raw_fill(struct llmmem_model *m)
{
    static const struct {
        unsigned bit;
        size_t off;
    } fields[] = {
        {RAW_L, offsetof(struct llmmem_model, num_layers)},
        {RAW_H, offsetof(struct llmmem_model, hidden_size)},
        {RAW_A, offsetof(struct llmmem_model, num_heads)},
        {RAW_K, offsetof(struct llmmem_model, num_kv_heads)},
        {RAW_D, offsetof(struct llmmem_model, head_dim)},
        {RAW_F, offsetof(struct llmmem_model, intermediate_size)},
        {RAW_V, offsetof(struct llmmem_model, vocab_size)},
        {RAW_POS, offsetof(struct llmmem_model, max_positions)},
    };
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(fields); i++)
        if (!(m->raw_given & fields[i].bit))
            *(int64_t *)(void *)((char *)m + fields[i].off) = 0;
    m->note_count = 0;
    m->from_size_only = false;
    const int64_t target = m->raw_target;
    if (target > 0) {
        derive_from_size(m, target);
        const unsigned shape = RAW_L | RAW_H | RAW_A | RAW_K | RAW_D | RAW_F;
        m->from_size_only = (m->raw_given & shape) != shape;
        m->size_derived[0] = '\0';
        if (m->from_size_only && (m->raw_given & shape)) {
            static const struct {
                unsigned bit;
                const char *key;
            } shape_keys[] = {{RAW_L, "num_layers"},   {RAW_H, "hidden_size"}, {RAW_A, "num_heads"},
                        {RAW_K, "num_kv_heads"}, {RAW_D, "head_dim"},    {RAW_F, "intermediate_size"}};
            size_t n = 0;
            for (size_t i = 0; i < LLMMEM_ARRAY_LEN(shape_keys); i++)
                if (!(m->raw_given & shape_keys[i].bit) && n < sizeof m->size_derived)
                    n += (size_t)snprintf(m->size_derived + n, sizeof m->size_derived - n, "%s%s",
                                          n ? ", " : "", shape_keys[i].key);
        }
        llmmem__model_count(m);
        if (!m->from_size_only) {
            llmmem__model_note(m, "num_parameters=%lld ignored: the shape is given in full and "
                                  "counts %lld",
                               (long long)target, (long long)m->params);
            return;
        }
        llmmem__model_note(m, "shape derived from num_parameters=%lld (llama-like, head_dim "
                              "128, heads a multiple of 8): parameter counts are approximate",
                           (long long)target);
        llmmem__model_note(m, "derived: %lld layers, hidden %lld, %lld heads (%lld KV), "
                              "intermediate %lld, vocab %lld",
                           (long long)m->num_layers, (long long)m->hidden_size,
                           (long long)m->num_heads, (long long)m->num_kv_heads,
                           (long long)m->intermediate_size, (long long)m->vocab_size);
        return;
    }
    if (m->hidden_size <= 0 || m->num_layers <= 0)
        return;
    raw_defaults(m, true);
}

int llmmem_model_new(llmmem_model **out)
{
    if (!out)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_new: NULL out");
    struct llmmem_model *m = calloc(1, sizeof *m);
    if (!m)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_model_new: out of memory");
    snprintf(m->model_type, sizeof m->model_type, "raw");
    m->family = LLMMEM__FAM_LLAMA;
    m->norm = LLMMEM__NORM_RMS;
    m->norms_per_layer = 2;
    m->act = LLMMEM__ACT_SILU_GLU;
    m->gated_mlp = true;
    m->partial_rotary_factor = 1.0;
    *out = m;
    return 0;
}

int llmmem_model_clone(llmmem_model **out, const llmmem_model *model)
{
    if (!out || !model)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_clone: NULL argument");
    struct llmmem_model *m = malloc(sizeof *m);
    if (!m)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_model_clone: out of memory");
    *m = *model;
    m->memo = NULL;
    if (model->gguf && !(m->gguf = llmmem__gguf_clone(model->gguf))) {
        free(m);
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_model_clone: out of memory");
    }
    *out = m;
    return 0;
}

void llmmem_model_free(llmmem_model *model)
{
    if (model) {
        llmmem__model_cache_drop(model);
        llmmem__gguf_free(model->gguf);
    }
    free(model);
}

/* Sets the registry quantity behind model key k of a registry model (a config
 * or a preset), with the value it had noted; an error names what it cannot
 * override. */
static int override_quantity(struct llmmem_model *t, const key_info *k, int64_t value)
{
    int i;
    if (!k->sym || !llmmem__qvals_find(&t->q, k->sym, strlen(k->sym), &i))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "model key \"%s\" cannot override a \"%s\" model: its architecture has no "
                             "such field",
                             k->name, t->model_type);
    if (t->q.src[i] == LLMMEM__QS_LIST)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "model key \"%s\" cannot override this \"%s\" model: its config lists the "
                             "value per layer",
                             k->name, t->model_type);
    if (k->key == LLMMEM_M_NUM_LAYERS && t->layers_listed)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "model key \"%s\" cannot override this \"%s\" model: its config lists "
                             "each layer's kind (%lld layers)",
                             k->name, t->model_type, (long long)t->num_layers);
    int64_t was = k->key == LLMMEM_M_TIE_EMBEDDINGS ? t->tie_embeddings : *(const int64_t *)((const char *)t + k->off);
    t->q.v[i] = value;
    t->q.src[i] = LLMMEM__QS_GIVEN;
    if (was != value)
        llmmem__model_note(t, "%s overridden: %lld (the config's %lld)", k->name, (long long)value, (long long)was);
    return LLMMEM_OK;
}

int llmmem_model_set_i64(llmmem_model *m, int key, int64_t value)
{
    if (!m)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_set_i64: NULL model");
    /* the replays made with the model as it was are not this model's */
    llmmem__model_cache_drop(m);
    const key_info *k = key_find(key);
    if (!k)
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM, "model key %d does not exist", key);
    if (k->read_only)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "model key \"%s\" is a computed count (read only)",
                             k->name);
    int64_t hi = key == LLMMEM_M_NUM_PARAMETERS ? INT64_C(1) << 50
                 : key == LLMMEM_M_TIE_EMBEDDINGS ? 1
                 : key == LLMMEM_M_NUM_LAYERS     ? 100000
                                                  : INT64_C(1) << 40;
    if (value < k->lo || value > hi)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "model key \"%s\": %lld is outside [%lld, %lld]",
                             k->name, (long long)value, (long long)k->lo, (long long)hi);
    struct llmmem_model t = *m; /* unchanged on error */
    if (key == LLMMEM_M_NUM_PARAMETERS) {
        if (!is_raw(&t))
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "num_parameters can only describe a raw model (llmmem_model_new); "
                                 "this one is \"%s\"",
                                 t.model_type);
        t.raw_target = value;
        raw_fill(&t);
    } else if (!is_raw(&t) && t.fam) {
        /* an override of a config's or preset's field: the registry quantity the
         * field is bound from (registry.c bind), counted again; a field the
         * config lists per layer, or one its family does not have, is refused */
        int rc = override_quantity(&t, k, value);
        if (rc)
            return rc;
    } else {
        if (key == LLMMEM_M_TIE_EMBEDDINGS)
            t.tie_embeddings = value != 0;
        else
            *(int64_t *)((char *)&t + k->off) = value;
        if (key == LLMMEM_M_NUM_EXPERTS && value > 0 && t.num_moe_layers == 0)
            t.num_moe_layers = t.num_layers;
        if (key == LLMMEM_M_NUM_LAYERS && t.num_experts > 0 && is_raw(&t))
            t.num_moe_layers = value;
        if (key == LLMMEM_M_SLIDING_WINDOW)
            t.num_sliding_layers = value > 0 ? t.num_layers : 0;
        if (is_raw(&t)) {
            t.raw_given |= raw_bit(key);
            if (raw_bit(key))
                raw_fill(&t);
            if (key == LLMMEM_M_NUM_EXPERTS && value > 0 && t.moe_intermediate_size <= 0)
                t.moe_intermediate_size = t.intermediate_size;
        }
    }
    int rc = llmmem__model_count(&t);
    if (rc)
        return rc;
    *m = t;
    return 0;
}

int llmmem_model_set(llmmem_model *m, const char *name, const char *value)
{
    if (!m || !name || !value)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_set: NULL argument");
    const key_info *k = key_by_name(name);
    if (!k)
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM, "no model field named \"%s\"", name);
    int64_t v;
    int rc = llmmem_parse_value(&v, value, k->kind);
    if (rc) {
        char why[200];
        snprintf(why, sizeof why, "%s", llmmem_last_error());
        return llmmem__error(rc, "model key \"%s\": %s", k->name, why);
    }
    return llmmem_model_set_i64(m, k->key, v);
}

int llmmem_model_key_value_kind(int key)
{
    const key_info *k = key_find(key);
    return k && !k->read_only ? k->kind : 0;
}

int llmmem_model_get_i64(int64_t *out, const llmmem_model *m, int key)
{
    if (!out || !m)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_get_i64: NULL argument");
    const key_info *k = key_find(key);
    if (!k)
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM, "model key %d does not exist", key);
    if (key == LLMMEM_M_TIE_EMBEDDINGS)
        *out = m->tie_embeddings;
    else if (key == LLMMEM_M_NUM_PARAMETERS)
        *out = m->params;
    else if (key == LLMMEM_M_APPROXIMATE)
        *out = m->generic || m->from_size_only;
    else
        *out = *(const int64_t *)((const char *)m + k->off);
    return 0;
}

int llmmem_model_type(char *buf, size_t cap, size_t *needed, const llmmem_model *m)
{
    if (!m || (!buf && cap))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_type: NULL argument");
    size_t n = strlen(m->model_type) + 1;
    if (needed)
        *needed = n;
    if (cap < n) {
        if (cap)
            buf[0] = '\0';
        return llmmem__error(LLMMEM_E_BUFFER_TOO_SMALL, "llmmem_model_type: needs %zu bytes", n);
    }
    memcpy(buf, m->model_type, n);
    return 0;
}

int llmmem_model_note_count(const llmmem_model *m) { return m ? m->note_count : 0; }

const char *llmmem_model_note(const llmmem_model *m, int index)
{
    if (!m || index < 0 || index >= m->note_count)
        return NULL;
    return m->notes[index];
}

/* ---- JSON ------------------------------------------------------------------------ */

static const char *const family_names[] = {"llama",  "gemma",  "phi",        "phi3",
                                           "gpt2",   "gpt_neox", "gptj",     "opt",
                                           "falcon", "olmo",   "starcoder2", "deepseek",
                                           "gpt_oss"};
static const char *const norm_names[] = {"rmsnorm", "layernorm", "layernorm_nobias", "nonparametric"};
static const char *const act_names[] = {"silu_glu", "gelu_tanh_glu", "gelu", "gelu_new", "relu",
                                        "swiglu_oai"};
/* The dtypes and storage formats (core/dtypes.def); a model without a quantization_config
 * has the format "none". */
#define DTYPE_NAME(P, V, name) [LLMMEM__DT_##V] = name,
#define QUANT_NAME(P, V, name) [LLMMEM__Q_##V] = name,
static const char *const dtype_names[LLMMEM__DT_COUNT] = {LLMMEM__DTYPES(DTYPE_NAME, _)};
static const char *const quant_names[LLMMEM__Q_COUNT] = {[LLMMEM__Q_AUTO] = "none",
                                                         LLMMEM__QUANTS_NAMED(QUANT_NAME, _)};
#undef DTYPE_NAME
#undef QUANT_NAME

static const char *name_of(const char *const *names, size_t n, int i)
{
    return i >= 0 && (size_t)i < n ? names[i] : "unknown";
}

static const char *yes(bool v) { return v ? "true" : "false"; }

static void json_counts(llmmem__buf *b, const struct llmmem_model *m)
{
    llmmem__buf_printf(b, ", \"params\": %lld, \"active_params\": %lld", (long long)m->params,
                       (long long)m->params_active);
    llmmem__buf_printf(b,
                       ", \"components\": {\"embedding\": %lld, \"attention\": %lld, \"mlp\": %lld, "
                       "\"experts\": %lld, \"router\": %lld, \"norm\": %lld, \"head\": %lld, "
                       "\"vision\": %lld}",
                       (long long)m->params_embedding, (long long)m->params_attention, (long long)m->params_mlp,
                       (long long)m->params_experts, (long long)m->params_router, (long long)m->params_norm,
                       (long long)m->params_head, (long long)m->vision_params);
    llmmem__buf_printf(b, ", \"largest_module_params\": %lld, \"layer_linear_params\": %lld",
                       (long long)m->largest_module_params, (long long)m->layer_linear_params);
    /* the towers AutoModelForCausalLM leaves out (registry causal_lm_text) */
    if (m->tower_params > 0)
        llmmem__buf_printf(b, ", \"vision_tower_params\": %lld, \"causal_lm_class\": \"%s\"",
                           (long long)m->tower_params, m->mm.comp ? m->mm.comp->causal_lm_text : "");
}

static void json_shape(llmmem__buf *b, const struct llmmem_model *m)
{
    llmmem__buf_printf(b,
                       ", \"vocab_size\": %lld, \"hidden_size\": %lld, \"num_hidden_layers\": %lld, "
                       "\"num_attention_heads\": %lld, \"num_key_value_heads\": %lld, "
                       "\"head_dim\": %lld, \"intermediate_size\": %lld, "
                       "\"max_position_embeddings\": %lld",
                       (long long)m->vocab_size, (long long)m->hidden_size, (long long)m->num_layers,
                       (long long)m->num_heads, (long long)m->num_kv_heads, (long long)m->head_dim,
                       (long long)m->intermediate_size, (long long)m->max_positions);
    llmmem__buf_printf(b,
                       ", \"tie_word_embeddings\": %s, \"attention_bias\": %s, \"o_bias\": %s, "
                       "\"mlp_bias\": %s, \"qk_norm\": %s, \"norm\": \"%s\", \"norms_per_layer\": %d, "
                       "\"activation\": \"%s\", \"gated_mlp\": %s, \"parallel_block\": %s, "
                       "\"partial_rotary_factor\": %.17g",
                       yes(m->tie_embeddings), yes(m->attention_bias), yes(m->o_bias), yes(m->mlp_bias),
                       yes(m->qk_norm), name_of(norm_names, LLMMEM_ARRAY_LEN(norm_names), m->norm),
                       m->norms_per_layer, name_of(act_names, LLMMEM_ARRAY_LEN(act_names), m->act),
                       yes(m->gated_mlp), yes(m->parallel_block), m->partial_rotary_factor);
    llmmem__buf_printf(b, ", \"attention_dropout\": %.17g, \"hidden_dropout\": %.17g, \"embedding_dropout\": %.17g",
                       m->attention_dropout, m->hidden_dropout, m->embedding_dropout);
}

static void json_moe_mla(llmmem__buf *b, const struct llmmem_model *m)
{
    llmmem__buf_printf(b,
                       ", \"num_experts\": %lld, \"num_experts_per_tok\": %lld, "
                       "\"moe_intermediate_size\": %lld, \"shared_expert_intermediate_size\": %lld, "
                       "\"n_shared_experts\": %lld, \"num_moe_layers\": %lld, \"shared_expert_gate\": %s",
                       (long long)m->num_experts, (long long)m->experts_per_token, (long long)m->moe_intermediate_size,
                       (long long)m->shared_expert_intermediate_size, (long long)m->n_shared_experts,
                       (long long)m->num_moe_layers, yes(m->shared_expert_gate));
    llmmem__buf_printf(b,
                       ", \"q_lora_rank\": %lld, \"kv_lora_rank\": %lld, \"qk_nope_head_dim\": %lld, "
                       "\"qk_rope_head_dim\": %lld, \"v_head_dim\": %lld",
                       (long long)m->q_lora_rank, (long long)m->kv_lora_rank, (long long)m->qk_nope_head_dim,
                       (long long)m->qk_rope_head_dim, (long long)m->v_head_dim);
    llmmem__buf_printf(b,
                       ", \"sliding_window\": %lld, \"num_sliding_layers\": %lld, "
                       "\"torch_dtype\": \"%s\", \"quant_method\": \"%s\", \"quant_bits\": %lld, "
                       "\"quant_group_size\": %lld",
                       (long long)m->sliding_window, (long long)m->num_sliding_layers,
                       name_of(dtype_names, LLMMEM_ARRAY_LEN(dtype_names), m->torch_dtype),
                       name_of(quant_names, LLMMEM_ARRAY_LEN(quant_names), m->quant_method),
                       (long long)m->quant_bits, (long long)m->quant_group_size);
}

/* Vision tower (input/towers.c); null when none. */
static void json_vision(llmmem__buf *b, const struct llmmem_model *m)
{
    static const char *const vkind_names[] = {"none", "clip", "siglip", "qwen2_vl", "qwen3_vl"};
    const struct llmmem__vision_tower *vt = &m->vision;
    if (vt->kind == LLMMEM__V_NONE) {
        llmmem__buf_printf(b, ", \"vision\": null");
        return;
    }
    llmmem__buf_printf(b,
                       ", \"vision\": {\"kind\": \"%s\", \"hidden_size\": %lld, "
                       "\"num_hidden_layers\": %lld, \"num_attention_heads\": %lld, "
                       "\"intermediate_size\": %lld, \"patch_size\": %lld, \"image_size\": %lld, "
                       "\"temporal_patch_size\": %lld, \"spatial_merge_size\": %lld, "
                       "\"tower_params\": %lld, \"projector_params\": %lld, "
                       "\"feature_layer\": %lld, \"drop_cls\": %s, \"tokens_per_image\": %lld}",
                       name_of(vkind_names, LLMMEM_ARRAY_LEN(vkind_names), vt->kind), (long long)vt->hidden,
                       (long long)vt->layers, (long long)vt->heads, (long long)vt->intermediate,
                       (long long)vt->patch_size, (long long)vt->image_size, (long long)vt->temporal_patch,
                       (long long)vt->merge_size, (long long)(m->vision_params + m->tower_params - vt->projector_params),
                       (long long)vt->projector_params, (long long)vt->feature_layer, yes(vt->drop_cls),
                       (long long)vt->tokens_per_image);
}

/* The layer pattern: layers by (mixer, feed-forward) kind. */
static void json_layers(llmmem__buf *b, const struct llmmem_model *m)
{
    static const char *const mixers[LLMMEM__MX_COUNT] = {"full_attention", "sliding_attention", "chunked_attention",
                                                         "linear_attention", "mamba", "conv", "none", "hybrid",
                                                         "sparse_attention"};
    static const char *const ffns[LLMMEM__FF_COUNT] = {"dense", "moe", "none"};
    llmmem__buf_printf(b, ", \"layers\": [");
    bool first = true;
    for (int x = 0; x < LLMMEM__MX_COUNT; x++)
        for (int y = 0; y < LLMMEM__FF_COUNT; y++) {
            if (!m->layers_of[x][y])
                continue;
            llmmem__buf_printf(b, "%s{\"mixer\": \"%s\", \"ffn\": \"%s\", \"count\": %lld}", first ? "" : ", ",
                               mixers[x], ffns[y], (long long)m->layers_of[x][y]);
            first = false;
        }
    llmmem__buf_printf(b, "]");
    /* layers by the values of their LAYERWISE quantities (registry.h) */
    const llmmem__variants *vs = &m->variants;
    if (vs->n == 0)
        return;
    llmmem__buf_printf(b, ", \"layer_variants\": [");
    for (int v = 0; v < vs->n; v++) {
        llmmem__buf_printf(b, "%s{\"layers\": [", v ? ", " : "");
        first = true;
        for (int x = 0; x < LLMMEM__MX_COUNT; x++)
            for (int y = 0; y < LLMMEM__FF_COUNT; y++)
                if (vs->layers[v][x][y]) {
                    llmmem__buf_printf(b, "%s{\"mixer\": \"%s\", \"ffn\": \"%s\", \"count\": %lld}",
                                       first ? "" : ", ", mixers[x], ffns[y], (long long)vs->layers[v][x][y]);
                    first = false;
                }
        llmmem__buf_printf(b, "], \"values\": {");
        for (int s = 0; s < vs->nsym; s++)
            llmmem__buf_printf(b, "%s\"%s\": %lld", s ? ", " : "", m->q.sym[vs->sym[s]], (long long)vs->v[v][s]);
        llmmem__buf_printf(b, "}}");
    }
    llmmem__buf_printf(b, "]");
}

/* The state-space and linear-attention mixers' dimensions (null when none). */
static void json_mixers(llmmem__buf *b, const struct llmmem_model *m)
{
    const struct llmmem__ssm *x = &m->ssm;
    const struct llmmem__lin *l = &m->lin;
    /* the recurrent state's dtype the config names ("auto": the model dtype) */
    const char *state_dtype = name_of(dtype_names, LLMMEM_ARRAY_LEN(dtype_names), m->ssm_state_dtype);
    if (x->inner > 0)
        llmmem__buf_printf(b,
                           ", \"ssm\": {\"version\": %lld, \"inner\": %lld, \"state\": %lld, \"groups\": %lld, "
                           "\"heads\": %lld, \"conv\": %lld, \"dt_rank\": %lld, \"chunk\": %lld, "
                           "\"state_dtype\": \"%s\"}",
                           (long long)x->version, (long long)x->inner, (long long)x->state, (long long)x->groups,
                           (long long)x->heads, (long long)x->conv, (long long)x->dt_rank, (long long)x->chunk,
                           state_dtype);
    else
        llmmem__buf_printf(b, ", \"ssm\": null");
    if (l->kind > 0)
        llmmem__buf_printf(b,
                           ", \"linear_attention\": {\"kind\": %lld, \"k_heads\": %lld, \"k_dim\": %lld, "
                           "\"v_heads\": %lld, \"v_dim\": %lld, \"conv\": %lld, \"state_dtype\": \"%s\"}",
                           (long long)l->kind, (long long)l->k_heads, (long long)l->k_dim, (long long)l->v_heads,
                           (long long)l->v_dim, (long long)l->conv, state_dtype);
    else
        llmmem__buf_printf(b, ", \"linear_attention\": null");
    llmmem__buf_printf(b, ", \"conv_kernel\": %lld, \"chunk_size\": %lld", (long long)m->conv_kernel,
                       (long long)m->chunk_size);
}

/* Parameter tensors as the registry lists them, named with their path. */
static void json_tensor_list(llmmem__buf *b, const char *key, const llmmem__tensors *ts)
{
    static const char *const kinds[] = {"embedding", "attention", "mlp", "experts", "router", "norm", "head", "bias"};
    llmmem__buf_printf(b, ", \"%s\": [", key);
    for (int i = 0; i < ts->n; i++) {
        const llmmem__tensor *x = &ts->t[i];
        char name[256];
        snprintf(name, sizeof name, "%s%s", x->path ? x->path : "", x->name);
        llmmem__buf_printf(b, "%s{\"name\": ", i ? ", " : "");
        llmmem__buf_json_string(b, name);
        llmmem__buf_printf(b, ", \"kind\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"count\": %lld, "
                              "\"linear\": %s, \"in_layers\": %s}",
                           name_of(kinds, LLMMEM_ARRAY_LEN(kinds), x->kind), (long long)x->rows, (long long)x->cols,
                           (long long)x->count, yes(x->linear), yes(x->layer));
    }
    llmmem__buf_printf(b, "]");
}

/* A composite's parts (registry.h): the text model's tensors are "tensors";
 * the towers' and projectors' are "vision_tensors", their sum vision_params. */
static void json_tensors(llmmem__buf *b, const struct llmmem_model *m)
{
    json_tensor_list(b, "tensors", &m->tensors);
    const struct llmmem__mm *mm = &m->mm;
    if (!mm->comp)
        return;
    llmmem__buf_printf(b, ", \"composite\": {\"model_type\": ");
    llmmem__buf_json_string(b, mm->comp->type);
    llmmem__buf_printf(b, ", \"text_model\": ");
    llmmem__buf_json_string(b, m->fam ? m->fam->type : "");
    llmmem__buf_printf(b, ", \"towers\": [");
    bool first = true;
    for (int p = 0; p < LLMMEM__MAX_PARTS; p++) {
        if (!mm->tower[p])
            continue;
        llmmem__buf_printf(b, "%s{\"part\": ", first ? "" : ", ");
        llmmem__buf_json_string(b, mm->comp->parts[p].name);
        llmmem__buf_printf(b, ", \"model_type\": ");
        llmmem__buf_json_string(b, mm->tower[p]->type);
        llmmem__buf_printf(b, ", \"params\": %lld}", (long long)mm->part_params[p]);
        first = false;
    }
    llmmem__buf_printf(b, "], \"projector_params\": %lld}", (long long)mm->own_params);
    json_tensor_list(b, "vision_tensors", &mm->tensors);
}

int llmmem_model_to_json(char *buf, size_t cap, size_t *needed, const llmmem_model *m)
{
    if (!m || (!buf && cap))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_to_json: NULL argument");
    llmmem__buf b = {buf, cap, 0};
    llmmem__buf_printf(&b, "{\"model_type\": ");
    llmmem__buf_json_string(&b, m->model_type);
    llmmem__buf_printf(&b, ", \"name\": ");
    llmmem__buf_json_string(&b, m->name);
    llmmem__buf_printf(&b, ", \"family\": \"%s\", \"approximate\": %s, \"generic\": %s, \"from_size_only\": %s",
                       name_of(family_names, LLMMEM_ARRAY_LEN(family_names), m->family),
                       yes(m->generic || m->from_size_only), yes(m->generic), yes(m->from_size_only));
    json_counts(&b, m);
    json_shape(&b, m);
    json_moe_mla(&b, m);
    json_vision(&b, m);
    json_layers(&b, m);
    json_mixers(&b, m);
    json_tensors(&b, m);
    llmmem__buf_printf(&b, ", \"notes\": [");
    for (int i = 0; i < m->note_count; i++) {
        if (i)
            llmmem__buf_printf(&b, ", ");
        llmmem__buf_json_string(&b, m->notes[i]);
    }
    llmmem__buf_printf(&b, "]}");
    return llmmem__buf_finish(&b, needed);
}
