#!/usr/bin/env python3
"""Measure peak GPU memory of training/inference steps for architectures and
settings the dev set lacks, exactly as shared/groundtruth/measure.py does
(random weights built on the GPU, 3 steps, torch.cuda allocator counters).
Writes dev-format records (one JSON object a line) to $OUT/measured.jsonl and
each model's config.json to $OUT/configs/. Needs torch, transformers (and
peft for LoRA). Usage: OUT=dir python3 test/gpu/measure_more.py"""
import gc, json, os, sys, time, traceback

T0 = time.time()
DEADLINE = float(os.environ.get("GT_DEADLINE_S", "420"))
OUT = os.environ.get("OUT", "gt-out")
os.makedirs(os.path.join(OUT, "configs"), exist_ok=True)
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoConfig

DT = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
      "amp_bf16": torch.float32, "amp_fp16": torch.float32}
dev = torch.device("cuda")
WORKSPACE = 32 << 20  # cuBLAS workspace of the main thread on sm90

# Small models of families the dev set does not cover; fields as each
# transformers config class names them.
CONFIGS = {
    "qwen3-small": ("qwen3", dict(vocab_size=151936, hidden_size=1024, intermediate_size=3072,
        num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=8, head_dim=128,
        max_position_embeddings=40960, tie_word_embeddings=True)),
    "olmo2-small": ("olmo2", dict(vocab_size=100352, hidden_size=1024, intermediate_size=4096,
        num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=16,
        max_position_embeddings=4096, tie_word_embeddings=False)),
    "starcoder2-small": ("starcoder2", dict(vocab_size=49152, hidden_size=1024, intermediate_size=4096,
        num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=4,
        max_position_embeddings=4096, sliding_window=None)),
    "phi3-small": ("phi3", dict(vocab_size=32064, hidden_size=1024, intermediate_size=2816,
        num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=16,
        max_position_embeddings=4096, tie_word_embeddings=False, pad_token_id=0)),
    "neox-small": ("gpt_neox", dict(vocab_size=50304, hidden_size=1024, intermediate_size=4096,
        num_hidden_layers=8, num_attention_heads=16, rotary_pct=0.25, max_position_embeddings=2048,
        tie_word_embeddings=False)),
    "gemma3-small": ("gemma3_text", dict(vocab_size=262144, hidden_size=1152, intermediate_size=6912,
        num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
        sliding_window=512, max_position_embeddings=32768)),
    "qwen3moe-small": ("qwen3_moe", dict(vocab_size=151936, hidden_size=1024, intermediate_size=3072,
        moe_intermediate_size=512, num_experts=16, num_experts_per_tok=4, num_hidden_layers=6,
        num_attention_heads=16, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False,
        max_position_embeddings=40960)),
}

# (id, model, precision, attn, grad_ckpt, optimizer, batch, seq, lora)
TRAIN = [
    ("g01", "qwen3-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g02", "olmo2-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g03", "starcoder2-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g04", "phi3-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g05", "neox-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g06", "gemma3-small", "bf16", "eager", False, "adamw", 2, 1024, None),
    ("g07", "qwen3moe-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g08", "qwen3-small", "amp_fp16", "sdpa", True, "sgd", 8, 1024, None),
    ("g09", "olmo2-small", "amp_bf16", "sdpa", False, "adamw_foreach_off", 2, 2048,
     {"r": 16, "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}),
    ("g10", "starcoder2-small", "bf16", "sdpa", True, "adamw", 8, 2048, None),
]
INFER = [
    ("h01", "qwen3-small", "bf16", "sdpa", 16, 2048, 16),
    ("h02", "gemma3-small", "bf16", "sdpa", 8, 2048, 16),
    ("h03", "starcoder2-small", "fp16", "sdpa", 16, 1024, 16),
]

# Second batch (MEASURE_BATCH=2): more families and the optimizer/precision
# settings of measure.py on models already covered.
CONFIGS.update({
    "gemma2-small": ("gemma2", dict(vocab_size=256000, hidden_size=1152, intermediate_size=4608,
        num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=2, head_dim=256,
        sliding_window=512, max_position_embeddings=8192)),
    "falcon-small": ("falcon", dict(vocab_size=65024, hidden_size=1024, num_hidden_layers=8,
        num_attention_heads=16, new_decoder_architecture=False, multi_query=True, parallel_attn=True,
        bias=False, alibi=False)),
    "gptj-small": ("gptj", dict(vocab_size=50400, n_embd=1024, n_layer=8, n_head=16, rotary_dim=32,
        n_positions=2048, tie_word_embeddings=False)),
    "opt-small": ("opt", dict(vocab_size=50272, hidden_size=1024, ffn_dim=4096, num_hidden_layers=8,
        num_attention_heads=16, word_embed_proj_dim=1024, max_position_embeddings=2048)),
    "dsv2-small": ("deepseek_v2", dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816,
        moe_intermediate_size=512, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=8,
        n_routed_experts=8, n_shared_experts=1, num_experts_per_tok=2, first_k_dense_replace=1,
        q_lora_rank=None, kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=32, v_head_dim=64,
        max_position_embeddings=4096, topk_method="greedy", n_group=1, topk_group=1)),
    "gptoss-small": ("gpt_oss", dict(vocab_size=32000, hidden_size=1024, intermediate_size=1024,
        num_hidden_layers=4, num_attention_heads=16, num_key_value_heads=4, head_dim=64,
        num_local_experts=8, num_experts_per_tok=2, sliding_window=128, max_position_embeddings=4096)),
    "qwen2moe-small": ("qwen2_moe", dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816,
        moe_intermediate_size=512, shared_expert_intermediate_size=1024, num_experts=8,
        num_experts_per_tok=2, num_hidden_layers=6, num_attention_heads=16, num_key_value_heads=16,
        max_position_embeddings=4096)),
    "llama-small": ("llama", dict(vocab_size=32000, hidden_size=1536, intermediate_size=4096,
        num_hidden_layers=8, num_attention_heads=12, num_key_value_heads=4,
        max_position_embeddings=4096, tie_word_embeddings=False)),
})
TRAIN2 = [
    ("g11", "gemma2-small", "amp_bf16", "eager", False, "adamw", 2, 1024, None),
    ("g12", "falcon-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g14", "opt-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g15", "dsv2-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g16", "gptoss-small", "bf16", "eager", False, "adamw", 2, 1024, None),
    ("g17", "qwen2moe-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g18", "llama-small", "amp_bf16", "sdpa", False, "adamw_foreach_off", 4, 1024, None),
    ("g19", "llama-small", "bf16", "sdpa", False, "adafactor", 4, 1024, None),
    ("g20", "llama-small", "fp16", "sdpa", True, "sgd_momentum", 8, 1024, None),
    ("g21", "llama-small", "amp_bf16", "eager", True, "adamw", 2, 2048, None),
    ("g22", "llama-small", "bf16", "sdpa", True, "adamw", 4, 2048,
     {"r": 32, "targets": ["q_proj", "v_proj", "gate_proj", "down_proj"]}),
    ("g23", "gemma2-small", "bf16", "sdpa", True, "adamw_fused", 4, 1024, None),
]
INFER2 = [
    ("h11", "gemma2-small", "bf16", "eager", 8, 1024, 16),
    ("h12", "falcon-small", "bf16", "sdpa", 16, 1024, 16),
    ("h13", "dsv2-small", "bf16", "sdpa", 8, 1024, 16),
    ("h14", "gptoss-small", "bf16", "eager", 8, 512, 16),
    ("h15", "qwen2moe-small", "bf16", "sdpa", 16, 1024, 16),
    ("h16", "llama-small", "fp16", "eager", 4, 2048, 16),
]
# Third batch (MEASURE_BATCH=3): the remaining families of the issue list.
CONFIGS.update({
    "olmo-small": ("olmo", dict(vocab_size=50304, hidden_size=1024, intermediate_size=4096,
        num_hidden_layers=8, num_attention_heads=16, max_position_embeddings=2048)),
    "olmoe-small": ("olmoe", dict(vocab_size=50304, hidden_size=1024, intermediate_size=512,
        num_experts=16, num_experts_per_tok=4, num_hidden_layers=6, num_attention_heads=16,
        max_position_embeddings=4096)),
    "dsv3-small": ("deepseek_v3", dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816,
        moe_intermediate_size=512, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=8,
        n_routed_experts=16, n_shared_experts=1, num_experts_per_tok=4, first_k_dense_replace=1,
        q_lora_rank=384, kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=32, v_head_dim=64,
        n_group=4, topk_group=2, max_position_embeddings=4096)),
    "mistral-small": ("mistral", dict(vocab_size=32000, hidden_size=1024, intermediate_size=3584,
        num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=4, sliding_window=512,
        max_position_embeddings=8192)),
})
TRAIN3 = [
    ("g31", "gptj-small", "amp_bf16", "eager", False, "adamw", 2, 1024, None),
    ("g32", "olmo-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g33", "olmoe-small", "amp_bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g34", "dsv3-small", "bf16", "sdpa", False, "adamw", 4, 1024, None),
    ("g35", "mistral-small", "amp_bf16", "sdpa", False, "adamw", 2, 2048, None),
    ("g36", "qwen2moe-small", "bf16", "sdpa", True, "adamw", 8, 1024, None),
    ("g37", "phi3-small", "amp_bf16", "eager", False, "sgd_momentum", 2, 1024, None),
    ("g38", "gemma3-small", "amp_bf16", "sdpa", True, "adafactor", 4, 2048, None),
    ("g39", "qwen3-small", "bf16", "sdpa", False, "adamw", 4, 1024,
     {"r": 8, "targets": ["q_proj", "k_proj", "v_proj", "o_proj"]}),
    ("g40", "starcoder2-small", "fp32", "sdpa", False, "adamw_fused", 4, 512, None),
]
INFER3 = [
    ("h31", "gptj-small", "fp16", "eager", 8, 1024, 16),
    ("h32", "olmo-small", "bf16", "sdpa", 16, 1024, 16),
    ("h33", "olmoe-small", "bf16", "sdpa", 16, 1024, 16),
    ("h34", "dsv3-small", "bf16", "sdpa", 8, 1024, 16),
    ("h35", "mistral-small", "bf16", "sdpa", 8, 2048, 16),
    ("h36", "phi3-small", "bf16", "sdpa", 16, 2048, 16),
]
if os.environ.get("MEASURE_BATCH") == "2":
    TRAIN, INFER = TRAIN2, INFER2
if os.environ.get("MEASURE_BATCH") == "3":
    TRAIN, INFER = TRAIN3, INFER3
if os.environ.get("MEASURE_BATCH") == "all":
    TRAIN, INFER = TRAIN + TRAIN2 + TRAIN3, INFER + INFER2 + INFER3


def alloc():
    return torch.cuda.memory_allocated()


def clean():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def build(name, dtype, attn):
    mtype, kw = CONFIGS[name]
    cfg = AutoConfig.for_model(mtype, **kw)
    with open(os.path.join(OUT, "configs", name + ".json"), "w") as f:
        f.write(cfg.to_json_string())
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attn)
    return m, cfg


def n_params(m, trainable=False):
    return sum(p.numel() for p in m.parameters() if (p.requires_grad or not trainable))


def scenario_train(rid, name, prec, attn, gc_on, optname, B, S, lora):
    pd = "fp32" if prec.startswith("amp_") else prec
    cd = {"amp_bf16": "bf16", "amp_fp16": "fp16"}.get(prec, prec)
    sc = {"id": rid, "model": {"hf_config": "configs/%s.json" % name}, "mode": "training",
          "training": {"micro_batch_size": B, "seq_len": S, "param_dtype": pd, "compute_dtype": cd,
                       "optimizer": optname, "attention": attn,
                       "activation_checkpointing": "full" if gc_on else "none"},
          "engine": {"type": "single"}, "hardware": {"gpu": "H200", "gpu_memory_gib": 139.8}}
    if lora:
        sc["lora"] = {"rank": lora["r"], "alpha": 2 * lora["r"], "target_modules": lora["targets"]}
    return sc


def run_train(rid, name, prec, attn, gc_on, optname, B, S, lora):
    sc = scenario_train(rid, name, prec, attn, gc_on, optname, B, S, lora)
    base = alloc()
    m, cfg = build(name, DT[prec], attn)
    m.config.use_cache = False
    meas = {"params": n_params(m)}
    meas["weights_bytes"] = alloc() - base
    if lora:
        from peft import LoraConfig, get_peft_model
        m = get_peft_model(m, LoraConfig(r=lora["r"], lora_alpha=2 * lora["r"], lora_dropout=0.0,
                                         target_modules=lora["targets"], bias="none", task_type="CAUSAL_LM"))
    if gc_on:
        m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    m.train()
    meas["trainable_params"] = n_params(m, trainable=True)
    params = [p for p in m.parameters() if p.requires_grad]
    if optname == "adamw":
        opt = torch.optim.AdamW(params, lr=1e-5)
    elif optname == "adamw_foreach_off":
        opt = torch.optim.AdamW(params, lr=1e-5, foreach=False)
    elif optname == "sgd":
        opt = torch.optim.SGD(params, lr=1e-5)
    elif optname == "sgd_momentum":
        opt = torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    elif optname == "adamw_fused":
        opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
    elif optname == "adafactor":
        from transformers.optimization import Adafactor
        opt = Adafactor(params, scale_parameter=True, relative_step=True, warmup_init=False, lr=None)
    else:
        raise ValueError(optname)
    ids = torch.randint(0, cfg.vocab_size, (B, S), device=dev)
    peak = 0
    phase = None
    for step in range(3):
        start = alloc() - base
        torch.cuda.reset_peak_memory_stats()
        if prec.startswith("amp_"):
            with torch.autocast("cuda", dtype=torch.bfloat16 if prec == "amp_bf16" else torch.float16):
                out = m(input_ids=ids, labels=ids)
        else:
            out = m(input_ids=ids, labels=ids)
        loss = out.loss
        del out
        fwd_alloc = alloc() - base
        fwd_peak = torch.cuda.max_memory_allocated() - base
        loss.backward()
        del loss
        bwd_peak = torch.cuda.max_memory_allocated() - base
        opt.step()
        step_peak = torch.cuda.max_memory_allocated() - base
        opt.zero_grad(set_to_none=True)
        if step == 2:
            meas["persistent_bytes"] = start
            meas["forward_saved_bytes"] = fwd_alloc - start
            phase = "forward" if fwd_peak == step_peak else ("backward" if bwd_peak == step_peak else "optimizer")
        peak = max(peak, step_peak)
    # As the dev set: the peak above this scenario's starting allocation plus the
    # 32 MiB cuBLAS workspace allocated before the first model (shared/groundtruth/README.md),
    # so workspaces left by earlier scenarios in the process do not count.
    meas["peak_allocated_bytes"] = peak + WORKSPACE
    meas["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    meas["peak_phase"] = phase
    meas["oom"] = False
    del m, opt, params, ids
    sc["measured"] = meas
    return sc


@torch.inference_mode()
def run_infer(rid, name, dtype, attn, B, S, N):
    sc = {"id": rid, "model": {"hf_config": "configs/%s.json" % name}, "mode": "inference",
          "inference": {"batch_size": B, "prompt_len": S, "decode_len": N, "weights_dtype": dtype,
                        "kv_cache_dtype": dtype, "attention": attn},
          "engine": {"type": "single"}, "hardware": {"gpu": "H200", "gpu_memory_gib": 139.8}}
    base = alloc()
    m, cfg = build(name, DT[dtype], attn)
    m.eval()
    meas = {"params": n_params(m), "weights_bytes": alloc() - base}
    ids = torch.randint(0, cfg.vocab_size, (B, S), device=dev)
    torch.cuda.reset_peak_memory_stats()
    out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
    meas["prefill_peak_bytes"] = torch.cuda.max_memory_allocated() - base + WORKSPACE
    past = out.past_key_values
    nxt = out.logits[:, -1:].argmax(-1)
    del out
    for _ in range(N):
        out = m(input_ids=nxt, past_key_values=past, use_cache=True)
        past = out.past_key_values
        nxt = out.logits[:, -1:].argmax(-1)
        del out
    torch.cuda.synchronize()
    meas["kv_cache_bytes_after_decode"] = alloc() - base - meas["weights_bytes"]
    meas["peak_allocated_bytes"] = torch.cuda.max_memory_allocated() - base + WORKSPACE
    meas["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    meas["oom"] = False
    del m, past, nxt, ids
    sc["measured"] = meas
    return sc


def main():
    print(json.dumps({"torch": torch.__version__, "transformers": transformers.__version__,
                      "gpu": torch.cuda.get_device_name(0)}), flush=True)
    a = torch.randn(1024, 1024, device=dev)
    b = a @ a
    torch.cuda.synchronize()
    del a, b
    clean()
    print("baseline", alloc(), flush=True)
    jobs = [(t[0], run_train, t[1:]) for t in TRAIN] + [(t[0], run_infer, t[1:]) for t in INFER]
    order = sorted(jobs, key=lambda j: j[0][1:] + j[0][0])
    for rid, fn, args in order:
        if time.time() - T0 > DEADLINE:
            print("deadline: stop before", rid, flush=True)
            break
        t = time.time()
        try:
            clean()
            rec = fn(rid, *args)
        except torch.cuda.OutOfMemoryError as e:
            rec = {"id": rid, "error": "oom " + str(e)[:200]}
        except Exception as e:
            rec = {"id": rid, "error": repr(e)[:300], "tb": traceback.format_exc()[-1200:]}
        clean()
        with open(os.path.join(OUT, "measured.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(rid, round(time.time() - t, 1), "s", rec.get("error", "")[:200],
              (rec.get("measured") or {}).get("peak_allocated_bytes"), flush=True)
    print("total", round(time.time() - T0, 1), flush=True)


if __name__ == "__main__":
    main()
