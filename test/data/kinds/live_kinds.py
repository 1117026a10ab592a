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
    """memory_allocated over time: storages created by ops, until they are freed."""

    def __init__(self):
        super().__init__()
        self.live = {}  # data_ptr -> (weak ref handle, bytes)
        self.now = 0
        self.peak = 0

    def sweep(self):
        dead = [p for p, (h, n) in self.live.items() if torch.UntypedStorage._expired(h)]
        for p in dead:
            self.now -= self.live.pop(p)[1]

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
        self.peak = max(self.peak, self.now)

    def track(self, t):
        """Counts a tensor made outside the mode (inputs)."""
        self.add(t)

    def reset_peak(self):
        self.sweep()
        self.peak = self.now
        return self.now

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.sweep()
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            self.add(o)
        return out


def layer_modules(m):
    return [(int(g.group(1)), mod) for name, mod in m.named_modules()
            for g in [saved_kinds.LAYER_RE.match(name)] if g and g.group(2) is None]


def measure_forward(m, live, ids, use_cache, cache=None, cache_position=None):
    rec = {}
    hooks = []

    def pre(mod, args, i):
        rec[i] = {"start": live.reset_peak()}

    def post(mod, args, out, i):
        live.sweep()
        rec[i]["peak"] = live.peak - rec[i]["start"]
        rec[i]["end"] = live.now - rec[i]["start"]

    for i, mod in layer_modules(m):
        hooks.append(mod.register_forward_pre_hook(lambda mod, a, i=i: pre(mod, a, i)))
        hooks.append(mod.register_forward_hook(lambda mod, a, o, i=i: post(mod, a, o, i), always_call=True))
    kw = {"use_cache": use_cache}
    if cache is not None:
        kw["past_key_values"] = cache
    if cache_position is not None:
        kw["cache_position"] = cache_position
    out = m(input_ids=ids, **kw)
    for h in hooks:
        h.remove()
    return out, rec


def measure_forward_kw(m, live, ids, kw):
    rec = {}
    hooks = []

    def pre(mod, args, i):
        rec[i] = {"start": live.reset_peak()}

    def post(mod, args, out, i):
        live.sweep()
        rec[i]["peak"] = live.peak - rec[i]["start"]
        rec[i]["end"] = live.now - rec[i]["start"]

    for i, mod in layer_modules(m):
        hooks.append(mod.register_forward_pre_hook(lambda mod, a, i=i: pre(mod, a, i)))
        hooks.append(mod.register_forward_hook(lambda mod, a, o, i=i: post(mod, a, o, i), always_call=True))
    m(input_ids=ids, **kw)
    for h in hooks:
        h.remove()
    return rec


def backward_hooks(m, live):
    """Full backward hooks on each layer (registered before the forward, as they must be)."""
    rec = {}
    hooks = []

    def pre(mod, gout, i):
        rec[i] = {"start": live.reset_peak()}

    def post(mod, gin, gout, i):
        live.sweep()
        rec[i]["peak"] = live.peak - rec[i]["start"]

    for i, mod in layer_modules(m):
        hooks.append(mod.register_full_backward_pre_hook(lambda mod, g, i=i: pre(mod, g, i)))
        hooks.append(mod.register_full_backward_hook(lambda mod, gi, go, i=i: post(mod, gi, go, i)))
    return rec, hooks


def run(mt, cfgd, B, T):
    res = {}
    cfg, m = saved_kinds.build(mt, cfgd, torch.bfloat16)
    tc = cfg.get_text_config()
    torch.manual_seed(1)
    ids = torch.randint(2, min(tc.vocab_size, 500), (B, T))
    # training forward and backward
    m.train()
    live = Live()
    bw, bhooks = backward_hooks(m, live)
    with live:
        out, fw = measure_forward(m, live, ids, False)
        loss = out.logits.float().sum()
        loss.backward()
    for h in bhooks:
        h.remove()
    del out, loss
    # a checkpointed layer's forward
    live = Live()
    with torch.no_grad(), live:
        _, ck = measure_forward(m, live, ids, False)
    # inference: prefill with the cache the model makes, then one decode step
    m.eval()
    live = Live()
    with torch.inference_mode(), live:
        o1, pre = measure_forward(m, live, ids, True)
        nxt = o1.logits[:, -1:].argmax(-1)
        cache = getattr(o1, "past_key_values", None) or getattr(o1, "cache_params", None)
        if hasattr(o1, "cache_params"):  # Mamba's forward takes cache_params
            kw = {"cache_params": cache, "use_cache": True, "cache_position": torch.tensor([T])}
            hooks_out = measure_forward_kw(m, live, nxt, kw)
            dec = hooks_out
        else:
            o2, dec = measure_forward(m, live, nxt, True, cache=cache, cache_position=torch.tensor([T]))
    for i in fw:
        res[i] = {"train_fwd_peak": fw[i]["peak"], "train_fwd_end": fw[i]["end"],
                  "ckpt_fwd_peak": ck.get(i, {}).get("peak"), "train_bwd_peak": bw.get(i, {}).get("peak"),
                  "prefill_peak": pre.get(i, {}).get("peak"), "prefill_end": pre.get(i, {}).get("end"),
                  "decode_peak": dec.get(i, {}).get("peak"), "decode_end": dec.get(i, {}).get("end")}
    return res, saved_kinds.layer_kinds(m)


COLUMNS = ["train_fwd_peak", "train_fwd_end", "ckpt_fwd_peak", "train_bwd_peak", "prefill_peak", "prefill_end",
           "decode_peak", "decode_end"]


def write_tsv(jsonl, tsv):
    """live-kinds.tsv: one row per decoder layer (test/test_kinds.c reads it)."""
    import re
    with open(jsonl) as f, open(tsv, "w") as out:
        out.write("# model_type\tB\tT\tlayer\tsoftmax_attention\t" + "\t".join(COLUMNS) + "\n")
        for line in f:
            r = json.loads(line)
            for L in r.get("layers", []):
                attn = any(v.endswith("Attention") and not re.search("Linear|Lightning|Delta", v)
                           for v in L["children"].values())
                vals = [str(L.get(c) if L.get(c) is not None else -1) for c in COLUMNS]
                out.write(f"{r['model_type']}\t{r['B']}\t{r['T']}\t{L['layer']}\t{int(attn)}\t"
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
