/* What autograd saves per decoder layer when the model is not HF
 * transformers' but a fine-tuning framework's own module code
 * (activation_profile torchtune or litgpt), eager, per token. The rules are
 * saved.c's (an op keeps what its backward formula needs, only for inputs
 * that need a gradient, derivatives.yaml with its should_compute_output
 * guards); the modules differ:
 *
 * torchtune (pytorch/torchtune at the 0.3-0.4 releases, 2024:
 * torchtune/modules/{rms_norm,attention,position_embeddings,feed_forward,
 * transformer}.py, modules/peft/lora.py):
 *   - RMSNorm: x.float(), x * rsqrt(mean(x^2) + eps), .type_as(x), * scale:
 *     the fp32 input (pow and mul), rstd, and the normed 16-bit tensor when
 *     scale trains. (From 0.5, #2054, F.rms_norm(x.float(), weight=scale)
 *     whose composite also keeps an fp32 normed tensor: not modelled apart.)
 *   - MultiHeadAttention: separate q/k/v/output_proj Linears; RoPE in fp32
 *     against a buffer cache (nothing kept: the cache needs no gradient); for
 *     GQA k and v are unsqueeze().expand().flatten(1, 2): materialised at all
 *     a heads, and those copies are what SDPA (or flex_attention on packed
 *     batches) keeps with q, the output and the logsumexp.
 *   - FeedForward w2(silu(w1 x) * w3 x): gate, silu(gate), up, and the
 *     product when w2 trains.
 *   - LoRALinear: F.linear(x, W) + lora_b(lora_a(dropout(x))): lora_a keeps
 *     x (the tensor already there when dropout is Identity, p = 0), lora_b
 *     the rank-wide output; adapters stay in the model dtype (bf16).
 *
 * LitGPT (Lightning-AI/litgpt 0.3-0.4.x, litgpt/model.py, litgpt/lora.py):
 *   - one fused attn Linear; qkv.view(B, T, g, q_per_kv + 2, hs).permute()
 *     then q/k/v .reshape(B, -1, T, hs): copies when q_per_kv > 1 (k and v
 *     expand()ed to all a heads first); with q_per_kv == 1 they are views,
 *     and the v view that SDPA keeps holds the whole qkv output alive.
 *   - apply_rope then torch.cat: new q and k (cos/sin buffers need no
 *     gradient: nothing kept).
 *   - SDPA's output follows q's [B, a, T, hs] layout, so
 *     y.transpose(1, 2).reshape(B, T, C) copies it; proj keeps the copy
 *     when it trains.
 *   - RMSNorm as torchtune's (fp32 x, rstd, normed when the weight
 *     trains); LayerNorm (phi-2) keeps its 16-bit input, mean and rstd.
 *   - LLaMAMLP proj(silu(fc_1 x) * fc_2 x) as above; GptNeoxMLP
 *     proj(gelu(fc x)): gelu keeps its input, proj the activation.
 *   - LoRA: lora_dropout (config_hub 0.05) keeps a 1-byte mask and the
 *     dropped 16-bit copy per adapted module (one for the fused qkv), the
 *     rank-wide A output.
 * Each function is one block; docs/formulas.md lists them. */
#include "train/train.h"

#include <string.h>

static bool lora_on(const struct llmmem_config *c, const char *name)
{
    return llmmem__recipe_lora_on(c, name);
}

int llmmem__frameworks_check(const struct llmmem_model *m, const struct llmmem_config *c,
                             const llmmem__recipe *rc)
{
    const char *prof = c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ? "torchtune" : "litgpt";
    if (!llmmem__frameworks_own(c))
        return LLMMEM_OK;
    bool litgpt = c->activation_profile == LLMMEM__PROFILE_LITGPT;
    bool llama_like = m->family == LLMMEM__FAM_LLAMA && m->norm == LLMMEM__NORM_RMS &&
                      m->act == LLMMEM__ACT_SILU_GLU && !m->qk_norm && !m->parallel_block;
    bool phi2 = litgpt && m->family == LLMMEM__FAM_PHI && m->act != LLMMEM__ACT_SILU_GLU;
    bool phi3 = m->family == LLMMEM__FAM_PHI3 && m->act == LLMMEM__ACT_SILU_GLU;
    /* a sliding window no shorter than the sequence changes nothing */
    bool window = m->num_sliding_layers > 0 && m->sliding_window > 0 && c->seq_len > m->sliding_window;
    if (llmmem__saved_has_moe(m) || window || m->vision_params > 0 ||
        !(llama_like || phi2 || (litgpt && phi3)))
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "activation_profile %s: the %s model code is modelled for dense Llama-style "
                             "decoders%s; model_type \"%s\" is not",
                             prof, prof, litgpt ? " (llama, mistral), phi-2 and phi-3" : " (llama, mistral, qwen2)",
                             m->model_type);
    if (rc->amp)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "activation_profile %s: weights in one dtype, no torch.autocast (%s%s); "
                             "param_dtype wider than compute_dtype is not modelled for it",
                             prof, prof, litgpt ? " bf16-true / 32-true" : " dtype: bf16");
    if (rc->fp8)
        return llmmem__error(LLMMEM_E_UNSUPPORTED, "activation_profile %s: fp8_recipe is not modelled for it",
                             prof);
    if (c->attention == LLMMEM__ATTN_EAGER)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "activation_profile %s: its attention is F.scaled_dot_product_attention "
                             "(or flex_attention); attention eager does not apply",
                             prof);
    return LLMMEM_OK;
}

/* ---- shared pieces ----------------------------------------------------------- */

/* The fp32-upcasting RMSNorm (torchtune <= 0.4, LitGPT): the fp32 input kept
 * by pow/mul (4h), rstd (4), the 16-bit normed tensor when the scale trains. */
static uint64_t fw_rmsnorm(const llmmem__recipe *rc, uint64_t h)
{
    return 4 * h + 4 + (rc->full_ft ? rc->cb * h : 0);
}

/* torch.native_layer_norm in the model dtype: its input, mean and rstd. */
static uint64_t fw_layernorm(const llmmem__recipe *rc, uint64_t h) { return rc->cb * h + 8; }

/* Whether a Linear reading an activation keeps it: its weight trains, a
 * LoRA without dropout reads it (lora_a keeps the same tensor), or the base
 * is a 4-bit LitGPT Linear: bitsandbytes' MatMul4Bit up to 0.45 kept its
 * input for backward whenever it needed a gradient (autograd/_functions.py
 * MatMul4Bit.forward: ctx.tensors = (A, B); later releases keep (None, B)),
 * the bitsandbytes LitGPT 0.3-0.4 ran with. */
static bool fw_input_kept(const struct llmmem_config *c, const llmmem__recipe *rc, int adapters)
{
    bool bnb_keeps = rc->qlora && c->activation_profile == LLMMEM__PROFILE_LITGPT;
    return rc->full_ft || (adapters > 0 && rc->lora_dropout == 0) || bnb_keeps;
}

/* A norm's output read by Linears, kept once (fw_input_kept). */
static uint64_t fw_norm_out(const struct llmmem_config *c, const llmmem__recipe *rc, uint64_t h, int adapters)
{
    return fw_input_kept(c, rc, adapters) ? rc->cb * h : 0;
}

/* What `adapters` LoRA modules reading an `w`-wide input keep beyond the
 * input itself: with dropout a 1-byte mask and the dropped copy each (lora_a
 * keeps the copy), and the rank-wide lora_a output each (kept by lora_b). */
static uint64_t fw_lora(const llmmem__recipe *rc, uint64_t w, int adapters, int64_t rank_width)
{
    if (adapters <= 0 || !rc->lora)
        return 0;
    uint64_t s = (uint64_t)adapters * rc->cb * (uint64_t)rank_width;
    if (rc->lora_dropout > 0)
        s += (uint64_t)adapters * (1 + rc->cb) * w;
    return s;
}

/* Flash / memory-efficient / flex attention: q, k, v as given, the output and
 * the fp32 logsumexp per head (Dao et al. 2022 §3.1). */
static uint64_t fw_attention_core(const llmmem__recipe *rc, uint64_t qw, uint64_t kw, uint64_t vw, uint64_t a)
{
    return rc->cb * (qw + kw + vw + qw) + 4 * a;
}

/* ---- torchtune ----------------------------------------------------------------- */

/* TransformerSelfAttentionLayer: sa_norm, MultiHeadAttention, mlp_norm,
 * FeedForward (module list in the header comment). */
static uint64_t torchtune_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads, d = (uint64_t)m->head_dim;
    const uint64_t f = (uint64_t)m->intermediate_size, ad = a * d;
    const int64_t r = rc->rank;
    const int qkv_lora = lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj");
    const int mlp_in_lora = lora_on(c, "gate_proj") + lora_on(c, "up_proj");
    const bool o_lora = lora_on(c, "o_proj"), down_lora = lora_on(c, "down_proj");
    uint64_t s = fw_rmsnorm(rc, h) + fw_norm_out(c, rc, h, qkv_lora) + fw_lora(rc, h, qkv_lora, r);
    /* q after RoPE, k and v expanded to a heads (or a == k), output, lse */
    s += fw_attention_core(rc, ad, ad, ad, a);
    s += fw_lora(rc, ad, o_lora, r); /* output_proj's lora_a keeps the SDPA output already kept */
    s += fw_rmsnorm(rc, h) + fw_norm_out(c, rc, h, mlp_in_lora) + fw_lora(rc, h, mlp_in_lora, r);
    s += 3 * rc->cb * f; /* w1 out (silu), silu out and w3 out (the product's backward) */
    if (fw_input_kept(c, rc, down_lora))
        s += rc->cb * f; /* the product, w2's input */
    return s + fw_lora(rc, f, down_lora, r);
}

/* ---- LitGPT -------------------------------------------------------------------- */

/* CausalSelfAttention after the norm: the fused qkv (LoRAQKVLinear: one
 * dropout, an A output r wide per enabled projection), q/k/v as SDPA keeps
 * them, the output copy for proj. `qkv_names` are the HF names of the
 * projections the adapter covers. */
static uint64_t litgpt_attention(const struct llmmem_model *m, const struct llmmem_config *c,
                                 const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, a = (uint64_t)m->num_heads, k = (uint64_t)m->num_kv_heads;
    const uint64_t d = (uint64_t)m->head_dim, ad = a * d;
    const int64_t r = rc->rank;
    int enabled = m->family == LLMMEM__FAM_PHI3 ? 3 * lora_on(c, "qkv_proj")
                                                : lora_on(c, "q_proj") + lora_on(c, "k_proj") + lora_on(c, "v_proj");
    uint64_t s = fw_lora(rc, h, enabled > 0, r * enabled);
    /* SDPA keeps q and k (torch.cat after apply_rope) and v: a reshape copy
     * at a heads when q_per_kv > 1, else a view that holds the qkv output */
    const uint64_t v_kept = k < a ? ad : (a + 2 * k) * d;
    s += fw_attention_core(rc, ad, ad, v_kept, a);
    const bool proj_lora = lora_on(c, m->family == LLMMEM__FAM_PHI ? "dense" : "o_proj");
    if (fw_input_kept(c, rc, proj_lora))
        s += rc->cb * ad; /* y.transpose(1, 2).reshape(): the copy proj reads */
    return s + fw_lora(rc, ad, proj_lora, r);
}

/* LLaMAMLP (fc_1, fc_2, proj) or GptNeoxMLP (fc, proj) after its norm; the
 * norm output read by the input Linears is counted by the caller. */
static uint64_t litgpt_mlp(const struct llmmem_model *m, const struct llmmem_config *c, const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size, f = (uint64_t)m->intermediate_size;
    const int64_t r = rc->rank;
    const bool phi2 = m->family == LLMMEM__FAM_PHI;
    const int in_lora = phi2 ? lora_on(c, "fc1")
                             : (m->family == LLMMEM__FAM_PHI3 ? 2 * lora_on(c, "gate_up_proj")
                                                              : lora_on(c, "gate_proj") + lora_on(c, "up_proj"));
    const bool down_lora = lora_on(c, phi2 ? "fc2" : "down_proj");
    uint64_t s = fw_lora(rc, h, in_lora, r);
    s += (phi2 ? 1 : 3) * rc->cb * f; /* gelu's input; or fc_1 out, silu out, fc_2 out */
    if (fw_input_kept(c, rc, down_lora))
        s += rc->cb * f; /* proj's input */
    return s + fw_lora(rc, f, down_lora, r);
}

/* Block: norm_1, attention, norm_2 (or the shared norm of a parallel phi-2
 * block), MLP. */
static uint64_t litgpt_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                             const llmmem__recipe *rc)
{
    const uint64_t h = (uint64_t)m->hidden_size;
    const bool phi2 = m->family == LLMMEM__FAM_PHI;
    int attn_lora = m->family == LLMMEM__FAM_PHI3 ? lora_on(c, "qkv_proj")
                                                  : (lora_on(c, "q_proj") || lora_on(c, "k_proj") || lora_on(c, "v_proj"));
    int mlp_lora = phi2 ? lora_on(c, "fc1")
                        : (m->family == LLMMEM__FAM_PHI3 ? lora_on(c, "gate_up_proj")
                                                         : lora_on(c, "gate_proj") || lora_on(c, "up_proj"));
    if (phi2) /* shared_attention_norm: one LayerNorm feeding attn and fc */
        return fw_layernorm(rc, h) + fw_norm_out(c, rc, h, attn_lora + mlp_lora) + litgpt_attention(m, c, rc) +
               litgpt_mlp(m, c, rc);
    return fw_rmsnorm(rc, h) + fw_norm_out(c, rc, h, attn_lora) + litgpt_attention(m, c, rc) + fw_rmsnorm(rc, h) +
           fw_norm_out(c, rc, h, mlp_lora) + litgpt_mlp(m, c, rc);
}

uint64_t llmmem__frameworks_saved_layer(const struct llmmem_model *m, const struct llmmem_config *c,
                                        const llmmem__recipe *rc)
{
    if (c->activation_profile == LLMMEM__PROFILE_TORCHTUNE)
        return torchtune_layer(m, c, rc);
    return litgpt_layer(m, c, rc);
}

/* ---- QLoRA: which Linears are stored quantised --------------------------------- */

/* transformers BitsAndBytesConfig quantises every decoder Linear and skips
 * the head (llm_int8_skip_modules; integrations/bitsandbytes.py
 * get_keys_to_not_convert: lm_head); torchtune's qlora_* builders do the same
 * (models/llama3_{1,2}/_component_builders.py: LoRALinear(quantize_base=True)
 * where an adapter is, FrozenNF4Linear for every other projection, the
 * output head and embedding bf16); LitGPT's BitsandbytesPrecision replaces
 * every nn.Linear, lm_head included (lightning/fabric/plugins/precision/
 * bitsandbytes.py _convert_layers, ignore_modules empty). qlora_quantize_head
 * overrides the framework's choice (Lightning ignore_modules={"lm_head"}).
 * The compute dtype: Linear4bit.forward casts its input to compute_dtype and
 * dequantises the weight to it (bitsandbytes nn/modules.py, backends/cuda/
 * ops.py _dequant_linear_fallback); transformers' BitsAndBytesConfig sets it
 * to fp32 when bnb_4bit_compute_dtype is not given
 * (utils/quantization_config.py), Lightning to its precision dtype
 * (BitsandbytesPrecision.convert_module: m.compute_dtype = self.dtype). */
void llmmem__frameworks_qlora_linears(llmmem__train_in *in, llmmem__ovf *o)
{
    const struct llmmem_model *m = in->m;
    const struct llmmem_config *c = in->c;
    const uint64_t head = (uint64_t)m->vocab_size * (uint64_t)m->hidden_size;
    const bool litgpt = c->activation_profile == LLMMEM__PROFILE_LITGPT;
    in->qhead = c->qlora_quantize_head == LLMMEM__TRI_ON || (litgpt && c->qlora_quantize_head != LLMMEM__TRI_OFF);
    /* Linear8bitLt (qlora int8) has no compute dtype: it runs in the input's */
    const bool bnb4 = c->qlora == LLMMEM__QLORA_NF4 || c->qlora == LLMMEM__QLORA_FP4;
    in->qcb = !bnb4 || c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ? in->rc.cb
              : c->qlora_compute_dtype != LLMMEM__DT_AUTO ? llmmem__recipe_bytes(c->qlora_compute_dtype, in->rc.cb)
              : litgpt                                   ? in->rc.cb
                                                         : 4;
    in->qlin = in->qhead ? in->lin.params : llmmem__sub0(in->lin.params, m->tie_embeddings ? 0 : head);
    /* the largest quantised weight, and its in + out features */
    in->qlin_largest = in->qlin_largest_io = 0;
    for (int i = 0; i < in->ts->n; i++) {
        const llmmem__tensor *x = &in->ts->t[i];
        if (!x->linear || x->kind == LLMMEM__T_BIAS || (x->kind == LLMMEM__T_HEAD && !in->qhead))
            continue;
        const uint64_t n = llmmem__mul(o, (uint64_t)x->rows, (uint64_t)x->cols);
        if (n > in->qlin_largest) {
            in->qlin_largest = n;
            in->qlin_largest_io = (uint64_t)x->rows + (uint64_t)x->cols;
        }
    }
    if (in->qlin_largest == 0) /* no per-tensor list: the largest Linear */
        in->qlin_largest = in->lin.largest;
}
