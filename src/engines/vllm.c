/* Runtime vllm: vLLM's memory budget (vllm/v1/worker/gpu_worker.py
 * determine_available_memory): the KV pool is what is left of
 * total*gpu_memory_utilization after weights, the profile run's peak
 * activations and non-torch memory, cut into blocks of every layer's page.
 * docs/inference.md "vLLM" has the formulas and the comparison with llm-d's
 * measurements. */
#include "engines/engines.h"

#define u llmmem__nonneg

#define MiB (UINT64_C(1) << 20)

/* Non-torch memory vLLM's profiler attributes to the run (cuBLAS handles,
 * NCCL): llm-d-benchmark config_explorer/empirical-vllm-memory-results.md,
 * vLLM 0.11 on H100: 0.13 GiB at TP=1, 0.54-0.55 GiB at TP=2. */
#define VLLM_NON_TORCH_TP1 (UINT64_C(133) * MiB)
#define VLLM_NON_TORCH_TPN (UINT64_C(563) * MiB)
/* Bytes per (sequence, vocab entry) live during the sampler warm-up
 * (vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run over max_num_seqs
 * rows; vllm/v1/sample/ops/topk_topp_sampler.py): logits in the model dtype 2,
 * fp32 copy 4, sort values 4 + int64 indices 8, top-k and top-p bool masks
 * 1 + 1, softmax of the sorted logits 4, scatter back 4, probs 4, exponential
 * noise 4 = 36. */
#define VLLM_SAMPLER_BYTES 36

/* The engine arguments that size the budget, with vLLM's defaults. */
typedef struct vllm_args {
    uint64_t requested; /* total * gpu_memory_utilization (0.9) */
    uint64_t seqs;      /* max_num_seqs (256) */
    uint64_t maxlen;    /* max_model_len (max_position_embeddings, else 4096) */
    uint64_t tokens;    /* max_num_batched_tokens (8192) */
    uint64_t block;     /* block_size (16) */
} vllm_args;

static void vllm_read_args(vllm_args *v, const struct llmmem_model *m,
                           const struct llmmem_config *c, const llmmem__infer_base *b)
{
    const uint64_t total =
        c->gpu_memory_bytes > 0 ? (uint64_t)c->gpu_memory_bytes : b->gpu->memory_bytes;
    const double util = c->gpu_memory_utilization > 0.0 ? c->gpu_memory_utilization : 0.9;
    v->requested = (uint64_t)((double)total * util);
    v->seqs = c->max_num_seqs > 0 ? u(c->max_num_seqs) : 256;
    v->maxlen = c->max_model_len > 0   ? u(c->max_model_len)
                : m->max_positions > 0 ? u(m->max_positions)
                                       : 4096;
    v->tokens = c->max_num_batched_tokens > 0 ? u(c->max_num_batched_tokens) : 8192;
    v->block = c->kv_block_size > 0 ? u(c->kv_block_size) : 16;
}

/* The profile run (gpu_model_runner profile_run): one forward over
 * max_num_batched_tokens dummy tokens with fused kernels (qkv_proj,
 * SiluAndMul: gate_up 2f + out f, residual and hidden h each), or fused_moe's
 * intermediate caches per (token, expert), and fp32 logits for at most
 * max_num_seqs rows. */
static uint64_t profile_forward(llmmem__ovf *o, const vllm_args *v, const struct llmmem_model *m,
                                const llmmem__infer_base *b)
{
    const uint64_t h = u(m->hidden_size), e = b->e;
    const uint64_t f = u(m->intermediate_size) / (uint64_t)b->tp;
    uint64_t fwd = llmmem__mul3(o, v->tokens, e, llmmem__add(o, 2 * h, 3 * f));
    if (m->num_experts > 0) {
        uint64_t fm =
            (m->moe_intermediate_size > 0 ? u(m->moe_intermediate_size) : f) / (uint64_t)b->tp;
        uint64_t pairs = llmmem__mul(o, v->tokens, u(m->experts_per_token));
        fwd = llmmem__max(fwd, llmmem__mul3(o, pairs, e, llmmem__add(o, 3 * fm, h)));
    }
    return llmmem__add(o, fwd,
                       llmmem__mul3(o, llmmem__min(v->seqs, v->tokens), u(m->vocab_size), 4));
}

/* The sampler warm-up over max_num_seqs rows of the vocabulary
 * (_dummy_sampler_run). */
static uint64_t sampler_warmup(llmmem__ovf *o, const vllm_args *v, const struct llmmem_model *m)
{
    return llmmem__mul3(o, v->seqs, u(m->vocab_size), VLLM_SAMPLER_BYTES);
}

/* vLLM's encoder budget (multimodal/encoder_budget / compute_encoder_budget):
 * at least one item's worth of encoder tokens; the profile run encodes dummy
 * images (the peak of `act` or the encoder pass) and keeps their outputs in
 * the encoder cache. */
static uint64_t with_encoder(llmmem__ovf *o, uint64_t act, const vllm_args *v,
                             const struct llmmem_model *m, const struct llmmem_config *c,
                             const llmmem__infer_base *b)
{
    const llmmem__vision_bytes *vb = &b->vb;
    const uint64_t enc_tok = vb->lm_tokens ? llmmem__max(v->tokens, vb->lm_tokens) : 0;
    if (!enc_tok)
        return act;
    uint64_t per_item =
        vb->lm_tokens ? vb->transient / (u(c->batch_size) ? u(c->batch_size) : 1) : 0;
    act = llmmem__max(act, llmmem__mul(o, per_item, llmmem__ceil_div(enc_tok, vb->lm_tokens)));
    if (c->encoder_cache)
        act = llmmem__add(o, act, llmmem__mul3(o, enc_tok, u(m->hidden_size), b->e));
    return act;
}

/* The profile run's peak: max(forward, sampler warm-up), then the encoder. */
static uint64_t profile_activation(llmmem__ovf *o, const vllm_args *v, const struct llmmem_model *m,
                                   const struct llmmem_config *c, const llmmem__infer_base *b)
{
    uint64_t act = llmmem__max(profile_forward(o, v, m, b), sampler_warmup(o, v, m));
    return with_encoder(o, act, v, m, c, b);
}

/* The KV pool in blocks. The page of a layer is block * per-token bytes
 * (AttentionSpec.page_size_bytes); every layer gets a page per block (sliding
 * layers as full attention without the hybrid allocator), and a sequence of
 * max_model_len needs ceil(maxlen / block) of them (kv_cache_utils). */
typedef struct vllm_pool {
    uint64_t page_all; /* one block of every layer */
    uint64_t blocks, per_seq, conc, bytes;
} vllm_pool;

static void kv_pool(vllm_pool *p, llmmem__ovf *o, const vllm_args *v, const llmmem__infer_base *b,
                    uint64_t avail)
{
    p->page_all = llmmem__mul(o, v->block, b->kv_tok);
    p->blocks = p->page_all ? avail / p->page_all : 0;
    p->per_seq = llmmem__ceil_div(v->maxlen, v->block);
    p->conc = p->per_seq ? p->blocks / p->per_seq : 0;
    if (p->conc > v->seqs)
        p->conc = v->seqs;
    p->bytes = llmmem__mul(o, p->blocks, p->page_all);
}

/* CUDA graphs: vLLM < 0.21 captures them after the KV pool is sized, so
 * their memory is not part of the budget (the llm-d vectors); a note says so. */
static void cuda_graphs(struct llmmem_result *r, const struct llmmem_config *c)
{
    if (c->cuda_graphs)
        llmmem__result_note(r, "vllm: CUDA graph memory is not subtracted from the KV budget "
                               "(vLLM < 0.21 behaviour)");
}

/* The decode phase and the pool's keys. */
static void vllm_phase(struct llmmem_result *r, llmmem__ovf *o, const vllm_args *v,
                       const vllm_pool *p, const llmmem__infer_base *b, uint64_t act,
                       uint64_t non_torch)
{
    const int D = LLMMEM_PHASE_DECODE;
    r->phase_used[D] = true;
    r->bytes[D][LLMMEM_C_WEIGHTS] = b->weights;
    r->bytes[D][LLMMEM_C_ACTIVATION_TRANSIENT] = act;
    r->bytes[D][LLMMEM_C_OTHER] = non_torch;
    /* when not even one max_model_len sequence fits, show what one needs */
    r->bytes[D][LLMMEM_C_KV_CACHE] = p->conc ? p->bytes : llmmem__mul(o, p->per_seq, p->page_all);
    r->largest_block = llmmem__mul(o, p->blocks, llmmem__mul(o, v->block, b->kv_tl));
    llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, p->bytes);
    llmmem__result_set_i64(r, LLMMEM_R_KV_BLOCKS, (int64_t)p->blocks);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONCURRENT_SEQS, (int64_t)p->conc);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONTEXT_TOKENS,
                           (int64_t)llmmem__mul(o, p->blocks, v->block));
}

/* The terms --explain reports for runtime vllm, and its notes. */
static void vllm_terms(struct llmmem_result *r, const struct llmmem_config *c, const vllm_args *v,
                       const vllm_pool *p, uint64_t act, uint64_t non_torch)
{
    llmmem__result_term(r, "profile_activation",
                        "max(forward over max_num_batched_tokens, max_num_seqs*vocab*36 sampler "
                        "warm-up) [vllm gpu_model_runner profile_run/_dummy_sampler_run]",
                        act);
    llmmem__result_term(r, "non_torch", "0.13 GiB TP=1, 0.55 GiB TP>1 [llm-d vLLM measurements]",
                        non_torch);
    llmmem__result_term(
        r, "kv_pool",
        "floor((total*util - weights - activation - non_torch) / (block*kv_bytes_per_token))"
        " blocks [vllm gpu_worker.determine_available_memory, kv_cache_utils]",
        p->bytes);
    if (!p->conc)
        llmmem__result_note(r,
                            "vllm: the KV pool (%llu blocks of %llu tokens) cannot hold one "
                            "sequence of max_model_len %llu",
                            (unsigned long long)p->blocks, (unsigned long long)v->block,
                            (unsigned long long)v->maxlen);
    cuda_graphs(r, c);
}

int llmmem__infer_vllm(struct llmmem_result *r, const struct llmmem_model *m,
                       const struct llmmem_config *c, const llmmem__infer_base *b)
{
    llmmem__ovf o = {b->overflow};
    vllm_args v;
    vllm_read_args(&v, m, c, b);
    const uint64_t act = profile_activation(&o, &v, m, c, b);
    const uint64_t non_torch = b->tp > 1 ? VLLM_NON_TORCH_TPN : VLLM_NON_TORCH_TP1;
    const uint64_t used = llmmem__add(&o, llmmem__add(&o, b->weights, act), non_torch);
    vllm_pool p;
    kv_pool(&p, &o, &v, b, llmmem__sub0(v.requested, used));
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vllm budget overflows 64-bit byte counts");
    vllm_phase(r, &o, &v, &p, b, act, non_torch);
    vllm_terms(r, c, &v, &p, act, non_torch);
    int rc = llmmem__result_finish(r, c);
    if (rc == 0 && !p.conc)
        llmmem__result_set_i64(r, LLMMEM_R_FITS, 0);
    return rc;
}
