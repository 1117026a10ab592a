#!/usr/bin/env python3
"""Variant configs of the multimodal composites and the Gemma 3n/4 and Llama 4 text
models, counted on the meta device (transformers 5.17, torch, peft), written as
multimodal-5.17.jsonl in the format of the reference files (test/families.py reads them).

usage: /work/venv-tf/bin/python test/data/families/make_multimodal.py [--out FILE]

Each record: model_type, variant, class (what was built: AutoModelForCausalLM for a text
model, the ForConditionalGeneration class for a composite), params, config and
peft_all_linear_modules (peft's own "all-linear" resolution, the decoder-layer index as
{i} and any other index as {j}). A config is what save_pretrained writes, unless the
variant is marked raw: then it is the dict given, as a Hub config.json holds it (keys the
configuration class turns into others, e.g. Gemma 4's global_head_dim)."""
import argparse, contextlib, io, json, re, sys, warnings

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

warnings.filterwarnings("ignore")

SMALL_G3N = dict(vocab_size=1000, hidden_size=256, num_hidden_layers=10, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=64, vocab_size_per_layer_input=500,
                 hidden_size_per_layer_input=32)
SMALL_G4 = dict(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=12,
                num_attention_heads=4, num_key_value_heads=2, head_dim=64)
SMALL_G3 = dict(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=6,
                num_attention_heads=4, num_key_value_heads=2, head_dim=64)
SMALL_L4 = dict(vocab_size=1000, hidden_size=256, intermediate_size=128, intermediate_size_mlp=512,
                num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2, head_dim=64,
                num_local_experts=4)

# (model_type, variant, class or None for AutoModelForCausalLM, config kwargs, raw)
VARIANTS = [
    ("gemma3n_text", "per-layer-width-kv-shared", None,
     dict(SMALL_G3N, intermediate_size=[512, 512, 1024, 1024, 1024, 768, 768, 512, 512, 512],
          num_kv_shared_layers=4, laurel_rank=16, altup_num_inputs=3), False),
    ("gemma3n_text", "no-kv-share-untied", None,
     dict(SMALL_G3N, intermediate_size=640, num_kv_shared_layers=0, tie_word_embeddings=False,
          layer_types=["full_attention", "sliding_attention"] * 5), False),
    ("gemma3n_text", "half-shared-wide-laurel", None,
     dict(SMALL_G3N, intermediate_size=640, num_kv_shared_layers=5, laurel_rank=128, altup_num_inputs=5,
          attention_bias=True), False),
    ("gemma4_text", "ple-kv-shared-double-wide", None,
     dict(SMALL_G4, hidden_size_per_layer_input=32, vocab_size_per_layer_input=300, num_kv_shared_layers=5,
          use_double_wide_mlp=True), False),
    ("gemma4_text", "k-eq-v-global-kv-heads-raw", None,
     dict(SMALL_G4, hidden_size_per_layer_input=0, attention_k_eq_v=True, global_head_dim=128,
          num_global_key_value_heads=1, final_logit_softcapping=30.0), True),
    ("gemma4_text", "moe-per-layer-config", None,
     dict(SMALL_G4, hidden_size_per_layer_input=16, enable_moe_block=True, num_experts=8, top_k_experts=2,
          moe_intermediate_size=64, per_layer_config={"5": {"head_dim": 32, "num_key_value_heads": 1},
                                                      "11": {"head_dim": 32, "num_key_value_heads": 1}}), False),
    ("gemma4_unified_text", "kv-shared-k-eq-v-raw", None,
     dict(SMALL_G4, num_kv_shared_layers=6, use_double_wide_mlp=True, attention_k_eq_v=True,
          num_global_key_value_heads=1, global_head_dim=96), True),
    ("llama4_text", "interleaved-moe", None, dict(SMALL_L4, interleave_moe_layer_step=2), False),
    # composites, counted as their ForConditionalGeneration class
    ("gemma3", "default-full-model", "Gemma3ForConditionalGeneration", {}, False),
    ("gemma3", "siglip-without-head-untied", "Gemma3ForConditionalGeneration",
     dict(text_config=dict(SMALL_G3, model_type="gemma3_text"), tie_word_embeddings=False, mm_tokens_per_image=64,
          vision_config=dict(model_type="siglip_vision_model", hidden_size=128, intermediate_size=256,
                             num_hidden_layers=3, num_attention_heads=4, image_size=64, patch_size=8,
                             vision_use_head=False)), False),
    ("gemma4", "vision-and-audio-towers", "Gemma4ForConditionalGeneration",
     dict(text_config=dict(SMALL_G4, model_type="gemma4_text", hidden_size_per_layer_input=16),
          vision_config=dict(hidden_size=96, intermediate_size=192, num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, head_dim=24, position_embedding_size=64, patch_size=8),
          audio_config=dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                            subsampling_conv_channels=[32, 16], conv_kernel_size=3, output_proj_dims=80)), False),
    ("gemma4", "default-towers", "Gemma4ForConditionalGeneration", dict(vision_config={}, audio_config={}), False),
    ("gemma4", "hub-style-vision-raw", "Gemma4ForConditionalGeneration",
     dict(text_config=dict(SMALL_G4, model_type="gemma4_text", attention_k_eq_v=True, global_head_dim=128,
                           num_global_key_value_heads=1, hidden_size_per_layer_input=0),
          vision_config=dict(model_type="gemma4_vision", hidden_size=72, intermediate_size=144,
                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4, head_dim=18,
                             global_head_dim=18, standardize=True), audio_config=None), True),
    ("gemma4_unified", "vision-and-audio-embedders", "Gemma4UnifiedForConditionalGeneration",
     dict(text_config=dict(SMALL_G4, model_type="gemma4_unified_text"),
          vision_config=dict(patch_size=8, pooling_kernel_size=2, mm_embed_dim=96, mm_posemb_size=40,
                             output_proj_dims=96), audio_config=dict(audio_embed_dim=48)), False),
    ("llama4", "default-full-model", "Llama4ForConditionalGeneration", {}, False),
    ("llama4", "small-full-model", "Llama4ForConditionalGeneration",
     dict(text_config=dict(SMALL_L4, model_type="llama4_text", interleave_moe_layer_step=2),
          vision_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                             image_size=56, patch_size=14, vision_output_dim=96, projector_input_dim=32,
                             projector_output_dim=32)), False),
    # exact once qwen3_5_text / qwen3_5_moe_text are in the registry (pending.txt until then)
    ("qwen3_5", "default-full-model", "Qwen3_5ForConditionalGeneration", {}, False),
    ("qwen3_5_moe", "small-vision-full-model", "Qwen3_5MoeForConditionalGeneration",
     dict(vision_config=dict(hidden_size=96, intermediate_size=200, depth=3, num_heads=4, patch_size=8,
                             temporal_patch_size=3, spatial_merge_size=3, out_hidden_size=256,
                             num_position_embeddings=100, in_channels=4)), False),
    ("mistral3", "default-full-model", "Mistral3ForConditionalGeneration", {}, False),
    ("mistral3", "small-two-feature-layers-raw", "Mistral3ForConditionalGeneration",
     dict(text_config=dict(model_type="mistral", vocab_size=1000, hidden_size=256, intermediate_size=512,
                           num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=64),
          vision_config=dict(model_type="pixtral", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                             num_attention_heads=4, patch_size=8, image_size=64),
          vision_feature_layer=[-1, -3], multimodal_projector_bias=True, spatial_merge_size=3,
          tie_word_embeddings=False), True),
    ("llama4_text", "lists-without-layer-types-raw", None,
     dict(SMALL_L4, moe_layers=[1, 2, 5], no_rope_layers=[1, 0, 1, 1, 0, 0, 1, 1], attention_chunk_size=None,
          attention_bias=True, tie_word_embeddings=True), True),
]


@contextlib.contextmanager
def quiet():
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def layer_list(model):
    """The decoder layers: the ModuleList holding the most parameters."""
    best, most = None, -1
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod):
            n = sum(p.numel() for p in mod.parameters())
            if n > most:
                best, most = name, n
    return best


def template(name, layers):
    if layers and name.startswith(layers + "."):
        idx, _, tail = name[len(layers) + 1:].partition(".")
        return layers + ".{i}" + ("." + re.sub(r"\.\d+(?=\.|$)", ".{j}", "." + tail)[1:] if tail else "")
    return re.sub(r"(^|\.)\d+(?=\.|$)", r"\1{j}", name)


def peft_modules(model):
    from peft import LoraConfig
    from peft.tuners.tuners_utils import _maybe_include_all_linear_layers

    cfg = _maybe_include_all_linear_layers(LoraConfig(target_modules="all-linear"), model)
    layers = layer_list(model)
    return sorted({template(n, layers) for n in cfg.target_modules})


def record(mt, variant, cls, kw, raw):
    with quiet():
        cfg = AutoConfig.for_model(mt, **kw)
        with torch.device("meta"):
            model = getattr(transformers, cls)(cfg) if cls else AutoModelForCausalLM.from_config(cfg)
    config = dict(kw, model_type=mt) if raw else json.loads(cfg.to_json_string())
    rec = {"model_type": mt, "variant": variant, "class": type(model).__name__,
           "params": sum(p.numel() for p in model.parameters()), "config": config,
           "peft_all_linear_modules": peft_modules(model)}
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="test/data/families/multimodal-5.17.jsonl")
    a = ap.parse_args()
    import peft

    with open(a.out, "w") as out:
        out.write(json.dumps({"about": "variant configs of the multimodal composites and the Gemma 3n/4 and "
                              "Llama 4 text models, counted on the meta device (make_multimodal.py)",
                              "transformers": transformers.__version__, "torch": torch.__version__,
                              "peft": peft.__version__}) + "\n")
        for v in VARIANTS:
            rec = record(*v)
            print(rec["model_type"], rec["variant"], rec["class"], rec["params"], file=sys.stderr)
            out.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
