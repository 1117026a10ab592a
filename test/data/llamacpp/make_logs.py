#!/usr/bin/env python3
"""Reference data for the llama.cpp runtime: what llama.cpp itself allocates.

Writes small GGUF files with the `gguf` package (real architectures, random-free zero
weights, several ggml types per file), loads each on llama.cpp's CPU backend through
llama-cpp-python's bindings at several context settings, and records the buffer sizes
llama.cpp prints:

  load_tensors:   CPU_Mapped model buffer size =  X MiB        (per buffer type)
  llama_kv_cache: size = X MiB (N cells, L layers, S/S seqs), K (f16): X MiB, V (f16): X MiB
  llama_context:  CPU  output buffer size = X MiB
  sched_reserve:  CPU compute buffer size = X MiB
  ~llama_context: CPU compute buffer size is X MiB, matches expectation of X MiB   (debug, 4 decimals)

and llama_model_size() (the tensors' bytes, exact). Output, in this folder:
  logs.jsonl         one record per (model, setting): the settings and the sizes printed
  headers/<m>.gguf   the first bytes of each file, up to the end of its header (the tensor
                     data is not kept; the record has the file's whole size), so that
                     `make check` reads the same header without Python or the weights
  versions.txt       gguf, llama-cpp-python, numpy, Python

Run (dev time only; make check never runs this):
  /work/venvs/gguf/bin/python test/data/llamacpp/make_logs.py [--out DIR] [--only NAME]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the models -------------------------------------------------------------------------

E, FF, V, L, H, KV = 512, 1536, 2048, 4, 8, 2  # head dim 64


def arch_spec(arch):
    """(gguf arch, metadata, [(name, shape as ggml ne)]) for one architecture."""
    hd = E // H
    kvd = hd * KV
    meta = {"context_length": 8192, "embedding_length": E, "block_count": L,
            "feed_forward_length": FF, "attention.head_count": H,
            "attention.head_count_kv": KV, "attention.layer_norm_rms_epsilon": 1e-6,
            "rope.freq_base": 10000.0}
    t = [("token_embd.weight", (E, V))]
    layers = L
    gguf_arch = arch
    experts = 0
    if arch == "mixtral":
        gguf_arch = "llama"
        experts = 4
        meta.update({"expert_count": experts, "expert_used_count": 2})
    if arch == "qwen3moe":
        experts = 8
        meta.update({"expert_count": experts, "expert_used_count": 2,
                     "expert_feed_forward_length": 512})
    if arch == "gemma3":
        layers = 6
        meta.update({"block_count": layers, "attention.sliding_window": 256,
                     "attention.key_length": hd, "attention.value_length": hd})
    if arch == "gemma2":
        meta.update({"attention.sliding_window": 256, "attention.key_length": hd,
                     "attention.value_length": hd})
    if arch == "mamba":
        meta = {"context_length": 8192, "embedding_length": E, "block_count": L,
                "feed_forward_length": 0, "attention.head_count": 0,
                "attention.layer_norm_rms_epsilon": 1e-5, "ssm.conv_kernel": 4,
                "ssm.inner_size": 2 * E, "ssm.state_size": 16, "ssm.time_step_rank": 32}
        for i in range(L):
            b = f"blk.{i}."
            t += [(b + "attn_norm.weight", (E,)), (b + "ssm_in.weight", (E, 4 * E)),
                  (b + "ssm_conv1d.weight", (4, 2 * E)), (b + "ssm_conv1d.bias", (2 * E,)),
                  (b + "ssm_x.weight", (2 * E, 32 + 2 * 16)), (b + "ssm_dt.weight", (32, 2 * E)),
                  (b + "ssm_dt.bias", (2 * E,)), (b + "ssm_a", (16, 2 * E)), (b + "ssm_d", (2 * E,)),
                  (b + "ssm_out.weight", (2 * E, E))]
        t += [("output_norm.weight", (E,)), ("output.weight", (E, V))]
        return gguf_arch, meta, t
    for i in range(layers):
        b = f"blk.{i}."
        t.append((b + "attn_norm.weight", (E,)))
        if arch == "phi3":
            t.append((b + "attn_qkv.weight", (E, E + 2 * kvd)))
        else:
            t += [(b + "attn_q.weight", (E, E)), (b + "attn_k.weight", (E, kvd)),
                  (b + "attn_v.weight", (E, kvd))]
        if arch == "qwen2":
            t += [(b + "attn_q.bias", (E,)), (b + "attn_k.bias", (kvd,)), (b + "attn_v.bias", (kvd,))]
        if arch in ("qwen3", "qwen3moe", "gemma3"):
            t += [(b + "attn_q_norm.weight", (hd,)), (b + "attn_k_norm.weight", (hd,))]
        t.append((b + "attn_output.weight", (E, E)))
        if arch in ("gemma2", "gemma3"):
            t.append((b + "post_attention_norm.weight", (E,)))
        t.append((b + "ffn_norm.weight", (E,)))
        if experts:
            fe = meta.get("expert_feed_forward_length", FF)
            t += [(b + "ffn_gate_inp.weight", (E, experts)),
                  (b + "ffn_gate_exps.weight", (E, fe, experts)),
                  (b + "ffn_up_exps.weight", (E, fe, experts)),
                  (b + "ffn_down_exps.weight", (fe, E, experts))]
        elif arch == "phi3":
            t += [(b + "ffn_up.weight", (E, 2 * FF)), (b + "ffn_down.weight", (FF, E))]
        else:
            t += [(b + "ffn_gate.weight", (E, FF)), (b + "ffn_up.weight", (E, FF)),
                  (b + "ffn_down.weight", (FF, E))]
        if arch in ("gemma2", "gemma3"):
            t.append((b + "post_ffw_norm.weight", (E,)))
    t.append(("output_norm.weight", (E,)))
    if arch not in ("gemma2", "gemma3"):  # gemma ties the head to token_embd
        t.append(("output.weight", (E, V)))
    return gguf_arch, meta, t


# the ggml type of each 2-D weight by quantisation; vectors and small tensors stay F32
def type_for(quant, name, ne, gguf):
    Q = gguf.GGMLQuantizationType
    if len(ne) == 1 or name.endswith(".bias") or "ssm_a" in name or "ssm_d" in name or \
            "ssm_conv1d" in name or "ffn_gate_inp" in name:
        return Q.F32
    if ne[0] % 256 != 0 and quant not in ("f16", "q8_0", "q4_0"):
        return Q.F16 if ne[0] % 32 else Q.Q8_0
    if ne[0] % 32 != 0:
        return Q.F16
    if quant == "f16":
        return Q.F16
    if quant == "q8_0":
        return Q.Q8_0
    if quant == "q4_0":
        return Q.Q4_0
    if quant == "q4_k_m":  # llama-quant.cpp: Q6_K for output, attn_v and ffn_down, else Q4_K
        if name == "output.weight" or "attn_v" in name or "ffn_down" in name:
            return Q.Q6_K
        return Q.Q4_K
    if quant == "iq4_xs":
        return Q.Q6_K if name == "output.weight" else Q.IQ4_XS
    if quant == "mxfp4":
        return Q.Q8_0 if name in ("token_embd.weight", "output.weight") else Q.MXFP4
    raise ValueError(quant)


FTYPE = {"f16": 1, "q8_0": 7, "q4_0": 2, "q4_k_m": 15, "iq4_xs": 30, "mxfp4": 38}


def write_gguf(path, arch, quant):
    import gguf
    import numpy as np
    gguf_arch, meta, tensors = arch_spec(arch)
    w = gguf.GGUFWriter(path, gguf_arch)
    w.add_name(f"{arch}-{quant}-test")
    w.add_file_type(FTYPE[quant])
    for k, v in meta.items():
        key = f"{gguf_arch}.{k}"
        if isinstance(v, float):
            w.add_float32(key, v)
        else:
            w.add_uint32(key, v)
    w.add_tokenizer_model("llama")  # SentencePiece: tokens, scores and types
    # phi3's vocabulary looks up "<|endoftext|>" and the byte tokens (llama-vocab.cpp)
    special = ["<unk>", "<s>", "</s>", "<|endoftext|>", "<|end|>"]
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    toks = special + byte_tokens
    toks += [f"t{i}" for i in range(V - len(toks))]
    w.add_token_list(toks)
    w.add_token_scores([0.0] * V)
    w.add_token_types([2, 3, 3, 3, 3] + [6] * 256 + [1] * (V - len(special) - 256))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    for name, ne in tensors:
        qt = type_for(quant, name, ne, gguf)
        shape = tuple(reversed(ne))  # numpy order
        if qt == gguf.GGMLQuantizationType.F32:
            arr = np.zeros(shape, dtype=np.float32)
            if "norm" in name:
                arr += 1
            w.add_tensor(name, arr)
        elif qt == gguf.GGMLQuantizationType.F16:
            w.add_tensor(name, np.zeros(shape, dtype=np.float16))
        else:
            blk, size = gguf.GGML_QUANT_SIZES[qt]
            byte_shape = shape[:-1] + (shape[-1] // blk * size,)
            w.add_tensor(name, np.zeros(byte_shape, dtype=np.uint8), raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ---- the settings --------------------------------------------------------------------------

# n_ctx, n_batch, n_ubatch, flash attention (-1 auto, 0 off, 1 on), type_k, type_v, n_seq_max,
# kv_unified, swa_full
SETTINGS = [
    {"n_ctx": 512, "n_batch": 512, "n_ubatch": 512, "flash_attn": 1, "type_k": "f16", "type_v": "f16"},
    {"n_ctx": 4096, "n_batch": 2048, "n_ubatch": 512, "flash_attn": 0, "type_k": "f16", "type_v": "f16"},
    {"n_ctx": 8192, "n_batch": 1024, "n_ubatch": 256, "flash_attn": 1, "type_k": "q8_0", "type_v": "q8_0"},
    {"n_ctx": 2048, "n_batch": 2048, "n_ubatch": 1024, "flash_attn": 0, "type_k": "q8_0", "type_v": "f16"},
    {"n_ctx": 4096, "n_batch": 512, "n_ubatch": 512, "flash_attn": 1, "type_k": "q4_0", "type_v": "q4_0",
     "n_seq_max": 4},
    {"n_ctx": 3000, "n_batch": 512, "n_ubatch": 128, "flash_attn": -1, "type_k": "f16", "type_v": "f16",
     "n_seq_max": 2, "kv_unified": True},
]

ARCHES = ["llama", "qwen2", "qwen3", "qwen3moe", "mixtral", "gemma2", "gemma3", "phi3", "mamba"]
QUANTS = ["f16", "q8_0", "q4_0", "q4_k_m", "iq4_xs", "mxfp4"]


# ---- one load, in a child process (llama.cpp's log goes to its stderr) --------------------

def child(path, setting):
    import ctypes
    import llama_cpp as L_
    from llama_cpp import _logger
    _logger.set_verbose(True)
    L_.llama_backend_init()
    mp = L_.llama_model_default_params()
    mp.n_gpu_layers = 0
    model = L_.llama_model_load_from_file(path.encode(), mp)
    if not model:
        print("LOADFAIL", file=sys.stderr)
        sys.exit(3)
    cp = L_.llama_context_default_params()
    cp.n_ctx = setting["n_ctx"]
    cp.n_batch = setting["n_batch"]
    cp.n_ubatch = setting["n_ubatch"]
    cp.n_seq_max = setting.get("n_seq_max", 1)
    cp.n_threads = 1
    cp.n_threads_batch = 1
    cp.flash_attn_type = setting["flash_attn"]
    types = {"f16": 1, "q8_0": 8, "q4_0": 2, "f32": 0, "q5_0": 6, "q4_1": 3, "q5_1": 7, "bf16": 30}
    cp.type_k = types[setting["type_k"]]
    cp.type_v = types[setting["type_v"]]
    cp.kv_unified = bool(setting.get("kv_unified", False))
    cp.swa_full = bool(setting.get("swa_full", False))
    ctx = L_.llama_init_from_model(model, cp)
    if not ctx:
        print("CTXFAIL", file=sys.stderr)
        sys.exit(4)
    print("MODEL_SIZE %d" % L_.llama_model_size(model), file=sys.stderr)
    print("N_PARAMS %d" % L_.llama_model_n_params(model), file=sys.stderr)
    sys.stderr.flush()
    L_.llama_free(ctx)
    L_.llama_model_free(model)


MIB = r"([0-9.]+) MiB"


def parse(log):
    r = {"model_buffers": {}, "compute": {}, "compute_exact": {}, "output": {}, "kv": [],
         "flash_attn": None}
    for line in log.splitlines():
        m = re.search(r"load_tensors:\s+(\S+) model buffer size =\s+" + MIB, line)
        if m:
            r["model_buffers"][m.group(1)] = float(m.group(2))
        m = re.search(r"(\S+)\s+output buffer size =\s+" + MIB, line)
        if m:
            r["output"][m.group(1)] = float(m.group(2))
        m = re.search(r"sched_reserve:\s+(\S+) compute buffer size =\s+" + MIB, line)
        if m:
            r["compute"][m.group(1)] = float(m.group(2))
        m = re.search(r"(\S+) compute buffer size is\s+([0-9.]+) MiB", line)
        if m:
            r["compute_exact"][m.group(1)] = float(m.group(2))
        m = re.search(r"llama_kv_cache: size =\s+" + MIB + r" \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+)/(\d+) seqs\), "
                      r"K \((\S+)\):\s+" + MIB + r", V \((\S+)\):\s+" + MIB, line)
        if m:
            r["kv"].append({"total": float(m.group(1)), "cells": int(m.group(2)), "layers": int(m.group(3)),
                            "seqs": int(m.group(4)), "streams": int(m.group(5)), "type_k": m.group(6),
                            "k": float(m.group(7)), "type_v": m.group(8), "v": float(m.group(9))})
        m = re.search(r"llama_memory_recurrent: size =\s+" + MIB + r" \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+) seqs\), "
                      r"R \((\S+)\):\s+" + MIB + r", S \((\S+)\):\s+" + MIB, line)
        if m:
            r["recurrent"] = {"total": float(m.group(1)), "cells": int(m.group(2)), "layers": int(m.group(3)),
                              "seqs": int(m.group(4)), "r": float(m.group(6)), "s": float(m.group(8))}
        m = re.search(r"llama_context: flash_attn\s+= (\S+)", line)
        if m:
            r["flash_attn"] = m.group(1)
        m = re.search(r"resolve_fused_ops: (Flash Attention|flash_attn) .*?(enabled|disabled)", line)
        if m:
            r["flash_attn_resolved"] = m.group(2)
        m = re.search(r"n_ctx\s+= (\d+)", line)
        if m and "llama_context" in line:
            r["n_ctx"] = int(m.group(1))
        m = re.search(r"n_ctx_seq\s+= (\d+)", line)
        if m:
            r["n_ctx_seq"] = int(m.group(1))
        m = re.search(r"llama_kv_cache_iswa: creating\s+(\S+) KV cache, size = (\d+) cells", line)
        if m:
            r.setdefault("iswa", {})[m.group(1)] = int(m.group(2))
        m = re.search(r"MODEL_SIZE (\d+)", line)
        if m:
            r["model_size"] = int(m.group(1))
        m = re.search(r"N_PARAMS (\d+)", line)
        if m:
            r["n_params"] = int(m.group(1))
    return r


def header_end(path):
    """The offset where the tensor data begins (the gguf package's reader)."""
    import gguf
    rd = gguf.GGUFReader(path)
    return int(rd.data_offset)


def versions():
    import importlib.metadata as md
    out = []
    for p in ("gguf", "llama_cpp_python", "numpy"):
        try:
            out.append(f"{p} {md.version(p)}")
        except md.PackageNotFoundError:
            out.append(f"{p} (not installed)")
    out.append("python " + sys.version.split()[0])
    out.append("llama.cpp: the tree vendored by llama-cpp-python 0.3.36 (ggml 0.25.3), CPU backend, "
               "built from the sdist with GGML_NATIVE on x86-64; this CPU has AMX, so matmul weights "
               "go to an AMX buffer and CPU_Mapped covers the rest (machine-dependent: the test "
               "compares the total, llama_model_size)")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], json.loads(sys.argv[3]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--tmp", default="/tmp/llmmem-gguf")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    os.makedirs(os.path.join(a.out, "headers"), exist_ok=True)
    recs = []
    for arch in ARCHES:
        for quant in QUANTS:
            name = f"{arch}-{quant}"
            if a.only and a.only not in name:
                continue
            path = os.path.join(a.tmp, name + ".gguf")
            write_gguf(path, arch, quant)
            size = os.path.getsize(path)
            end = header_end(path)
            with open(path, "rb") as f, open(os.path.join(a.out, "headers", name + ".gguf"), "wb") as g:
                g.write(f.read(end))
            for s in SETTINGS:
                p = subprocess.run([sys.executable, __file__, "--child", path, json.dumps(s)],
                                   capture_output=True, text=True, timeout=600)
                rec = {"model": name, "arch": arch, "quant": quant, "file_size": size,
                       "header_bytes": end, "setting": s, "rc": p.returncode}
                rec.update(parse(p.stderr))
                if p.returncode != 0:
                    rec["error"] = p.stderr[-2000:]
                recs.append(rec)
                print(name, json.dumps(s), "rc", p.returncode, rec.get("compute"), rec.get("kv"),
                      flush=True)
            os.remove(path)
    with open(os.path.join(a.out, "logs.jsonl"), "w") as f:
        for r in recs:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    with open(os.path.join(a.out, "versions.txt"), "w") as f:
        f.write(versions())


if __name__ == "__main__":
    main()
