/* The decoder layers of a model by kind (mixer x feed-forward x per-layer
 * variant, model/registry.h) and what the byte model can estimate of them.
 *
 * The attention byte model (saved.c, kv.c, prefill*.c, decode.c) was derived
 * for layers that are softmax attention over the whole context or a sliding
 * window, followed by a dense MLP or experts, every layer of one shape: a
 * model whose layers are all of that sort is "classic" and goes through it
 * unchanged. Other layer kinds are estimated by their own terms
 * (saved_kinds.c for training, state.c for inference), each derived from the
 * HF transformers 5.17 modeling code with the kernels packages absent
 * (mamba_ssm, causal_conv1d, flash-linear-attention): the torch fallback a
 * plain `pip install transformers` runs. A kind or a family with no derived
 * terms is refused with LLMMEM_E_UNSUPPORTED naming the model_type and the
 * kind: an estimate that treated it as attention would be confidently wrong. */
#include "memory/kinds.h"

#include <stdio.h>
#include <string.h>

#define u llmmem__nonneg

void llmmem__kinds_of(llmmem__kinds *ks, const struct llmmem_model *m)
{
    memset(ks, 0, sizeof *ks);
    ks->L = u(m->num_layers);
    const llmmem__variants *vs = &m->variants;
    uint64_t listed = 0;
    for (int v = 0; v < (vs->n > 0 ? vs->n : 1); v++)
        for (int x = 0; x < LLMMEM__MX_COUNT; x++)
            for (int y = 0; y < LLMMEM__FF_COUNT; y++) {
                int64_t n = vs->n > 0 ? vs->layers[v][x][y] : m->layers_of[x][y];
                if (n <= 0)
                    continue;
                listed += (uint64_t)n;
                if (ks->n == LLMMEM__MAX_KINDS) {
                    ks->overflow = true;
                    continue;
                }
                ks->k[ks->n++] = (llmmem__kind){x, y, vs->n > 0 ? v : -1, (uint64_t)n};
            }
    if (listed == 0 && ks->L > 0) /* a model filled by hand: every layer full attention */
        ks->k[ks->n++] = (llmmem__kind){LLMMEM__MX_FULL,
                                        m->num_experts > 0 && m->num_moe_layers > 0 ? LLMMEM__FF_MOE
                                                                                      : LLMMEM__FF_DENSE,
                                        -1, ks->L};
}

/* ---- families whose layers the kinds alone do not describe ---------------------- */

/* Structure beyond the layer kinds, by model_type: `why` is what is not
 * modelled; train / hf say where the refusal applies. */
typedef struct special {
    const char *type;
    bool train, hf;
    const char *why;
} special;

static const special specials[] = {
    {"deepseek_v32", true, true,
     "DeepSeek sparse attention: the indexer's scores and top-k mask, and HF's cache of the expanded K/V "
     "with the indexer's keys, are not derived"},
    {"glm_moe_dsa", true, true,
     "DeepSeek sparse attention: the indexer's scores and top-k mask, and HF's cache of the expanded K/V "
     "with the indexer's keys, are not derived"},
    {"deepseek_v4", true, true, "compressed sparse attention (compress_ratios, hash routing) is not derived"},
    {"hrm_text", true, true,
     "its H and L stacks run in cycles (each layer several times per forward, gradients for the last "
     "L_grad passes): not derived"},
    {"longcat_flash", true, true,
     "two attention and MLP sub-layers per layer with zero-computation experts: not derived"},
    {"gemma3n_text", true, true,
     "AltUp (altup_num_inputs copies of the hidden state), Laurel, per-layer embeddings and KV sharing: "
     "not derived"},
    {"gemma4_text", true, false,
     "per-layer embeddings, KV sharing and head_dim/KV heads by layer in training: not derived"},
    {"gemma4_unified_text", true, false,
     "per-layer embeddings, KV sharing and head_dim/KV heads by layer in training: not derived"},
    {"llama4_text", true, false,
     "chunked attention with NoPE layers and attention temperature in training: not derived"},
    {"zaya", true, true, "its mixer (CCA attention with convolutions over q/k) is not derived"},
    {"mimo_v2_flash", true, true,
     "its sliding-window layers have twice the KV heads of its full layers and sinks, and v_head_dim differs "
     "from head_dim: not derived"},
};

static const special *special_of(const struct llmmem_model *m)
{
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (llmmem__model_type_is(m, specials[i].type))
            return &specials[i];
    return NULL;
}

/* A per-layer head count (laguna's num_attention_heads_per_layer) that is not
 * uniform: the attention byte model takes one head count. */
static bool heads_vary(const struct llmmem_model *m)
{
    return llmmem__model_type_is(m, "laguna") && llmmem__qvals_get(&m->q, "uni", 1) == 0;
}

bool llmmem__kinds_classic(const struct llmmem_model *m)
{
    if (m->variants.n > 1)
        return false;
    /* no layer outside full/sliding attention with a feed-forward: the counts (>= 0) of
     * those cells are all there is */
    int64_t all = 0, classic = 0;
    for (int x = 0; x < LLMMEM__MX_COUNT; x++)
        for (int y = 0; y < LLMMEM__FF_COUNT; y++)
            all += m->layers_of[x][y];
    for (int y = 0; y < LLMMEM__FF_COUNT; y++)
        if (y != LLMMEM__FF_NONE)
            classic += m->layers_of[LLMMEM__MX_FULL][y] + m->layers_of[LLMMEM__MX_SLIDING][y];
    return all == classic && !special_of(m) && !heads_vary(m); /* the string compares last */
}

/* ---- names -------------------------------------------------------------------------- */

const char *llmmem__kinds_mixer_name(const struct llmmem_model *m, int mixer)
{
    switch (mixer) {
    case LLMMEM__MX_FULL: return "full attention";
    case LLMMEM__MX_SLIDING: return "sliding-window attention";
    case LLMMEM__MX_CHUNKED: return "chunked attention";
    case LLMMEM__MX_LINEAR:
        switch (m->lin.kind) {
        case 1: return "gated delta rule (linear_attention)";
        case 2: return "lightning attention (linear_attention)";
        case 3: return "Kimi delta attention (linear_attention)";
        case 4: return "RWKV time mixing (linear_attention)";
        case 5: return "mLSTM (linear_attention)";
        case 6: return "RG-LRU recurrence (linear_attention)";
        default: return "linear attention";
        }
    case LLMMEM__MX_MAMBA: return m->ssm.version == 2 ? "Mamba-2 (mamba)" : "Mamba-1 (mamba)";
    case LLMMEM__MX_CONV: return "gated short convolution (conv)";
    case LLMMEM__MX_NONE: return "no mixer";
    case LLMMEM__MX_HYBRID: return "parallel Mamba + attention (hybrid)";
    case LLMMEM__MX_SPARSE: return "indexer-sparse attention";
    default: return "unknown mixer";
    }
}

/* ---- what is modelled ------------------------------------------------------------------ */

static const char *mamba_why(const struct llmmem_model *m)
{
    if (m->ssm.version == 1)
        return NULL;
    if (m->ssm.version != 2)
        return "unknown Mamba version";
    return m->ssm.chunk > 0 ? NULL : "a null chunk size: the torch chunk scan cannot run without one";
}

/* Training: the mixers whose saved tensors and transients saved_kinds.c
 * derives; NULL when modelled, else why not. */
static const char *train_mixer(const struct llmmem_model *m, int mixer)
{
    switch (mixer) {
    case LLMMEM__MX_FULL:
    case LLMMEM__MX_SLIDING:
    case LLMMEM__MX_NONE: return NULL;
    case LLMMEM__MX_MAMBA: return mamba_why(m);
    case LLMMEM__MX_LINEAR: return m->lin.kind == 1 ? NULL : "its torch fallback's saved tensors are not derived";
    case LLMMEM__MX_CONV: return NULL;
    default: return "its saved tensors are not derived";
    }
}

/* HF inference: the mixers whose cache and working sets state.c derives.
 * Chunked attention (llama4) is cached by HF as a sliding window of the
 * chunk (cache_utils DynamicSlidingWindowLayer with sliding_window =
 * attention_chunk_size), which state.c takes as the window when the model
 * has no other. */
static const char *hf_mixer(const struct llmmem_model *m, int mixer)
{
    switch (mixer) {
    case LLMMEM__MX_FULL:
    case LLMMEM__MX_SLIDING:
    case LLMMEM__MX_NONE: return NULL;
    case LLMMEM__MX_CHUNKED:
        return m->sliding_window <= 0 && m->chunk_size > 0
                   ? NULL
                   : "chunked layers beside a sliding window of another size are not derived";
    case LLMMEM__MX_MAMBA: return mamba_why(m);
    case LLMMEM__MX_LINEAR: return m->lin.kind == 1 ? NULL : "its cache and prefill working set are not derived";
    case LLMMEM__MX_CONV: return NULL;
    default: return "its cache and prefill working set are not derived";
    }
}

/* The families whose non-attention layers are modelled, by what their
 * modeling code does around the mixer (saved_kinds.c, state.c read the
 * differences); a family not here with such layers is refused. */
static const char *const modelled[] = {
    "mamba",     "falcon_mamba", "mamba2",       "bamba",       "nemotron_h",       "granitemoehybrid",
    "jamba",     "qwen3_next",   "qwen3_5_text", "qwen3_5_moe_text", "lfm2",
};

static bool family_modelled(const struct llmmem_model *m)
{
    for (size_t i = 0; i < sizeof modelled / sizeof modelled[0]; i++)
        if (!strcmp(m->model_type, modelled[i]))
            return true;
    return false;
}

static int refuse(const struct llmmem_model *m, const char *what, const char *kind, uint64_t n,
                  const char *why)
{
    if (kind)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "model_type \"%s\": %s of its %llu layers with %s: %s; libllmmem refuses "
                             "rather than estimate them as softmax attention",
                             m->model_type, what, (unsigned long long)n, kind, why);
    return llmmem__error(LLMMEM_E_UNSUPPORTED, "model_type \"%s\": %s: %s", m->model_type, what, why);
}

/* vLLM (engines/vllm/vllm_kv.c) has specs for full, sliding and chunked attention
 * and the Mamba, gated-delta-rule and short-conv states, and refuses the
 * other linear kinds and the shared-block hybrids itself. What it would miss
 * silently is refused here: indexer-sparse layers (no spec: no KV counted),
 * layers of different widths or sharing KV (one spec for all), and the
 * families whose caches hold more than those specs. */
static int vllm_check(const struct llmmem_model *m, const llmmem__kinds *ks, const char *what)
{
    static const char *const extra_cache[] = {"deepseek_v32", "glm_moe_dsa"};
    for (int i = 0; i < ks->n; i++)
        if (ks->k[i].mixer == LLMMEM__MX_SPARSE)
            return refuse(m, what, llmmem__kinds_mixer_name(m, LLMMEM__MX_SPARSE), ks->k[i].n,
                          "vLLM's cache spec for it is not modelled");
    if (m->variants.n > 1)
        return refuse(m, what, NULL, 0,
                      "layers of different widths or sharing KV (per-layer variants) are not modelled in "
                      "vLLM's cache specs");
    for (size_t i = 0; i < sizeof extra_cache / sizeof extra_cache[0]; i++)
        if (!strcmp(m->model_type, extra_cache[i]))
            return refuse(m, what, NULL, 0, "the sparse-attention indexer's key cache is not modelled in vLLM");
    const special *sp = special_of(m);
    if (sp && sp->hf)
        return refuse(m, what, NULL, 0, sp->why);
    return LLMMEM_OK;
}

int llmmem__kinds_check(const struct llmmem_model *m, const struct llmmem_config *c, int use)
{
    if (llmmem__kinds_classic(m))
        return LLMMEM_OK;
    const bool train = use == LLMMEM__USE_TRAIN;
    const char *what = train                        ? "training"
                       : use == LLMMEM__USE_HF      ? "HF inference"
                       : use == LLMMEM__USE_VLLM    ? "vLLM inference"
                                                    : "the Megatron engines";
    if (use == LLMMEM__USE_MEGATRON)
        return refuse(m, what, NULL, 0,
                      "their activation model (Korthikanti et al. 2022) is for softmax-attention layers "
                      "of one shape; use engine single, ddp, zero or fsdp");
    const special *sp = special_of(m);
    if (sp && use != LLMMEM__USE_VLLM && (train ? sp->train : sp->hf))
        return refuse(m, what, NULL, 0, sp->why);
    if (heads_vary(m))
        return refuse(m, what, NULL, 0, "per-layer head counts (num_attention_heads_per_layer) are not derived");
    llmmem__kinds ks;
    llmmem__kinds_of(&ks, m);
    if (ks.overflow)
        return refuse(m, what, NULL, 0, "more layer kinds than the byte model enumerates");
    if (use == LLMMEM__USE_VLLM)
        return vllm_check(m, &ks, what);
    for (int i = 0; i < ks.n; i++) { /* kinds with no terms first, then the families around them */
        const llmmem__kind *k = &ks.k[i];
        const char *why = train ? train_mixer(m, k->mixer) : hf_mixer(m, k->mixer);
        if (why)
            return refuse(m, what, llmmem__kinds_mixer_name(m, k->mixer), k->n, why);
    }
    for (int i = 0; i < ks.n; i++) {
        const llmmem__kind *k = &ks.k[i];
        if (k->mixer != LLMMEM__MX_FULL && k->mixer != LLMMEM__MX_SLIDING && k->mixer != LLMMEM__MX_CHUNKED &&
            !family_modelled(m))
            return refuse(m, what, llmmem__kinds_mixer_name(m, k->mixer), k->n,
                          "this family's layers around the mixer are not derived");
    }
    if (m->variants.n > 1)
        return refuse(m, what, NULL, 0, "layers of different widths (per-layer variants) are not derived");
    if (train) {
        llmmem__recipe rc;
        llmmem__recipe_of(&rc, m, c);
        if (rc.amp)
            return refuse(m, what, NULL, 0,
                          "autocast (fp32 parameters, 16-bit compute) over its non-attention layers is not "
                          "derived (the torch fallback's fp32 ops under CUDA autocast); load the model in "
                          "the compute dtype");
        if (rc.fp8)
            return refuse(m, what, NULL, 0, "fp8 Linears over its non-attention layers are not derived");
        if (rc.attention == LLMMEM__ATTN_EAGER)
            return refuse(m, what, NULL, 0, "eager attention in its attention layers is not derived");
        if (c->checkpointing == LLMMEM__CKPT_SELECTIVE || c->checkpointing == LLMMEM__CKPT_SELECTIVE_OP)
            return refuse(m, what, NULL, 0,
                          "selective checkpointing (what it keeps is chosen for attention layers) is not "
                          "derived for its other layers; use checkpointing none or full");
        if (c->compile != LLMMEM__COMPILE_NONE)
            return refuse(m, what, NULL, 0,
                          "torch.compile's saved tensors (the partitioner's choices) are not derived for its "
                          "non-attention layers");
        if (llmmem__frameworks_own(c))
            return refuse(m, what, NULL, 0,
                          "the activation profile's module code is derived for softmax-attention layers only; "
                          "use the HF transformers profile");
    }
    return LLMMEM_OK;
}
