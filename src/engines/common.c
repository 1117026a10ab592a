/* Distributed engines: the parallel layout shared by every engine (validation,
 * GPU counts, offload keys) and PyTorch DistributedDataParallel.
 *
 * Every engine starts from the single-GPU training model (train.c:
 * llmmem__train_compute) and changes only what it shards, replicates,
 * offloads and buffers before llmmem__train_fill builds the phases. ZeRO is in
 * zero.c, FSDP in fsdp.c, Megatron-LM and Megatron-DeepSpeed in megatron.c;
 * docs/engines.md lists the sources of each term. */
#include "engines/engines.h"
#include "model/registry.h"

#include <string.h>

/* ---- layout ---------------------------------------------------------------- */

static int need_one(const struct llmmem_config *c, int param, int64_t v, const char *engine)
{
    if (v == 1)
        return LLMMEM_OK;
    return llmmem__error(LLMMEM_E_INCONSISTENT,
                         "%s = %lld%s: engine \"%s\" is data parallel only; use engine megatron "
                         "for tensor, pipeline, context or expert parallelism",
                         llmmem_param_name(param), (long long)v, llmmem__config_origin(c, param),
                         engine);
}

/* The sizes of the config; a data-parallel-only engine needs 1 for the rest. */
static int layout_sizes(llmmem__layout *l, const struct llmmem_config *c, bool model_parallel,
                        const char *engine)
{
    memset(l, 0, sizeof *l);
    l->dp = c->dp;
    l->tp = c->tp;
    l->pp = c->pp;
    l->cp = c->cp;
    l->ep = c->ep;
    l->etp = c->etp;
    l->vpp = c->vpp;
    if (model_parallel)
        return LLMMEM_OK;
    int rc;
    if ((rc = need_one(c, LLMMEM_P_TENSOR_PARALLEL, l->tp, engine)) ||
        (rc = need_one(c, LLMMEM_P_PIPELINE_PARALLEL, l->pp, engine)) ||
        (rc = need_one(c, LLMMEM_P_CONTEXT_PARALLEL, l->cp, engine)) ||
        (rc = need_one(c, LLMMEM_P_EXPERT_PARALLEL, l->ep, engine)) ||
        (rc = need_one(c, LLMMEM_P_EXPERT_TENSOR_PARALLEL, l->etp, engine)) ||
        (rc = need_one(c, LLMMEM_P_VIRTUAL_PIPELINE, l->vpp, engine)))
        return rc;
    return LLMMEM_OK;
}

/* world = dp x tp x pp x cp; num_gpus alone gives the data-parallel size (dp
 * left unset), else it must equal that product. */
static int layout_world(llmmem__layout *l, const struct llmmem_config *c)
{
    const int64_t mp = l->tp * l->pp * l->cp;
    const bool dp_set = llmmem__config_was_set(c, LLMMEM_P_DATA_PARALLEL);
    if (c->num_gpus > 0) {
        if (l->dp == 1 && !dp_set && c->num_gpus != mp) {
            if (c->num_gpus % mp != 0)
                return llmmem__error(LLMMEM_E_INCONSISTENT,
                                     "num_gpus = %lld%s is not a multiple of tensor x pipeline x context "
                                     "parallel = %lld x %lld x %lld = %lld",
                                     (long long)c->num_gpus, llmmem__config_origin(c, LLMMEM_P_NUM_GPUS),
                                     (long long)l->tp, (long long)l->pp, (long long)l->cp, (long long)mp);
            l->dp = c->num_gpus / mp;
        } else if (c->num_gpus != l->dp * mp) {
            return llmmem__error(LLMMEM_E_INCONSISTENT,
                                 "num_gpus = %lld%s but data x tensor x pipeline x context parallel = "
                                 "%lld%s x %lld x %lld x %lld = %lld",
                                 (long long)c->num_gpus, llmmem__config_origin(c, LLMMEM_P_NUM_GPUS),
                                 (long long)l->dp, llmmem__config_origin(c, LLMMEM_P_DATA_PARALLEL),
                                 (long long)l->tp, (long long)l->pp, (long long)l->cp,
                                 (long long)(l->dp * mp));
        }
    }
    l->world = l->dp * mp;
    return LLMMEM_OK;
}

/* Megatron's checks of the dense split (megatron/training/arguments.py
 * validate_args and megatron/core/transformer/transformer_config.py
 * __post_init__): heads and query groups over tp, layers over pp x vpp, the
 * sequence over cp. */
static int layout_dense_split(const llmmem__layout *l, const struct llmmem_model *m,
                              const struct llmmem_config *c)
{
    if (m->num_heads % l->tp != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "num_attention_heads = %lld is not divisible by tensor_parallel_size = %lld%s",
                             (long long)m->num_heads, (long long)l->tp,
                             llmmem__config_origin(c, LLMMEM_P_TENSOR_PARALLEL));
    if (m->num_kv_heads % l->tp != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "num_key_value_heads (query groups) = %lld is not divisible by "
                             "tensor_parallel_size = %lld%s",
                             (long long)m->num_kv_heads, (long long)l->tp,
                             llmmem__config_origin(c, LLMMEM_P_TENSOR_PARALLEL));
    if (m->num_layers % (l->pp * l->vpp) != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "num_layers = %lld is not divisible by pipeline_parallel_size x "
                             "virtual_pipeline_size = %lld%s x %lld",
                             (long long)m->num_layers, (long long)l->pp,
                             llmmem__config_origin(c, LLMMEM_P_PIPELINE_PARALLEL), (long long)l->vpp);
    if (l->vpp > 1 && l->pp < 2)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "virtual_pipeline_size = %lld needs pipeline_parallel_size > 1 (it is %lld)",
                             (long long)l->vpp, (long long)l->pp);
    if (c->seq_len % l->cp != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "seq_len = %lld%s is not divisible by context_parallel_size = %lld%s",
                             (long long)c->seq_len, llmmem__config_origin(c, LLMMEM_P_SEQ_LEN),
                             (long long)l->cp, llmmem__config_origin(c, LLMMEM_P_CONTEXT_PARALLEL));
    return LLMMEM_OK;
}

/* The expert split: experts over ep; the expert group (ep x etp x expert-dp)
 * spans tp x cp x dp ranks (megatron/core/parallel_state.py
 * initialize_model_parallel). */
static int layout_expert_split(const llmmem__layout *l, const struct llmmem_model *m)
{
    if (l->ep <= 1 && l->etp <= 1)
        return LLMMEM_OK;
    if (m->num_experts <= 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "expert_parallel_size = %lld, expert_tensor_parallel_size = %lld on a "
                             "dense model (no experts)",
                             (long long)l->ep, (long long)l->etp);
    if (m->num_experts % l->ep != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "num_experts = %lld is not divisible by expert_parallel_size = %lld",
                             (long long)m->num_experts, (long long)l->ep);
    if ((l->tp * l->cp * l->dp) % (l->ep * l->etp) != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "expert_parallel_size x expert_tensor_parallel_size = %lld x %lld does "
                             "not divide tensor x context x data parallel = %lld x %lld x %lld",
                             (long long)l->ep, (long long)l->etp, (long long)l->tp, (long long)l->cp,
                             (long long)l->dp);
    return LLMMEM_OK;
}

int llmmem__engine_layout(llmmem__layout *l, const struct llmmem_model *m,
                          const struct llmmem_config *c, bool model_parallel, const char *engine)
{
    int rc;
    if ((rc = layout_sizes(l, c, model_parallel, engine)) || (rc = layout_world(l, c)) ||
        (rc = layout_dense_split(l, m, c)) || (rc = layout_expert_split(l, m)))
        return rc;
    const int64_t gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
    l->per_node = l->world < gpn ? l->world : gpn;
    l->nodes = (l->world + gpn - 1) / gpn;
    return LLMMEM_OK;
}

uint64_t llmmem__engine_scale(uint64_t bytes, uint64_t num, uint64_t den)
{
    if (den == 0)
        return 0;
    if (num == den)
        return bytes;
    /* (q*den + r) * num / den = q*num + r*num/den; r < den keeps r*num small
     * for the counts used here (num, den are rank or parameter counts). */
    uint64_t q = bytes / den, rem = bytes % den;
    llmmem__ovf o = {false};
    uint64_t a = llmmem__mul(&o, q, num);
    uint64_t b = llmmem__mul(&o, rem, num);
    if (o.overflow) /* astronomically large: a ratio in double is close enough */
        return (uint64_t)((double)bytes * ((double)num / (double)den));
    return llmmem__add(&o, a, llmmem__ceil_div(b, den));
}

void llmmem__no_gpu_count_fits(struct llmmem_result *r, const char *why)
{
    llmmem__result_set_i64(r, LLMMEM_R_GPUS_NEEDED, 0);
    llmmem__result_note_join(r, "gpus_needed 0: no number of GPUs makes this fit as configured (", why, ")",
                             (const char *)NULL);
}

void llmmem__engine_keys(struct llmmem_result *r, const llmmem__layout *l, uint64_t nvme, uint64_t sharded)
{
    llmmem__result_set_i64(r, LLMMEM_R_NUM_GPUS, l->world);
    llmmem__result_set_u64(r, LLMMEM_R_NVME_BYTES, nvme);
    /* GPUs needed: this layout when it fits; else the data-parallel size at
     * which the states that shrink as 1/dp bring the total under the capacity
     * (tp x pp x cp kept), or 0 when nothing that shards can make it fit. */
    int64_t needed = l->world;
    if (!r->v[LLMMEM_R_FITS - LLMMEM_R_PARAMS].i) {
        uint64_t total = llmmem__result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
        uint64_t cap = llmmem__result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
        uint64_t fixed = llmmem__sub0(total, sharded);
        if (sharded == 0 || fixed >= cap) {
            llmmem__no_gpu_count_fits(r, sharded == 0 ? "nothing of this engine's memory is "
                                                        "split over data-parallel ranks"
                                                      : "the memory not split over "
                                                        "data-parallel ranks exceeds the "
                                                        "capacity alone");
            return;
        }
        uint64_t dp = llmmem__ceil_div(llmmem__engine_scale(sharded, (uint64_t)l->dp, 1), cap - fixed);
        needed = (int64_t)dp * l->tp * l->pp * l->cp;
    }
    llmmem__result_set_i64(r, LLMMEM_R_GPUS_NEEDED, needed);
}


void llmmem__engine_formula_keys(struct llmmem_result *r, const struct llmmem_model *m, int phase)
{
    r->phase_used[phase] = true;
    r->mode = LLMMEM__MODE_TRAINING;
    llmmem__result_model(r, m);
    llmmem__result_set_i64(r, LLMMEM_R_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_TRAINABLE_PARAMS, m->params);
    llmmem__result_set_i64(r, LLMMEM_R_ACTIVE_PARAMS, m->params_active);
}

/* ---- settings that contradict the engine -------------------------------------- */

static const char *engine_name(int engine) { return llmmem_param_enum_name(LLMMEM_P_ENGINE, engine); }

/* Learned absolute positions (GPT-2 wpe, OPT embed_positions) have
 * max_position_embeddings rows: a longer sequence indexes past the table
 * (modeling_gpt2.py / modeling_opt.py raise an index error on the GPU). */
static int positions_check(const struct llmmem_model *m, int64_t tokens, const char *what)
{
    const bool learned = m->family == LLMMEM__FAM_GPT2 || m->family == LLMMEM__FAM_OPT;
    if (!learned || m->max_positions <= 0 || tokens <= m->max_positions)
        return LLMMEM_OK;
    return llmmem__error(LLMMEM_E_INCONSISTENT,
                         "%s = %lld is longer than max_position_embeddings = %lld of %s, whose "
                         "learned position table has that many rows",
                         what, (long long)tokens, (long long)m->max_positions, m->model_type);
}

/* An MoE model whose router picks no expert: refused by training and inference alike. */
static bool routes_nothing(const struct llmmem_model *m)
{
    return m->num_experts > 0 && m->experts_per_token <= 0;
}

static int routes_nothing_error(const struct llmmem_model *m)
{
    return llmmem__error(LLMMEM_E_INCONSISTENT,
                         "model \"%s\": %lld experts with num_experts_per_tok = %lld: the router "
                         "picks no expert",
                         m->model_type, (long long)m->num_experts, (long long)m->experts_per_token);
}

int llmmem__engine_check(const struct llmmem_model *m, const struct llmmem_config *c, const llmmem__engine *e)
{
    const unsigned caps = e->flags;
    if (c->zero_stage > 0 && !(caps & LLMMEM__CAP_ZERO))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "zero_stage = %lld%s with engine %s%s: ZeRO stages are DeepSpeed's (set "
                             "engine zero, or leave zero_stage at 0)",
                             (long long)c->zero_stage, llmmem__config_origin(c, LLMMEM_P_ZERO_STAGE),
                             e->name, llmmem__config_origin(c, LLMMEM_P_ENGINE));
    if ((c->offload_optimizer != LLMMEM__OFFLOAD_NONE || c->offload_param != LLMMEM__OFFLOAD_NONE) &&
        !(caps & LLMMEM__CAP_ZERO_OFFLOAD))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s with engine %s: optimizer and parameter offload are DeepSpeed ZeRO's "
                             "(engine zero; FSDP has fsdp_cpu_offload)",
                             c->offload_optimizer != LLMMEM__OFFLOAD_NONE ? "offload_optimizer"
                                                                          : "offload_param",
                             e->name);
    if (c->fsdp_cpu_offload && !(caps & LLMMEM__CAP_FSDP))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "fsdp_cpu_offload with engine %s: it is FSDP's CPUOffload (engine fsdp)",
                             e->name);
    if (c->distributed_optimizer && !(caps & LLMMEM__CAP_DIST_OPTIMIZER))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "distributed_optimizer with engine %s: it is Megatron-LM's "
                             "(--use-distributed-optimizer, engine megatron)",
                             e->name);
    if (!(caps & LLMMEM__CAP_FSDP) &&
        (c->fsdp_param_dtype != LLMMEM__DT_AUTO || c->fsdp_reduce_dtype != LLMMEM__DT_AUTO ||
         c->fsdp_reshard_after_forward != -1))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s with engine %s: it is FSDP's MixedPrecisionPolicy / fully_shard "
                             "argument (engine fsdp)",
                             c->fsdp_param_dtype != LLMMEM__DT_AUTO    ? "fsdp_param_dtype"
                             : c->fsdp_reduce_dtype != LLMMEM__DT_AUTO ? "fsdp_reduce_dtype"
                                                                       : "reshard_after_forward",
                             e->name);
    if (c->qlora != LLMMEM__QLORA_NONE && c->lora_rank <= 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "qlora = %s with lora_rank = 0: QLoRA trains LoRA adapters over the "
                             "quantised base (set lora_rank > 0, or qlora none for full fine-tuning)",
                             llmmem_param_enum_name(LLMMEM_P_QLORA, c->qlora));
    const bool bnb4 = c->qlora == LLMMEM__QLORA_NF4 || c->qlora == LLMMEM__QLORA_FP4;
    if ((c->qlora_compute_dtype != LLMMEM__DT_AUTO || c->qlora_quantize_head != LLMMEM__TRI_AUTO) &&
        (!bnb4 || c->activation_profile == LLMMEM__PROFILE_TORCHTUNE))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "%s with qlora = %s%s: it is bitsandbytes' 4-bit setting "
                             "(bnb_4bit_compute_dtype, the quantised output head): qlora nf4 or fp4 with "
                             "bitsandbytes (torchtune's NF4 is torchao's, in the model dtype)",
                             c->qlora_compute_dtype != LLMMEM__DT_AUTO ? "qlora_compute_dtype"
                                                                      : "qlora_quantize_head",
                             llmmem_param_enum_name(LLMMEM_P_QLORA, c->qlora),
                             c->activation_profile == LLMMEM__PROFILE_TORCHTUNE ? " and activation_profile torchtune"
                                                                                 : "");
    if (c->qlora_compute_dtype == LLMMEM__DT_FP8)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "qlora_compute_dtype = fp8: bitsandbytes' 4-bit layers compute in fp32, bf16 or "
                             "fp16 (bnb_4bit_compute_dtype)");
    if (routes_nothing(m))
        return routes_nothing_error(m);
    if (m->num_experts <= 0 && (m->num_moe_layers > 0 || (m->fam && m->fam->ffn.rule == LLMMEM__FR_MOE &&
                                                         m->experts_per_token > 0)))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "model \"%s\": an MoE architecture (every layer routed) with "
                             "num_experts = 0: its router would pick %lld of no experts",
                             m->model_type, (long long)m->experts_per_token);
    return positions_check(m, c->seq_len, "seq_len");
}

int llmmem__engine_check_inference(const struct llmmem_model *m, const struct llmmem_config *c,
                                   const llmmem__engine *e)
{
    if (c->engine != LLMMEM__ENG_SINGLE)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "engine %s with mode inference: the engines are training engines; "
                             "inference runs on runtime hf or vllm (leave engine at single)",
                             engine_name((int)c->engine));
    if (c->zero_stage > 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "zero_stage = %lld with mode inference: ZeRO partitions training states",
                             (long long)c->zero_stage);
    if (c->qlora != LLMMEM__QLORA_NONE)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "qlora = %s with mode inference: qlora is the training base's storage; "
                             "for inference set weights_format (nf4, int8, ...)",
                             llmmem_param_enum_name(LLMMEM_P_QLORA, c->qlora));
    if (c->empty_cache_steps != 0)
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "empty_cache_steps = %lld with mode inference: it is the Trainer's "
                             "torch_empty_cache_steps, after optimizer steps (leave it at 0)",
                             (long long)c->empty_cache_steps);
    if (routes_nothing(m))
        return routes_nothing_error(m);
    if (e->flags & LLMMEM__CAP_POSITIONS)
        return positions_check(m, c->prompt_len + c->decode_len, "prompt_len + decode_len");
    return LLMMEM_OK;
}

int llmmem__check_args(const llmmem_result *out, const llmmem_model *model, const llmmem_config *cfg,
                       const char *fn)
{
    if (!out || !model || !cfg)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "%s: %s is NULL", fn,
                             !out ? "result" : !model ? "model" : "config");
    return llmmem__model_validate(model);
}
