"""A user's script that reads result fields with their types: ``mypy --strict`` passes on it
(test/python/test_typing.py runs mypy on it, and runs it).

    PYTHONPATH=python python3 test/python/typed_script.py
"""

from typing import Dict, List

import llmmem


def gib(n: int) -> float:
    return n / 2**30


def training() -> List[str]:
    r: llmmem.Result = llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096,
                                       activation_checkpointing="full")
    peak: int = r.peak_allocated_bytes
    total: int = r.total_bytes_per_gpu
    capacity: int = r.gpu_memory_bytes
    headroom: int = r.headroom_bytes
    fits: bool = r.fits
    approximate: bool = r.approximate
    utilization: float = r.utilization
    phase: str = r.peak_phase
    dtypes: List[str] = [r.param_dtype, r.compute_dtype, r.master_dtype, r.grad_dtype,
                         r.optimizer_state_dtype]
    backward: llmmem.PhaseRecord = r.phases["backward"]
    by_component: Dict[str, int] = backward["components"]
    largest = max(by_component, key=lambda c: by_component[c])
    terms: List[llmmem.TermRecord] = r.terms
    explained: List[llmmem.ExplainRecord] = r.explain()
    lines = [
        "%s %s on %s: peak %.2f GiB (%s), total %.2f of %.2f GiB, %s, headroom %d bytes, "
        "utilization %.3f%s" % (r.model_type, r.mode, r.engine, gib(peak), phase, gib(total),
                                gib(capacity), "fits" if fits else "does not fit", headroom,
                                utilization, " (approximate)" if approximate else ""),
        "dtypes %s" % "/".join(dtypes),
        "backward %.2f GiB, largest component %s %.2f GiB (= %d bytes)" % (
            gib(backward["total"]), largest, gib(by_component[largest]),
            r.component_bytes("backward", largest)),
        "phases %s" % ", ".join("%s %.2f" % (name, gib(p["total"])) for name, p in r.phases.items()),
        "peak components %d bytes, phase bytes %d, stage 0 %d of %s" % (
            sum(r.components.values()), r.phase_bytes(phase), r.stage_peak_bytes(0), r.stages),
        "first term %s = %d bytes (%.3f GiB; %s)" % (terms[0]["name"], terms[0]["bytes"],
                                                    explained[0]["gib"], terms[0]["formula"]),
        "inputs %d, notes %d, params %d, trainable %d, active %d" % (
            len(r.inputs), len(r.notes), r.params, r.trainable_params, r.active_params),
    ]
    return lines


def serving() -> List[str]:
    r = llmmem.estimate("llama-3.1-8b", mode="inference", runtime="vllm", max_model_len=8192)
    tokens: int = r.kv_tokens
    concurrency: float = r.max_concurrency
    kv: int = r.kv_cache_bytes
    per_token: int = r.kv_bytes_per_token
    return ["vLLM: %d KV tokens (%d bytes, %d per token), %.2fx concurrency at 8192" % (
        tokens, kv, per_token, concurrency)]


def planning() -> List[str]:
    m = llmmem.Model.from_preset("llama-3.1-8b")
    c = llmmem.Config(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8)
    batch: int = llmmem.max_batch(m, c)
    p: llmmem.Plan = llmmem.plan(m, top_k=3, num_gpus=8)
    best: int = p.peak_bytes(0) if len(p) else 0
    return ["ZeRO-3 on 8 GPUs: micro-batch up to %d; plan: %d layouts, best peak %.2f GiB" % (
        batch, len(p), gib(best))]


def advice() -> List[str]:
    a: llmmem.Advice = llmmem.advise("llama-3.1-8b", gpu="H100-80GB", seq_len=8192)
    s: llmmem.Suggestion = a[0]
    fits: bool = s.fits
    total: int = s.total_bytes_per_gpu
    flags: str = s.flags
    keeps: bool = s.keeps_run
    return ["advice: %s (%s, %.2f GiB%s): llmmem estimate ... %s" % (
        s.change, "fits" if fits else "no fit", gib(total), "" if keeps else ", changes the run", flags)]


def main() -> None:
    for line in training() + serving() + planning() + advice():
        print(line)


if __name__ == "__main__":
    main()
