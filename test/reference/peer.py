#!/usr/bin/env python3
"""The peer, as a user would run it: PyTorch's MemTracker (torch.distributed._tools.mem_tracker) in
fake mode on the measured sets' scenarios, without a GPU, and its error against the measured peak.

usage: peer.py SET.jsonl [--only ids] [--out peer.jsonl] [--steps 2] [--timeout S]

No CUDA rules are put back (that is the harness's job, not the peer's): the model runs on fake CPU
tensors with the CPU's choices (SDPA's CPU kernel, AutocastCPU's lists, AdamW's default for-loop),
as MemTracker's documentation runs it. Two workarounds a user needs (shared/research/peers.md):
peft's get_peft_model fails inside FakeTensorMode, so LoRA models are built and wrapped on the meta
device and their tensors made fake afterwards (harness.py's materialize); MemTracker hooks every
parameter's gradient and a frozen parameter refuses a hook, so register_hook is skipped for
parameters that do not require grad. The peak is MemTracker's "Total" of the peak snapshot over the
steps (its own accounting; it counts no cuBLAS workspace and no allocator rounding).
"""

import argparse
import json
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

DT = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def run(sc, base, steps):
    import harness  # its model building (meta + peft + fake) only; no cuda_rules installed here
    from torch.distributed._tools.mem_tracker import MemTracker
    cfg = harness.load_config(os.path.join(base, sc["model"]["hf_config"]))
    fm = FakeTensorMode(allow_non_fake_inputs=True)
    orig_hook = torch.Tensor.register_hook
    orig_acc = torch.Tensor.register_post_accumulate_grad_hook

    class _NoHandle:
        def remove(self):
            pass

    def hook(self, fn):  # MemTracker hooks every parameter; frozen ones refuse
        return orig_hook(self, fn) if self.requires_grad else _NoHandle()

    def acc_hook(self, fn):
        return orig_acc(self, fn) if self.requires_grad else _NoHandle()
    with fm:
        tr = harness.Tracker()  # materialize() needs a category context; its counts are not used
        m = harness.build_meta(sc, cfg)
        harness.materialize(m, tr)
        mt = MemTracker()
        if sc["mode"] == "training":
            t = sc["training"]
            params = [p for p in m.parameters() if p.requires_grad]
            name = t["optimizer"]
            if name == "adafactor":
                from transformers.optimization import Adafactor
                opt = Adafactor(params, scale_parameter=True, relative_step=True, warmup_init=False, lr=None)
            elif name.startswith("sgd"):
                opt = torch.optim.SGD(params, lr=1e-5, momentum=0.9 if "momentum" in name else 0.0)
            else:
                opt = torch.optim.AdamW(params, lr=1e-5, fused=name == "adamw_fused" or None)
            ids = torch.randint(0, cfg.get_text_config().vocab_size, (t["micro_batch_size"], t["seq_len"]))
            torch.Tensor.register_hook = hook
            torch.Tensor.register_post_accumulate_grad_hook = acc_hook
            try:
                mt.track_external(m, opt, ids)
                amp = t["param_dtype"] != t["compute_dtype"]
                with mt:
                    for _ in range(steps):
                        for _ in range(t.get("gradient_accumulation_steps", 1)):
                            mt.reset_mod_stats()  # per-module stats of one call at a time (its limitation)
                            if amp:
                                with torch.autocast("cpu", dtype=DT[t["compute_dtype"]]):
                                    loss = m(input_ids=ids, labels=ids).loss
                            else:
                                loss = m(input_ids=ids, labels=ids).loss
                            loss.backward()
                            del loss
                        opt.step()
                        opt.zero_grad(set_to_none=True)
            finally:
                torch.Tensor.register_hook = orig_hook
                torch.Tensor.register_post_accumulate_grad_hook = orig_acc
        else:
            x = sc["inference"]
            ids = torch.randint(0, cfg.get_text_config().vocab_size, (x["batch_size"], x["prompt_len"]))
            mt.track_external(m, ids)
            with mt, torch.inference_mode():
                mt.reset_mod_stats()
                out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
                past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                del out
                for _ in range(x["decode_len"]):
                    mt.reset_mod_stats()
                    out = m(input_ids=nxt, past_key_values=past, use_cache=True)
                    past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                    del out
        snap = mt.get_tracker_snapshot("peak")
    return max(v.get("Total", sum(v.values())) for v in snap.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("--only")
    ap.add_argument("--out")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900)
    a = ap.parse_args()
    base = os.path.dirname(os.path.abspath(a.set))
    done = set()
    if a.out and os.path.exists(a.out):
        done = {json.loads(l)["id"] for l in open(a.out) if l.strip()}
    only = set(a.only.split(",")) if a.only else None
    import transformers
    versions = {"torch": torch.__version__, "transformers": transformers.__version__}
    for line in open(a.set):
        sc = json.loads(line)
        if sc.get("id") in done or (only and sc.get("id") not in only) or "mode" not in sc:
            continue
        meas = sc.get("measured", {})
        if meas.get("oom"):
            continue
        rec = {"id": sc["id"], "tool": "MemTracker (torch.distributed._tools.mem_tracker), fake CPU",
               "versions": versions}
        t0 = time.time()

        def alarm(*_):
            raise TimeoutError()
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(a.timeout)
        try:
            rec["peak_bytes"] = run(sc, base, a.steps)
            if meas.get("peak_allocated_bytes"):
                rec["error_pct"] = round(100.0 * (rec["peak_bytes"] / meas["peak_allocated_bytes"] - 1), 3)
        except Exception as e:
            rec["error"] = repr(e)[:300]
            rec["traceback"] = traceback.format_exc()[-1500:]
        finally:
            signal.alarm(0)
        rec["wall_s"] = round(time.time() - t0, 1)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(rec) + "\n")
        print(rec["id"], rec.get("error_pct"), rec.get("error", "")[:100], rec["wall_s"], flush=True)


if __name__ == "__main__":
    main()
