/* Runtime llama_cpp: llama.cpp (llama-server, llama-cli) serving a model read from a GGUF
 * file, on one GPU with the layers -ngl puts there. Everything is the byte model of this
 * folder (lcpp_mem.c, lcpp_graph.c), computed from the file's tensors and llama.cpp's
 * hyperparameters, not from the HF-style description the other runtimes use. The row is at
 * the end.
 *
 * On the GPU: the offloaded weights, the KV cache of the offloaded layers, the compute
 * buffer of the worst-case graph. In host memory: the rest of the weights (mmap), the KV of
 * the layers left there, the output buffer (logits) and the host compute buffer. The GPU's
 * buffers are cudaMalloc'd whole (no caching allocator); the CUDA context is the GPU
 * table's, as for the other runtimes. */
#include "engines/engines.h"
#include "engines/llamacpp/llamacpp.h"

#include "core/ggml.h"

/* --cache-type-k/-v: the ggml type of each value (config/enums.def LLMMEM__LCPP_CACHES) */
#define CACHE_TYPE(P, V, name) [LLMMEM__LCPP_CACHE_##V] = LLMMEM__GGML_##V,
static const uint32_t cache_types[] = {LLMMEM__LCPP_CACHES(CACHE_TYPE, _)};
#undef CACHE_TYPE

/* The HF runtime's workload and precision settings, which llama.cpp has in its own form:
 * given here they would be dropped without a word (llama.cpp's --batch-size is n_batch,
 * tokens; batch_size is sequences), so a value other than the default is refused, naming
 * the llama.cpp setting to use instead. */
static const struct {
    int param;
    const char *instead;
} not_read[] = {
    {LLMMEM_P_BATCH_SIZE, "n_parallel (llama.cpp --parallel, sequences) or n_batch (llama.cpp "
                          "--batch-size, tokens)"},
    {LLMMEM_P_PROMPT_LEN, "ctx_size (--ctx-size, the tokens of every sequence together)"},
    {LLMMEM_P_DECODE_LEN, "ctx_size (--ctx-size, the tokens of every sequence together)"},
    {LLMMEM_P_WEIGHTS_FORMAT, "nothing: the GGUF file's tensors carry their own types"},
    {LLMMEM_P_QUANT_BITS, "nothing: the GGUF file's tensors carry their own types"},
    {LLMMEM_P_QUANT_GROUP_SIZE, "nothing: the GGUF file's tensors carry their own types"},
    {LLMMEM_P_PARAM_DTYPE, "nothing: the GGUF file's tensors carry their own types"},
    {LLMMEM_P_COMPUTE_DTYPE, "nothing: ggml computes in f32"},
    {LLMMEM_P_KV_CACHE_DTYPE, "cache_type_k and cache_type_v (--cache-type-k/-v)"},
    {LLMMEM_P_ATTENTION, "flash_attn (--flash-attn)"},
    {LLMMEM_P_IMAGES_PER_SAMPLE, "nothing: a GGUF model's vision tower (mmproj) is another file, not "
                                 "modelled"},
    {LLMMEM_P_VIDEO_FRAMES, "nothing: a GGUF model's vision tower (mmproj) is another file, not modelled"},
};

/* The row's hint for applies.c: what to set instead of param, or NULL. */
static const char *lcpp_instead(int param)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(not_read); i++)
        if (not_read[i].param == param)
            return not_read[i].instead;
    return NULL;
}

static int lcpp_not_read(const struct llmmem_config *c)
{
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(not_read); i++) {
        const llmmem__param_info *p = llmmem__param_find(not_read[i].param);
        const int64_t v = *(const int64_t *)(const void *)((const char *)c + p->offset);
        if (v == p->def_i)
            continue;
        char text[64];
        size_t need = 0;
        llmmem_config_get_str(text, sizeof text, &need, c, p->id);
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "runtime llama_cpp does not read %s (%s%s): set %s", p->name, text,
                             llmmem__config_origin(c, p->id), not_read[i].instead);
    }
    return 0;
}

static int lcpp_cfg(llmmem__lcpp_cfg *k, const struct llmmem_model *m, const struct llmmem_config *c)
{
    if (!m->gguf)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "runtime llama_cpp: the model must be read from its GGUF file "
                             "(llmmem_model_from_gguf_file, --gguf FILE): llama.cpp's tensors and "
                             "quantization types are there, not in a config.json");
    int rc = lcpp_not_read(c);
    if (rc)
        return rc;
    if (c->tp > 1 || c->pp > 1)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "runtime llama_cpp: one GPU (tensor_parallel_size %lld, pipeline_parallel_size "
                             "%lld): "
                             "llama.cpp's --split-mode across GPUs is not modelled yet",
                             (long long)c->tp, (long long)c->pp);
    if ((size_t)c->cache_type_k >= LLMMEM_ARRAY_LEN(cache_types) ||
        (size_t)c->cache_type_v >= LLMMEM_ARRAY_LEN(cache_types))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "runtime llama_cpp: cache type out of range");
    *k = (llmmem__lcpp_cfg){0};
    k->n_ctx = (uint32_t)c->ctx_size;
    k->n_batch = (uint32_t)c->n_batch;
    k->n_ubatch = (uint32_t)c->n_ubatch;
    k->n_seq_max = (uint32_t)c->n_parallel;
    k->kv_unified = c->kv_unified != 0;
    k->swa_full = c->swa_full != 0;
    k->offload_kqv = c->no_kv_offload == 0;
    /* --flash-attn auto: llama-context.cpp probes whether the layer's device runs the
     * op; the CPU and CUDA backends do for the head sizes of these models */
    k->flash_attn = c->flash_attn != LLMMEM__TRI_OFF;
    k->type_k = cache_types[c->cache_type_k];
    k->type_v = cache_types[c->cache_type_v];
    k->n_gpu_layers = (int32_t)c->n_gpu_layers;
    k->n_cpu_moe = (uint32_t)c->n_cpu_moe;
    k->gpu = true;
    return 0;
}

static void lcpp_terms(struct llmmem_result *r, const llmmem__lcpp_mem *x)
{
    llmmem__result_term(r, "weights_gpu",
                        "sum of the offloaded tensors' bytes, a quantized row padded to 512 elements, at 128 "
                        "bytes [llama-model.cpp load_tensors, ggml-cuda.cu get_alloc_size]",
                        x->w_gpu);
    llmmem__result_term(r, "kv_cache_gpu",
                        "per offloaded layer: row(cache type, head x kv heads) x cells x streams, K and V; SWA "
                        "layers over pad(window + ubatch, 256) cells [llama-kv-cache.cpp, "
                        "llama-kv-cache-iswa.cpp]",
                        x->kv_gpu);
    llmmem__result_term(r, "compute_buffer_gpu",
                        "ggml's graph allocator replayed over the worst-case prompt graph (ubatch tokens) "
                        "[ggml-alloc.c, llama-graph.cpp, models/<arch>.cpp]",
                        x->compute_gpu);
    llmmem__result_term(r, "host_weights", "tensors left in host memory (token embeddings always)",
                        x->w_cpu);
    llmmem__result_term(r, "host_kv_cache", "the KV cache of the layers on the CPU", x->kv_cpu);
    llmmem__result_term(r, "host_output_buffer", "logits: n_vocab x n_parallel x 4 [llama-context.cpp "
                        "output_reserve]", x->output);
    llmmem__result_term(r, "host_compute_buffer", "the ubatch's token embeddings (get_rows on the CPU)",
                        x->compute_cpu);
}

static int infer_llama_cpp(struct llmmem_result *r, const struct llmmem_model *m,
                           const struct llmmem_config *c, const llmmem__infer_base *b)
{
    llmmem__lcpp_cfg k;
    int rc = lcpp_cfg(&k, m, c);
    if (rc)
        return rc;
    llmmem__lcpp_mem x;
    if ((rc = llmmem__lcpp_memory(&x, m->gguf, &k)) != 0)
        return rc;
    if (x.compute_inexact == LLMMEM__LCPP_GRAPH_NONE)
        return llmmem__error(LLMMEM_E_UNSUPPORTED,
                             "runtime llama_cpp: the compute graph of architecture \"%s\" is not modelled "
                             "(llama, mistral3, qwen2, qwen3, qwen3moe, gemma2, gemma3, phi3 are)",
                             m->gguf->arch);
    llmmem__ovf o = {b->overflow};
    r->phase_used[LLMMEM_PHASE_PREFILL] = true;
    r->bytes[LLMMEM_PHASE_PREFILL][LLMMEM_C_WEIGHTS] = x.w_gpu;
    r->bytes[LLMMEM_PHASE_PREFILL][LLMMEM_C_KV_CACHE] = x.kv_gpu;
    r->bytes[LLMMEM_PHASE_PREFILL][LLMMEM_C_ACTIVATION_TRANSIENT] = x.compute_gpu;
    r->largest_block = 0;
    llmmem__result_set_u64(r, LLMMEM_R_WEIGHTS_BYTES, x.w_gpu);
    llmmem__result_set_u64(r, LLMMEM_R_PERSISTENT_BYTES, llmmem__add(&o, x.w_gpu, x.kv_gpu));
    llmmem__result_set_u64(r, LLMMEM_R_KV_CACHE_BYTES, x.kv_gpu);
    /* host: the weights left on the CPU (CPU_Mapped: the file's pages) and the KV of
     * the CPU layers (CPU KV buffer) are ordinary memory; the output and the host
     * compute buffers are the GPU backend's host buffer type (CUDA_Host:
     * cudaMallocHost, pinned; ggml-cuda.cu ggml_backend_cuda_host_buffer_type) */
    llmmem__result_host(r, llmmem__add(&o, x.output, x.compute_cpu), llmmem__add(&o, x.w_cpu, x.kv_cpu));
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONTEXT_TOKENS, x.n_ctx);
    llmmem__result_set_i64(r, LLMMEM_R_MAX_CONCURRENT_SEQS, c->n_parallel);
    if (o.overflow)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "runtime llama_cpp: a size overflows 64 bits");
    lcpp_terms(r, &x);
    llmmem__result_note(r, "llama.cpp: %d of %u repeating layers on the GPU%s; context %u (%u per "
                           "sequence), batch %u, ubatch %u, flash attention %s",
                        x.layers_gpu, m->gguf->hp.n_layer, x.output_gpu ? " and the output layer" : "",
                        x.n_ctx, x.n_ctx_seq, x.n_batch, x.n_ubatch, k.flash_attn ? "on" : "off");
    if (x.layers_gpu < (int32_t)m->gguf->hp.n_layer || !x.output_gpu)
        llmmem__result_note(r, "approximate: with layers on the CPU the host compute buffer is taken as the "
                               "whole graph's, and llama.cpp's op offload (host weights copied to the GPU "
                               "for large batches) is not modelled");
    llmmem__result_note(r, "llama.cpp: the CUDA context is the GPU table's (measured for PyTorch); the GPU "
                           "side of the buffers follows ggml-cuda's code, checked on the CPU backend only");
    return llmmem__result_finish(r, c);
}

/* The options only llama.cpp reads. */
static const int lcpp_reads[] = {LLMMEM_P_N_GPU_LAYERS, LLMMEM_P_CTX_SIZE,  LLMMEM_P_N_BATCH,
                                 LLMMEM_P_N_UBATCH,     LLMMEM_P_N_PARALLEL, LLMMEM_P_CACHE_TYPE_K,
                                 LLMMEM_P_CACHE_TYPE_V, LLMMEM_P_FLASH_ATTN, LLMMEM_P_KV_UNIFIED,
                                 LLMMEM_P_SWA_FULL,     LLMMEM_P_N_CPU_MOE,  LLMMEM_P_NO_KV_OFFLOAD,
                                 0};

const llmmem__engine llmmem__runtime_llama_cpp = {
    .name = "llama_cpp",
    .fn = "llmmem_estimate_inference",
    .gate = LLMMEM_P_RUNTIME,
    .value = LLMMEM_RUNTIME_LLAMA_CPP,
    .flags = LLMMEM__CAP_INFERENCE | LLMMEM__CAP_OWN_WEIGHTS | LLMMEM__CAP_ONE_GPU,
    .reads = lcpp_reads,
    .instead = lcpp_instead,
    .no_replay = "llama.cpp's ggml buffers",
    .kinds_use = LLMMEM__USE_HF,
    .plan_batch = LLMMEM_P_N_PARALLEL,
    .plan_len = LLMMEM_P_CTX_SIZE,
    .infer = infer_llama_cpp,
};
