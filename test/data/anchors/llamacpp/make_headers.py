#!/usr/bin/env python3
"""The GGUF headers of the public CUDA logs' models (test/data/anchors/llamacpp).

A log prints the model's metadata (llama_model_loader's key/value dump and print_info), the
count of tensors of each ggml type and the file's size, but not the file. This script writes,
for each anchor, the header a file of that model would have: the architecture keys the log
prints, and the tensor infos of the architecture's tensors (llama.cpp's llama-arch.cpp names,
shapes from the printed hyperparameters), each with the type llama-quantize gives it for the
file type the log prints (llama-quant.cpp llama_tensor_get_type, the rules used here written
out below). No tensor data: the header ends where the data would begin, and the file's size
is recorded beside it (headers/sizes.json), so the library reads it as the first bytes of a
file of that size, as it reads a slice of a real one.

Each header is checked against its log before it is written: the count of tensors of each
type must equal the log's "- type X: N tensors" lines, the tensors' bytes the log's file
size (print_info "file size", to the digits printed), and the model buffers' sum the tensors'
bytes. A header that does not reproduce its log is refused (exit 1).

Run (dev time only; make check never runs this; the `gguf` package, /work/venvs/gguf):
  /work/venvs/gguf/bin/python test/data/anchors/llamacpp/make_headers.py
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def use_more_bits(i, n):
    # llama-quant.cpp use_more_bits
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def tensors_of(m):
    """[(name, ne)] of an architecture, in the order convert_hf_to_gguf.py writes them."""
    E, FF, L = m["n_embd"], m["n_ff"], m["n_layer"]
    hd = m["head_dim"]
    q, kv = hd * m["n_head"], hd * m["n_head_kv"]
    V = m["n_vocab"]
    t = []
    if m.get("rope_freqs"):
        t.append(("rope_freqs.weight", (hd // 2,)))
    t.append(("token_embd.weight", (E, V)))
    for i in range(L):
        b = f"blk.{i}."
        t.append((b + "attn_norm.weight", (E,)))
        if m.get("fused_qkv"):  # phi3
            t.append((b + "attn_qkv.weight", (E, q + 2 * kv)))
        else:
            t += [(b + "attn_q.weight", (E, q)), (b + "attn_k.weight", (E, kv)), (b + "attn_v.weight", (E, kv))]
        if m.get("qkv_bias"):
            t += [(b + "attn_q.bias", (q,)), (b + "attn_k.bias", (kv,)), (b + "attn_v.bias", (kv,))]
        if m.get("qk_norm"):
            t += [(b + "attn_q_norm.weight", (hd,)), (b + "attn_k_norm.weight", (hd,))]
        t.append((b + "attn_output.weight", (q, E)))
        if m.get("post_norms"):  # gemma2, gemma3
            t.append((b + "post_attention_norm.weight", (E,)))
        t.append((b + "ffn_norm.weight", (E,)))
        if m.get("fused_gate_up"):  # phi3: gate and up in one ffn_up of 2 x n_ff rows
            t += [(b + "ffn_up.weight", (E, 2 * FF)), (b + "ffn_down.weight", (FF, E))]
        else:
            t += [(b + "ffn_gate.weight", (E, FF)), (b + "ffn_up.weight", (E, FF)), (b + "ffn_down.weight", (FF, E))]
        if m.get("post_norms"):
            t.append((b + "post_ffw_norm.weight", (E,)))
    t.append(("output_norm.weight", (E,)))
    if not m.get("tied"):
        t.append(("output.weight", (E, V)))
    return t


def types_of(m, tensors, gguf):
    """llama-quant.cpp llama_tensor_get_type for the file types of the anchors."""
    Q = gguf.GGMLQuantizationType
    FALLBACK = {Q.Q4_K: Q.Q5_0, Q.Q5_K: Q.Q5_1, Q.Q6_K: Q.Q8_0}
    ftype = m["ftype"]
    base = {"F16": Q.F16, "BF16": Q.BF16, "Q8_0": Q.Q8_0, "Q4_0": Q.Q4_0, "Q4_K_M": Q.Q4_K,
            "Q5_K_M": Q.Q5_K, "Q6_K": Q.Q6_K}[ftype]
    L = m["n_layer"]
    i_v = i_down = 0
    out = []
    has_output = any(n == "output.weight" for n, _ in tensors)
    for name, ne in tensors:
        if len(ne) == 1 or name.endswith(".bias"):
            out.append(Q.F32)  # vectors stay F32 (llama-quant.cpp: quantize only 2-D weights)
            continue
        qt = base
        if ftype in ("F16", "BF16"):
            out.append(qt)
            continue
        is_head = name == "output.weight" or (not has_output and name == "token_embd.weight")
        if is_head:
            # the output tensor: Q6_K unless the file type is Q8_0 (or already Q6_K)
            if qt != Q.Q8_0:
                qt = Q.Q6_K
        elif "attn_qkv.weight" in name:
            if ftype == "Q4_K_M":
                qt = Q.Q5_K
            elif ftype == "Q5_K_M":
                qt = Q.Q6_K
        elif "attn_v.weight" in name:
            if ftype in ("Q4_K_M", "Q5_K_M") and use_more_bits(i_v, L):
                qt = Q.Q6_K
            i_v += 1
        elif "ffn_down" in name:
            if ftype in ("Q4_K_M", "Q5_K_M") and use_more_bits(i_down, L):
                qt = Q.Q6_K
            i_down += 1
        # a row that is not a whole number of 256-blocks: the fallback type
        # (llama-quant.cpp llama_tensor_get_type, "fallback quantization")
        if ne[0] % 256 != 0 and qt in FALLBACK:
            qt = FALLBACK[qt]
        out.append(qt)
    return out


def nbytes(ne, qt, gguf):
    blk, size = gguf.GGML_QUANT_SIZES[qt]
    n = 1
    for d in ne:
        n *= d
    assert ne[0] % blk == 0, (ne, qt)
    return n // blk * size


def write(anchor, out_dir, gguf, np):
    m = anchor["model_shape"]
    tensors = tensors_of(m)
    types = types_of(m, tensors, gguf)
    # the log's tensor count per type
    counts = {}
    for qt in types:
        key = gguf.GGMLQuantizationType(qt).name.lower().replace("q4_k", "q4_K").replace("q5_k", "q5_K") \
            .replace("q6_k", "q6_K")
        counts[key] = counts.get(key, 0) + 1
    want = anchor["log_tensor_types"]
    if counts != want:
        sys.exit(f"{anchor['id']}: tensor types {counts} != the log's {want}")
    total = sum(nbytes(ne, qt, gguf) for (_, ne), qt in zip(tensors, types))
    mib = total / 2**20
    printed = anchor["log_file_size"]  # {"value": 4.58, "unit": "GiB"}
    shown = total / (2**30 if printed["unit"] == "GiB" else 2**20)
    if round(shown, 2) != printed["value"]:
        sys.exit(f"{anchor['id']}: the tensors' bytes {shown:.4f} {printed['unit']} != the log's {printed['value']}")
    buffers = sum(anchor["reported"]["model_buffers_mib"].values())
    if abs(buffers - mib) > 0.02 * len(anchor["reported"]["model_buffers_mib"]) + 0.01 * mib / 100:
        # the CUDA buffer holds padded rows and alignment; the sum stays within a few KiB
        # per buffer of the tensors' bytes
        print(f"{anchor['id']}: note: model buffers {buffers:.2f} MiB, tensors {mib:.2f} MiB")
    path = os.path.join(out_dir, anchor["id"] + ".gguf")
    w = gguf.GGUFWriter(path, m["arch"])
    w.add_name(anchor["model"])
    w.add_file_type(anchor["file_type_id"])
    for k, v in anchor["metadata"].items():
        if isinstance(v, float):
            w.add_float32(k, v)
        elif isinstance(v, bool):
            w.add_bool(k, v)
        else:
            w.add_uint32(k, v)
    for (name, ne), qt in zip(tensors, types):
        w.add_tensor_info(name, tuple(reversed(ne)), np.float32, nbytes(ne, qt, gguf), raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    header = os.path.getsize(path)
    align = 32
    data = (header + align - 1) // align * align
    size = data + sum((nbytes(ne, qt, gguf) + align - 1) // align * align for (_, ne), qt in zip(tensors, types))
    return size


def main():
    import gguf
    import numpy as np
    out_dir = os.path.join(HERE, "headers")
    os.makedirs(out_dir, exist_ok=True)
    sizes = {}
    for f in sorted(glob.glob(os.path.join(HERE, "l[0-9]*.json"))):
        with open(f) as fh:
            anchor = json.load(fh)
        sizes[anchor["id"]] = write(anchor, out_dir, gguf, np)
        print(f"{anchor['id']}: {sizes[anchor['id']]} bytes")
    with open(os.path.join(out_dir, "sizes.json"), "w") as fh:
        json.dump(sizes, fh, indent=1, sort_keys=True)
        fh.write("\n")
    with open(os.path.join(out_dir, "versions.txt"), "w") as fh:
        import importlib.metadata as md
        fh.write(f"gguf {md.version('gguf')}\nnumpy {md.version('numpy')}\n")


if __name__ == "__main__":
    main()
