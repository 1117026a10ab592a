#!/usr/bin/env python3
"""Working sets of decoder layers by kind: the live bytes a tiny CPU model holds
inside one layer's forward and backward (training) and inside one layer's
prefill and decode step (inference), torch fallback mixers.

usage: python live_kinds.py [--only a,b] [--out live-kinds.jsonl]

Live bytes are counted as PyTorch's caching allocator counts memory_allocated:
every storage an op creates is rounded up to 512 bytes and counted from the
op that makes it until it is freed (a TorchDispatchMode sees every op's
outputs; a storage's weak reference, StorageBase._weak_ref / _expired, says
when it is gone).  Kernel-internal scratch memory is not seen, on the CPU as on
the GPU.  Views share their base's storage and count once.

Per decoder layer (forward pre/post hooks; full backward pre/post hooks):
  train_fwd_peak      peak - live at the layer's start, training forward
  train_fwd_end       live at the layer's end - live at its start (what it saved + its output)
  ckpt_fwd_peak       the same peak under torch.no_grad (a checkpointed layer's forward)
  train_bwd_peak      peak - live at the start of the layer's backward (its gradient temporaries,
                      its weights' gradients included)
  prefill_peak        peak - live at the layer's start, inference prefill with the model's cache
                      (torch.inference_mode, use_cache=True)
  prefill_end         live at the end - live at the start (its cache + its output)
  decode_peak         the same for one decode step
  decode_end
and the same eight for the layer's mixer alone where it is not attention (mixer_train_fwd_peak, ...:
the module of MambaMixer, GatedDeltaNet, ShortConv and the like, beyond its input), what the C
formulas of the mixers' working sets (src/memory/state.c, saved_kinds.c) describe.  A scope's peak
is kept while a scope inside it (the mixer) runs.  mixer_train_bwd_peak is 0 where the mixer's full
backward hooks do not bracket its backward (the hybrid layers' mixers: their pre and post hooks fire
together); the mixer's hooks also keep one gradient of its output alive ([B, T, hidden] bf16) in the
layer's backward, which the layer's train_bwd_peak includes.
The configurations are saved_kinds.py's (configs/<type>.json); bf16 parameters
and compute; shapes (B, T) as there.  Versions: transformers 5.17.0, torch 2.11.0.
"""

import argparse
import json
import os
import sys
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import saved_kinds  # noqa: E402

SHAPES = [(1, 128), (2, 96), (1, 200)]
FAMILIES = ["mamba", "falcon_mamba", "mamba2", "bamba", "nemotron_h", "granitemoehybrid", "jamba", "qwen3_next",
            "qwen3_5_text", "qwen3_5_moe_text", "lfm2", "llama"]


def blk(n):
    return (n + 511) // 512 * 512 if n else 0


class Live(TorchDispatchMode):
    """memory_allocated over time: storages created by ops, until they are freed; the peak of each
    open scope (a layer and, inside it, its mixer)."""

    def __init__(self):
        super().__init__()
        self.live = {}  # data_ptr -> (weak ref handle, bytes)
        self.now = 0
        self.peaks = {}  # open scope -> its peak

    def sweep(self):
        dead = [p for p, (h, n) in self.live.items() if torch.UntypedStorage._expired(h)]
        for p in dead:
            h, n = self.live.pop(p)
            torch.UntypedStorage._free_weak_ref(h)  # a handle not freed keeps the storage's memory
            self.now -= n

    def __exit__(self, *exc):
        for h, _ in self.live.values():
            torch.UntypedStorage._free_weak_ref(h)
        self.live.clear()
        return super().__exit__(*exc)

    def add(self, t):
        if not isinstance(t, torch.Tensor) or t.device.type == "meta":
            return
        st = t.untyped_storage()
        p = st.data_ptr()
        if p in self.live or st.nbytes() == 0:
            return
        n = blk(st.nbytes())
        self.live[p] = (st._weak_ref(), n)
        self.now += n
        for k in self.peaks:
            self.peaks[k] = max(self.peaks[k], self.now)

    def open(self, key):
        """Starts a scope: live bytes now."""
        self.sweep()
        self.peaks[key] = self.now
        return self.now

    def close(self, key):
        """Ends a scope: its peak."""
        self.sweep()
        return self.peaks.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.sweep()
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            self.add(o)
        return out


def layer_modules(m):
    return [(int(g.group(1)), mod) for name, mod in m.named_modules()
            for g in [saved_kinds.LAYER_RE.match(name)] if g and g.group(2) is None]


def mixer_modules(m):
    """The layers' mixers other than attention (mixer_of): the child modules the C formulas of
    src/memory/state.c and saved_kinds.c describe."""
    out = []
    for i, mod in layer_modules(m):
        for name, ch in mod.named_children():
            if mixer_of({name: type(ch).__name__}) in ("mamba", "linear", "conv"):
                out.append((i, ch))
    return out


def forward_hooks(m, live):
    """Forward pre/post hooks on each layer and each mixer: per layer i, rec[("layer", i)] and
    rec[("mixer", i)] = {"peak": peak - start, "end": end - start}."""
    rec = {}
    hooks = []

    def pre(key):
        rec[key] = {"start": live.open(key)}

    def post(key):
        rec[key]["peak"] = live.close(key) - rec[key]["start"]
        rec[key]["end"] = live.now - rec[key]["start"]

    for what, mods in (("layer", layer_modules(m)), ("mixer", mixer_modules(m))):
        for i, mod in mods:
            key = (what, i)
            hooks.append(mod.register_forward_pre_hook(lambda mod, a, key=key: pre(key)))
            hooks.append(mod.register_forward_hook(lambda mod, a, o, key=key: post(key), always_call=True))
    return rec, hooks


def measure_forward(m, live, ids, kw):
    rec, hooks = forward_hooks(m, live)
    out = m(input_ids=ids, **kw)
    for h in hooks:
        h.remove()
    return out, rec


def backward_hooks(m, live):
    """Full backward hooks on each layer and mixer (registered before the forward, as they must be)."""
    rec = {}
    hooks = []

    def pre(key):
        rec[key] = {"start": live.open(key)}

    def post(key):
        rec[key]["peak"] = live.close(key) - rec[key]["start"]

    for what, mods in (("layer", layer_modules(m)), ("mixer", mixer_modules(m))):
        for i, mod in mods:
            key = (what, i)
            hooks.append(mod.register_full_backward_pre_hook(lambda mod, g, key=key: pre(key)))
            hooks.append(mod.register_full_backward_hook(lambda mod, gi, go, key=key: post(key)))
    return rec, hooks


def run(mt, cfgd, B, T):
    cfg, m = saved_kinds.build(mt, cfgd, torch.bfloat16)
    tc = cfg.get_text_config()
    torch.manual_seed(1)
    ids = torch.randint(2, min(tc.vocab_size, 500), (B, T))
    # training forward and backward
    m.train()
    live = Live()
    bw, bhooks = backward_hooks(m, live)
    with live:
        out, fw = measure_forward(m, live, ids, {"use_cache": False})
        loss = out.logits.float().sum()
        loss.backward()
    for h in bhooks:
        h.remove()
    del out, loss
    # a checkpointed layer's forward
    live = Live()
    with torch.no_grad(), live:
        _, ck = measure_forward(m, live, ids, {"use_cache": False})
    # inference: prefill with the cache the model makes, then one decode step
    m.eval()
    live = Live()
    with torch.inference_mode(), live:
        o1, pre = measure_forward(m, live, ids, {"use_cache": True})
        nxt = o1.logits[:, -1:].argmax(-1)
        if hasattr(o1, "cache_params"):  # Mamba's forward takes cache_params
            kw = {"cache_params": o1.cache_params, "use_cache": True, "cache_position": torch.tensor([T])}
        else:
            kw = {"past_key_values": o1.past_key_values, "use_cache": True, "cache_position": torch.tensor([T])}
        _, dec = measure_forward(m, live, nxt, kw)
    res = {}
    for (what, i) in fw:
        r = res.setdefault(i, {})
        p = "" if what == "layer" else "mixer_"
        g = lambda d, f: d.get((what, i), {}).get(f)  # noqa: E731
        r.update({p + "train_fwd_peak": g(fw, "peak"), p + "train_fwd_end": g(fw, "end"),
                  p + "ckpt_fwd_peak": g(ck, "peak"), p + "train_bwd_peak": g(bw, "peak"),
                  p + "prefill_peak": g(pre, "peak"), p + "prefill_end": g(pre, "end"),
                  p + "decode_peak": g(dec, "peak"), p + "decode_end": g(dec, "end")})
    return res, saved_kinds.layer_kinds(m)


COLUMNS = ["train_fwd_peak", "train_fwd_end", "ckpt_fwd_peak", "train_bwd_peak", "prefill_peak", "prefill_end",
           "decode_peak", "decode_end"]
COLUMNS += ["mixer_" + c for c in COLUMNS]


def mixer_of(children):
    """The layer's mixer as test/test_kinds.c names it: mamba (Mamba-1/-2 mixers), linear (the gated
    delta rule), conv (lfm2's short convolution), attention (softmax), none (an MLP or MoE layer)."""
    for v in children.values():
        if v.endswith(("Mixer", "MambaLayer")):
            return "mamba"
        if v.endswith("GatedDeltaNet"):
            return "linear"
        if v.endswith("ShortConv"):
            return "conv"
        if v.endswith("Attention"):
            return "attention"
    return "none"


def write_tsv(jsonl, tsv):
    """live-kinds.tsv: one row per decoder layer (test/test_kinds.c reads it)."""
    with open(jsonl) as f, open(tsv, "w") as out:
        out.write("# model_type\tB\tT\tlayer\tmixer\t" + "\t".join(COLUMNS) + "\n")
        for line in f:
            r = json.loads(line)
            for L in r.get("layers", []):
                vals = [str(L.get(c) if L.get(c) is not None else -1) for c in COLUMNS]
                out.write(f"{r['model_type']}\t{r['B']}\t{r['T']}\t{L['layer']}\t{mixer_of(L['children'])}\t"
                          + "\t".join(vals) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tsv-only", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "live-kinds.jsonl"))
    a = ap.parse_args()
    tsv = os.path.splitext(a.out)[0] + ".tsv"
    if a.tsv_only:
        write_tsv(a.out, tsv)
        return
    saved_kinds.kernels_absent()
    import transformers
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(1)
    cfgs = saved_kinds.load_configs()
    fams = a.only.split(",") if a.only else FAMILIES
    with open(a.out, "w") as f:
        f.write(json.dumps({"about": "working sets per decoder layer of tiny CPU models, bf16, torch fallback "
                                     "mixers (see live_kinds.py)",
                            "transformers": transformers.__version__, "torch": torch.__version__}) + "\n")
        for mt in fams:
            for B, T in SHAPES:
                t0 = time.time()
                try:
                    layers, kinds = run(mt, cfgs[mt], B, T)
                    rec = {"model_type": mt, "B": B, "T": T, "layers": [
                        {"layer": i, "children": kinds.get(i, {}), **layers[i]} for i in sorted(layers)]}
                except Exception as e:
                    if os.environ.get("DEBUG"):
                        raise
                    rec = {"model_type": mt, "B": B, "T": T, "error": repr(e)[:400]}
                f.write(json.dumps(rec) + "\n")
                f.flush()
                print(f"{mt:20s} {B}x{T:<4d} {rec.get('error') or len(rec['layers'])} {time.time() - t0:.1f}s",
                      file=sys.stderr, flush=True)
    write_tsv(a.out, tsv)


if __name__ == "__main__":
    main()
