/* What a GGUF file's header says (input/gguf.c reads it): every tensor's name,
 * shape and ggml type, and the hyperparameters llama.cpp reads from the
 * metadata (llama-model.cpp load_hparams and the per-architecture
 * load_arch_hparams), so that a runtime can size the weights, the KV cache
 * and the graphs exactly as llama.cpp does. A model made from a GGUF file
 * owns one (struct llmmem_model.gguf); clones copy it. Not installed. */
#ifndef LLMMEM_MODEL_GGUF_H
#define LLMMEM_MODEL_GGUF_H

#include "core/core.h"

#define LLMMEM__GGUF_MAX_LAYERS 512 /* llama.cpp LLAMA_MAX_LAYERS (llama-hparams.h) */
#define LLMMEM__GGUF_MAX_DIMS 4     /* GGML_MAX_DIMS */
#define LLMMEM__GGUF_MAX_NAME 64    /* GGML_MAX_NAME: a name is shorter */

/* Where llama.cpp puts a tensor (llama-arch.cpp LLM_TENSOR_INFOS: the input layer stays on
 * the CPU, a repeating layer goes where -ngl puts its block, the output layer with the
 * block after the last). */
enum llmmem__gguf_place { LLMMEM__GGUF_INPUT = -1, LLMMEM__GGUF_OUTPUT = -2 };

typedef struct llmmem__gguf_tensor {
    uint32_t name;  /* offset of its NUL-terminated name in names */
    uint32_t type;  /* ggml_type (core/ggml.h) */
    int32_t layer;  /* N of "blk.N.", else enum llmmem__gguf_place */
    uint32_t n_dims;
    int64_t ne[LLMMEM__GGUF_MAX_DIMS]; /* ggml order: ne[0] is the row (contiguous) */
    uint64_t bytes; /* ggml_nbytes: rows x row bytes */
} llmmem__gguf_tensor;

/* How a layer's attention sees the past (llama-hparams.h llama_swa_type). */
enum llmmem__gguf_swa { LLMMEM__SWA_NONE = 0, LLMMEM__SWA_STANDARD = 1, LLMMEM__SWA_CHUNKED = 2,
                        LLMMEM__SWA_SYMMETRIC = 3 };

/* The hyperparameters of llama_hparams that decide memory. */
typedef struct llmmem__gguf_hparams {
    uint32_t n_ctx_train, n_embd, n_layer, n_vocab;
    uint32_t n_expert, n_expert_used;
    uint32_t n_embd_head_k, n_embd_head_v; /* full-attention layers */
    uint32_t n_embd_head_k_swa, n_embd_head_v_swa;
    uint32_t n_swa; /* window (tokens), 0: none */
    int swa_type;   /* enum llmmem__gguf_swa */
    uint32_t n_head[LLMMEM__GGUF_MAX_LAYERS], n_head_kv[LLMMEM__GGUF_MAX_LAYERS];
    uint32_t n_ff[LLMMEM__GGUF_MAX_LAYERS];
    uint8_t is_swa[LLMMEM__GGUF_MAX_LAYERS];
    uint8_t is_recurrent[LLMMEM__GGUF_MAX_LAYERS];
    uint32_t n_ff_exp, n_ff_shexp; /* expert and shared-expert widths */
    /* MLA (deepseek2): latent KV width and the rope part */
    uint32_t n_lora_kv, n_rot;
    /* recurrent state (mamba, rwkv, hybrids): conv and SSM sizes */
    uint32_t ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_dt_rank, ssm_n_group;
    uint32_t wkv_head_size, token_shift_count;
    bool has_output;    /* an output.weight of its own (else tied to token_embd) */
    bool recurrent_arch; /* every layer recurrent (llm_arch_is_recurrent) */
    bool hybrid_arch;    /* some layers recurrent (llm_arch_is_hybrid) */
} llmmem__gguf_hparams;

typedef struct llmmem__gguf {
    uint32_t version;
    char arch[LLMMEM__NAME_MAX];      /* general.architecture */
    char name[LLMMEM__NAME_MAX];      /* general.name, cut */
    int64_t file_type;                /* general.file_type (llama_ftype), -1 if absent */
    uint32_t alignment;               /* general.alignment, 32 by default */
    uint64_t data_offset;             /* where the tensor data starts */
    uint64_t data_bytes;              /* the data section (padded tensors) */
    uint64_t file_bytes;              /* the file's size, 0 when not known */
    uint64_t n_kv;
    uint32_t n_tensors;
    llmmem__gguf_tensor *t;
    char *names;                      /* the tensor names, NUL-terminated */
    size_t names_len;
    llmmem__gguf_hparams hp;
} llmmem__gguf;

/* A deep copy (NULL with LLMMEM_E_NOMEM reported on failure); free with llmmem__gguf_free. */
llmmem__gguf *llmmem__gguf_clone(const llmmem__gguf *g);
void llmmem__gguf_free(llmmem__gguf *g);
static inline const char *llmmem__gguf_tensor_name(const llmmem__gguf *g, const llmmem__gguf_tensor *t)
{
    return g->names + t->name;
}

#endif /* LLMMEM_MODEL_GGUF_H */
