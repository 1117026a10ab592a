/* Models: the parsed description of a model (struct llmmem_model), its
 * parameter tensors and exact counts. Not installed. */
#ifndef LLMMEM_MODEL_MODEL_H
#define LLMMEM_MODEL_MODEL_H

#include "core/core.h"
#include "model/gguf.h"
#include "model/registry.h"

#include <string.h>

enum llmmem__norm { LLMMEM__NORM_RMS = 0, LLMMEM__NORM_LAYER = 1, LLMMEM__NORM_LAYER_NOBIAS = 2,
                    LLMMEM__NORM_NONPARAM = 3 };

/* How the MLP computes, which decides what autograd keeps. */
enum llmmem__act {
    LLMMEM__ACT_SILU_GLU = 0,     /* SwiGLU, act(gate) * up (llama, mistral, qwen) */
    LLMMEM__ACT_GELU_TANH_GLU = 1, /* GeGLU with gelu_pytorch_tanh (gemma) */
    LLMMEM__ACT_GELU = 2,          /* fused F.gelu, non-gated (starcoder2, opt relu too) */
    LLMMEM__ACT_GELU_NEW = 3,      /* NewGELUActivation in Python ops (gpt2, phi, gptj) */
    LLMMEM__ACT_RELU = 4,          /* non-gated relu (opt) */
    LLMMEM__ACT_SWIGLU_OAI = 5     /* gpt-oss clamped swiglu on fused gate_up */
};

enum llmmem__family {
    LLMMEM__FAM_LLAMA = 0, /* llama-like: pre-norm, separate q/k/v/o, gated MLP */
    LLMMEM__FAM_GEMMA,
    LLMMEM__FAM_PHI,       /* phi-1/1.5/2: parallel block, one LayerNorm */
    LLMMEM__FAM_PHI3,
    LLMMEM__FAM_GPT2,
    LLMMEM__FAM_GPT_NEOX,
    LLMMEM__FAM_GPTJ,
    LLMMEM__FAM_OPT,
    LLMMEM__FAM_FALCON,
    LLMMEM__FAM_OLMO,
    LLMMEM__FAM_STARCODER2,
    LLMMEM__FAM_DEEPSEEK,  /* MLA + MoE */
    LLMMEM__FAM_GPT_OSS,
    LLMMEM__FAM_COUNT
};


/* ---- parameter tensors (tensors.c) ---------------------------------------- */

enum llmmem__tkind { LLMMEM__T_EMBED = 0, LLMMEM__T_ATTN, LLMMEM__T_MLP, LLMMEM__T_EXPERT,
                     LLMMEM__T_ROUTER, LLMMEM__T_NORM, LLMMEM__T_HEAD, LLMMEM__T_BIAS };
#define LLMMEM__MAX_TENSORS 96
typedef struct llmmem__tensor {
    const char *name; /* module name as the modeling code names it (static) */
    int kind;         /* enum llmmem__tkind */
    int64_t rows, cols; /* cols = 1 for vectors */
    int64_t count;    /* how many such tensors in the model */
    bool linear;      /* weight of an nn.Linear (LoRA target, autocast-cast) */
    bool layer;       /* inside the decoder layers (not embeddings, final norm, head) */
    int module_len;   /* length of the module's name within `name` (a weight and its bias
                         share it; experts.gate_up_proj belongs to "experts") */
    const char *path; /* NULL, or the module path before `name` in a composite
                         ("model.language_model.", "model.vision_tower."; static) */
} llmmem__tensor;
typedef struct llmmem__tensors {
    int n;
    bool exact; /* false: approximated from component counts */
    bool overflow; /* a dimension was out of range while listing */
    llmmem__tensor t[LLMMEM__MAX_TENSORS];
} llmmem__tensors;
struct llmmem_model;
void llmmem__tensors_of(llmmem__tensors *t, const struct llmmem_model *m);
bool llmmem__lora_targets(const char *targets, const llmmem__tensor *x);

/* The parsed description of a model. Field meanings follow HF config names.
 * Everything an estimator needs is here; counts are filled by
 * llmmem__model_count(). */
struct llmmem_model {
    char model_type[LLMMEM__NAME_MAX]; /* "llama" */
    char name[LLMMEM__NAME_MAX];       /* preset name or "" */
    int family;                        /* enum llmmem__family: the activation rules */
    const llmmem__arch *fam;         /* the registry entry (model/registry.h) */
    const llmmem__xcode *xc;           /* its compiled code (registry_code.c); NULL: its texts are read */
    llmmem__qvals q;                   /* its quantities, as read or set */
    /* layers by (mixer, feed-forward) kind; from the config's per-layer list
     * when layers_listed, else from the entry's rules at each count */
    int64_t layers_of[LLMMEM__MX_COUNT][LLMMEM__FF_COUNT];
    bool layers_listed;
    llmmem__variants variants;         /* layers by the values of LAYERWISE quantities */
    /* a composite (registry.h): its parts, their quantities, and the tensors
     * of the towers and projectors, whose sum is vision_params */
    struct llmmem__mm {
        const llmmem__composite *comp;                /* NULL: not a composite */
        const llmmem__arch *tower[LLMMEM__MAX_PARTS]; /* NULL: the part is absent */
        const llmmem__xcode *cxc, *txc[LLMMEM__MAX_PARTS]; /* their compiled code, as xc */
        llmmem__qvals tq[LLMMEM__MAX_PARTS];           /* each tower's quantities */
        llmmem__qvals q;                               /* the composite's own */
        int64_t part_params[LLMMEM__MAX_PARTS];       /* each tower's count */
        int64_t own_params;                           /* the projectors' */
        llmmem__tensors tensors;
    } mm;
    bool generic;                      /* unknown model_type estimated as dense decoder */
    bool from_size_only;               /* shape derived from num_parameters */
    char size_derived[96];             /* ... the shape keys derived when some were given
                                          ("num_kv_heads, head_dim"); "" when none was */
    /* raw models: the fields the caller set (RAW_* bits of model.c) and the size
     * target (num_parameters, 0: none); the rest is derived from them after each set */
    unsigned raw_given;
    int64_t raw_target;

    int64_t vocab_size;
    int64_t hidden_size;
    int64_t num_layers;
    int64_t num_heads;
    int64_t num_kv_heads;
    int64_t head_dim;                  /* explicit or hidden/heads */
    int64_t intermediate_size;
    int64_t max_positions;
    /* vLLM's longest max_model_len (config/model.py _get_and_verify_max_len): the positions
     * times rope_scaling's factor for the rope types that extend them (yarn: of
     * original_max_position_embeddings); 0 rope_len_factor = 1 (none read) */
    double rope_len_factor;
    int64_t rope_orig_positions;
    bool tie_embeddings;
    bool attention_bias;               /* q,k,v (and o where the family does) */
    bool o_bias;
    bool mlp_bias;
    bool qk_norm;                      /* qwen3/gemma3/olmo2 q_norm,k_norm */
    int norm;                          /* enum llmmem__norm */
    int norms_per_layer;               /* 1 (parallel), 2, 4 (gemma2/3, olmo2 post-norms) */
    int act;                           /* enum llmmem__act */
    bool gated_mlp;
    bool parallel_block;               /* attention and MLP read the same norm output */
    double partial_rotary_factor;      /* 1.0 = full rotary */
    double attention_dropout;
    double hidden_dropout;             /* residual / embedding dropout probability */
    double embedding_dropout;

    /* MoE */
    int64_t num_experts;               /* routed experts, 0 = dense */
    int64_t experts_per_token;
    int64_t moe_intermediate_size;
    int64_t shared_expert_intermediate_size; /* total width of shared experts */
    int64_t n_shared_experts;
    int64_t num_moe_layers;            /* how many layers are MoE */
    bool shared_expert_gate;

    /* MLA (deepseek) */
    int64_t q_lora_rank;
    int64_t kv_lora_rank;
    int64_t qk_nope_head_dim;
    int64_t qk_rope_head_dim;
    int64_t v_head_dim;

    /* logit soft-capping cap * tanh(x / cap) (gemma2); 0 = none */
    double final_logit_softcapping;
    double attn_logit_softcapping;

    /* sliding window */
    int64_t sliding_window;            /* 0 = none */
    int64_t num_sliding_layers;        /* layers that use the window */
    int64_t chunk_size;                /* chunked attention's chunk (llama4); 0 = none */

    /* Mixers other than softmax attention (registry symbols in brackets; the
     * layers of each kind are in layers_of). Zero when the model has none. */
    struct llmmem__ssm {
        int64_t version;   /* [ssm_version] 1 (Mamba) or 2 (Mamba-2) */
        int64_t inner;     /* [ssm_inner] d_inner = expand x hidden (Mamba-2: heads x head_dim) */
        int64_t state;     /* [ssm_state] d_state */
        int64_t groups;    /* [ssm_groups] n_groups of B and C (Mamba-2; 1 for Mamba) */
        int64_t heads;     /* [ssm_heads] Mamba-2 heads (Mamba: inner) */
        int64_t conv;      /* [ssm_conv] depthwise causal conv kernel */
        int64_t dt_rank;   /* [ssm_dt_rank] Mamba-1 dt projection rank */
        int64_t chunk;     /* [ssm_chunk] Mamba-2 chunk of the SSD scan (chunk_size; 0 for Mamba) */
    } ssm;
    struct llmmem__lin {
        int64_t kind;      /* [lin_kind] 1 gated delta rule (qwen3_next, qwen3_5, olmo_hybrid),
                              2 lightning attention (minimax), 3 Kimi delta attention,
                              4 RWKV, 5 mLSTM (xlstm), 6 RG-LRU (recurrent_gemma) */
        int64_t k_heads;   /* [lin_k_heads] */
        int64_t k_dim;     /* [lin_k_dim] per head */
        int64_t v_heads;   /* [lin_v_heads] */
        int64_t v_dim;     /* [lin_v_dim] per head */
        int64_t conv;      /* [lin_conv] short conv kernel over q/k/v (0: none) */
    } lin;
    int64_t conv_kernel;               /* [conv_L] gated short convolution (lfm2) */
    /* [ssm_dtype] the recurrent / SSM state dtype the config asks for (enum
     * llmmem__dtype; Qwen3.5's mamba_ssm_dtype), AUTO (0) when it names none:
     * vLLM then keeps the state in the model dtype. */
    int ssm_state_dtype;

    /* storage described by the config */
    int torch_dtype;                   /* enum llmmem__dtype, AUTO if absent */
    int quant_method;                  /* enum llmmem__quant (infer.c), 0 = none */
    int64_t quant_bits;
    int64_t quant_group_size;
    /* quantization_config.quant_method as the checkpoint writes it ("gptq",
     * "compressed-tensors", "modelopt", ...; "" = none): vLLM's --quantization
     * must agree with it */
    char quant_name[24];
    /* the KV cache dtype the checkpoint's quantization declares (ModelOpt
     * kv_cache_quant_algo, compressed-tensors kv_cache_scheme): enum
     * llmmem__dtype, AUTO when none */
    int kv_cache_quant;

    /* vision (llava, qwen2_vl, gemma3, ...): parameter count of tower + projector */
    int64_t vision_params;
    /* a composite whose AutoModelForCausalLM class is the text model (registry
     * composite causal_lm_text: llama4, qwen3_5, qwen3_5_moe): its towers' and
     * projectors' parameters, left out of params and vision_params; an
     * estimate whose runtime loads the tower counts them (engines/estimate.c) */
    int64_t tower_params;
    struct llmmem__vision_tower {
        int kind;                 /* enum llmmem__vkind; 0 = no tower */
        int64_t hidden, layers, heads, intermediate;
        int64_t patch_size, image_size; /* fixed processor size (clip/siglip) */
        int64_t temporal_patch, merge_size; /* qwen2_vl, qwen3_vl */
        /* qwen3_vl: the learned position table interpolated per image
         * (num_position_embeddings), and the checkpoint processor's pixel
         * bounds (preprocessor_config.json size; 0: Qwen2-VL's class defaults) */
        int64_t pos_embed, min_pixels, max_pixels;
        int64_t projector_params;  /* part of vision_params */
        int64_t feature_layer;     /* llava vision_feature_layer (layers actually run) */
        bool drop_cls;             /* llava 'default' strategy drops the CLS token */
        int64_t tokens_per_image;  /* LM tokens per image at the fixed size (gemma3: mm_tokens_per_image) */
    } vision;

    /* exact counts */
    int64_t params;
    int64_t params_embedding;          /* input embedding (+ positions) */
    int64_t params_attention;
    int64_t params_mlp;                /* dense MLPs + experts + shared experts */
    int64_t params_experts;            /* routed experts only */
    int64_t params_router;
    int64_t params_norm;
    int64_t params_head;               /* 0 when tied */
    int64_t params_active;
    /* Largest single module's parameters (DeepSpeed largest_layer_params). */
    int64_t largest_module_params;
    /* Parameters of the linear layers inside one decoder layer (for LoRA
     * all-linear and autocast caches): filled by llmmem__model_count. */
    int64_t layer_linear_params;
    /* parameter tensors (llmmem__tensors_of), filled by llmmem__model_count */
    llmmem__tensors tensors;

    /* a model read from a GGUF file: its tensors and llama.cpp's hyperparameters
     * (model/gguf.h), owned (clone copies, free frees); NULL otherwise */
    llmmem__gguf *gguf;

    int note_count;
    char notes[LLMMEM__MAX_NOTES][LLMMEM__NOTE_MAX];
    /* NULL, or the replays of the caching allocator already made with this
     * model (replay/reserved.c): made on the first replay, shared by the
     * threads that read the model (a lock inside), dropped when the model
     * is set or freed; a copy of the model starts without it */
    struct llmmem__model_cache *memo;
};

enum llmmem__vkind { LLMMEM__V_NONE = 0, LLMMEM__V_CLIP, LLMMEM__V_SIGLIP, LLMMEM__V_QWEN2VL, LLMMEM__V_QWEN3VL };
/* Qwen2-VL and Qwen3-VL (Qwen3.5) towers: dynamic resolution, fused qkv,
 * vision rotary, a patch merger as the projector. */
#define LLMMEM__VISION_QWEN(t) ((t)->kind == LLMMEM__V_QWEN2VL || (t)->kind == LLMMEM__V_QWEN3VL)

/* Clears a model for a reader to fill: every field but the arrays whose used
 * part a count gives (quantities, layer variants, a composite's parts,
 * tensors, notes), which stay as they are; their counts are cleared. */
void llmmem__model_clear(struct llmmem_model *m);
/* What a layer above hangs on a model (the replay memo of replay/reserved.c):
 * the model drops it through its own release function when it is set or
 * freed, without knowing what it holds. A struct llmmem_model that no API
 * function made (a test's model on the stack) starts zeroed and calls
 * llmmem__model_cache_drop before it is cleared or goes out of scope. */
typedef struct llmmem__model_cache {
    void (*release)(struct llmmem__model_cache *self);
} llmmem__model_cache;
static inline void llmmem__model_cache_drop(struct llmmem_model *m)
{
    if (m->memo)
        m->memo->release(m->memo);
    m->memo = NULL;
}
/* Recomputes every count from the fields. Returns LLMMEM_E_OUT_OF_RANGE on
 * overflow, LLMMEM_E_SCHEMA if a required field is missing. */
int llmmem__model_count(struct llmmem_model *m);
/* Checks that an estimator can use the model (positive dims etc.). */
int llmmem__model_validate(const struct llmmem_model *m);
/* Whether num_key_value_heads must divide num_attention_heads: not for MLA,
 * nor where the entry's symbol kv_nodiv is set (its configuration class builds
 * the model whatever the ratio: jais2). */
bool llmmem__kv_heads_divide(const struct llmmem_model *m);
void llmmem__model_note(struct llmmem_model *m, const char *fmt, ...) LLMMEM_PRINTF(2, 3);

/* Whether the model's model_type is `type` (the first character decides most, inline). */
static inline bool llmmem__model_type_is(const struct llmmem_model *m, const char *type)
{
    return m->model_type[0] == type[0] && strcmp(m->model_type, type) == 0;
}

#endif /* LLMMEM_MODEL_MODEL_H */
