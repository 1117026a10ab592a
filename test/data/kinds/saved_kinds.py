#!/usr/bin/env python3
"""What autograd saves per decoder layer, by layer kind, in tiny CPU models.

usage: python saved_kinds.py [--only a,b] [--out saved-kinds.jsonl]

For each family below, the tiny configuration of ../families/caches-5.17.jsonl
(the one probe_caches.py built: every layer kind of the family present) is built
with AutoModelForCausalLM.from_config on the CPU, in training mode, with
use_cache=False, SDPA attention.  One forward of input_ids [B, T] runs under
torch.autograd.graph.saved_tensors_hooks; every saved tensor is attributed to
the module running when it was saved (forward pre/post hooks keep a stack), and
each storage is counted once, by its first saver, with its whole size
(untyped_storage().nbytes(): a saved view keeps its base).  Parameters (leaf
tensors that require grad) and autocast's casts of them (_to_copy of a
Parameter, seen by a TorchDispatchMode) are not activations and are left out.

The kernels packages (mamba_ssm, causal_conv1d, flash-linear-attention) are NOT
installed: every mixer runs its torch fallback, which is what `pip install
transformers` gives and what the project's measurements used.  The script
refuses to run when one of them is importable.

Recipes:
  bf16      parameters and compute bf16, everything trains
  fp32      parameters and compute fp32, everything trains
  amp       fp32 parameters under torch.autocast(bf16)
  frozen    bf16, only the input embedding trains (the base of a LoRA run:
            activations need gradients, the layers' weights do not)

Shapes (B, T): chosen so that T is and is not a multiple of the chunk sizes of
the chunked scans (64 for the gated delta rule and Kimi delta, the config's
chunk_size for Mamba-2).  Byte counts are linear in B and in T within a chunk
count, which is what the C formulas (src/memory/saved_kinds.c) claim and
test/test_kinds.c checks against saved-kinds.tsv.

Output: saved-kinds.jsonl (one line per family x recipe x shape: per layer, the
bytes of each child module of the layer and the list of saved tensors) and
saved-kinds.tsv (family, recipe, B, T, layer, mixer kind, ffn kind, part, bytes).
Versions: transformers 5.17.0, torch 2.11.0 (CPU).
"""

import argparse
import contextlib
import importlib.util
import json
import os
import re
import sys
import time
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))
CACHES = os.path.join(HERE, "..", "families", "caches-5.17.jsonl")

FAMILIES = ["mamba", "falcon_mamba", "mamba2", "bamba", "nemotron_h", "granitemoehybrid", "falcon_h1", "jamba",
            "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "olmo_hybrid", "lfm2", "kimi_linear", "minimax",
            "recurrent_gemma", "rwkv", "xlstm", "zamba2", "gemma3n_text", "gemma4_text", "llama",
            "gemma3_text"]
RECIPES = ["bf16", "fp32", "amp", "frozen"]
SHAPES = [(1, 128), (2, 96), (1, 200)]

# per-family changes to the tiny config of caches-5.17.jsonl: a Mamba-2 chunk that
# the shapes above cross (the default 256 is longer than every T), and widths that
# differ where a formula could confuse them (state vs head dim, groups, dk vs dv)
OVERRIDES = {
    "mamba2": {"chunk_size": 64, "state_size": 8, "n_groups": 2},
    "bamba": {"mamba_chunk_size": 64, "mamba_d_state": 8, "mamba_n_groups": 2},
    "nemotron_h": {"chunk_size": 64, "ssm_state_size": 8, "n_groups": 2},
    "granitemoehybrid": {"mamba_chunk_size": 64, "mamba_d_state": 8, "mamba_n_groups": 2},
    "falcon_h1": {"mamba_chunk_size": 64, "mamba_n_heads": 8, "mamba_d_head": 16, "mamba_d_ssm": 128,
                  "mamba_d_state": 8, "mamba_n_groups": 2},
    "zamba2": {"chunk_size": 64, "mamba_d_state": 8, "mamba_ngroups": 2},
    "qwen3_next": {"linear_key_head_dim": 8},
    "qwen3_5_text": {"linear_key_head_dim": 8},
    "qwen3_5_moe_text": {"linear_key_head_dim": 8},
    "olmo_hybrid": {"linear_key_head_dim": 8},
}

LAYER_RE = re.compile(r"^(?:.*\.)?(?:layers|blocks)\.(\d+)(?:\.(.*))?$")


def kernels_absent():
    have = [m for m in ("mamba_ssm", "causal_conv1d", "fla") if importlib.util.find_spec(m)]
    if have:
        sys.exit(f"saved_kinds.py models the torch fallback; uninstall {have} first")


class WeightCasts(TorchDispatchMode):
    """Storages of autocast's casts of parameters (not activations), and of the
    rotary embedding's cos/sin (made once by the model, read by every attention
    layer: not one layer's)."""

    def __init__(self, stack):
        super().__init__()
        self.casts = {}   # data_ptr -> weak handle of the storage (an address is reused once it is freed)
        self.rotary = {}
        self.stack = stack

    @staticmethod
    def _note(where, t):
        st = t.untyped_storage()
        where[st.data_ptr()] = st._weak_ref()

    @staticmethod
    def holds(where, ptr):
        h = where.get(ptr)
        return h is not None and not torch.UntypedStorage._expired(h)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.ops.aten._to_copy.default and isinstance(args[0], torch.nn.Parameter):
            self._note(self.casts, out)
        if self.stack and "rotary" in self.stack[-1].rsplit(".", 1)[-1]:
            for o in (out if isinstance(out, (tuple, list)) else (out,)):
                if isinstance(o, torch.Tensor):
                    self._note(self.rotary, o)
        return out


def load_configs():
    cfgs = {}
    with open(CACHES) as f:
        for line in f:
            r = json.loads(line)
            if "config" in r:
                cfgs[r["model_type"]] = r["config"]
    return cfgs


def config_of(mt, cfgd):
    """The config as from_pretrained builds it (famlib.config_from_saved), chunk changed."""
    sys.path.insert(0, os.path.join(HERE, "..", "families"))
    import famlib
    d = dict(cfgd)
    d.update(OVERRIDES.get(mt, {}))
    return famlib.config_from_saved(mt, d)


def build(mt, cfgd, dtype):
    from transformers import AutoModelForCausalLM
    torch.manual_seed(0)
    try:
        cfg = config_of(mt, cfgd)
        m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation="sdpa")
    except ValueError:  # no attention layer (mamba): SDPA refused, nothing uses eager
        cfg = config_of(mt, cfgd)
        m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation="eager")
    return cfg, m


def layer_kinds(m):
    """Per decoder layer: the class name of each child (to name mixer / ffn)."""
    out = {}
    for name, mod in m.named_modules():
        g = LAYER_RE.match(name)
        if g and g.group(2) is None:
            out[int(g.group(1))] = {c: type(ch).__name__ for c, ch in mod.named_children()}
    return out


def run(mt, cfgd, recipe, B, T):
    dtype = torch.float32 if recipe in ("fp32", "amp") else torch.bfloat16
    cfg, m = build(mt, cfgd, dtype)
    m.train()
    if recipe == "frozen":
        for n, p in m.named_parameters():
            p.requires_grad_(False)
        m.get_input_embeddings().weight.requires_grad_(True)
    tc = cfg.get_text_config()
    stack = []
    hooks = []
    for name, mod in m.named_modules():
        hooks.append(mod.register_forward_pre_hook(lambda mod, a, name=name: stack.append(name)))
        hooks.append(mod.register_forward_hook(lambda mod, a, o: (stack.pop(), None)[1], always_call=True))
    seen = {}
    order = []
    params = {p.untyped_storage().data_ptr() for p in m.parameters()}

    def pack(t):
        try:
            st = t.untyped_storage()
            ptr, nb = st.data_ptr(), st.nbytes()
        except Exception:
            return t
        if ptr in params or isinstance(t, torch.nn.Parameter) or (t.is_leaf and t.requires_grad):
            return t  # a parameter or a view of one
        mod = stack[-1] if stack else ""
        g = LAYER_RE.match(mod)
        rec = seen.get(ptr)
        if rec is not None and not any(r() is not None for r in rec["refs"]):
            rec = None  # every saver of that storage was freed (a branch the output does not use): reused
        if rec is None:
            rec = seen[ptr] = {"module": mod, "shape": list(t.shape),
                               "dtype": str(t.dtype).replace("torch.", ""), "bytes": nb, "layers": set(),
                               "refs": [], "ptr": ptr}
            order.append(rec)
        rec["layers"].add(int(g.group(1)) if g else -1)
        rec["refs"].append(weakref.ref(t))
        return t

    torch.manual_seed(1)
    ids = torch.randint(2, min(tc.vocab_size, 500), (B, T))
    casts = WeightCasts(stack)
    amp = torch.autocast("cpu", dtype=torch.bfloat16) if recipe == "amp" else contextlib.nullcontext()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), casts, amp:
        out = m(input_ids=ids, use_cache=False)
    for h in hooks:
        h.remove()
    layers = {}
    shared = []
    for rec in order:
        if not any(r() is not None for r in rec["refs"]):
            continue  # freed with a branch the output does not use
        if casts.holds(casts.casts, rec["ptr"]):
            continue
        g = LAYER_RE.match(rec["module"])
        if not g:
            continue
        if len(rec["layers"]) > 1 or casts.holds(casts.rotary, rec["ptr"]):  # RoPE cos/sin, a shared mask: not one layer's
            shared.append([rec["module"], rec["shape"], rec["dtype"], rec["bytes"], sorted(rec["layers"])])
            continue
        i = int(g.group(1))
        part = (g.group(2) or "").split(".")[0] or "(layer)"
        L = layers.setdefault(i, {"parts": {}, "tensors": []})
        L["parts"][part] = L["parts"].get(part, 0) + rec["bytes"]
        L["tensors"].append([rec["module"][len(g.group(0)) - len(g.group(2) or ""):] if g.group(2) else "",
                             rec["shape"], rec["dtype"], rec["bytes"]])
    # the graph backpropagates (the saved tensors were the real ones)
    out.logits.float().sum().backward()
    kinds = layer_kinds(m)
    res = []
    listed = set()
    for i in sorted(layers):
        L = layers[i]
        rec = {"layer": i, "children": kinds.get(i, {}), "parts": L["parts"], "total": sum(L["parts"].values())}
        sig = json.dumps(rec["children"], sort_keys=True)
        if sig not in listed:  # the tensors of the first layer of each kind, repeats counted
            listed.add(sig)
            runs = []
            for t in L["tensors"]:
                if runs and runs[-1][:4] == t:
                    runs[-1][4] += 1
                else:
                    runs.append(t + [1])
            rec["tensors"] = [{"module": a, "shape": b, "dtype": c, "bytes": d, "repeat": n}
                              for a, b, c, d, n in runs]
        res.append(rec)
    return res, shared


def write_tsv(jsonl, tsv, configs_dir):
    """saved-kinds.tsv (one row per decoder layer) and configs/<type>.json (the tiny config, as
    config.json, that test/test_kinds.c loads)."""
    os.makedirs(configs_dir, exist_ok=True)
    with open(jsonl) as f, open(tsv, "w") as out:
        out.write("# model_type\trecipe\tB\tT\tlayer\tsaved_bytes\tsoftmax_attention (1: the layer's mixer is "
                  "softmax attention)\n")
        for line in f:
            r = json.loads(line)
            if "layers" not in r:
                continue
            cfg = dict(r["config"])
            with open(os.path.join(configs_dir, r["model_type"] + ".json"), "w") as c:
                json.dump(cfg, c, indent=1, sort_keys=True)
                c.write("\n")
            for L in r["layers"]:
                attn = any(v.endswith("Attention") and not re.search("Linear|Lightning|Delta", v)
                           for v in L["children"].values())
                out.write(f"{r['model_type']}\t{r['recipe']}\t{r['B']}\t{r['T']}\t{L['layer']}\t{L['total']}"
                          f"\t{int(attn)}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tsv-only", action="store_true", help="only rewrite saved-kinds.tsv and configs/ from --out")
    ap.add_argument("--only", default=None)
    ap.add_argument("--recipes", default=",".join(RECIPES))
    ap.add_argument("--out", default=os.path.join(HERE, "saved-kinds.jsonl"))
    a = ap.parse_args()
    tsv = os.path.splitext(a.out)[0] + ".tsv"
    if a.tsv_only:
        write_tsv(a.out, tsv, os.path.join(HERE, "configs"))
        return
    kernels_absent()
    import transformers
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(1)
    cfgs = load_configs()
    fams = a.only.split(",") if a.only else FAMILIES
    with open(a.out, "w") as f:
        f.write(json.dumps({"about": "saved tensors per decoder layer of tiny CPU models, torch fallback mixers "
                                     "(see saved_kinds.py)",
                            "transformers": transformers.__version__, "torch": torch.__version__}) + "\n")
        for mt in fams:
            for recipe in a.recipes.split(","):
                for B, T in SHAPES:
                    t0 = time.time()
                    try:
                        layers, shared = run(mt, cfgs[mt], recipe, B, T)
                        rec = {"model_type": mt, "recipe": recipe, "B": B, "T": T,
                               "config": {**cfgs[mt], **OVERRIDES.get(mt, {})}, "layers": layers,
                               "shared": shared}
                    except Exception as e:
                        if os.environ.get("DEBUG"):
                            raise
                        rec = {"model_type": mt, "recipe": recipe, "B": B, "T": T, "error": repr(e)[:400]}
                    f.write(json.dumps(rec) + "\n")
                    f.flush()
                    print(f"{mt:20s} {recipe:6s} {B}x{T:<4d} "
                          f"{rec.get('error') or [l['total'] for l in rec['layers']]} {time.time() - t0:.1f}s",
                          file=sys.stderr, flush=True)
    write_tsv(a.out, tsv, os.path.join(HERE, "configs"))


if __name__ == "__main__":
    main()
