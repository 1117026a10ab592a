/* llama.cpp's memory, from a GGUF file's tensors and hyperparameters (llamacpp.c):
 * where -ngl puts each weight, the KV cache and recurrent state llama_context creates,
 * the output buffer and the compute buffers of the scheduler's worst-case graphs.
 * Not installed. */
#ifndef LLMMEM_MEMORY_LLAMACPP_H
#define LLMMEM_MEMORY_LLAMACPP_H

#include "model/gguf.h"

/* llama_context_params and the -ngl family of llama_model_params, resolved by the caller
 * (flash attention "auto" decided; 0 sizes replaced by llama.cpp's defaults). */
typedef struct llmmem__lcpp_cfg {
    uint32_t n_ctx;       /* 0: the model's n_ctx_train (llama-context.cpp) */
    uint32_t n_batch, n_ubatch, n_seq_max;
    bool kv_unified, swa_full;
    bool offload_kqv;     /* the KV cache of an offloaded layer on its GPU (default true) */
    bool flash_attn;
    uint32_t type_k, type_v; /* ggml types of the cache */
    int32_t n_gpu_layers; /* -ngl: -1 all; layers counted as llama.cpp counts them (n_layer + 1
                             for the output layer) */
    uint32_t n_cpu_moe;   /* --n-cpu-moe: the experts of the first N layers stay on the CPU */
    bool gpu;             /* a GPU device exists (else every buffer is the CPU's) */
    bool attn_rot_off;    /* LLAMA_ATTN_ROT_DISABLE: no Hadamard rotation of quantized caches */
} llmmem__lcpp_cfg;

typedef struct llmmem__lcpp_mem {
    uint32_t n_ctx, n_ctx_seq, n_stream;   /* as llama_context resolves them */
    uint32_t n_batch, n_ubatch;
    uint32_t kv_cells, kv_cells_swa;       /* cells of the full and the SWA caches */
    uint32_t kv_layers, kv_layers_swa;
    uint64_t w_gpu, w_cpu;                 /* weights on the GPU(s) and in host memory */
    uint64_t w_cpu_mapped;                 /* the mmap range of the host weights (CPU_Mapped) */
    uint64_t kv_k, kv_v, kv_k_swa, kv_v_swa; /* whole caches */
    uint64_t kv_gpu, kv_cpu;               /* the same split by where the layers are */
    uint64_t rs_r, rs_s;                   /* recurrent state (conv and SSM) */
    uint64_t output;                       /* host output buffer (logits) */
    uint64_t compute_gpu, compute_cpu;     /* compute buffers of the GPU and the host */
    int32_t layers_gpu;                    /* repeating layers on the GPU */
    /* the compute buffers: 0 = replayed from the architecture's graph (lcpp_graph.c);
     * LLMMEM__LCPP_GRAPH_NONE: no graph for this architecture (0 bytes, the caller refuses) */
    int compute_inexact;
    bool output_gpu;                       /* the output layer on the GPU */
} llmmem__lcpp_mem;

enum { LLMMEM__LCPP_GRAPH_NONE = 1 };

/* Fills *out; LLMMEM_E_INCONSISTENT / _UNSUPPORTED for settings llama.cpp refuses (a
 * quantized V cache without flash attention, ...), naming them. */
int llmmem__lcpp_memory(llmmem__lcpp_mem *out, const llmmem__gguf *g, const llmmem__lcpp_cfg *c);
/* The compute buffer of the GPU (gpu) or the host, from the sizes *m already holds
 * (lcpp_graph.c). */
uint64_t llmmem__lcpp_compute(llmmem__lcpp_mem *m, const llmmem__gguf *g, const llmmem__lcpp_cfg *c,
                              bool gpu, llmmem__ovf *o);

#endif /* LLMMEM_MEMORY_LLAMACPP_H */
