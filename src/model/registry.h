/* The architecture registry: every model family that libllmmem knows, as data.
 *
 * A family is one llmmem__family entry (src/model/families_*.c):
 *  - its quantities (llmmem__qdef): a symbol, the config.json keys that hold it
 *    (first present wins; "a.b" reads a sub-object) and the default its
 *    configuration class sets, as an expression of the symbols before it;
 *  - its parameter tensors (llmmem__tdef): module name as the modeling code
 *    names it (LoRA/PEFT target_modules match its dotted suffixes), shape and
 *    count as expressions, which layers hold it, and whether it is an nn.Linear;
 *  - its layer pattern: which mixer (full / sliding / chunked attention,
 *    linear attention, Mamba, short convolution) and which feed-forward
 *    (dense MLP, MoE, none) each decoder layer has, from a per-layer list in
 *    the config (`layer_types`, `layers_block_type`, a hybrid pattern string)
 *    or from the rule the configuration class applies when the list is absent.
 * Expressions are C integer expressions over the symbols (src/model/expr.c).
 * Adding a family that reuses known layer kinds is one entry; docs/models.md
 * says how. Counting a model is evaluating its entry: the parameter count is
 * the sum of its tensors, by construction. Not installed. */
#ifndef LLMMEM_MODEL_REGISTRY_H
#define LLMMEM_MODEL_REGISTRY_H

#include "core/core.h"

#include <string.h>

/* ---- quantities ---------------------------------------------------------- */

#define LLMMEM__MAX_Q 64

/* Value kinds and their bounds (a config value outside them is
 * LLMMEM_E_OUT_OF_RANGE naming the key). DIM .. AUTO read an integer, BOOL a
 * boolean, REAL a number; STR, LIST and LEN read strings and lists, matched
 * against the entry's `choices` where it has them. */
enum llmmem__qtype {
    LLMMEM__QT_DIM = 0, /* a width: 1 .. 2^22 */
    LLMMEM__QT_DIM0,    /* a width that may be 0 (absent part): 0 .. 2^22 */
    LLMMEM__QT_LAYERS,  /* 1 .. 100000 */
    LLMMEM__QT_COUNT,   /* heads, experts, groups, indices: 0 .. 2^22 */
    LLMMEM__QT_VOCAB,   /* 1 .. 2^26 */
    LLMMEM__QT_POS,     /* positions, windows: 0 .. 2^40 */
    LLMMEM__QT_INT,     /* a signed index (-1 = "the last layer"): -2^40 .. 2^40 */
    LLMMEM__QT_AUTO,    /* a width (1 .. 2^22) that may be the string "auto": the class computes
                           it then, which is the entry's default (mamba's time_step_rank) */
    LLMMEM__QT_BOOL,    /* true/false; with `choices`, a string also: true when it is one of
                           them (laguna's gating: true or "per-head") */
    LLMMEM__QT_REAL,    /* a real (dropout, rotary fraction, soft-cap): default parsed as a number */
    LLMMEM__QT_STR,     /* a string, read as its 1-based position among `choices`, 0 when it is
                           none of them (apertus: hidden_act "xielu" has parameters) */
    LLMMEM__QT_LIST,    /* a per-layer list read as one integer: without `choices` the sum of its
                           integer entries (0 .. 2^22 each: laguna's num_attention_heads_per_layer,
                           hrm_text's L_bp_cycles), one number standing for every layer (the sum
                           is number x L: hunyuan's moe_topk); with `choices` how many entries are
                           among them (glm_moe_dsa's indexer_types "full"; integer entries are
                           matched by their decimal text where a choice is a number:
                           deepseek_v4's compress_ratios 4) */
    LLMMEM__QT_LEN,     /* the length (1 .. 100000) of the array or string at the key
                           (nemotron_h: the layers are the entries of layers_block_type) */
    LLMMEM__QT_COUNT_
};
/* A flag on the type: the value may differ from layer to layer. Layer i takes
 * the i-th item when the config gives a list of num_hidden_layers values
 * (gemma3n's intermediate_size), the override of per_layer_config[i] when the
 * config has one (transformers' HeterogeneousConfigMixin: gemma4's head_dim),
 * else its default evaluated with the symbol i set to the layer's index (the
 * last num_kv_shared_layers layers of gemma3n/gemma4). The model's own value
 * (what the estimators read) is the largest item of a list, else the value
 * with i = 0. Layers whose per-layer values are equal form a variant
 * (llmmem__variants), counted with those values. */
#define LLMMEM__QT_LAYERWISE 0x40
#define LLMMEM__QT_BASE(t) ((t) & 0x3f)

typedef struct llmmem__qdef {
    const char *sym;  /* symbol for expressions: "h" */
    const char *keys; /* "hidden_size|n_embd"; NULL: derived from `def` only. "a.b"
                         reads member b of object a (item b of array a); "k#" is
                         the number of items of k (1 for a scalar); "@part.sym"
                         imports symbol sym of a composite's part (below);
                         "~attr" is only per_layer_config's attribute attr */
    const char *def;  /* value when every key is absent (an expression; REAL: a number);
                         NULL: a key is required */
    const char *nul;  /* value when the key is JSON null; NULL: null is an error */
    int type;         /* enum llmmem__qtype */
    const char *choices; /* STR, LIST, BOOL: the strings that count ("a|b"); NULL: none */
} llmmem__qdef;

/* Where a quantity's value comes from. */
enum llmmem__qsrc {
    LLMMEM__QS_DEFAULT = 0, /* absent: the entry's default, evaluated at each count */
    LLMMEM__QS_GIVEN = 1,   /* read from the config or set through the API */
    LLMMEM__QS_NULL = 2,    /* JSON null: the entry's `nul`, evaluated at each count */
    LLMMEM__QS_LIST = 3,    /* a LAYERWISE quantity given as a per-layer list (v: its largest item) */
    LLMMEM__QS_PER_LAYER = 4 /* a QT_LIST given as one number for every layer (kept in r):
                                the value is r x L, evaluated at each count */
};

/* The values of a model's quantities. Integers (BOOL as 0/1) in v, reals in r. */
#define LLMMEM__Q_SLOTS 128
typedef struct llmmem__qvals {
    int n;
    uint8_t slot[LLMMEM__Q_SLOTS];  /* index + 1 of a symbol by the hash of its name (0: none) */
    const char *sym[LLMMEM__MAX_Q]; /* static (the family entry's strings) */
    uint8_t len[LLMMEM__MAX_Q];
    uint8_t src[LLMMEM__MAX_Q];     /* enum llmmem__qsrc: where the value comes from */
    int64_t v[LLMMEM__MAX_Q];
    double r[LLMMEM__MAX_Q];
} llmmem__qvals;

/* The slot of a symbol's name in qvals' table (its first and last characters
 * and its length). */
static inline unsigned llmmem__qvals_hash(const char *sym, size_t len)
{
    return ((unsigned)(unsigned char)sym[0] * 7u + (unsigned)(unsigned char)sym[len - 1] * 13u + (unsigned)len * 29u) &
           (LLMMEM__Q_SLOTS - 1);
}
bool llmmem__qvals_find(const llmmem__qvals *q, const char *sym, size_t len, int *index);
/* The value of a symbol, or `def` when the family has no such quantity
 * (inline: the length of a literal name is known where it is written). */
static inline int64_t llmmem__qvals_get(const llmmem__qvals *q, const char *sym, int64_t def)
{
    int i;
    return llmmem__qvals_find(q, sym, strlen(sym), &i) ? q->v[i] : def;
}
static inline double llmmem__qvals_real(const llmmem__qvals *q, const char *sym, double def)
{
    int i;
    return llmmem__qvals_find(q, sym, strlen(sym), &i) ? q->r[i] : def;
}
/* Evaluates an expression of the registry; errors name the expression. */
int llmmem__expr_eval(int64_t *out, const char *text, const llmmem__qvals *q);

/* ---- compiled expressions --------------------------------------------------
 *
 * Every expression of the family tables is compiled when the tables change
 * (mk/gen_registry.c writes src/model/registry_code.c; the Makefile runs it
 * and test_registry_code.sh checks the committed file is current) into ops of
 * a stack machine over the quantities' indices: what llmmem__expr_eval
 * computes, errors and their offsets included, without reading the text. An
 * expression the compiler does not take (a syntax error, a symbol the family
 * lacks, a real default) keeps LLMMEM__X_TEXT and is read by llmmem__expr_eval. */
enum llmmem__xopcode {
    LLMMEM__X_RET_SYM = 0, /* the whole expression: quantity `arg` */
    LLMMEM__X_RET_CONST,   /* the whole expression: the constant `arg` */
    LLMMEM__X_END,         /* the value on the stack */
    LLMMEM__X_SYM,         /* pushes quantity `arg` */
    LLMMEM__X_CONST,       /* pushes `arg` */
    LLMMEM__X_NEG, LLMMEM__X_NOT, LLMMEM__X_MUL, LLMMEM__X_DIV, LLMMEM__X_MOD, LLMMEM__X_ADD, LLMMEM__X_SUB,
    LLMMEM__X_EQ, LLMMEM__X_NE, LLMMEM__X_LT, LLMMEM__X_LE, LLMMEM__X_GT, LLMMEM__X_GE,
    LLMMEM__X_AND,  /* a 0 stays and jumps to `arg`; else it is dropped */
    LLMMEM__X_OR,   /* a non-0 becomes 1 and jumps to `arg`; else it is dropped */
    LLMMEM__X_BOOL, /* != 0 */
    LLMMEM__X_JZ,   /* pops; jumps to `arg` when 0 */
    LLMMEM__X_JMP,
    LLMMEM__X_MAX, LLMMEM__X_MIN, LLMMEM__X_CDIV, LLMMEM__X_ISQRT,
    LLMMEM__X_RMUL, /* floor(x * the real quantity `arg`) */
    LLMMEM__X_COUNT_
};
typedef struct llmmem__xop {
    int64_t arg;
    uint16_t off; /* an op that can fail: the offset its error names */
    uint8_t op;   /* enum llmmem__xopcode */
} llmmem__xop;
#define LLMMEM__X_TEXT (-1) /* no code: the text is read */
/* The quantities bind() and the rules read by name, as indices. */
#define LLMMEM__CANON(X)                                                                                    \
    X(V) X(h) X(L) X(a) X(k) X(d) X(f) X(pos) X(tie) X(ab) X(ob) X(mb) X(qkn) X(norm) X(npl) X(gated) X(par) \
    X(prf) X(pa) X(ph) X(pe) X(fsc) X(asc) X(E) X(K) X(fm) X(ns) X(fs) X(seg) X(ql) X(kvl) X(dn) X(dr) X(dv) \
    X(sw) X(cw) X(ssm_version) X(ssm_inner) X(ssm_state) X(ssm_groups) X(ssm_heads) X(ssm_conv)            \
    X(ssm_dt_rank) X(ssm_chunk) X(lin_kind) X(lin_k_heads) X(lin_k_dim) X(lin_v_heads) X(lin_v_dim)       \
    X(lin_conv) X(conv_L) X(ssm_dtype) X(i) X(mx) X(L_full) X(L_sliding) X(L_chunked) X(L_linear)          \
    X(L_mamba) X(L_conv) X(L_none) X(L_hybrid) X(L_sparse) X(L_dense) X(L_moe) X(L_noffn)
enum llmmem__canon {
#define LLMMEM__CANON_ENUM(s) LLMMEM__CS_##s,
    LLMMEM__CANON(LLMMEM__CANON_ENUM)
#undef LLMMEM__CANON_ENUM
    LLMMEM__NCANON
};
/* The code of one family, tower or composite: where the code of each of its
 * expressions starts in llmmem__xops (LLMMEM__X_TEXT: none), and the index
 * of each canonical quantity (-1: the entry has none). */
typedef struct llmmem__xcode {
    int nq, nt;                 /* the entry's rows when it was compiled */
    const uint8_t *slot, *len;  /* llmmem__qvals' slot[] and len[] for its quantities */
    const int32_t *qdef, *qnul; /* [nq] */
    const int32_t *t;           /* [nt * 4]: when, rows, cols, count */
    int32_t mixer[3], ffn[3];   /* the rules' arg, arg2, expr */
    const int8_t *canon;        /* [LLMMEM__NCANON] */
} llmmem__xcode;
/* The generated tables (registry_code.c): the ops, the code of each family
 * (in llmmem__arch_at order), tower and composite, and the families' indices
 * in model_type order (the first of equal names first). */
extern const llmmem__xop llmmem__xops[];
extern const llmmem__xcode llmmem__xcode_fams[], llmmem__xcode_towers[], llmmem__xcode_composites[];
extern const int llmmem__xcode_fams_count, llmmem__xcode_towers_count, llmmem__xcode_composites_count;
extern const uint16_t llmmem__arch_by_type[];
/* Evaluates the expression whose code starts at `at` (LLMMEM__X_TEXT: reads
 * `text`), as llmmem__expr_eval does `text`. */
int llmmem__expr_run(int64_t *out, int32_t at, const char *text, const llmmem__qvals *q);
/* The value of canonical quantity `cs` (enum llmmem__canon) through a code's
 * index, else `def`. */
static inline int64_t llmmem__qvals_canon(const llmmem__qvals *q, const struct llmmem__xcode *x, int cs, int64_t def)
{
    const int i = x->canon[cs];
    return i >= 0 ? q->v[i] : def;
}
/* Declares quantities in q (none given); x: their compiled code, whose
 * tables it copies (NULL: they are made). */
void llmmem__qvals_init(llmmem__qvals *q, const struct llmmem__qdef *d, int n, const struct llmmem__xcode *x);

/* ---- layer pattern --------------------------------------------------------- */

/* What mixes tokens in a decoder layer. */
enum llmmem__mixer {
    LLMMEM__MX_FULL = 0, /* softmax attention over the whole context */
    LLMMEM__MX_SLIDING,  /* softmax attention within sliding_window */
    LLMMEM__MX_CHUNKED,  /* softmax attention within chunks (llama4) */
    LLMMEM__MX_LINEAR,   /* linear attention / gated delta rule (qwen3_next, kimi_linear, minimax) */
    LLMMEM__MX_MAMBA,    /* selective state space (Mamba 1/2) */
    LLMMEM__MX_CONV,     /* gated short convolution (lfm2) */
    LLMMEM__MX_NONE,     /* no mixer (an MLP-only layer of a hybrid pattern) */
    LLMMEM__MX_HYBRID,   /* Mamba and attention in one layer (zamba's shared block, falcon_h1's parallel heads) */
    LLMMEM__MX_SPARSE,   /* softmax attention over blocks an indexer selects (minimax_m3_sparse) */
    LLMMEM__MX_COUNT
};
/* What follows the mixer. */
enum llmmem__ffn {
    LLMMEM__FF_DENSE = 0, /* dense MLP */
    LLMMEM__FF_MOE,       /* routed experts (+ shared experts) */
    LLMMEM__FF_NONE,      /* no feed-forward (Mamba-only layers) */
    LLMMEM__FF_COUNT
};

/* How the mixer of layer i is decided when the config has no per-layer list
 * (nor index list, below). */
enum llmmem__mixer_rule {
    LLMMEM__MR_FULL = 0,  /* every layer: full attention */
    LLMMEM__MR_SLIDING,   /* every layer: sliding (full when sw == 0) */
    LLMMEM__MR_FROM,      /* sliding for i >= arg (qwen2: max_window_layers, when use_sliding_window) */
    LLMMEM__MR_PERIODIC,  /* kind `on` when (i + arg2) % arg == 0, else `off` */
    LLMMEM__MR_EXPR       /* `expr` gives the mixer of layer i (symbol i) */
};
/* How the feed-forward of layer i is decided when the config has no per-layer list. */
enum llmmem__ffn_rule {
    LLMMEM__FR_DENSE = 0, /* every layer dense */
    LLMMEM__FR_MOE,       /* every layer MoE when E > 0 */
    LLMMEM__FR_FIRST_K,   /* MoE for i >= arg and i % arg2 == 0 (deepseek: first_k_dense_replace, moe_layer_freq) */
    LLMMEM__FR_STEP,      /* MoE when (i + 1) % arg == 0 and i not in the `list` key (qwen2_moe) */
    LLMMEM__FR_EXPR,      /* `expr` gives the feed-forward of layer i */
    LLMMEM__FR_MOE_LIST   /* MoE when i is in the `list` key (llama4 moe_layers); without
                             the key, when (i + 1) % arg == 0 */
};
/* Symbolic kinds for MR_EXPR / FR_EXPR expressions and maps (the enum values as text). */
#define LLMMEM__K_FULL "0"
#define LLMMEM__K_SLIDING "1"
#define LLMMEM__K_CHUNKED "2"
#define LLMMEM__K_LINEAR "3"
#define LLMMEM__K_MAMBA "4"
#define LLMMEM__K_CONV "5"
#define LLMMEM__K_NONE "6"
#define LLMMEM__K_HYBRID "7"
#define LLMMEM__K_SPARSE "8"
#define LLMMEM__K_DENSE "0"
#define LLMMEM__K_MOE "1"
#define LLMMEM__K_NOFFN "2"

typedef struct llmmem__pattern {
    int rule;         /* enum llmmem__mixer_rule / llmmem__ffn_rule */
    const char *arg;  /* expressions of the rule (NULL = 0) */
    const char *arg2;
    int on, off;      /* MR_PERIODIC kinds */
    const char *expr; /* MR_EXPR / FR_EXPR: expression of i */
    /* The per-layer list in the config, when there is one: its key ("a|b":
     * the first present, non-empty one; "x.y" reads a sub-object) and how its
     * values map to kinds ("sliding_attention=1,full_attention=0"; a string
     * value is matched whole, a number (a boolean as 1/0) as its decimal
     * digits where the map has numbers, else it is an error; a string, where
     * the map has one-character values, gives one character a layer:
     * "M=4,*=0,-=6"; a run-length list [[["global", "local"], 12]] (gpt_neo's
     * attention_types) is expanded first; a mixer map may give the
     * feed-forward too: "moe=6/1"). For the feed-forward pattern, `list` with
     * a `map` is a per-layer list of feed-forward kinds (mlp_layer_types:
     * "dense=0,sparse=1"), which decides over the mixer map's; without a map,
     * for FR_STEP: the key of the indices that stay dense; for FR_MOE_LIST: of
     * the indices that are MoE. */
    const char *list;
    const char *map;
    /* The list repeats over the layers when shorter (recurrent_gemma's
     * block_types: (block_types * 100)[:L]); empty, it is an error (an empty
     * list that does not repeat counts as absent). */
    int cycle;
    /* Mixer only: a key of layer indices (counted from `base`) whose layers
     * are `on`, the others `off`, used when `list` is absent (bamba's
     * attn_layer_indices, lfm2's full_attn_idxs, kimi's 1-based
     * linear_attn_config.full_attn_layers). */
    const char *idx;
    int base;
} llmmem__pattern;

/* Layers whose LAYERWISE quantities (above) take the same values form a
 * variant; a layer tensor is counted once per variant, with the variant's
 * values, over the variant's layers of the tensor's kinds (a W_COUNT row,
 * whose count is explicit, once with the model's values). */
#define LLMMEM__MAX_VARIANTS 8
#define LLMMEM__MAX_VSYMS 8
typedef struct llmmem__variants {
    int n;                          /* variants in use (0: the family has no LAYERWISE quantity) */
    int nsym;                       /* the LAYERWISE quantities, in entry order */
    uint8_t sym[LLMMEM__MAX_VSYMS]; /* their indices in the model's quantities */
    int64_t v[LLMMEM__MAX_VARIANTS][LLMMEM__MAX_VSYMS];
    int64_t layers[LLMMEM__MAX_VARIANTS][LLMMEM__MX_COUNT][LLMMEM__FF_COUNT];
} llmmem__variants;

/* What a config gives for one layer: list items and per_layer_config overrides. */
typedef struct llmmem__layer_given {
    int n;
    uint8_t sym[LLMMEM__MAX_VSYMS];
    int64_t v[LLMMEM__MAX_VSYMS];
} llmmem__layer_given;

/* ---- tensors ------------------------------------------------------------------ */

/* Which layers hold a tensor. */
enum llmmem__where {
    LLMMEM__W_ONCE = 0,   /* the model once (embeddings, final norm, head) x count */
    LLMMEM__W_LAYER = 1,  /* every decoder layer */
    LLMMEM__W_MIXER = 2,  /* layers whose mixer is in `kinds` (a bit mask of 1 << enum llmmem__mixer) */
    LLMMEM__W_FFN = 3,    /* layers whose feed-forward is in `kinds` (1 << enum llmmem__ffn) */
    LLMMEM__W_COUNT = 4   /* decoder-layer rows whose `count` is explicit: rows x cols x count in
                             all, not multiplied by the layers of a kind. For a tensor only some
                             layers hold, chosen by a list the pattern does not describe
                             (glm_moe_dsa's indexer_types, the last layer only); for a shape that
                             already totals the layers (laguna's q_proj over heads summed from
                             num_attention_heads_per_layer: count 1); for a block the layers
                             share, held `count` times (zamba's shared attention block,
                             hrm_text's stacks run in cycles). `count` may use the layer counts
                             L_<kind> (L_hybrid, L_moe, ...: one symbol per mixer and
                             feed-forward kind, L_noffn for "none") when the entry declares them */
};
#define LLMMEM__WHERE_SHIFT 4
#define LLMMEM__MX(k) (1u << LLMMEM__MX_##k)
#define LLMMEM__FF(k) (1u << LLMMEM__FF_##k)
#define LLMMEM__ATTN_MIXERS (LLMMEM__MX(FULL) | LLMMEM__MX(SLIDING) | LLMMEM__MX(CHUNKED) | LLMMEM__MX(SPARSE))

enum llmmem__tflag {
    LLMMEM__TF_LINEAR = 1, /* an nn.Linear (or GPT-2 Conv1D) weight: LoRA target, autocast-cast */
    LLMMEM__TF_BIAS = 2,   /* the bias of the Linear named the same */
    LLMMEM__TF_PARAM = 4   /* a parameter of a fused module: `name` is "module.param"
                              (experts.gate_up_proj, self_attn.sinks) */
};

typedef struct llmmem__tdef {
    const char *name;  /* module name inside the layer or the model ("self_attn.q_proj") */
    const char *rows;  /* shape: rows x cols (cols NULL for a vector) */
    const char *cols;
    int kind;          /* enum llmmem__tkind */
    int flags;         /* enum llmmem__tflag */
    unsigned where;    /* enum llmmem__where | (kinds << 4): W_MIXER / W_FFN's mask of kinds */
    const char *when;  /* present only when this is non-zero (NULL: always) */
    const char *count; /* multiplier (NULL: 1), e.g. the layers of an extra stack */
} llmmem__tdef;

/* ---- families ------------------------------------------------------------------ */

typedef struct llmmem__arch {
    const char *type;       /* model_type */
    int act_family;         /* enum llmmem__family: which activation rules apply */
    const llmmem__qdef *q;  /* quantities, in evaluation order */
    int nq;
    const llmmem__tdef *t;  /* tensors */
    int nt;
    llmmem__pattern mixer;  /* layer pattern */
    llmmem__pattern ffn;
    int norm;               /* enum llmmem__norm */
    int act;                /* enum llmmem__act default; hidden_act may change it */
    const char *about;      /* one line for docs: source file, what is special */
} llmmem__arch;

/* ---- composites ----------------------------------------------------------------- */

/* A multimodal ForConditionalGeneration model is a composite: a text model (a
 * family above, read from its text sub-object), towers (vision, audio: each an
 * llmmem__arch of the tower tables, read from its own sub-object, whose
 * tensors are W_ONCE rows with their layer count as `count`) and its own
 * tensors (projectors), whose quantities read the top-level keys and import
 * the values of the text model and of the towers ("@text.h", "@vision.h";
 * "@vision" alone is 1 when that tower is present, else 0). Every part keeps
 * its own symbols. The text model's counts feed the language-model terms; the
 * towers and projectors go to the model's vision_params. */
#define LLMMEM__MAX_PARTS 3
typedef struct llmmem__part {
    const char *name;   /* "vision", "audio": what the composite's imports call it */
    const char *key;    /* its sub-object: "vision_config" */
    const char *type;   /* its tower entry when the sub-object names no model_type
                           (or names the composite's own type) */
    const char *absent; /* when the sub-object is absent or null: NULL no tower; else
                           the JSON read in its place ("{}": the tower's defaults) */
    const char *path;   /* the tower's module path in the composite: "model.vision_tower." */
} llmmem__part;

typedef struct llmmem__composite {
    const char *type;        /* the composite's model_type: "gemma3" */
    const char *text_key;    /* its text sub-object: "text_config" */
    const char *text_type;   /* the text entry when the sub-object names no model_type */
    const char *text_absent; /* JSON read when the text sub-object is absent or null */
    const char *text_path;   /* module path replacing the text model's "model." ... */
    const char *head_path;   /* ... and prefixing its other names (lm_head) */
    llmmem__part parts[LLMMEM__MAX_PARTS];
    const llmmem__qdef *q;   /* own quantities: top-level keys and imports */
    int nq;
    const llmmem__tdef *t;   /* own tensors (projectors), full module names */
    int nt;
    const char *about;       /* the modeling file, what is special */
    /* AutoModelForCausalLM builds the text model only (transformers
     * modeling_auto.py MODEL_FOR_CAUSAL_LM_MAPPING_NAMES maps the composite's
     * model_type to <Type>ForCausalLM): the towers are left out of params */
    const char *causal_lm_text;
} llmmem__composite;

/* The family tables (src/model/fam_*.c). */
extern const llmmem__arch llmmem__fam_llama[], llmmem__fam_classic[], llmmem__fam_multimodal[];
extern const int llmmem__fam_llama_count, llmmem__fam_classic_count, llmmem__fam_multimodal_count;
/* Towers and composites (src/model/fam_multimodal.c). */
extern const llmmem__arch llmmem__towers_multimodal[];
extern const int llmmem__towers_multimodal_count;
extern const llmmem__composite llmmem__composites_multimodal[];
extern const int llmmem__composites_multimodal_count;
/* Dense and MoE decoders, model_types a-g (src/model/fam_dense1.c). */
extern const llmmem__arch llmmem__fam_dense1[];
extern const int llmmem__fam_dense1_count;
/* Hybrid and recurrent decoders: Mamba, linear attention, short convolutions,
 * shared blocks (src/model/fam_hybrid.c). */
extern const llmmem__arch llmmem__fam_hybrid[];
extern const int llmmem__fam_hybrid_count;
/* Dense and MoE decoders, model_types h-z (src/model/fam_dense2.c). */
extern const llmmem__arch llmmem__fam_dense2[];
extern const int llmmem__fam_dense2_count;

/* The family tables in the order llmmem__arch_at counts them (registry.c),
 * which the compiled code follows (registry_code.c). */
#define LLMMEM__FAMILY_TABLES(X)                                                                     \
    X(llmmem__fam_llama) X(llmmem__fam_classic) X(llmmem__fam_multimodal) X(llmmem__fam_dense1) \
    X(llmmem__fam_hybrid) X(llmmem__fam_dense2)

/* All families, and lookup by model_type (NULL if unknown). */
const llmmem__arch *llmmem__arch_find(const char *type);
int llmmem__arch_count(void);
const llmmem__arch *llmmem__arch_at(int index);
/* Towers and composites by model_type (NULL if unknown), and by index. */
const llmmem__arch *llmmem__tower_find(const char *type);
int llmmem__tower_count(void);
const llmmem__arch *llmmem__tower_at(int index);
const llmmem__composite *llmmem__composite_find(const char *type);
int llmmem__composite_count(void);
const llmmem__composite *llmmem__composite_at(int index);
/* The compiled code of a family or tower, of a composite (NULL when the
 * generated tables do not match the entry: its expressions are then read). */
const llmmem__xcode *llmmem__arch_code(const llmmem__arch *f);
const llmmem__xcode *llmmem__composite_code(const llmmem__composite *c);

/* ---- counting (src/model/registry.c) --------------------------------------------- */

struct llmmem_model;
/* Declares the family's quantities in the model, none given. */
void llmmem__registry_init(struct llmmem_model *m, const llmmem__arch *f);
/* Sets a quantity (LLMMEM__QS_GIVEN); false if the family has no such symbol. */
bool llmmem__registry_set(struct llmmem_model *m, const char *sym, int64_t v);
bool llmmem__registry_set_real(struct llmmem_model *m, const char *sym, double v);
/* Evaluates the defaults and fills the canonical fields of struct
 * llmmem_model (no counting): what a config reader needs before it reads the
 * per-layer lists. */
int llmmem__registry_prepare(struct llmmem_model *m);
/* The mixer and feed-forward of layer i by the entry's rules. */
int llmmem__registry_mixer_of(int *kind, struct llmmem_model *m, int64_t i);
int llmmem__registry_ffn_of(int *kind, struct llmmem_model *m, int64_t i);
/* Counts one layer of the given kinds (a sliding layer without a window is
 * full, a chunked one without a chunk size too). */
int llmmem__registry_layer_add(struct llmmem_model *m, int mixer, int ffn);
/* The same for layer i of a family with LAYERWISE quantities: their values for
 * the layer (`given`: what the config lists for it, may be NULL; the others by
 * their defaults with i set) decide its variant. Starts a new pattern at i 0. */
int llmmem__registry_layer_add_at(struct llmmem_model *m, int64_t i, int mixer, int ffn,
                                  const llmmem__layer_given *given);
/* Declares a composite's parts in a model read as its text family (after
 * llmmem__registry_init), none present yet; llmmem__registry_tower sets part p's
 * tower (its quantities declared, none given). */
void llmmem__registry_composite(struct llmmem_model *m, const llmmem__composite *c);
void llmmem__registry_tower(struct llmmem_model *m, int p, const llmmem__arch *tower);
/* prepare, the layer pattern from the rules unless listed, the tensors and counts. */
int llmmem__registry_count(struct llmmem_model *m);
/* A real default: a number, or ratio(x, y) of two integer expressions. */
int llmmem__registry_real(double *out, const char *text, const llmmem__qvals *q);

#endif /* LLMMEM_MODEL_REGISTRY_H */
