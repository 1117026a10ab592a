#!/usr/bin/env python3
"""The reference harness: the real transformers / peft / torch step of a
scenario, run at full size on fake tensors, every allocation and free seen.

usage: harness.py SET.jsonl [--only id,id] [--out results.jsonl] [--events DIR]
                  [--steps N] [--configs DIR] [--timeout S]
       harness.py --scenario FILE.json ...

SET.jsonl holds scenarios in the measured sets' format (shared/groundtruth
README: model.hf_config, mode, training{...} / inference{...}, lora{...}); a
record that carries `measured` is compared with it.  Results already in --out
(same id) are skipped: the run is resumable.

What runs (as shared/groundtruth/measure.py runs it on the GPU):
  training   the model built from its config (dtype = param_dtype,
             attn_implementation), peft LoRA when asked (get_peft_model, no
             dropout, alpha as given), HF gradient checkpointing
             (use_reentrant=False) when asked, model.train(), use_cache off;
             the optimizer over the trainable parameters; N steps (default 2;
             measure.py runs 3, the third equals the second) of
             forward(input_ids=ids, labels=ids) under torch.autocast(bf16/fp16)
             when param and compute dtypes differ, loss.backward(),
             optimizer.step(), zero_grad(set_to_none=True).
  inference  one prefill forward (use_cache=True, logits_to_keep=1) under
             torch.inference_mode, then decode_len single-token steps with the
             dynamic cache, argmax of the last logits.
How: the model is built on the meta device (and wrapped by peft there: peft's
.to() fails inside FakeTensorMode), then each parameter and buffer is made a
fake CPU tensor in module order, under the tracker: the model build.  CUDA's
choices are put back by cuda_rules.py (autocast op lists and cast cache, the
SDPA backend, kernel scratch, host tensors); what that cannot reproduce is
listed in the record's "assumptions".

Output: one JSON line per scenario with the harness's figures in the measured
sets' names (weights_bytes, persistent_bytes, forward_saved_bytes,
peak_allocated_bytes, peak_phase, prefill_peak_bytes,
kv_cache_bytes_after_decode), phase_peak_bytes per phase of the last step, the
owner of each phase's peak, live bytes at every phase boundary, the per-layer
growth of live bytes in the forward, the SDPA backends chosen, and --events
DIR/<id>.events.jsonl: the ordered alloc/free list (op, id, bytes, stream,
category, label, phase) for the allocator replay.
"""

import argparse
import gc
import json
import os
import re
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

import cuda_rules  # noqa: E402
from tracker import Tracker, blk, install_host_random  # noqa: E402

NOTES = []  # what a scenario's run chose on its own (reset per scenario)
RESOLVED = {}  # choices the scenario left to the run (matrix.py's family LoRA targets)
MiB = 1 << 20
CUBLAS_WS = 32 * MiB     # sm90: CUBLAS_WORKSPACE_CONFIG default ":4096:8" (CublasHandlePool.cpp)
CUBLASLT_WS = 1 * MiB    # the cuBLASLt workspace of gemm_and_bias (addmm with a bias)
MATMULS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "_scaled_mm"}
LAYER_RE = re.compile(r"(?:^|\.)(?:layers|h|blocks|decoder\.layers)\.(\d+)$")
DT = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def versions():
    import subprocess
    import transformers
    v = {"torch": torch.__version__, "transformers": transformers.__version__, "python": sys.version.split()[0]}
    try:  # the harness's own version: the commit of test/reference/
        v["harness"] = subprocess.run(["git", "-C", HERE, "log", "-1", "--format=%h", "--", "."],
                                      capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:
        pass
    for name in ("peft", "accelerate", "bitsandbytes"):
        try:
            v[name] = __import__(name).__version__
        except Exception:
            pass
    return v


# ---- kernel scratch and host tensors (cuda_rules.py, section 3 and 4) ------------

class Rules:
    """on_op hook of the tracker: CUDA's kernel scratch, cuBLAS workspaces."""

    def __init__(self):
        self.threads_ws = set()   # "main" / "autograd": which cuBLAS handles have their workspace
        self.lt_ws = set()
        self.notes = set()

    def __call__(self, tr, func, args, kwargs, post):
        name = func._overloadpacket.__name__ if hasattr(func, "_overloadpacket") else ""
        thread = "autograd" if tr.in_backward else "main"
        if post is None:  # before the op
            if name in MATMULS and thread not in self.threads_ws:
                self.threads_ws.add(thread)
                tr.alloc(CUBLAS_WS, f"cuBLAS workspace ({thread} thread)", "workspace")
            if name == "addmm" and thread not in self.lt_ws and args[0].dim() == 1:
                self.lt_ws.add(thread)
                tr.alloc(CUBLASLT_WS, f"cuBLASLt workspace ({thread} thread)", "workspace")
            if name == "_scaled_dot_product_flash_attention_backward":
                return self.flash_bwd(tr, args)
            if name == "_efficient_attention_backward" or name == "_scaled_dot_product_efficient_attention_backward":
                return self.eff_bwd(tr, args)
            return None
        out, pre = post
        for i in pre or ():
            tr.free(i)
        if name == "_scaled_dot_product_flash_attention":
            # philox seed/offset: host tensors when dropout is 0 (flash_api.cpp mha_fwd)
            for o in out[6:8]:
                i = tr.id_of(o)
                if i is not None and o.numel() <= 2:
                    tr.free(i)
                    self.notes.add("flash philox seed/offset not counted (host tensors without dropout)")
        return None

    def flash_bwd(self, tr, args):
        """flash_api.cpp mha_bwd: softmax_d, dq_accum, dk/dv expanded for GQA."""
        grad_out, q, k = args[0], args[1], args[2]
        B, H, S, d = q.shape
        Hk, Sk = k.shape[1], k.shape[2]
        r128 = lambda n: (n + 127) // 128 * 128
        r32 = lambda n: (n + 31) // 32 * 32
        ids = [tr.scratch(B * H * r128(S) * 4, "flash backward: softmax_d"),
               tr.scratch(B * r128(S) * H * r32(d) * 4, "flash backward: dq_accum (fp32)")]
        if Hk != H:
            es = q.element_size()
            ids.append(tr.scratch(B * Sk * H * d * es, "flash backward: dk over the query heads"))
            ids.append(tr.scratch(B * Sk * H * d * es, "flash backward: dv over the query heads"))
        self.notes.add("flash backward scratch from flash_api.cpp mha_bwd (softmax_d, dq_accum)")
        return ids

    def eff_bwd(self, tr, args):
        q = args[1]
        B, H, S, d = q.shape
        self.notes.add("memory-efficient backward scratch: delta [B,H,round32(S)] fp32 only (attention_backward.cu)")
        return [tr.scratch(B * H * ((S + 31) // 32 * 32) * 4, "efficient backward: delta")]


# ---- model -----------------------------------------------------------------------

def load_config(path):
    from transformers import AutoConfig
    def unjson(v):  # to_json_string writes inf as {"__float__": "Infinity"}
        if isinstance(v, dict):
            return float(v["__float__"]) if set(v) == {"__float__"} else {k: unjson(x) for k, x in v.items()}
        if isinstance(v, list):
            return [unjson(x) for x in v]
        return v
    with open(path) as f:
        d = unjson(json.load(f))
    mt = d.pop("model_type")
    d.pop("architectures", None)
    d.pop("transformers_version", None)
    return AutoConfig.for_model(mt, **d)


def build_meta(sc, cfg):
    from transformers import AutoModelForCausalLM
    tr = sc.get("training") or {}
    inf = sc.get("inference") or {}
    dtype = DT[tr.get("param_dtype") or inf.get("weights_dtype")]
    attn = tr.get("attention") or inf.get("attention") or "sdpa"
    with torch.device("meta"):
        try:
            m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attn)
        except ValueError as e:  # a model without SDPA support (attention-free mixers): eager, noted
            if attn != "sdpa":
                raise
            NOTES.append(f"SDPA refused by the model ({str(e)[:120]}): eager")
            m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation="eager")
    if sc["mode"] == "training":
        m.config.use_cache = False
        lora = sc.get("lora")
        if lora:
            from peft import LoraConfig, get_peft_model
            if lora["target_modules"] == "__family__":  # matrix.py: q_proj and v_proj, else all-linear
                names = {n.rsplit(".", 1)[-1] for n, x in m.named_modules() if isinstance(x, torch.nn.Linear)}
                lora = dict(lora, target_modules=["q_proj", "v_proj"] if {"q_proj", "v_proj"} <= names
                            else "all-linear")
                NOTES.append(f"LoRA targets: {lora['target_modules']}")
                RESOLVED["lora_targets"] = lora["target_modules"]
            with torch.device("meta"):
                m = get_peft_model(m, LoraConfig(r=lora["rank"], lora_alpha=lora.get("alpha", 2 * lora["rank"]),
                                                 lora_dropout=lora.get("dropout", 0.0),
                                                 target_modules=lora["target_modules"], bias="none",
                                                 task_type="CAUSAL_LM"))
        if tr.get("activation_checkpointing", "none") == "full":
            m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        m.train()
    else:
        m.eval()
    return m


def materialize(m, tracker):
    """Every meta parameter, buffer and tensor attribute becomes a fake CPU tensor
    (the tracker counts each as the model build allocates it), tied ones once."""
    memo = {}

    def fresh(t):
        if id(t) in memo:
            return memo[id(t)]
        n = torch.empty(t.shape, dtype=t.dtype, device="cpu")
        memo[id(t)] = n
        return n

    with tracker.category("weights"):
        for mod in m.modules():
            for k, p in list(mod._parameters.items()):
                if p is None:
                    continue
                if id(p) not in memo:
                    memo[id(p)] = torch.nn.Parameter(torch.empty(p.shape, dtype=p.dtype, device="cpu"),
                                                     requires_grad=p.requires_grad)
                mod._parameters[k] = memo[id(p)]
            for k, b in list(mod._buffers.items()):
                if b is not None and b.is_meta:
                    mod._buffers[k] = fresh(b)
            for k, v in list(vars(mod).items()):
                if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and v.is_meta:
                    setattr(mod, k, fresh(v))


# ---- one scenario -----------------------------------------------------------------

class Timeout(Exception):
    pass


def make_optimizer(name, params, tracker):
    if name == "adamw":       # CUDA's default: foreach (the CPU's default is the for-loop)
        return torch.optim.AdamW(params, lr=1e-5, foreach=True)
    if name == "adamw_fused":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "adamw_foreach_off":
        return torch.optim.AdamW(params, lr=1e-5, foreach=False)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5, foreach=True)
    if name == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9, foreach=True)
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, scale_parameter=True, relative_step=True, warmup_init=False, lr=None)
    raise ValueError(f"optimizer {name!r} not in the harness")


def layer_hooks(m, tracker, out):
    """Per decoder layer: live bytes at its forward's end minus at its start
    (what it keeps + its output), in the last step's forward."""
    hooks = []
    names = {}
    for name, mod in m.named_modules():
        g = LAYER_RE.search(name)
        if g:
            names[mod] = int(g.group(1))

    def pre(mod, a):
        tracker.mod_stack.append(mod._h_name)
        if mod in names and not tracker.in_backward:
            out.setdefault("_start", {})[names[mod]] = tracker.cur

    def post(mod, a, o):
        if tracker.mod_stack:
            tracker.mod_stack.pop()
        if mod in names and not tracker.in_backward and torch.is_grad_enabled():
            st = out.get("_start", {}).get(names[mod])
            if st is not None:
                out.setdefault("layer_fwd_delta", {})[names[mod]] = tracker.cur - st
    for name, mod in m.named_modules():
        mod._h_name = name
        hooks.append(mod.register_forward_pre_hook(pre))
        hooks.append(mod.register_forward_hook(post, always_call=True))
    return hooks


def run_training(sc, m, tracker, fm, steps, res):
    tr = sc["training"]
    B, S = tr["micro_batch_size"], tr["seq_len"]
    ga = tr.get("gradient_accumulation_steps", 1)
    amp = tr["param_dtype"] != tr["compute_dtype"]
    cdt = DT[tr["compute_dtype"]]
    params = [p for p in m.parameters() if p.requires_grad]
    res["trainable_params"] = sum(p.numel() for p in params)
    res["model_bytes"] = tracker.cur
    with tracker.category("optimizer_state"):
        opt = make_optimizer(tr["optimizer"], params, tracker)
    vocab = m.config.get_text_config().vocab_size if hasattr(m.config, "get_text_config") else m.config.vocab_size
    with tracker.category("other"):
        ids = torch.randint(0, vocab, (B, S), device="cpu")
    per_step = []
    layer_info = {}
    hooks = layer_hooks(m, tracker, layer_info)
    fused_or_capt = tr["optimizer"] == "adamw_fused"
    orig_tensor = torch.tensor

    def host_tensor(*a, **k):  # torch.optim's step counters: torch.tensor(0.0) on the host
        with tracker.host():
            return orig_tensor(*a, **k)
    for step in range(1, steps + 1):
        s = {"start": tracker.cur}
        for micro in range(ga):
            tracker.phase("forward", step)
            with tracker.category("activations"):
                if amp:
                    with torch.autocast("cpu", dtype=cdt):
                        out = m(input_ids=ids, labels=ids)
                else:
                    out = m(input_ids=ids, labels=ids)
                loss = out.loss / ga if ga > 1 else out.loss
                del out
            s["fwd_alloc"] = tracker.cur
            tracker.phase("backward", step)
            tracker.in_backward = True
            with tracker.category("activations"):
                loss.backward()
            tracker.in_backward = False
            del loss
            for p in params:
                if p.grad is not None:
                    tracker.relabel(p.grad, "gradients")
            s["bwd_alloc"] = tracker.cur
        tracker.phase("optimizer", step)
        with tracker.category("optimizer_state"):
            if not fused_or_capt:
                torch.tensor = host_tensor
            tracker.dummy_scalars = True
            try:
                opt.step()
            finally:
                torch.tensor = orig_tensor
                tracker.dummy_scalars = False
        s["opt_alloc"] = tracker.cur
        tracker.phase("zero_grad", step)
        opt.zero_grad(set_to_none=True)
        s["end"] = tracker.cur
        per_step.append(s)
    for h in hooks:
        h.remove()
    res["steps"] = per_step
    res["layer_fwd_delta"] = [layer_info.get("layer_fwd_delta", {}).get(i) for i in
                              sorted(layer_info.get("layer_fwd_delta", {}))]
    last = per_step[-1]
    res["persistent_bytes"] = last["start"] - CUBLAS_WS  # measure.py subtracts its baseline (the main workspace)
    res["forward_saved_bytes"] = last["fwd_alloc"] - last["start"]
    del opt, params, ids


def run_inference(sc, m, tracker, res):
    x = sc["inference"]
    B, S, N = x["batch_size"], x["prompt_len"], x["decode_len"]
    vocab = m.config.get_text_config().vocab_size
    with torch.inference_mode():
        with tracker.category("other"):
            ids = torch.randint(0, vocab, (B, S), device="cpu")
        tracker.phase("prefill", 0)
        with tracker.category("activations"):
            out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
        past = out.past_key_values
        nxt = out.logits[:, -1:].argmax(-1)
        del out
        res["after_prefill_alloc"] = tracker.cur
        tracker.phase("decode", 0)
        with tracker.category("activations"):
            for _ in range(N):
                out = m(input_ids=nxt, past_key_values=past, use_cache=True)
                past = out.past_key_values
                nxt = out.logits[:, -1:].argmax(-1)
                del out
        res["after_decode_alloc"] = tracker.cur
        del past, nxt, ids


def run_scenario(sc, cfg_dir, steps, events_dir=None, prior_autograd_ws=False):
    t0 = time.time()
    cuda_rules.SDPA_LOG.clear()
    NOTES.clear()
    RESOLVED.clear()
    cfg = load_config(os.path.join(cfg_dir, sc["model"]["hf_config"]))
    rules = Rules()
    fm = FakeTensorMode(allow_non_fake_inputs=True)
    res = {}
    with fm:
        tracker = Tracker(on_op=rules)
        with tracker:
            tracker.alloc(CUBLAS_WS, "cuBLAS workspace (main thread, first matmul before the model)", "workspace")
            rules.threads_ws.add("main")
            if prior_autograd_ws:  # an earlier record of the measuring process made it: in the baseline
                rules.threads_ws.add("autograd")
            m = build_meta(sc, cfg)
            tracker.phase("model build", 0)
            materialize(m, tracker)
            # the base model's parameters, as measure.py counts them before peft wraps it
            res["params"] = sum(p.numel() for n, p in m.named_parameters() if "lora_" not in n)
            res["weights_bytes"] = tracker.cur - CUBLAS_WS
            if sc["mode"] == "training":
                run_training(sc, m, tracker, fm, steps, res)
            else:
                run_inference(sc, m, tracker, res)
            del m
            gc.collect()
    # per phase: the peak of the last step's phases
    phase_peaks = {}
    owners = {}
    last_step = max(p[1] for p in tracker.phases)
    peak, peak_phase = 0, None
    for (name, step, _, _), (pk, owner, _) in zip(tracker.phases, tracker.phase_peak):
        if pk > peak:
            peak, peak_phase = pk, name
        if step == last_step and name not in ("zero_grad",):
            if pk >= phase_peaks.get(name, 0):
                phase_peaks[name] = pk
                owners[name] = owner
    res["peak_allocated_bytes"] = peak
    res["peak_phase"] = peak_phase
    res["phase_peak_bytes"] = phase_peaks
    res["phase_peak_owner"] = owners
    res["phase_start_bytes"] = [[n, s, live] for n, s, _, live in tracker.phases]
    if sc["mode"] == "inference":
        res["prefill_peak_bytes"] = phase_peaks.get("prefill")
        res["kv_cache_bytes_after_decode"] = res["after_decode_alloc"] - res["weights_bytes"] - _ws(tracker)
    res["sdpa"] = sorted({json.dumps(x) for x in cuda_rules.SDPA_LOG})
    res["sdpa"] = [json.loads(x) for x in res["sdpa"]]
    res["notes"] = sorted(rules.notes) + NOTES
    res.update(RESOLVED)
    res["events"] = len(tracker.events)
    rp = replay(tracker)
    res["replay"] = {"peak_allocated_bytes": rp["peak_allocated_bytes"],
                     "peak_reserved_bytes": rp["peak_reserved_bytes"], "phases": rp["phases"]}
    res["wall_s"] = round(time.time() - t0, 1)
    if events_dir:
        os.makedirs(events_dir, exist_ok=True)
        with open(os.path.join(events_dir, sc["id"] + ".events.jsonl"), "w") as f:
            f.write(json.dumps({"phases": tracker.phases}) + "\n")
            for e in tracker.events:
                f.write(json.dumps(e) + "\n")
    return res


REPLAY_BIN = os.path.join(HERE, "..", "..", "build", "reference", "replay_events")


def replay(tracker):
    """The event list through src/memory/replay.c (replay_events.c, built here on
    first use against lib/libllmmem.a): allocated and reserved as the caching
    allocator counts them, per phase."""
    import subprocess
    root = os.path.join(HERE, "..", "..")
    if not os.path.exists(REPLAY_BIN):
        os.makedirs(os.path.dirname(REPLAY_BIN), exist_ok=True)
        subprocess.run(["cc", "-std=c11", "-O2", "-D_POSIX_C_SOURCE=200809L", "-I" + os.path.join(root, "include"),
                        "-I" + os.path.join(root, "src"), os.path.join(HERE, "replay_events.c"),
                        os.path.join(root, "lib", "libllmmem.a"), "-lcjson", "-lyaml", "-lm", "-o", REPLAY_BIN],
                       check=True)
    lines = []
    ph = 0
    starts = {p[2]: i for i, p in enumerate(tracker.phases)}
    for k, e in enumerate(tracker.events):
        while ph < len(tracker.phases) and tracker.phases[ph][2] <= k:
            lines.append(f"p {tracker.phases[ph][0].replace(' ', '_')}:{tracker.phases[ph][1]}")
            ph += 1
        lines.append(f"a {e[1]} {e[2]} {e[3]}" if e[0] == "a" else f"f {e[1]}")
    while ph < len(tracker.phases):
        lines.append(f"p {tracker.phases[ph][0].replace(' ', '_')}:{tracker.phases[ph][1]}")
        ph += 1
    del starts
    p = subprocess.run([REPLAY_BIN], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("replay_events: " + p.stderr[-500:])
    return json.loads(p.stdout)


def _ws(tracker):
    return sum(nb for nb, cat, _ in tracker.live.values() if cat == "workspace" and nb >= MiB)


ASSUMPTIONS = [
    "fake CPU tensors with CUDA's autocast lists and cast cache, SDPA backend rules (sm90) and kernel scratch "
    "(cuda_rules.py)",
    "fresh process: the main thread's 32 MiB cuBLAS workspace exists before the model; the autograd thread "
    "takes its own at its first matmul",
    "allocated bytes are requests rounded to 512 B; the allocator's whole-block handout of large "
    "splits (remainder <= 1 MiB) is the replay's, not counted here",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", nargs="?")
    ap.add_argument("--scenario")
    ap.add_argument("--only")
    ap.add_argument("--out")
    ap.add_argument("--events")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--configs", help="folder the scenarios' hf_config paths are relative to")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--one-process", action="store_true",
                    help="the set was measured in one process (measure.py): from the second training record "
                         "on, the autograd thread's cuBLAS workspace is in the baseline")
    a = ap.parse_args()
    cuda_rules.install_cuda_autocast()
    cuda_rules.install_cuda_sdpa()
    cuda_rules.install_real_tensor_answers()
    cuda_rules.install_cuda_dropout()
    install_host_random()
    if a.scenario:
        with open(a.scenario) as f:
            scs = [json.load(f)]
        base = a.configs or os.path.dirname(os.path.abspath(a.scenario))
    else:
        with open(a.set) as f:
            scs = [json.loads(l) for l in f if l.strip()]
        base = a.configs or os.path.dirname(os.path.abspath(a.set))
    only = set(a.only.split(",")) if a.only else None
    done = set()
    if a.out and os.path.exists(a.out):
        with open(a.out) as f:
            done = {json.loads(l)["id"] for l in f if l.strip()}
    first_train = next((s["id"] for s in scs if s.get("mode") == "training"), None)
    for sc in scs:
        if only and sc["id"] not in only or sc["id"] in done or sc["id"] == "env":
            continue
        if sc.get("measured", {}).get("oom"):
            continue
        if sc.get("not_run"):
            rec = {"id": sc["id"], "scenario": {k: v for k, v in sc.items() if k != "id"}, "not_run": sc["not_run"]}
            if a.out:
                with open(a.out, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            continue
        rec = {"id": sc["id"], "scenario": {k: v for k, v in sc.items() if k not in ("measured", "id")},
               "versions": versions(), "assumptions": ASSUMPTIONS}

        def on_alarm(*_):
            raise Timeout()
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(a.timeout)
        try:
            prior = a.one_process and sc.get("mode") == "training" and sc["id"] != first_train
            if prior:
                rec["assumptions"] = ASSUMPTIONS + ["one process: the autograd thread's cuBLAS workspace is in the "
                                                    "baseline (made by an earlier record)"]
            rec["harness"] = run_scenario(sc, base, a.steps, a.events, prior)
        except Timeout:
            rec["error"] = f"timeout after {a.timeout} s"
        except Exception as e:
            rec["error"] = repr(e)[:500]
            rec["traceback"] = traceback.format_exc()[-3000:]
        finally:
            signal.alarm(0)
        meas = sc.get("measured")
        if meas and "harness" in rec:
            cmp = {}
            for k in ("peak_allocated_bytes", "weights_bytes", "persistent_bytes", "forward_saved_bytes",
                      "prefill_peak_bytes", "kv_cache_bytes_after_decode"):
                if isinstance(meas.get(k), int) and isinstance(rec["harness"].get(k), int) and meas[k]:
                    cmp[k] = round(100.0 * (rec["harness"][k] - meas[k]) / meas[k], 3)
            rp = rec["harness"]["replay"]
            for k in ("peak_allocated_bytes", "peak_reserved_bytes"):
                if isinstance(meas.get(k), int) and meas[k]:
                    cmp["replay." + k] = round(100.0 * (rp[k] - meas[k]) / meas[k], 3)
            rec["error_pct"] = cmp
            rec["measured_peak_phase"] = meas.get("peak_phase")
        line = json.dumps(rec)
        if a.out:
            with open(a.out, "a") as f:
                f.write(line + "\n")
        h = rec.get("harness", {})
        print(sc["id"], "peak", h.get("peak_allocated_bytes"), h.get("peak_phase"), "err", rec.get("error_pct"),
              rec.get("error", ""), f"{h.get('wall_s')}s", flush=True)
        gc.collect()


if __name__ == "__main__":
    main()
