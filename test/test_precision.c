/* Precision as each framework really does it (issue 25 item 5): for each engine and reader,
 * the dtypes of the weights, masters, gradients and optimizer state that the framework's
 * code produces from its own settings, with the bytes that follow. One test per framework,
 * each citing the code line it holds the estimate to; and the runs no framework does (pure
 * fp8, pure fp16 AdamW) flagged approximate with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llmmem.h"

static llmmem_model *preset(const char *name)
{
    llmmem_model *m = NULL;
    assert_int_equal(llmmem_model_from_preset(&m, name), 0);
    return m;
}

static llmmem_config *config(void)
{
    llmmem_config *c = NULL;
    assert_int_equal(llmmem_config_new(&c), 0);
    return c;
}

static void set(llmmem_config *c, const char *name, const char *value)
{
    if (llmmem_config_set(c, name, value))
        fail_msg("%s=%s: %s", name, value, llmmem_last_error());
}

static void yaml(llmmem_config *c, const llmmem_model *m, int kind, const char *text)
{
    if (llmmem_config_apply_framework_yaml(c, m, kind, text, strlen(text)))
        fail_msg("%s: %s", llmmem_framework_name(kind), llmmem_last_error());
}

/* What a result says about precision, and the bytes of each state. */
typedef struct prec {
    int64_t weights_dt, compute_dt, master_dt, grad_dt, state_dt, approximate;
    uint64_t params, weights, master, grads, optim, autocast;
    char notes[4096];
} prec;

static uint64_t term(const llmmem_result *r, const char *want)
{
    for (int i = 0; i < llmmem_result_term_count(r); i++) {
        const char *name, *formula;
        uint64_t bytes;
        assert_int_equal(llmmem_result_term(&name, &formula, &bytes, r, i), 0);
        if (!strcmp(name, want))
            return bytes;
    }
    return 0;
}

static prec estimate(const llmmem_model *m, const llmmem_config *c)
{
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    if (llmmem_estimate(r, m, c))
        fail_msg("estimate: %s", llmmem_last_error());
    prec p;
    memset(&p, 0, sizeof p);
    assert_int_equal(llmmem_result_get_i64(&p.weights_dt, r, LLMMEM_R_PARAM_DTYPE), 0);
    assert_int_equal(llmmem_result_get_i64(&p.compute_dt, r, LLMMEM_R_COMPUTE_DTYPE), 0);
    assert_int_equal(llmmem_result_get_i64(&p.master_dt, r, LLMMEM_R_MASTER_DTYPE), 0);
    assert_int_equal(llmmem_result_get_i64(&p.grad_dt, r, LLMMEM_R_GRAD_DTYPE), 0);
    assert_int_equal(llmmem_result_get_i64(&p.state_dt, r, LLMMEM_R_OPTIMIZER_STATE_DTYPE), 0);
    assert_int_equal(llmmem_result_get_i64(&p.approximate, r, LLMMEM_R_APPROXIMATE), 0);
    int64_t params;
    assert_int_equal(llmmem_result_get_i64(&params, r, LLMMEM_R_PARAMS), 0);
    p.params = (uint64_t)params;
    assert_int_equal(llmmem_result_get_u64(&p.weights, r, LLMMEM_R_WEIGHTS_BYTES), 0);
    p.master = term(r, "master_weights");
    p.grads = term(r, "gradients");
    p.optim = term(r, "optimizer_state");
    p.autocast = term(r, "autocast_cache");
    for (int i = 0; i < llmmem_result_note_count(r); i++) {
        strncat(p.notes, llmmem_result_note(r, i), sizeof p.notes - strlen(p.notes) - 2);
        strncat(p.notes, "\n", sizeof p.notes - strlen(p.notes) - 1);
    }
    llmmem_result_free(r);
    return p;
}

#define FP32 LLMMEM_DTYPE_FP32
#define BF16 LLMMEM_DTYPE_BF16
#define FP16 LLMMEM_DTYPE_FP16

static void dtypes(const prec *p, int64_t w, int64_t comp, int64_t master, int64_t grad, int64_t state)
{
    if (p->weights_dt != w || p->compute_dt != comp || p->master_dt != master || p->grad_dt != grad ||
        p->state_dt != state)
        fail_msg("weights %lld compute %lld masters %lld grads %lld state %lld; want %lld %lld %lld %lld %lld",
                 (long long)p->weights_dt, (long long)p->compute_dt, (long long)p->master_dt,
                 (long long)p->grad_dt, (long long)p->state_dt, (long long)w, (long long)comp,
                 (long long)master, (long long)grad, (long long)state);
}

/* HF Trainer, bf16=True over a model loaded in fp32: TrainingArguments sets
 * mixed_precision "bf16" (transformers 5.17 training_args.py:1586), the Trainer hands it to
 * its Accelerator (trainer.py:718), which wraps forward in torch.autocast (accelerate 1.15
 * accelerator.py:1826 get_mixed_precision_context_manager): fp32 weights, bf16 matmuls with
 * their cast copies, fp32 gradients, AdamW state zeros_like the fp32 params (torch 2.11
 * optim/adam.py:178), no masters. A bf16-loaded model under the same flag is bf16 throughout. */
static void hf_trainer(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    const char *args = "{\"bf16\": true, \"per_device_train_batch_size\": 1}";
    assert_int_equal(llmmem_config_apply_hf_training_args_json(c, args, strlen(args)), 0);
    set(c, "param_dtype", "fp32");
    prec p = estimate(m, c);
    dtypes(&p, FP32, BF16, 0, FP32, FP32);
    assert_true(p.weights == 4 * p.params && p.master == 0);
    assert_true(p.grads == 4 * p.params && p.optim == 8 * p.params);
    assert_true(p.autocast > 0); /* the bf16 copies of the fp32 weights */
    assert_false(p.approximate);
    set(c, "param_dtype", "bf16");
    p = estimate(m, c);
    dtypes(&p, BF16, BF16, 0, BF16, BF16);
    assert_true(p.weights == 2 * p.params && p.autocast == 0 && !p.approximate);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* accelerate + FSDP, mixed_precision: bf16: the plugin's MixedPrecision policy, param_dtype
 * and reduce_dtype bf16 (accelerate 1.15 state.py:1015 fsdp_plugin.set_mixed_precision;
 * utils/dataclasses.py:2136 dtype_args = {"param_dtype": dtype, "reduce_dtype": dtype}):
 * the units all-gather and compute in bf16 over the fp32 shards, which the optimizer steps;
 * no autocast copies of fp32 weights (before: autocast over fp32 parameters). */
static void accelerate_fsdp(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    yaml(c, m, LLMMEM_FW_ACCELERATE,
         "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\n"
         "fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n");
    set(c, "param_dtype", "fp32");
    int64_t v;
    assert_int_equal(llmmem_config_get_i64(&v, c, LLMMEM_P_FSDP_PARAM_DTYPE), 0);
    assert_int_equal(v, BF16);
    assert_int_equal(llmmem_config_get_i64(&v, c, LLMMEM_P_FSDP_REDUCE_DTYPE), 0);
    assert_int_equal(v, BF16);
    prec p = estimate(m, c);
    assert_int_equal(p.weights_dt, FP32);
    assert_int_equal(p.compute_dt, BF16);
    assert_true(p.weights == (4 * p.params + 7) / 8); /* the fp32 shards, 1/8 each */
    assert_int_equal(p.autocast, 0);
    /* mixed_precision outside FSDP stays autocast (no policy to set) */
    llmmem_config_free(c);
    c = config();
    yaml(c, m, LLMMEM_FW_ACCELERATE, "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 2\n");
    assert_int_equal(llmmem_config_get_i64(&v, c, LLMMEM_P_FSDP_PARAM_DTYPE), 0);
    assert_int_equal(v, LLMMEM_DTYPE_AUTO);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* DeepSpeed with bf16 enabled casts the module's parameters to bf16 whatever they were
 * loaded in (DeepSpeed 0.19.6 runtime/engine.py:1762 _cast_module_mixed_precision, :1545
 * p.data = p.data.to(param_dtype); older: self.module.bfloat16()); the ZeRO optimizer keeps
 * fp32 partitions (stage_1_and_2.py single_partition_of_fp32_groups, stage3.py
 * _create_fp32_partitions) and fp32 Adam state; gradients in the model dtype (engine.py:1485
 * get_data_types: grad_accum_dtype = model_dtype). An fp32-loaded and a bf16-loaded model are
 * the same run: 2-byte weights beside the fp32 masters (before: 4-byte weights, +22% on a
 * 70B LoRA ZeRO-3 run). Without bf16, stages 1-2 still clone the fp32 partition. */
static void deepspeed(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.1-8b");
    const char *ds = "{\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 3}, "
                     "\"train_micro_batch_size_per_gpu\": 1}";
    prec got[2];
    const char *loaded[] = {"fp32", "bf16"};
    for (int i = 0; i < 2; i++) {
        llmmem_config *c = config();
        set(c, "num_gpus", "8");
        if (llmmem_config_apply_deepspeed_json(c, m, ds, strlen(ds)))
            fail_msg("%s", llmmem_last_error());
        set(c, "param_dtype", loaded[i]); /* the dtype the model was loaded in */
        set(c, "compute_dtype", "bf16");
        got[i] = estimate(m, c);
        dtypes(&got[i], BF16, BF16, FP32, BF16, FP32);
        assert_true(got[i].weights <= (2 * got[i].params + 7) / 8 + (64u << 20)); /* bf16, 1/8 each */
        assert_true(got[i].master >= 4 * got[i].params / 8);
        llmmem_config_free(c);
    }
    assert_true(got[0].weights == got[1].weights && got[0].master == got[1].master);
    llmmem_config *c = config();
    set(c, "num_gpus", "2");
    set(c, "param_dtype", "fp32");
    set(c, "compute_dtype", "fp32");
    const char *fp32 = "{\"zero_optimization\": {\"stage\": 2}, \"train_micro_batch_size_per_gpu\": 1}";
    assert_int_equal(llmmem_config_apply_deepspeed_json(c, m, fp32, strlen(fp32)), 0);
    prec p = estimate(m, c);
    dtypes(&p, FP32, FP32, FP32, FP32, FP32);
    assert_true(p.weights == 4 * p.params && p.master == 4 * p.params / 2);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Megatron --bf16: Float16Module wraps the model in bf16 (megatron/core/transformer/
 * module.py Float16Module.__init__: self.add_module('module', module.bfloat16())), the
 * optimizer keeps fp32 main params and Adam state (core/optimizer/optimizer.py
 * Float16OptimizerWithFloat16Params: main_param = param.detach().clone().float()), and the
 * gradients accumulate in fp32 main_grad buffers (training/arguments.py: bf16 sets
 * accumulate_allreduce_grads_in_fp32). An fp32 checkpoint makes no 4-byte weights. */
static void megatron(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    set(c, "engine", "megatron");
    set(c, "num_gpus", "2");
    set(c, "param_dtype", "fp32");
    set(c, "compute_dtype", "bf16");
    prec p = estimate(m, c);
    dtypes(&p, BF16, BF16, FP32, FP32, FP32);
    assert_true(p.weights == 2 * p.params);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* torchtune: the recipe builds the model in cfg.dtype (torchtune 0.6.1
 * recipes/full_finetune_single_device.py:121 self._dtype = training.get_dtype(cfg.dtype),
 * :428 with training.set_default_dtype(self._dtype)); no autocast, no masters: the optimizer
 * steps bf16 parameters, its state bf16 like them. fp16 raises (training/precision.py:109). */
static void torchtune(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    yaml(c, m, LLMMEM_FW_TORCHTUNE,
         "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ndtype: bf16\nbatch_size: 1\n"
         "optimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\n");
    prec p = estimate(m, c);
    dtypes(&p, BF16, BF16, 0, BF16, BF16);
    assert_true(p.weights == 2 * p.params && p.master == 0 && p.grads == 2 * p.params);
    assert_true(p.optim == 4 * p.params && p.autocast == 0 && !p.approximate);
    llmmem_config_free(c);
    c = config();
    const char *fp16 = "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ndtype: fp16\n";
    assert_int_not_equal(llmmem_config_apply_framework_yaml(c, m, LLMMEM_FW_TORCHTUNE, fp16, strlen(fp16)), 0);
    assert_non_null(strstr(llmmem_last_error(), "dtype"));
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* LitGPT: precision "bf16-true" is Lightning's HalfPrecision plugin, which converts the
 * module to bf16 (lightning/fabric/plugins/precision/half.py HalfPrecision.convert_module:
 * module.to(dtype=self._desired_input_dtype)); the optimizer steps it as it is: bf16
 * weights, gradients and state, no masters. "bf16-mixed" (fp32 weights under autocast) is
 * refused as not modelled for the LitGPT profile. */
static void litgpt(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    set(c, "activation_profile", "litgpt");
    set(c, "param_dtype", "bf16");
    prec p = estimate(m, c);
    dtypes(&p, BF16, BF16, 0, BF16, BF16);
    assert_true(p.weights == 2 * p.params && p.optim == 4 * p.params);
    set(c, "param_dtype", "fp32");
    set(c, "compute_dtype", "bf16");
    llmmem_result *r = NULL;
    assert_int_equal(llmmem_result_new(&r), 0);
    assert_int_equal(llmmem_estimate(r, m, c), LLMMEM_E_UNSUPPORTED);
    llmmem_result_free(r);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

/* Runs no framework does: fp8 parameters stepped without masters (torch 2.11
 * optim/adam.py:457 exp_avg.lerp_ has no Float8_e4m3fn kernel) and pure fp16 AdamW
 * (amp/grad_scaler.py:275 "Attempting to unscale FP16 gradients."): counted as given,
 * flagged approximate with the reason. The same dtypes with fp32 masters (DeepSpeed fp16),
 * a non-Adam fp16 run, and pure bf16 (HF Trainer, torchtune) are not flagged. */
static void unusual(void **state)
{
    (void)state;
    llmmem_model *m = preset("llama-3.2-1b");
    llmmem_config *c = config();
    set(c, "param_dtype", "fp8");
    prec p = estimate(m, c);
    assert_true(p.approximate);
    assert_non_null(strstr(p.notes, "approximate: fp8 parameters trained without fp32 masters"));
    assert_non_null(strstr(p.notes, "Float8_e4m3fn"));
    set(c, "param_dtype", "fp16");
    p = estimate(m, c);
    assert_true(p.approximate);
    assert_non_null(strstr(p.notes, "approximate: pure fp16 adamw"));
    assert_non_null(strstr(p.notes, "Attempting to unscale FP16 gradients."));
    set(c, "optimizer", "sgd");
    assert_false(estimate(m, c).approximate);
    set(c, "optimizer", "adamw");
    set(c, "engine", "zero");
    set(c, "zero_stage", "2");
    set(c, "num_gpus", "2");
    p = estimate(m, c);
    assert_false(p.approximate);
    assert_int_equal(p.master_dt, FP32);
    llmmem_config_free(c);
    c = config();
    set(c, "param_dtype", "bf16");
    assert_false(estimate(m, c).approximate);
    set(c, "param_dtype", "fp8");
    set(c, "lora_rank", "8"); /* a frozen fp8 base under LoRA is a real recipe */
    assert_false(estimate(m, c).approximate);
    llmmem_config_free(c);
    llmmem_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hf_trainer), cmocka_unit_test(accelerate_fsdp), cmocka_unit_test(deepspeed),
        cmocka_unit_test(megatron),   cmocka_unit_test(torchtune),       cmocka_unit_test(litgpt),
        cmocka_unit_test(unusual),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
