#!/usr/bin/env python3
"""Empirical probe: measured vs estimated GPU memory for one scenario, and calibration fits.

    llmmem_probe.py SCENARIO.json [--set NAME=VALUE ...] [--steps 3] [--out RECORDS.jsonl]
                    [--id ID] [--json] [--estimate-only]
    llmmem_probe.py --fit RECORDS.jsonl [...] --output PROFILE.json [--components a,b,...]
                    [--ridge 0.05]

Probe mode builds the scenario's model with transformers from its config.json (random
weights, nothing downloaded), runs a few real training steps (or a prefill and decode
steps) with PyTorch on the GPU, and prints measured against estimated bytes per phase and
for the components a measurement can isolate (weights, optimizer state, what autograd
saves, the KV cache), the estimate coming from libllmmem through the Python binding (the
package llmmem; examples/python/llmmem.py loads it). With --out it appends a record in the
format of the dev set (test/data/groundtruth/h200-dev.jsonl: a scenario with a "measured"
object) so the measurement can join the test data; `llmmem estimate --scenario` loads it as
it is.

The measurement is the one of ../shared/groundtruth/measure.py and test/gpu/measure_more.py:
the model is built on the GPU after a first matmul has created the cuBLAS workspace; byte
counts are torch.cuda.memory_allocated() / max_memory_allocated() minus the allocation at the
scenario's start, and peaks add the 32 MiB cuBLAS workspace allocated before the model
(WORKSPACE below); peak_reserved_bytes is torch.cuda.max_memory_reserved(). The peak counter
is also read (and reset) at each phase boundary, which gives the per-phase peaks
(measured.phase_peak_bytes) without changing the overall peak, the maximum of them.

Without torch, transformers or a CUDA device the measurement is skipped with a message
(exit status 0) after the estimate is printed; nothing is written.

Fit mode reads probe records (or the dev set's) and writes a calibration profile
(docs/calibration.md) for llmmem_config_apply_calibration_json / llmmem estimate
--calibration: scale factors for the named components, the allocator headroom and the CUDA
context, fitted by ridge-regularised least squares of relative errors, then checked by
estimating every record again with the profile applied. It needs no GPU.
"""

import argparse
import json
import os
import statistics
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import llmmem  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
WORKSPACE = 32 * MiB  # cuBLAS workspace allocated before the model (groundtruth/README.md)

# Components a calibration fits by default: those the estimator models from activation
# shapes and kernel choices. Weights, gradients and optimizer state are exact byte counts
# (parameters x dtype), so scaling them would only hide other errors.
DEFAULT_FIT_COMPONENTS = ("activations", "activation_transient", "logits", "optimizer_transient",
                          "autocast_cache", "kv_cache")

# The optimizers measure.py knows, by (optimizer, optimizer_impl) of the configuration.
_OPTIMIZERS = {("adamw", "foreach"): "adamw", ("adamw", "fused"): "adamw_fused",
               ("adamw", "forloop"): "adamw_foreach_off", ("sgd", "foreach"): "sgd",
               ("sgd_momentum", "foreach"): "sgd_momentum", ("adafactor", "foreach"): "adafactor"}


class Unsupported(Exception):
    """The scenario asks for something this probe cannot run on one GPU with transformers."""


# ---- scenario -> what to run -----------------------------------------------------------------

def load_scenario(path, overrides=()):
    """(scenario dict, llmmem.Model, llmmem.Config) of a scenario file with --set overrides."""
    with open(path, encoding="utf-8") as f:
        sc = json.load(f)
    model, cfg = llmmem.scenario_from_file(path)
    for item in overrides:
        name, sep, value = item.partition("=")
        if not sep:
            model.close()
            cfg.close()
            raise ValueError("--set %r: expected NAME=VALUE" % item)
        cfg.set(name.strip(), value.strip())
    return sc, model, cfg


def hf_config_path(sc, scenario_path):
    """Absolute path of the scenario's model config.json (the probe builds the model from it)."""
    m = sc.get("model")
    if not isinstance(m, dict) or "hf_config" not in m:
        raise Unsupported("the probe builds the model with transformers from a config.json: the "
                          "scenario's model must be {\"hf_config\": PATH} (presets and raw numbers "
                          "have no transformers class)")
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(scenario_path)), m["hf_config"]))


def run_spec(cfg, hf_path):
    """What to run, from the configuration (after the scenario and --set). Raises Unsupported."""
    c = cfg.to_dict()
    problems = []
    if c["engine"] != "single":
        problems.append("engine %s (the probe runs one process on one GPU: engine single)" % c["engine"])
    for k in ("data_parallel_size", "tensor_parallel_size", "pipeline_parallel_size",
              "context_parallel_size", "expert_parallel_size"):
        if c[k] != 1:
            problems.append("%s %d (one GPU only)" % (k, c[k]))
    if c["num_gpus"] > 1:
        problems.append("num_gpus %d (one GPU only)" % c["num_gpus"])
    if c["qlora"] != "none":
        problems.append("qlora %s (bitsandbytes is not measured here)" % c["qlora"])
    if c["attention"] not in ("sdpa", "eager"):
        problems.append("attention %s (sdpa or eager)" % c["attention"])
    if c["fp8_recipe"] != "none":
        problems.append("fp8_recipe %s" % c["fp8_recipe"])
    spec = {"mode": c["mode"], "hf_config": hf_path, "attention": c["attention"]}
    if c["mode"] == "training":
        pd, cd = c["param_dtype"], c["compute_dtype"]
        cd = pd if cd == "auto" else cd
        if pd not in ("fp32", "bf16", "fp16"):
            problems.append("param_dtype %s" % pd)
        if cd != pd and not (pd == "fp32" and cd in ("bf16", "fp16")):
            problems.append("param_dtype %s with compute_dtype %s (autocast runs fp32 weights)" % (pd, cd))
        if c["master_weights"] is True:  # "auto": the single engine keeps none
            problems.append("master_weights (plain PyTorch keeps none)")
        opt = _OPTIMIZERS.get((c["optimizer"], c["optimizer_impl"]))
        if opt is None:
            problems.append("optimizer %s/%s (adamw foreach/fused/forloop, sgd, sgd_momentum, adafactor)"
                            % (c["optimizer"], c["optimizer_impl"]))
        if c["activation_checkpointing"] not in ("none", "full"):
            problems.append("activation_checkpointing %s (none or full: HF gradient checkpointing)"
                            % c["activation_checkpointing"])
        if c["loss"] != "hf":
            problems.append("loss %s (HF's causal-LM loss only)" % c["loss"])
        spec.update(precision=pd if cd == pd else "amp_" + cd, optimizer=opt,
                    grad_ckpt=c["activation_checkpointing"] == "full", batch=c["micro_batch_size"],
                    seq=c["seq_len"], grad_accum=c["gradient_accumulation_steps"], lora=None)
        if c["lora_rank"] > 0:
            targets = [t.strip() for t in c["lora_targets"].split(",") if t.strip()]
            spec["lora"] = {"r": c["lora_rank"], "alpha": c["lora_alpha"],
                            "targets": "all-linear" if targets == ["all-linear"] else targets}
    else:
        if c["runtime"] != "hf":
            problems.append("runtime %s (HF generate-style prefill and decode only)" % c["runtime"])
        wf = c["weights_format"]
        dtype = c["param_dtype"] if wf == "auto" else wf
        if dtype not in ("fp32", "bf16", "fp16"):
            problems.append("weights %s" % dtype)
        kv = c["kv_cache_dtype"]
        if kv not in ("auto", dtype):
            problems.append("kv_cache_dtype %s (HF's dynamic cache keeps the model dtype)" % kv)
        spec.update(precision=dtype, batch=c["batch_size"], prompt=c["prompt_len"], decode=c["decode_len"])
    if problems:
        raise Unsupported("; ".join(problems))
    return spec


def scenario_record(spec, rid, out_dir, gpu_name=None, gpu_gib=None):
    """The scenario part of a dev-format record (no "measured" yet); hf_config relative to out_dir."""
    rec = {"id": rid,
           "model": {"hf_config": os.path.relpath(spec["hf_config"], out_dir or ".")},
           "mode": spec["mode"]}
    if spec["mode"] == "training":
        prec = spec["precision"]
        pd = "fp32" if prec.startswith("amp_") else prec
        cd = prec[4:] if prec.startswith("amp_") else prec
        rec["training"] = {"micro_batch_size": spec["batch"], "seq_len": spec["seq"], "param_dtype": pd,
                           "compute_dtype": cd, "optimizer": spec["optimizer"], "attention": spec["attention"],
                           "activation_checkpointing": "full" if spec["grad_ckpt"] else "none"}
        if spec["grad_accum"] != 1:
            rec["training"]["gradient_accumulation_steps"] = spec["grad_accum"]
        if spec["lora"]:
            lo = spec["lora"]
            rec["lora"] = {"rank": lo["r"], "alpha": lo["alpha"], "target_modules": lo["targets"]}
    else:
        rec["inference"] = {"batch_size": spec["batch"], "prompt_len": spec["prompt"],
                            "decode_len": spec["decode"], "weights_dtype": spec["precision"],
                            "kv_cache_dtype": spec["precision"], "attention": spec["attention"]}
    rec["engine"] = {"type": "single"}
    hw = {}
    if gpu_name:
        hw["gpu"] = gpu_name
    if gpu_gib:
        hw["gpu_memory_gib"] = gpu_gib
    if hw:
        rec["hardware"] = hw
    return rec


def library_gpu_name(device_name, total_bytes):
    """The GPU table's name for a CUDA device name ("NVIDIA H200" -> "H200"), or None."""
    name = device_name[7:] if device_name.startswith("NVIDIA ") else device_name
    gib = round(total_bytes / GiB, 1)
    text = json.dumps({"model": next(iter(llmmem.presets())),  # any model: only the GPU is read
                       "hardware": {"gpu": name, "gpu_memory_gib": gib}})
    try:
        m, c = llmmem.scenario_from_json(text)
    except llmmem.Error:
        return None
    with m, c:
        return c["gpu"]


# ---- the measurement (GPU) -----------------------------------------------------------------------

def gpu_unavailable():
    """None when torch, transformers and a CUDA device are there, else why not."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    try:
        import transformers  # noqa: F401
    except ImportError:
        return "transformers is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device (torch.cuda.is_available() is False)"
    return None


class _Meter:
    """Allocator counters relative to the scenario's start, as measure.py reads them."""

    def __init__(self, torch):
        self.t = torch
        self.base = torch.cuda.memory_allocated()
        self.reserved = 0

    def alloc(self):
        return self.t.cuda.memory_allocated() - self.base

    def peak_and_reset(self):
        """Peak since the last reset, above the start, plus the workspace; then reset."""
        t = self.t
        t.cuda.synchronize()
        p = t.cuda.max_memory_allocated() - self.base + WORKSPACE
        self.reserved = max(self.reserved, t.cuda.max_memory_reserved())
        t.cuda.reset_peak_memory_stats()
        return p


def _build(torch, spec, dtype):
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM
    try:
        cfg = AutoConfig.from_pretrained(spec["hf_config"])
    except Exception:  # older transformers: a file path is not a pretrained name
        with open(spec["hf_config"], encoding="utf-8") as f:
            d = json.load(f)
        cfg = AutoConfig.for_model(d.pop("model_type"), **d)
    with torch.device("cuda"):
        try:
            m = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=spec["attention"])
        except TypeError:
            m = AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype, attn_implementation=spec["attention"])
    return m, cfg, transformers.__version__


def _optimizer(torch, name, params):
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5)
    if name == "adamw_fused":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "adamw_foreach_off":
        return torch.optim.AdamW(params, lr=1e-5, foreach=False)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5)
    if name == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, scale_parameter=True, relative_step=True, warmup_init=False, lr=None)
    raise Unsupported("optimizer %s" % name)


def measure(spec, steps=3):
    """Runs the scenario on the GPU; returns the "measured" object of a record."""
    import gc
    import torch
    dev = torch.device("cuda")
    DT = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    env = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "steps": steps}
    free0, total = torch.cuda.mem_get_info()
    a = torch.randn(1024, 1024, device=dev)  # creates the cuBLAS workspace, as measure.py
    b = a @ a
    torch.cuda.synchronize()
    free1, _ = torch.cuda.mem_get_info()
    env["used_before_alloc"] = total - free0
    env["used_after_first_matmul"] = total - free1
    context = (total - free1) - torch.cuda.memory_reserved()
    del a, b
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    env["allocated_baseline"] = torch.cuda.memory_allocated()
    env["total_memory"] = total
    meter = _Meter(torch)
    meas = {}
    t0 = time.time()
    try:
        if spec["mode"] == "training":
            meas.update(_measure_train(torch, dev, spec, steps, meter, DT, env))
        else:
            meas.update(_measure_infer(torch, dev, spec, meter, DT, env))
        meas["oom"] = False
    except torch.cuda.OutOfMemoryError as e:
        meas = {"oom": True, "error": str(e)[:300]}
    env["wall_s"] = round(time.time() - t0, 2)
    meas["cuda_context_bytes"] = context
    meas["probe"] = env
    gc.collect()
    torch.cuda.empty_cache()
    return meas


def prepare_training(m, spec, env=None):
    """(model, trainable parameters): peft's LoRA wrapper when the spec has one, HF
    gradient checkpointing (non-reentrant) when asked, train mode."""
    if spec["lora"]:
        from peft import LoraConfig, get_peft_model
        import peft
        if env is not None:
            env["peft"] = peft.__version__
        lo = spec["lora"]
        m = get_peft_model(m, LoraConfig(r=lo["r"], lora_alpha=lo["alpha"], lora_dropout=0.0,
                                         target_modules=lo["targets"], bias="none", task_type="CAUSAL_LM"))
    if spec["grad_ckpt"]:
        m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    m.train()
    return m, [p for p in m.parameters() if p.requires_grad]


def _measure_train(torch, dev, spec, steps, meter, DT, env):
    prec = spec["precision"]
    amp = prec.startswith("amp_")
    m, cfg, env["transformers"] = _build(torch, spec, torch.float32 if amp else DT[prec])
    m.config.use_cache = False
    meas = {"params": sum(p.numel() for p in m.parameters()), "weights_bytes": meter.alloc()}
    m, params = prepare_training(m, spec, env)
    meas["trainable_params"] = sum(p.numel() for p in params)
    opt = _optimizer(torch, spec["optimizer"], params)
    ids = torch.randint(0, cfg.vocab_size, (spec["batch"], spec["seq"]), device=dev)
    phase_peak = {"forward": 0, "backward": 0, "optimizer": 0}
    peak, last = 0, {}
    ctx = torch.autocast("cuda", dtype=torch.bfloat16 if prec == "amp_bf16" else torch.float16) if amp else None
    meter.peak_and_reset()
    for step in range(steps):
        start = meter.alloc()
        meter.peak_and_reset()
        fwd_alloc = None
        p = {"forward": 0, "backward": 0}
        for _ in range(spec["grad_accum"]):
            if ctx is not None:
                with ctx:
                    out = m(input_ids=ids, labels=ids)
            else:
                out = m(input_ids=ids, labels=ids)
            loss = out.loss / spec["grad_accum"]
            del out
            if fwd_alloc is None:
                fwd_alloc = meter.alloc()
            p["forward"] = max(p["forward"], meter.peak_and_reset())
            loss.backward()
            del loss
            p["backward"] = max(p["backward"], meter.peak_and_reset())
        opt.step()
        p["optimizer"] = meter.peak_and_reset()
        opt.zero_grad(set_to_none=True)
        for k in phase_peak:
            phase_peak[k] = max(phase_peak[k], p[k])
        step_peak = max(p.values())
        peak = max(peak, step_peak)
        if step == steps - 1:
            last = {"persistent_bytes": start, "forward_saved_bytes": fwd_alloc - start,
                    "peak_phase": max(("forward", "backward", "optimizer"), key=lambda k: p[k])}
    meas.update(last)
    meas["peak_allocated_bytes"] = peak
    meas["peak_reserved_bytes"] = meter.reserved
    meas["phase_peak_bytes"] = phase_peak
    del m, opt, params, ids
    return meas


def _measure_infer(torch, dev, spec, meter, DT, env):
    with torch.inference_mode():
        m, cfg, env["transformers"] = _build(torch, spec, DT[spec["precision"]])
        m.eval()
        meas = {"params": sum(p.numel() for p in m.parameters()), "weights_bytes": meter.alloc()}
        ids = torch.randint(0, cfg.vocab_size, (spec["batch"], spec["prompt"]), device=dev)
        meter.peak_and_reset()
        try:
            out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
        except TypeError:
            out = m(input_ids=ids, use_cache=True)
        prefill = meter.peak_and_reset()
        past = out.past_key_values
        nxt = out.logits[:, -1:].argmax(-1)
        del out
        for _ in range(spec["decode"]):
            out = m(input_ids=nxt, past_key_values=past, use_cache=True)
            past = out.past_key_values
            nxt = out.logits[:, -1:].argmax(-1)
            del out
        decode = meter.peak_and_reset()
        meas["kv_cache_bytes_after_decode"] = meter.alloc() - meas["weights_bytes"]
        meas["prefill_peak_bytes"] = prefill
        meas["peak_allocated_bytes"] = max(prefill, decode)
        meas["peak_reserved_bytes"] = meter.reserved
        meas["phase_peak_bytes"] = {"prefill": prefill, "decode": decode}
        del m, past, nxt, ids
    return meas


# ---- measured against estimated ---------------------------------------------------------------------

def comparison(est, meas):
    """Rows (what, measured bytes or None, estimated bytes) for the quantities a measurement
    can isolate: the phase peaks, the overall peaks, and the components named in the text.
    The measured weights are the model's before peft wraps it (as measure.py reads them), so
    the estimate's LoRA adapters (fp32: peft upcasts them for a 16-bit base) are left out of
    that row; the allocation between steps also holds the autograd thread's cuBLAS
    workspace (created at the first backward), which the estimate keeps out of
    persistent_bytes and is added to it here."""
    comp = lambda ph, *ks: sum(est["phases"].get(ph, {}).get("components", {}).get(k, 0) for k in ks)
    term = lambda name: next((t["bytes"] for t in est.get("terms", []) if t["name"] == name), 0)
    rows = []
    pp = meas.get("phase_peak_bytes", {})
    for ph, v in est["phases"].items():
        rows.append(("phase %s peak" % ph, pp.get(ph), v["total"]))
    rows.append(("peak allocated", meas.get("peak_allocated_bytes"), est["peak_allocated_bytes"]))
    rows.append(("peak reserved", meas.get("peak_reserved_bytes"), est["peak_reserved_bytes"]))
    if est["mode"] == "training":
        adapters = 4 * est["trainable_params"] if est["trainable_params"] < est["params"] else 0
        rows.append(("weights (before adapters)" if adapters else "weights (component)",
                     meas.get("weights_bytes"), est["weights_bytes"] - adapters))
        w, p = meas.get("weights_bytes"), meas.get("persistent_bytes")
        first = next(iter(est["phases"]))
        ws = term("cublas_workspace")
        rows.append(("state, adapters, autograd workspace (between steps)",
                     p - w if p is not None and w is not None else None,
                     comp(first, "optimizer_state", "master_weights") + adapters + ws))
        rows.append(("persistent between steps (+ autograd workspace)", p, est["persistent_bytes"] + ws))
        rows.append(("saved for backward + loss (activations, logits)", meas.get("forward_saved_bytes"),
                     est["forward_saved_bytes"]))
    else:
        rows.append(("weights (component)", meas.get("weights_bytes"), est["weights_bytes"]))
        rows.append(("KV cache after decode (component)", meas.get("kv_cache_bytes_after_decode"),
                     est["kv_cache_bytes"]))
    rows.append(("CUDA context (outside the allocator)", meas.get("cuda_context_bytes"), est["cuda_context_bytes"]))
    return rows


def print_comparison(rows, est, out=None):
    out = out or sys.stdout
    out.write("%-50s %14s %14s %9s\n" % ("", "measured GiB", "estimated GiB", "error"))
    for name, m, e in rows:
        ms = "%14.3f" % (m / GiB) if m is not None else "%14s" % "-"
        err = "%+8.1f%%" % (100.0 * (e - m) / m) if m else "%9s" % ""
        out.write("%-50s %s %14.3f %s\n" % (name, ms, e / GiB, err))
    ph = est["peak_phase"]
    out.write("\nestimated components of the peak phase (%s):\n" % ph)
    for k, v in est["phases"][ph]["components"].items():
        if v:
            out.write("  %-24s %12.3f GiB\n" % (k, v / GiB))


# ---- calibration fit ----------------------------------------------------------------------------------

def read_records(paths):
    """[(label, record, base_dir)] of every line with a "measured" object."""
    out = []
    for path in paths:
        base = os.path.dirname(os.path.abspath(path))
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                if isinstance(rec.get("measured"), dict):
                    out.append(("%s#%s" % (os.path.basename(path), rec.get("id", n)), rec, base))
    return out


def _estimate_record(rec, base, profile=None):
    text = json.dumps(rec)
    m, c = llmmem.scenario_from_json(text, base)
    with m, c:
        if profile is not None:
            c.apply_calibration(profile)
        with llmmem.estimate(m, c) as r:
            return r.to_dict()


def _observations(est, meas):
    """[(phase, measured bytes)] that constrain the phase totals of an estimate."""
    pp = meas.get("phase_peak_bytes")
    if isinstance(pp, dict) and pp:
        return [(ph, v) for ph, v in pp.items() if ph in est["phases"] and v]
    obs = [(est["peak_phase"], meas["peak_allocated_bytes"])]
    if meas.get("prefill_peak_bytes") and "prefill" in est["phases"] and est["peak_phase"] != "prefill":
        obs.append(("prefill", meas["prefill_peak_bytes"]))
    return obs


def _solve(a, b):
    """Solves a x = b (a small, symmetric positive definite) by Gaussian elimination."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-300:
            raise ValueError("singular system")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(paths, components=DEFAULT_FIT_COMPONENTS, ridge=0.05, log=None):
    """Fits a calibration profile to the records of @p paths. Returns (profile, report)."""
    usable, skipped = [], []
    for label, rec, base in read_records(paths):
        meas = rec["measured"]
        if meas.get("oom") or meas.get("error") or not meas.get("peak_allocated_bytes"):
            skipped.append((label, "no peak (oom or error)"))
            continue
        try:
            est = _estimate_record(rec, base)
        except llmmem.Error as e:
            skipped.append((label, str(e)))
            continue
        usable.append((label, rec, base, est))
    if not usable:
        raise ValueError("no usable record in %s" % ", ".join(paths))
    # Linear model of a phase total: sum_k s_k x_k (k fitted) + the other components.
    rows = []
    for label, rec, base, est in usable:
        for ph, y in _observations(est, rec["measured"]):
            cs = est["phases"][ph]["components"]
            rows.append(([cs.get(k, 0) for k in components],
                         sum(v for k, v in cs.items() if k not in components), float(y)))
    active = [i for i, k in enumerate(components) if any(r[0][i] for r in rows)]
    n = len(active)
    scales = {k: 1.0 for k in components}
    if n:
        lam = ridge * len(rows)
        ata = [[0.0] * n for _ in range(n)]
        atb = [0.0] * n
        for x, rest, y in rows:
            w = 1.0 / (y * y)  # relative errors
            for i, ai in enumerate(active):
                atb[i] += w * x[ai] * (y - rest)
                for j, aj in enumerate(active):
                    ata[i][j] += w * x[ai] * x[aj]
        for i in range(n):
            ata[i][i] += lam
            atb[i] += lam  # pulls each scale towards 1.0, the identity
        sol = _solve(ata, atb)
        for i, ai in enumerate(active):
            scales[components[ai]] = min(20.0, max(0.05, sol[i]))
    profile = {"components": {k: round(v, 4) for k, v in scales.items() if k in [components[i] for i in active]}}
    # Allocator headroom: reserved - allocated, measured against estimated (with the scales).
    num = den = 0.0
    for label, rec, base, est in usable:
        meas = rec["measured"]
        if not meas.get("peak_reserved_bytes"):
            continue
        e = _estimate_record(rec, base, json.dumps(profile))
        eh = e["peak_reserved_bytes"] - e["peak_allocated_bytes"]
        mh = meas["peak_reserved_bytes"] - meas["peak_allocated_bytes"]
        num += eh * mh
        den += eh * eh
    if den > 0:
        profile["reserved_headroom"] = round(min(100.0, max(0.0, num / den)), 4)
    ctx = [r[1]["measured"]["cuda_context_bytes"] for r in usable
           if isinstance(r[1]["measured"].get("cuda_context_bytes"), int) and r[1]["measured"]["cuda_context_bytes"] > 0]
    if ctx:
        profile["cuda_context_bytes"] = int(statistics.median(ctx))
    # Check: every record estimated again with the profile, through the library.
    report = []
    for label, rec, base, est in usable:
        after = _estimate_record(rec, base, json.dumps(profile))
        y = rec["measured"]["peak_allocated_bytes"]
        report.append((label, y, est["peak_allocated_bytes"], after["peak_allocated_bytes"]))
    before_err = statistics.mean(abs(b - y) / y for _, y, b, _ in report)
    after_err = statistics.mean(abs(a - y) / y for _, y, _, a in report)
    profile = dict({"description": "fitted by llmmem_probe.py --fit from %d records (%d phase observations): "
                                   "mean |peak allocated error| %.2f%% before, %.2f%% after (on the same records)"
                                   % (len(usable), len(rows), 100 * before_err, 100 * after_err)},
                   **profile)
    profile["records"] = len(usable)
    profile["fitted_from"] = [r[0] for r in usable]
    return profile, {"rows": report, "skipped": skipped, "before": before_err, "after": after_err}


# ---- command line ---------------------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        prog="llmmem_probe.py",
        description="Measured vs estimated GPU memory of a scenario (needs torch, transformers and a CUDA "
                    "GPU for the measurement), or --fit: a calibration profile from probe records.")
    ap.add_argument("scenario", nargs="?", help="scenario JSON (docs/config-format.md); its model must be hf_config")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a parameter (llmmem params), e.g. --set micro_batch_size=8")
    ap.add_argument("--steps", type=int, default=3, help="training steps to run (default 3, as measure.py)")
    ap.add_argument("--out", help="append the record (dev-set format) to this JSON-lines file")
    ap.add_argument("--id", help="record id (default: the scenario's id, else probe-<time>)")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    ap.add_argument("--estimate-only", action="store_true", help="do not measure: print the estimate side")
    ap.add_argument("--fit", nargs="+", metavar="RECORDS", help="fit a calibration profile to these record files")
    ap.add_argument("--output", help="--fit: write the profile here (default: standard output)")
    ap.add_argument("--components", default=",".join(DEFAULT_FIT_COMPONENTS),
                    help="--fit: components to scale (default %(default)s)")
    ap.add_argument("--ridge", type=float, default=0.05,
                    help="--fit: pull of every scale towards 1.0 (default %(default)s)")
    a = ap.parse_args(argv)
    if a.fit and a.scenario:
        ap.error("give a scenario or --fit, not both")
    if not a.fit and not a.scenario:
        ap.error("give a scenario file, or --fit RECORDS")
    if a.steps < 1:
        ap.error("--steps must be at least 1")
    if a.ridge < 0:
        ap.error("--ridge must not be negative")
    comps = [c.strip() for c in a.components.split(",") if c.strip()]
    known = llmmem.component_names()
    bad = [c for c in comps if c not in known]
    if bad:
        ap.error("--components: unknown %s (known: %s)" % (", ".join(bad), ", ".join(known)))
    a.components = tuple(comps)
    return a


def main_fit(a):
    profile, rep = fit(a.fit, a.components, a.ridge)
    text = json.dumps(profile, indent=2) + "\n"
    with llmmem.Config() as c:  # the library must accept what we write
        c.apply_calibration(text)
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    err = sys.stderr if not a.output else sys.stdout
    for label, why in rep["skipped"]:
        err.write("skipped %s: %s\n" % (label, why))
    err.write("%-36s %12s %12s %12s\n" % ("record", "measured", "identity", "calibrated"))
    for label, y, b, af in rep["rows"]:
        err.write("%-36s %12.3f %+11.1f%% %+11.1f%%\n" % (label, y / GiB, 100 * (b - y) / y, 100 * (af - y) / y))
    err.write("mean |error| of peak allocated: %.2f%% with the identity, %.2f%% with the profile "
              "(in-sample: judge it on records left out)\n" % (100 * rep["before"], 100 * rep["after"]))
    return 0


def main_probe(a):
    try:
        sc, model, cfg = load_scenario(a.scenario, a.set)
    except (llmmem.Error, ValueError, OSError) as e:
        sys.stderr.write("llmmem_probe: %s\n" % e)
        return 2
    with model, cfg, llmmem.estimate(model, cfg) as r:
        est = r.to_dict()
        try:
            spec = run_spec(cfg, hf_config_path(sc, a.scenario))
        except Unsupported as e:
            spec, unsupported = None, str(e)
        else:
            unsupported = None
    why = unsupported or ("--estimate-only" if a.estimate_only else gpu_unavailable())
    if why:
        rows = comparison(est, {})
        if a.json:
            print(json.dumps({"estimate": est, "measured": None, "skipped": why}))
        else:
            print_comparison(rows, est)
            print("\nmeasurement skipped: %s" % why)
        return 0 if not unsupported else 3
    meas = measure(spec, a.steps)
    if meas.get("oom"):
        print("out of memory on the GPU: %s" % meas.get("error", ""))
    rows = comparison(est, meas)
    out_dir = os.path.dirname(os.path.abspath(a.out)) if a.out else os.getcwd()
    total = meas["probe"]["total_memory"]
    rid = a.id or sc.get("id") or time.strftime("probe-%Y%m%d-%H%M%S")
    rec = scenario_record(spec, rid, out_dir, library_gpu_name(meas["probe"]["gpu"], total),
                          round(total / GiB, 1))
    rec["measured"] = meas
    if a.json:
        print(json.dumps({"estimate": est, "measured": meas, "record": rec,
                          "rows": [{"what": w, "measured": m, "estimated": e} for w, m, e in rows]}))
    else:
        print_comparison(rows, est)
    if a.out:
        llmmem.scenario_from_json(json.dumps(rec), out_dir)  # loads as a scenario, or raises
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
        if not a.json:
            print("\nrecord %s appended to %s" % (rid, a.out))
    return 0


def main(argv=None):
    a = parse_args(argv)
    try:
        return main_fit(a) if a.fit else main_probe(a)
    except (llmmem.Error, ValueError, OSError) as e:
        sys.stderr.write("llmmem_probe: %s\n" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
