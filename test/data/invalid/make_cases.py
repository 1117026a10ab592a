# Regenerates test/data/invalid/<case>/{input.json,expect}: python3 test/data/invalid/make_cases.py
# (review the diff). Each case: the input, the entry point, the status and fragments of the
# error text; "contains L:C:" is the position of the offending value.
# Positions: line:col (1-based) of the first occurrence of `at` in the input text,
# counted here by plain text search (independent of the library).
import os
root = os.path.dirname(os.path.abspath(__file__))
T = '{"model": {"hf_config": "../../scenarios/configs/dev/llama-3.2-1b.json"}, "mode": "training", '
cases = []
def case(name, entry, text, status, contains=(), at=None, at_nth=1):
    cases.append((name, entry, text, status, list(contains), at, at_nth))

def pos(text, at, nth):
    i = -1
    for _ in range(nth):
        i = text.index(at, i + 1)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return "%d:%d" % (line, col)

S = "scenario"
case("scenario_unknown_top_key", S, T + '"trainng": {"seq_len": 512}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"trainng"', "unknown top-level key"], at='{"seq_len"')
case("scenario_unknown_training_key", S, T + '"training": {"micro_batch": 4}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"training.micro_batch"', "unknown key"], at="4}")
case("scenario_param_in_wrong_section", S, T + '"training": {"zero_stage": 2}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"training.zero_stage"', '"engine"'], at="2}")
case("scenario_mbs_string", S, T + '"training": {"micro_batch_size": "4"}}\n', "LLMMEM_E_SCHEMA", ['"training.micro_batch_size"', '"4"', "integer"], at='"4"')
case("scenario_mbs_negative", S, T + '"training": {"micro_batch_size": -4}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.micro_batch_size"', "-4"], at="-4")
case("scenario_mbs_zero", S, T + '"training": {\n  "seq_len": 512,\n  "micro_batch_size": 0\n}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.micro_batch_size"', " 0 "], at="0\n}")
case("scenario_mbs_fraction", S, T + '"training": {"micro_batch_size": 4.5}}\n', "LLMMEM_E_SCHEMA", ['"training.micro_batch_size"', "4.5"], at="4.5")
case("scenario_seq_len_huge", S, T + '"training": {"seq_len": 1e30}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.seq_len"', "2^53"], at="1e30")
case("scenario_seq_len_over_bound", S, T + '"training": {"seq_len": 200000000}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.seq_len"', "200000000"], at="200000000")
case("scenario_unknown_optimizer", S, T + '"training": {"optimizer": "adamq"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.optimizer"', "adamq"], at='"adamq"')
case("scenario_optimizer_number", S, T + '"training": {"optimizer": 3}}\n', "LLMMEM_E_SCHEMA", ['"training.optimizer"'], at="3}")
case("scenario_unknown_attention", S, T + '"training": {"attention": "flashy"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.attention"', "flashy"], at='"flashy"')
case("scenario_checkpointing_level_5", S, T + '"training": {"activation_checkpointing": 5}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.activation_checkpointing"', "[0, 4]"], at="5}")
case("scenario_dtype_unknown", S, T + '"training": {"param_dtype": "fp64"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"training.param_dtype"', "fp64"], at='"fp64"')
case("scenario_mode_unknown", S, T.replace('"training", ', '"serving", ') + '"training": {}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"mode"', "serving"], at='"serving"')
case("scenario_mode_number", S, T.replace('"training", ', '1}'), "LLMMEM_E_SCHEMA", ['"mode"'], at="1}")
case("scenario_engine_unknown", S, T + '"engine": {"type": "horovod"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"engine.type"', "horovod"], at='"horovod"')
case("scenario_zero_stage_4", S, T + '"engine": {"type": "zero", "stage": 4}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"engine.stage"', "4"], at="4}")
case("scenario_offload_unknown", S, T + '"engine": {"type": "zero", "offload_optimizer": "disk"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"engine.offload_optimizer"', "disk"], at='"disk"')
case("scenario_bucket_cap_string", S, T + '"engine": {"type": "ddp", "bucket_cap_mb": "25"}}\n', "LLMMEM_E_SCHEMA", ['"engine.bucket_cap_mb"', '"25"'], at='"25"')
case("scenario_gpu_unknown", S, T + '"hardware": {"gpu": "Z9000"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"hardware.gpu"', "Z9000"], at='"Z9000"')
case("scenario_gpu_memory_negative", S, T + '"hardware": {"gpu_memory_gib": -1}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"hardware.gpu_memory_gib"', "-1"], at="-1}")
case("scenario_lora_targets_number", S, T + '"lora": {"rank": 8, "target_modules": 5}}\n', "LLMMEM_E_SCHEMA", ['"lora.target_modules"', "list"], at="5}")
case("scenario_lora_target_item", S, T + '"lora": {"rank": 8, "target_modules": ["q_proj", 7]}}\n', "LLMMEM_E_SCHEMA", ['"lora.target_modules[1]"'], at="7]")
case("scenario_lora_rank_negative", S, T + '"lora": {"rank": -8}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"lora.rank"', "-8"], at="-8")
case("scenario_lora_alpha_string", S, T + '"lora": {"rank": 8, "alpha": "16"}}\n', "LLMMEM_E_SCHEMA", ['"lora.alpha"', '"16"'], at='"16"')
case("scenario_lora_dropout_over_1", S, T + '"lora": {"rank": 8, "dropout": 1.5}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"lora.dropout"', "1.5"], at="1.5")
case("scenario_section_not_object", S, T + '"training": [4, 1024]}\n', "LLMMEM_E_SCHEMA", ['"training"', "object"], at="[4")
case("scenario_root_array", S, '[{"mode": "training"}]\n', "LLMMEM_E_SCHEMA", ["object"], at="[")
case("scenario_truncated", S, T + '"training": {"seq_len": 512', "LLMMEM_E_PARSE", ["unexpected end"], at=None)
case("scenario_trailing_comma", S, T + '"training": {"seq_len": 512,}}\n', "LLMMEM_E_PARSE", [], at="}}")
case("scenario_empty_file", S, "", "LLMMEM_E_PARSE", ["empty input", "1:1"], at=None)
case("scenario_missing_model", S, '{"mode": "training", "training": {"seq_len": 512}}\n', "LLMMEM_E_SCHEMA", ['"model"', "missing"], at="{")
case("scenario_model_hf_and_preset", S, '{"model": {"hf_config": "a.json", "preset": "llama-3.1-8b"}}\n', "LLMMEM_E_INCONSISTENT", ['"model.preset"', "not both"], at='"llama-3.1-8b"')
case("scenario_model_unknown_key", S, '{"model": {"num_parameters": "7B", "num_layerz": 32}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"model.num_layerz"'], at="32}")
case("scenario_model_hf_missing_file", S, '{"model": {"hf_config": "no-such-config.json"}}\n', "LLMMEM_E_IO", ['"model.hf_config"', "no-such-config.json"], at='"no-such')
case("scenario_model_hf_not_string", S, '{"model": {"hf_config": 3}}\n', "LLMMEM_E_SCHEMA", ['"model.hf_config"'], at="3}")
case("scenario_model_empty", S, '{"model": {}}\n', "LLMMEM_E_SCHEMA", ['"model"', "no model"], at="{}")
case("scenario_model_not_object", S, '{"model": 7}\n', "LLMMEM_E_SCHEMA", ['"model"'], at="7}")
case("scenario_unknown_preset", S, '{"model": {"preset": "llama-99b"}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"model.preset"', "llama-99b"], at='"llama-99b"')
case("scenario_unknown_preset_string", S, '{"model": "gpt-17"}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"model"', "gpt-17"], at='"gpt-17"')
case("scenario_num_parameters_bad", S, '{"model": {"num_parameters": "7X", "num_layers": 32}}\n', "LLMMEM_E_PARSE", ['"model.num_parameters"', "7X"], at='"7X"')
case("scenario_params_unknown", S, T + '"params": {"micro_batch_sise": 4}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"params.micro_batch_sise"'], at="4}")
case("scenario_bool_mistyped", S, T + '"parallelism": {"sequence_parallel": "yes"}}\n', "LLMMEM_E_SCHEMA", ['"parallelism.sequence_parallel"', '"yes"'], at='"yes"')
case("scenario_dp_zero", S, T + '"parallelism": {"data_parallel_size": 0}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"parallelism.data_parallel_size"', " 0 "], at="0}")
case("scenario_inference_batch_negative", S, T.replace('"training"', '"inference"') + '"inference": {"batch_size": -2}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"inference.batch_size"', "-2"], at="-2")
case("scenario_inference_kv_dtype_unknown", S, T.replace('"training"', '"inference"') + '"inference": {"kv_cache_dtype": "int3"}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"inference.kv_cache_dtype"', "int3"], at='"int3"')
case("scenario_duplicate_key", S, T + '"training": {"seq_len": 512, "seq_len": 1024}}\n', "LLMMEM_E_SCHEMA", ['"training.seq_len"', "duplicate key"], at="1024")
case("scenario_lone_surrogate", S, T + '"training": {"optimizer": "adam\\udc00w"}}\n', "LLMMEM_E_PARSE", ["lone low surrogate"], at="\\udc00")
case("scenario_unpaired_high_surrogate", S, T + '"note": "\\ud83d",\n "training": {}}\n', "LLMMEM_E_PARSE", ["high surrogate"], at="\\ud83d")
case("scenario_hardware_unknown_key", S, T + '"hardware": {"gpu": "H200", "vram": 141}}\n', "LLMMEM_E_UNKNOWN_PARAM", ['"hardware.vram"'], at="141")

D = "deepspeed"
case("ds_stage_string", D, '{"zero_optimization": {"stage": "three"}}\n', "LLMMEM_E_SCHEMA", ['"zero_optimization.stage"', "three"], at='"three"')
case("ds_stage_5", D, '{"zero_optimization": {"stage": 5}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"zero_optimization.stage"', "5"], at="5}")
case("ds_offload_device_bad", D, '{"zero_optimization": {"stage": 3,\n  "offload_optimizer": {"device": "gpu"}}}\n', "LLMMEM_E_OUT_OF_RANGE", ['"zero_optimization.offload_optimizer.device"', "gpu"], at='"gpu"')
case("ds_root_array", D, '[]\n', "LLMMEM_E_SCHEMA", ["object"], at="[")
case("ds_truncated", D, '{"zero_optimization": {"stage": 2', "LLMMEM_E_PARSE", ["unexpected end"], at=None)
case("ds_optimizer_unknown", D, '{"optimizer": {"type": "Shampoo"}}\n', "LLMMEM_E_UNSUPPORTED", ['"optimizer.type"', "Shampoo"], at='"Shampoo"')
case("ds_bf16_and_fp16", D, '{"bf16": {"enabled": true}, "fp16": {"enabled": true}}\n', "LLMMEM_E_INCONSISTENT", ['"fp16.enabled"', "both"], at='{"enabled": true}}')
case("ds_reduce_bucket_fraction", D, '{"zero_optimization": {"stage": 2, "reduce_bucket_size": 1.5}}\n', "LLMMEM_E_SCHEMA", ['"zero_optimization.reduce_bucket_size"', "1.5"], at="1.5")
case("ds_bf16_enabled_string", D, '{"bf16": {"enabled": "yes"}}\n', "LLMMEM_E_SCHEMA", ['"bf16.enabled"', '"yes"'], at='"yes"')
case("ds_overlap_comm_number", D, '{"zero_optimization": {"overlap_comm": 1}}\n', "LLMMEM_E_SCHEMA", ['"zero_optimization.overlap_comm"'], at="1}")
case("ds_micro_batch_negative", D, '{"train_micro_batch_size_per_gpu": -1}\n', "LLMMEM_E_OUT_OF_RANGE", ['"train_micro_batch_size_per_gpu"', "-1"], at="-1")

H = "hf_args"
case("hf_optim_unknown", H, '{"per_device_train_batch_size": 2, "optim": "galore_adamw"}\n', "LLMMEM_E_UNSUPPORTED", ['"optim"', "galore_adamw"], at='"galore_adamw"')
case("hf_batch_string", H, '{"per_device_train_batch_size": "2"}\n', "LLMMEM_E_SCHEMA", ['"per_device_train_batch_size"', '"2"'], at='"2"')
case("hf_quantization_bit_3", H, '{"finetuning_type": "lora", "quantization_bit": 3}\n', "LLMMEM_E_UNSUPPORTED", ['"quantization_bit"', "3-bit"], at="3}")
case("hf_bf16_and_fp16", H, '{"bf16": true, "fp16": true}\n', "LLMMEM_E_INCONSISTENT", ['"fp16"', "both"], at="true}")
case("hf_finetuning_freeze", H, '{"finetuning_type": "freeze"}\n', "LLMMEM_E_UNSUPPORTED", ['"finetuning_type"', "freeze"], at='"freeze"')
case("hf_bf16_string", H, '{"bf16": "true"}\n', "LLMMEM_E_SCHEMA", ['"bf16"'], at='"true"')
case("hf_lora_rank_fraction", H, '{"finetuning_type": "lora", "lora_rank": 8.5}\n', "LLMMEM_E_SCHEMA", ['"lora_rank"', "8.5"], at="8.5")
case("hf_truncated", H, '{"bf16": tr', "LLMMEM_E_PARSE", [], at=None)

# Contradictions the estimate refuses (issue 20.3): a scenario that loads, then
# llmmem_estimate's error names both settings; settings read from the file are cited with
# their file:line:col and key path.
E = "estimate"
P8 = '{"model": {"preset": "llama-3.1-8b"}, "mode": "training", '
case("estimate_zero_stage_engine_single", E, P8 + '"engine": {"type": "single",\n  "zero_stage": 3}}\n', "LLMMEM_E_INCONSISTENT", ["zero_stage = 3", "engine single", "engine.zero_stage"], at="3}")
case("estimate_qlora_without_rank", E, P8 + '"lora": {"qlora": "nf4", "rank": 0}}\n', "LLMMEM_E_INCONSISTENT", ["qlora = nf4", "lora_rank = 0"])
case("estimate_dp1_with_8_gpus", E, P8 + '"engine": {"type": "ddp"},\n "parallelism": {"data_parallel_size": 1, "num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["num_gpus = 8", "= 1", "parallelism.data_parallel_size"], at="1,")
case("scenario_engine_zero3_stage_1", S, P8 + '"engine": {"type": "zero3", "stage": 1}}\n', "LLMMEM_E_INCONSISTENT", ["zero3", "stage 3", "engine.stage", "says 1"], at='"zero3"')
case("estimate_inference_with_zero", E, '{"model": {"preset": "llama-3.1-8b"}, "mode": "inference", "engine": {"type": "zero3"}, "lora": {"rank": 8}}\n', "LLMMEM_E_INCONSISTENT", ["engine zero", "mode inference"])
case("estimate_inference_with_qlora", E, '{"model": {"preset": "llama-3.1-8b"}, "mode": "inference", "lora": {"rank": 8, "qlora": "nf4"}}\n', "LLMMEM_E_INCONSISTENT", ["qlora = nf4", "mode inference", "weights_format"])
case("estimate_gpt2_seq_4096", E, '{"model": {"preset": "gpt2"}, "mode": "training", "training": {"seq_len": 4096}}\n', "LLMMEM_E_INCONSISTENT", ["seq_len = 4096", "max_position_embeddings = 1024"])
case("estimate_tp_kv_heads_cited", E, P8 + '"engine": {"type": "megatron"},\n "parallelism": {"tensor_parallel_size": 3, "num_gpus": 6}}\n', "LLMMEM_E_INCONSISTENT", ["not divisible by tensor_parallel_size = 3", "parallelism.tensor_parallel_size"], at="3,")
case("estimate_offload_param_stage_2_cited", E, P8 + '"engine": {"type": "zero", "zero_stage": 2,\n  "offload_param": "cpu"}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["offload_param = cpu", "needs zero_stage 3", "engine.offload_param", "engine.zero_stage"], at='"cpu"')
case("estimate_megatron_qlora", E, P8 + '"engine": {"type": "megatron"}, "lora": {"rank": 16, "qlora": "nf4"}}\n', "LLMMEM_E_UNSUPPORTED", ["qlora = nf4", "engine megatron"])
case("estimate_megatron_deepspeed_lora", E, P8 + '"engine": {"type": "megatron_deepspeed"}, "lora": {"rank": 16}}\n', "LLMMEM_E_UNSUPPORTED", ["lora_rank = 16", "megatron_deepspeed"])
case("estimate_fsdp1_reshard_after_forward", E, P8 + '"engine": {"type": "fsdp1", "reshard_after_forward": 0}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["reshard_after_forward = 0", "fsdp_version 1", "sharding_strategy"])
case("estimate_fsdp_reshard_not_divisor", E, P8 + '"engine": {"type": "fsdp2", "reshard_after_forward": 3}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["reshard_after_forward = 3", "8 ranks"])
case("estimate_fsdp_policy_on_zero", E, P8 + '"engine": {"type": "zero3", "fsdp_param_dtype": "bf16"}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["fsdp_param_dtype", "engine zero"])
case("estimate_fsdp_policy_vs_compute", E, P8 + '"training": {"param_dtype": "fp32", "compute_dtype": "fp32"}, "engine": {"type": "fsdp2", "fsdp_param_dtype": "bf16"}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["fsdp_param_dtype = bf16", "compute_dtype = fp32"])
case("estimate_offload_on_ddp", E, P8 + '"engine": {"type": "ddp", "offload_optimizer": "cpu"}, "parallelism": {"num_gpus": 8}}\n', "LLMMEM_E_INCONSISTENT", ["offload_optimizer", "engine ddp"])
H = "hf_args"
case("hf_fsdp_bogus", H, '{"fsdp": "bogus"}\n', "LLMMEM_E_OUT_OF_RANGE", ['"fsdp"', "bogus", "FSDPOption"], at='"bogus"')
case("hf_fsdp_one_bogus_word", H, '{"fsdp": "full_shard autowrap"}\n', "LLMMEM_E_OUT_OF_RANGE", ['"fsdp"', "autowrap", "FSDPOption"], at='"full_shard')

import shutil
for name in os.listdir(root):
    if os.path.isdir(os.path.join(root, name)):
        shutil.rmtree(os.path.join(root, name))
for name, entry, text, status, contains, at, nth in cases:
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "input.json"), "w") as f:
        f.write(text)
    lines = ["entry " + entry, "status " + status]
    lines += ["contains " + c for c in contains]
    if at is not None:
        lines.append("contains " + pos(text, at, nth) + ":")
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join(lines) + "\n")
# a directory where a file is expected
d = os.path.join(root, "scenario_directory")
os.makedirs(os.path.join(d, "input.json"))
open(os.path.join(d, "input.json", ".keep"), "w").close()
open(os.path.join(d, "expect"), "w").write("entry scenario\nstatus LLMMEM_E_IO\ncontains input.json\ncontains directory\n")
print(len(cases) + 1, "cases")
