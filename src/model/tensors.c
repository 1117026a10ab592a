/* The parameter tensors of a model, as the HF modeling code creates them:
 * shape, how many, what they are and the module name (for LoRA targets).
 * Optimizers with per-tensor state (Adafactor's factored moments,
 * bitsandbytes' 8-bit threshold, Muon's 2-D rule, fused step counters), LoRA,
 * the autocast weight cache and ZeRO/FSDP units read this list. Its sum equals
 * the model's exact parameter count for the families listed (a test holds
 * them together). */
#include "model/model.h"

#include <string.h>

static void add(llmmem__tensors *t, const char *name, int kind, uint64_t rows, uint64_t cols,
                uint64_t count, bool linear)
{
    if (rows == 0 || cols == 0 || count == 0)
        return;
    /* Dimensions are computed in unsigned arithmetic (a wrap is defined
     * behaviour); anything out of int64 range, or a full table, sends the
     * caller to the component fallback. */
    if (rows > INT64_MAX || cols > INT64_MAX || count > INT64_MAX || t->n >= LLMMEM__MAX_TENSORS) {
        t->overflow = true;
        return;
    }
    llmmem__tensor *x = &t->t[t->n++];
    x->name = name;
    x->kind = kind;
    x->rows = rows;
    x->cols = cols;
    x->count = count;
    x->linear = linear;
}

/* A Linear with optional bias: weight (out x in) and bias (out). */
static void linear(llmmem__tensors *t, const char *name, int kind, uint64_t out, uint64_t in,
                   bool bias, uint64_t count)
{
    add(t, name, kind, out, in, count, true);
    if (bias)
        add(t, name, LLMMEM__T_BIAS, out, 1, count, false);
}

static void norm(llmmem__tensors *t, const char *name, int norm_kind, uint64_t width, uint64_t count)
{
    if (norm_kind == LLMMEM__NORM_NONPARAM)
        return;
    add(t, name, LLMMEM__T_NORM, width, 1, count, false);
    if (norm_kind == LLMMEM__NORM_LAYER)
        add(t, name, LLMMEM__T_NORM, width, 1, count, false);
}

static void embed_and_head(llmmem__tensors *t, const struct llmmem_model *m, bool head_bias)
{
    add(t, "embed_tokens", LLMMEM__T_EMBED, m->vocab_size, m->hidden_size, 1, false);
    if (!m->tie_embeddings) {
        add(t, "lm_head", LLMMEM__T_HEAD, m->vocab_size, m->hidden_size, 1, true);
        if (head_bias)
            add(t, "lm_head", LLMMEM__T_BIAS, m->vocab_size, 1, 1, false);
    }
}

/* Llama-like decoders (llama, mistral, mixtral, qwen2/3 (+moe), gemma 1-3, olmo,
 * olmo2, olmoe, phi3, starcoder2, generic): modeling_llama.py and relatives. */
static void llama_like(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, a = m->num_heads, k = m->num_kv_heads;
    const uint64_t d = m->head_dim, f = m->intermediate_size;
    embed_and_head(t, m, false);
    if (m->family == LLMMEM__FAM_PHI3) {
        linear(t, "qkv_proj", LLMMEM__T_ATTN, a * d + 2 * k * d, h, m->attention_bias, L);
    } else {
        linear(t, "q_proj", LLMMEM__T_ATTN, a * d, h, m->attention_bias, L);
        linear(t, "k_proj", LLMMEM__T_ATTN, k * d, h, m->attention_bias, L);
        linear(t, "v_proj", LLMMEM__T_ATTN, k * d, h, m->attention_bias, L);
    }
    linear(t, "o_proj", LLMMEM__T_ATTN, h, a * d, m->o_bias, L);
    if (m->qk_norm) {
        /* qwen3/gemma3 normalise per head (head_dim); olmo2/olmoe the whole projection. */
        bool whole = !strcmp(m->model_type, "olmo2") || !strcmp(m->model_type, "olmoe");
        norm(t, "q_norm", m->norm, whole ? a * d : d, L);
        norm(t, "k_norm", m->norm, whole ? k * d : d, L);
    }
    norm(t, "layernorm", m->norm, h, (uint64_t)m->norms_per_layer * L);
    const uint64_t moe_layers = m->num_experts > 0 ? m->num_moe_layers : 0;
    const uint64_t dense_layers = L - moe_layers;
    if (m->family == LLMMEM__FAM_PHI3) {
        linear(t, "gate_up_proj", LLMMEM__T_MLP, 2 * f, h, m->mlp_bias, dense_layers);
    } else if (m->gated_mlp) {
        linear(t, "gate_proj", LLMMEM__T_MLP, f, h, m->mlp_bias, dense_layers);
        linear(t, "up_proj", LLMMEM__T_MLP, f, h, m->mlp_bias, dense_layers);
    } else {
        linear(t, "c_fc", LLMMEM__T_MLP, f, h, m->mlp_bias, dense_layers);
    }
    linear(t, m->gated_mlp || m->family == LLMMEM__FAM_PHI3 ? "down_proj" : "c_proj",
           LLMMEM__T_MLP, h, f, m->mlp_bias, dense_layers);
    if (moe_layers > 0) {
        const uint64_t E = m->num_experts, fm = m->moe_intermediate_size;
        add(t, "router", LLMMEM__T_ROUTER, E, h, moe_layers, false);
        /* transformers 5 keeps each layer's experts as fused 3-D parameters:
         * gate_up_proj (E, 2f, h) and down_proj (E, h, f). */
        add(t, "experts.gate_up_proj", LLMMEM__T_EXPERT, E * 2 * fm, h, moe_layers, false);
        add(t, "experts.down_proj", LLMMEM__T_EXPERT, E * h, fm, moe_layers, false);
        if (m->shared_expert_intermediate_size > 0) {
            const uint64_t fs = m->shared_expert_intermediate_size;
            linear(t, "shared_expert.gate_proj", LLMMEM__T_MLP, fs, h, false, moe_layers);
            linear(t, "shared_expert.up_proj", LLMMEM__T_MLP, fs, h, false, moe_layers);
            linear(t, "shared_expert.down_proj", LLMMEM__T_MLP, h, fs, false, moe_layers);
        }
        if (m->shared_expert_gate)
            add(t, "shared_expert_gate", LLMMEM__T_ROUTER, 1, h, moe_layers, false);
    }
    norm(t, "norm", m->norm, h, 1);
}

static void gpt2(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, f = m->intermediate_size;
    add(t, "wte", LLMMEM__T_EMBED, m->vocab_size, h, 1, false);
    add(t, "wpe", LLMMEM__T_EMBED, m->max_positions, h, 1, false);
    norm(t, "ln", LLMMEM__NORM_LAYER, h, 2 * L);
    /* Conv1D stores (in, out); shapes are what matters for counts and factoring. */
    linear(t, "c_attn", LLMMEM__T_ATTN, 3 * h, h, true, L);
    linear(t, "c_proj", LLMMEM__T_ATTN, h, h, true, L);
    linear(t, "c_fc", LLMMEM__T_MLP, f, h, true, L);
    linear(t, "mlp.c_proj", LLMMEM__T_MLP, h, f, true, L);
    norm(t, "ln_f", LLMMEM__NORM_LAYER, h, 1);
}

static void phi(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, f = m->intermediate_size;
    const uint64_t a = m->num_heads, k = m->num_kv_heads, d = m->head_dim;
    embed_and_head(t, m, true);
    norm(t, "input_layernorm", LLMMEM__NORM_LAYER, h, L);
    linear(t, "q_proj", LLMMEM__T_ATTN, a * d, h, true, L);
    linear(t, "k_proj", LLMMEM__T_ATTN, k * d, h, true, L);
    linear(t, "v_proj", LLMMEM__T_ATTN, k * d, h, true, L);
    linear(t, "dense", LLMMEM__T_ATTN, h, a * d, true, L);
    linear(t, "fc1", LLMMEM__T_MLP, f, h, true, L);
    linear(t, "fc2", LLMMEM__T_MLP, h, f, true, L);
    norm(t, "final_layernorm", LLMMEM__NORM_LAYER, h, 1);
}

static void neox(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, f = m->intermediate_size;
    embed_and_head(t, m, false);
    norm(t, "layernorm", LLMMEM__NORM_LAYER, h, 2 * L);
    linear(t, "query_key_value", LLMMEM__T_ATTN, 3 * h, h, m->attention_bias, L);
    linear(t, "dense", LLMMEM__T_ATTN, h, h, m->attention_bias, L);
    linear(t, "dense_h_to_4h", LLMMEM__T_MLP, f, h, true, L);
    linear(t, "dense_4h_to_h", LLMMEM__T_MLP, h, f, true, L);
    norm(t, "final_layer_norm", LLMMEM__NORM_LAYER, h, 1);
}

static void gptj(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, f = m->intermediate_size;
    embed_and_head(t, m, true);
    norm(t, "ln_1", LLMMEM__NORM_LAYER, h, L);
    linear(t, "q_proj", LLMMEM__T_ATTN, h, h, false, L);
    linear(t, "k_proj", LLMMEM__T_ATTN, h, h, false, L);
    linear(t, "v_proj", LLMMEM__T_ATTN, h, h, false, L);
    linear(t, "out_proj", LLMMEM__T_ATTN, h, h, false, L);
    linear(t, "fc_in", LLMMEM__T_MLP, f, h, true, L);
    linear(t, "fc_out", LLMMEM__T_MLP, h, f, true, L);
    norm(t, "ln_f", LLMMEM__NORM_LAYER, h, 1);
}

static void opt(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, f = m->intermediate_size;
    embed_and_head(t, m, false);
    add(t, "embed_positions", LLMMEM__T_EMBED, m->max_positions + 2, h, 1, false);
    norm(t, "layer_norm", LLMMEM__NORM_LAYER, h, 2 * L);
    linear(t, "q_proj", LLMMEM__T_ATTN, h, h, true, L);
    linear(t, "k_proj", LLMMEM__T_ATTN, h, h, true, L);
    linear(t, "v_proj", LLMMEM__T_ATTN, h, h, true, L);
    linear(t, "out_proj", LLMMEM__T_ATTN, h, h, true, L);
    linear(t, "fc1", LLMMEM__T_MLP, f, h, true, L);
    linear(t, "fc2", LLMMEM__T_MLP, h, f, true, L);
    norm(t, "final_layer_norm", LLMMEM__NORM_LAYER, h, 1);
}

/* DeepSeek-V2/V3: MLA attention (modeling_deepseek_v3.py). */
static void deepseek(llmmem__tensors *t, const struct llmmem_model *m)
{
    const uint64_t h = m->hidden_size, L = m->num_layers, a = m->num_heads;
    const uint64_t qd = m->qk_nope_head_dim + m->qk_rope_head_dim;
    embed_and_head(t, m, false);
    if (m->q_lora_rank > 0) {
        linear(t, "q_a_proj", LLMMEM__T_ATTN, m->q_lora_rank, h, m->attention_bias, L);
        norm(t, "q_a_layernorm", LLMMEM__NORM_RMS, m->q_lora_rank, L);
        linear(t, "q_b_proj", LLMMEM__T_ATTN, a * qd, m->q_lora_rank, false, L);
    } else {
        linear(t, "q_proj", LLMMEM__T_ATTN, a * qd, h, false, L);
    }
    linear(t, "kv_a_proj_with_mqa", LLMMEM__T_ATTN, m->kv_lora_rank + m->qk_rope_head_dim, h,
           m->attention_bias, L);
    norm(t, "kv_a_layernorm", LLMMEM__NORM_RMS, m->kv_lora_rank, L);
    linear(t, "kv_b_proj", LLMMEM__T_ATTN, a * (m->qk_nope_head_dim + m->v_head_dim),
           m->kv_lora_rank, false, L);
    linear(t, "o_proj", LLMMEM__T_ATTN, h, a * m->v_head_dim, m->attention_bias, L);
    norm(t, "layernorm", LLMMEM__NORM_RMS, h, 2 * L);
    const uint64_t moe_layers = m->num_experts > 0 ? m->num_moe_layers : 0;
    const uint64_t f = m->intermediate_size, fm = m->moe_intermediate_size;
    linear(t, "gate_proj", LLMMEM__T_MLP, f, h, false, L - moe_layers);
    linear(t, "up_proj", LLMMEM__T_MLP, f, h, false, L - moe_layers);
    linear(t, "down_proj", LLMMEM__T_MLP, h, f, false, L - moe_layers);
    if (moe_layers > 0) {
        const uint64_t E = m->num_experts;
        add(t, "gate", LLMMEM__T_ROUTER, E, h, moe_layers, false);
        add(t, "experts.gate_up_proj", LLMMEM__T_EXPERT, E * 2 * fm, h, moe_layers, false);
        add(t, "experts.down_proj", LLMMEM__T_EXPERT, E * h, fm, moe_layers, false);
        const uint64_t fs = m->shared_expert_intermediate_size;
        linear(t, "shared_experts.gate_proj", LLMMEM__T_MLP, fs, h, false, moe_layers);
        linear(t, "shared_experts.up_proj", LLMMEM__T_MLP, fs, h, false, moe_layers);
        linear(t, "shared_experts.down_proj", LLMMEM__T_MLP, h, fs, false, moe_layers);
    }
    norm(t, "norm", LLMMEM__NORM_RMS, h, 1);
}

/* Families whose exact layout is not enumerated here: the counts by component
 * from the model, spread over square-ish per-layer tensors. Used only where
 * per-tensor detail is a second-order effect. */
static void by_component(llmmem__tensors *t, const struct llmmem_model *m)
{
    const int64_t h = m->hidden_size, L = m->num_layers > 0 ? m->num_layers : 1;
    if (h <= 0)
        return;
    embed_and_head(t, m, false);
    if (m->params_attention > 0)
        add(t, "attention", LLMMEM__T_ATTN, m->params_attention / L / h, h, L, true);
    if (m->params_mlp - m->params_experts > 0)
        add(t, "mlp", LLMMEM__T_MLP, (m->params_mlp - m->params_experts) / L / h, h, L, true);
    if (m->params_experts > 0)
        add(t, "experts", LLMMEM__T_EXPERT, m->params_experts / L / h, h, L, false);
    if (m->params_router > 0)
        add(t, "router", LLMMEM__T_ROUTER, m->params_router / L / h, h, L, false);
    if (m->params_norm > 0)
        add(t, "norm", LLMMEM__T_NORM, m->params_norm, 1, 1, false);
}

void llmmem__tensors_of(llmmem__tensors *t, const struct llmmem_model *m)
{
    t->n = 0;
    t->exact = true;
    t->overflow = false;
    switch (m->family) {
    case LLMMEM__FAM_LLAMA:
    case LLMMEM__FAM_GEMMA:
    case LLMMEM__FAM_OLMO:
    case LLMMEM__FAM_PHI3:
    case LLMMEM__FAM_STARCODER2: llama_like(t, m); break;
    case LLMMEM__FAM_GPT2: gpt2(t, m); break;
    case LLMMEM__FAM_PHI: phi(t, m); break;
    case LLMMEM__FAM_GPT_NEOX: neox(t, m); break;
    case LLMMEM__FAM_GPTJ: gptj(t, m); break;
    case LLMMEM__FAM_OPT: opt(t, m); break;
    case LLMMEM__FAM_DEEPSEEK: deepseek(t, m); break;
    default:
        by_component(t, m);
        t->exact = false;
    }
    /* Cross-check against the exact count; fall back when the layout differs
     * (e.g. a model type with extra tensors not listed here). */
    llmmem__ovf o = {false};
    uint64_t sum = 0;
    for (int i = 0; i < t->n; i++)
        sum = llmmem__add(&o, sum, llmmem__mul3(&o, (uint64_t)t->t[i].rows, (uint64_t)t->t[i].cols,
                                                (uint64_t)t->t[i].count));
    const int64_t want = m->params - m->vision_params;
    if (t->exact && (o.overflow || t->overflow || want < 0 || sum != (uint64_t)want)) {
        t->n = 0;
        by_component(t, m);
        t->exact = false;
    }
}

/* Module names a LoRA target list may use, per tensor name. "all-linear" is
 * peft's: every Linear except the output head. */
bool llmmem__lora_targets(const char *targets, const llmmem__tensor *x)
{
    if (!x->linear || x->kind == LLMMEM__T_BIAS)
        return false;
    if (!strcmp(targets, "all-linear") || !strcmp(targets, "all_linear"))
        return x->kind != LLMMEM__T_HEAD;
    /* Match each comma-separated entry against the last dotted part of the name. */
    const char *leaf = strrchr(x->name, '.');
    leaf = leaf ? leaf + 1 : x->name;
    size_t leaf_len = strlen(leaf);
    const char *p = targets;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && *p == ' ') {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        if ((n == leaf_len && !strncmp(p, leaf, n)) || (n == strlen(x->name) && !strncmp(p, x->name, n)))
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}
