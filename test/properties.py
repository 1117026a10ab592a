"""Random scenarios through the C API, Python and the CLI at once (test/test_properties.sh).

usage: properties.py [--cli examples/llmmem] [-n N] [--seed S] [-v] [--web-out FILE [--c-only]]

--web-out FILE: each scenario and the C API's answer (status, JSON text or error) as a JSON
line, for the web page's path (test/web/properties.js runs them through examples/web's
llmmem-api.js over the WebAssembly library and wants the same bytes).
"""
import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
from collections import defaultdict

import llmmem

ap = argparse.ArgumentParser()
ap.add_argument("--cli", default="examples/llmmem")
ap.add_argument("-n", type=int, default=int(os.environ.get("LLMMEM_PROPERTY_N", "10000")))
ap.add_argument("--seed", type=int, default=int(os.environ.get("LLMMEM_PROPERTY_SEED", "25")))
ap.add_argument("-v", action="store_true")
ap.add_argument("--web-out", default=None)
ap.add_argument("--c-only", action="store_true", help="with --web-out: only the C API's answers, no comparison")
a = ap.parse_args()

# ---- the C API through ctypes alone (no code of the binding) ----------------------------
so = ctypes.CDLL(os.environ.get("LLMMEM_LIBRARY", "lib/libllmmem.so"))
vp = ctypes.c_void_p
so.llmmem_model_from_preset.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
so.llmmem_model_free.argtypes = [vp]
so.llmmem_config_new.argtypes = [ctypes.POINTER(vp)]
so.llmmem_config_free.argtypes = [vp]
so.llmmem_config_set.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p]
so.llmmem_result_new.argtypes = [ctypes.POINTER(vp)]
so.llmmem_result_free.argtypes = [vp]
so.llmmem_estimate.argtypes = [vp, vp, vp]
so.llmmem_result_to_json.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), vp]
so.llmmem_last_error.restype = ctypes.c_char_p
so.llmmem_status_name.restype = ctypes.c_char_p
so.llmmem_status_name.argtypes = [ctypes.c_int]

MODELS = {}


def c_model(name):
    if name not in MODELS:
        h = vp()
        assert so.llmmem_model_from_preset(ctypes.byref(h), name.encode()) == 0
        MODELS[name] = h
    return MODELS[name]


def c_path(preset, settings):
    """(status name, JSON text or error text) through the C API."""
    c = vp()
    r = vp()
    assert so.llmmem_config_new(ctypes.byref(c)) == 0
    try:
        for k, v in settings:
            rc = so.llmmem_config_set(c, k.encode(), v.encode())
            if rc:
                return so.llmmem_status_name(rc).decode(), so.llmmem_last_error().decode()
        assert so.llmmem_result_new(ctypes.byref(r)) == 0
        rc = so.llmmem_estimate(r, c_model(preset), c)
        if rc:
            return so.llmmem_status_name(rc).decode(), so.llmmem_last_error().decode()
        need = ctypes.c_size_t()
        so.llmmem_result_to_json(None, 0, ctypes.byref(need), r)
        buf = ctypes.create_string_buffer(need.value)
        assert so.llmmem_result_to_json(buf, need.value, ctypes.byref(need), r) == 0
        return "OK", buf.value.decode()
    finally:
        so.llmmem_config_free(c)
        if r:
            so.llmmem_result_free(r)


def py_path(preset, settings):
    try:
        cfg = llmmem.Config()
        for k, v in settings:
            cfg[k] = v
        return "OK", llmmem.estimate(preset, cfg).to_json()
    except llmmem.Error as e:
        return e.status_name, e.message


def cli_path(preset, settings):
    args = [a.cli, "estimate", "--preset", preset, "--json"]
    for k, v in settings:
        args += ["--" + k.replace("_", "-"), v]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode == 0:
        return "OK", p.stdout.rstrip("\n")
    err = p.stderr.strip()
    status = err.split(":")[1].strip() if err.startswith("llmmem: ") else "?"
    return status, err


# ---- random scenarios ------------------------------------------------------------------
PRESETS = ["llama-3.2-1b", "qwen2.5-0.5b", "gpt2-medium", "phi-2", "gemma-2b", "mistral-7b-v0.1", "llama-3.1-8b",
           "qwen3-8b", "mixtral-8x7b", "llama-2-13b"]
R = random.Random(a.seed)


def pick(*xs):
    return lambda: str(R.choice(xs))


TRAIN = [
    ("micro_batch_size", pick(1, 2, 3, 4, 8, 16)),
    ("seq_len", pick(128, 512, 1000, 1024, "2k", "4k", 4096, 8192)),
    ("gradient_accumulation_steps", pick(1, 2, 8)),
    ("optimizer", pick("adamw", "adam", "sgd", "adafactor", "lion", "adamw_8bit", "adagrad")),
    ("optimizer_impl", pick("foreach", "fused", "forloop")),
    ("activation_checkpointing", pick("none", "full", "selective")),
    ("attention", pick("sdpa", "flash", "eager")),
    ("param_dtype", pick("bf16", "fp32", "fp16")),
    ("compute_dtype", pick("auto", "bf16", "fp32")),
    ("lora_rank", pick(0, 8, 16, 64)),
    ("lora_targets", pick("q_proj,v_proj", "all-linear")),
    ("loss", pick("hf", "chunked", "liger")),
    ("liger_kernels", pick("true", "false")),
    ("step", pick("max", "first", "steady")),
]
ENGINE = [
    ("engine", pick("single", "ddp", "zero", "fsdp", "megatron")),
    ("zero_stage", pick(0, 1, 2, 3)),
    ("num_gpus", pick(1, 2, 4, 8)),
    ("tensor_parallel_size", pick(1, 2, 4)),
    ("offload_optimizer", pick("none", "cpu")),
    ("sharding_strategy", pick("full_shard", "shard_grad_op", "no_shard")),
    ("bucket_cap_mb", pick(25, 50, 100)),
    ("distributed_optimizer", pick("true", "false")),
]
INFER = [
    ("batch_size", pick(1, 2, 4, 16, 64)),
    ("prompt_len", pick(128, 512, "1k", 2048, "4k")),
    ("decode_len", pick(0, 16, 128, 512)),
    ("kv_cache_dtype", pick("auto", "bf16", "fp8")),
    ("weights_format", pick("auto", "bf16", "int8", "int4", "nf4")),
    ("tensor_parallel_size", pick(1, 2)),
]
VLLM = [
    ("gpu_memory_utilization", pick(0.5, 0.8, 0.9, 0.95)),
    ("max_model_len", pick(1024, 2048, "4k")),
    ("max_num_seqs", pick(1, 16, 128, 256)),
    ("max_num_batched_tokens", pick(2048, 8192, "16k")),
    ("enforce_eager", pick("true", "false")),
    ("kv_block_size", pick(16, 32)),
    ("tensor_parallel_size", pick(1, 2)),
]
HW = [
    ("gpu", pick("H100-80GB", "A100-40GB", "A100-80GB", "L4", "H200", "A10G")),
    ("allocator_replay", pick("true", "false")),
    ("expandable_segments", pick("true", "false")),
]


def scenario():
    preset = R.choice(PRESETS)
    mode = R.choice(["training", "training", "inference", "vllm"])
    pool = HW[:]
    head = []
    if mode == "training":
        pool += TRAIN + ENGINE
    elif mode == "inference":
        head = [("mode", "inference")]
        pool += INFER
    else:
        head = [("mode", "inference"), ("runtime", "vllm")]
        pool += VLLM
    # now and then a setting of another mode: it must be refused, not dropped
    if R.random() < 0.15:
        pool += R.sample(TRAIN + INFER + VLLM, 2)
    k = R.randint(1, 5)
    chosen = {}
    for name, gen in R.sample(pool, min(k, len(pool))):
        chosen[name] = gen()
    return preset, head + list(chosen.items())


def scalars(text):
    d = json.loads(text)
    return d


defaults = {p["name"]: p["default"] for p in llmmem.params()}


def at_default(name, value):
    """A value the same as the parameter's default (num_gpus 1 is the one GPU of 0)."""
    d = defaults.get(name)
    if name == "num_gpus" and value in ("0", "1"):
        return True
    try:
        return float(value) == float(d)
    except (TypeError, ValueError):
        return str(d).lower() == value.lower()
changed = defaultdict(int)     # parameter -> scenarios where leaving it out changed the estimate
unchanged = defaultdict(int)   # ... where it changed nothing and was not listed
listed = defaultdict(int)      # ... listed as not applying
fails = 0
counts = defaultdict(int)


def fail(msg):
    global fails
    fails += 1
    if fails <= 30:
        print("FAIL", msg)


web_out = open(a.web_out, "w") if a.web_out else None
for i in range(a.n):
    preset, settings = scenario()
    c = c_path(preset, settings)
    if web_out:
        web_out.write(json.dumps({"preset": preset, "settings": settings, "status": c[0], "text": c[1]}) + "\n")
        if a.c_only:
            counts[c[0]] += 1
            continue
    p = py_path(preset, settings)
    x = cli_path(preset, settings)
    counts[c[0]] += 1
    tag = "scenario %d: %s %s" % (i, preset, " ".join("%s=%s" % kv for kv in settings))
    if c[0] != p[0] or c[0] != x[0]:
        fail("%s: C %s / Python %s / CLI %s: %s | %s | %s" % (tag, c[0], p[0], x[0], c[1][:160], p[1][:160], x[1][:160]))
        continue
    if c[0] != "OK":
        continue
    if not (c[1] == p[1] == x[1]):
        fail("%s: the JSON differs between the C API, Python and the CLI" % tag)
        continue
    d = json.loads(c[1])
    total, cap = d["total_bytes_per_gpu"], d["gpu_memory_bytes"]
    if d["fits"] != (total <= cap) or d["headroom_bytes"] != cap - total:
        fail("%s: fits %s, headroom %d, total %d, capacity %d" % (tag, d["fits"], d["headroom_bytes"], total, cap))
    reserved = d["peak_reserved_bytes"]
    if d.get("margin_bytes", 0) != (reserved + 19) // 20:
        fail("%s: margin_bytes %s for %d reserved" % (tag, d.get("margin_bytes"), reserved))
    # one setting left out: its effect, or its listing as not applying
    cands = [(j, kv) for j, kv in enumerate(settings) if kv[0] not in ("mode", "runtime")
             and not at_default(kv[0], kv[1])]
    if not cands:
        continue
    j, (name, value) = R.choice(cands)
    if any(n.startswith("not applying: %s " % name) for n in d["notes"]):
        listed[name] += 1
        continue
    rest = settings[:j] + settings[j + 1:]
    w = c_path(preset, rest)
    if w[0] != "OK":
        changed[name] += 1  # the others alone are refused: this one made them apply
        continue
    e = json.loads(w[1])
    d.pop("notes")
    e.pop("notes")
    if d != e:
        changed[name] += 1
    else:
        unchanged[name] += 1
        if a.v:
            print("  unchanged without %s=%s: %s" % (name, value, tag))

if web_out:
    web_out.close()
dropped = sorted(n for n in unchanged if not changed[n] and not listed[n])
for n in dropped:
    fail("%s: set away from its default and accepted in %d scenarios, it changed no estimate and was never "
         "listed as not applying (a setting dropped quietly)" % (n, unchanged[n]))
print("properties: %d scenarios (%s) through %s; %d failing" % (
    a.n, ", ".join("%s %d" % kv for kv in sorted(counts.items())),
    "the C API alone (--c-only)" if a.c_only else "the C API, Python and the CLI", fails))
if a.v:
    for n in sorted(set(changed) | set(unchanged) | set(listed)):
        print("  %-32s changed %5d  unchanged %5d  listed %4d" % (n, changed[n], unchanged[n], listed[n]))
sys.exit(1 if fails else 0)
