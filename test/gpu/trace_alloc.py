#!/usr/bin/env python3
"""Where an inference step's memory goes: replays the CUDA caching allocator's history
(torch.cuda.memory._record_memory_history) of a prefill and its decode steps, run as
test/gpu/measure_more.py runs them, and prints (1) the prefill's peak above the weights and
the blocks alive at that instant, grouped by the modeling-code line that allocated them, and
(2) the blocks allocated during the run that are still alive after decode (the KV cache and
whatever else stays). Used to trace the estimator's known gaps (known-gaps.txt).
    python3 test/gpu/trace_alloc.py CONFIG.json BATCH PROMPT DECODE [bf16|fp16|fp32] [sdpa|eager]"""
import collections
import sys

import torch
from transformers import AutoConfig, AutoModelForCausalLM

DT = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
MiB = 1 << 20


def where(frames):
    """The innermost frames in transformers' or the model's code, as 'file:line fn'."""
    out = []
    for f in frames:
        fn = f.get("filename", "")
        if any(k in fn for k in ("/transformers/", "/torch/nn/functional", "/peft/", "/torch/utils/checkpoint")):
            out.append("%s:%d %s" % (fn.rsplit("/", 1)[-1], f.get("line", 0), f.get("name", "")))
        if len(out) == 2:
            break
    return " < ".join(out) or "?"


def replay(events):
    """(peak bytes, blocks alive at the peak, blocks alive at the end): allocations as
    memory_allocated() counts them (a block leaves at free_requested)."""
    live, cur, peak, at_peak = {}, 0, 0, {}
    for e in events:
        act = e.get("action")
        if act == "alloc":
            live[e["addr"]] = (e["size"], e.get("frames", []))
            cur += e["size"]
            if cur > peak:
                peak, at_peak = cur, dict(live)
        elif act == "free_requested" and e["addr"] in live:
            cur -= live.pop(e["addr"])[0]
    return peak, at_peak, live


def show(title, blocks):
    groups = collections.defaultdict(lambda: [0, 0, set()])
    for size, frames in blocks.values():
        g = groups[where(frames)]
        g[0] += size
        g[1] += 1
        g[2].add(size)
    total = sum(g[0] for g in groups.values())
    print("%s: %.3f MiB in %d blocks" % (title, total / MiB, len(blocks)))
    for k, (size, n, sizes) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:30]:
        print("  %10.3f MiB %4d x %-28s %s" % (size / MiB, n, ",".join(str(s) for s in sorted(sizes)[:3]), k))


def main():
    path, B, S, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    dtype = DT[sys.argv[5] if len(sys.argv) > 5 else "bf16"]
    attn = sys.argv[6] if len(sys.argv) > 6 else "sdpa"
    dev = torch.device("cuda")
    a = torch.randn(1024, 1024, device=dev)
    b = a @ a
    del a, b
    torch.cuda.synchronize()
    with torch.device("cuda"):
        m = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(path), dtype=dtype,
                                             attn_implementation=attn)
    m.eval()
    ids = torch.randint(0, m.config.vocab_size, (B, S), device=dev)
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python",
                                             max_entries=500000)
    with torch.inference_mode():
        out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
        torch.cuda.synchronize()
        mark = len(torch.cuda.memory._snapshot()["device_traces"][0])
        past = out.past_key_values
        nxt = out.logits[:, -1:].argmax(-1)
        del out
        for _ in range(N):
            out = m(input_ids=nxt, past_key_values=past, use_cache=True)
            past = out.past_key_values
            nxt = out.logits[:, -1:].argmax(-1)
            del out
        torch.cuda.synchronize()
    events = torch.cuda.memory._snapshot()["device_traces"][0]
    torch.cuda.memory._record_memory_history(enabled=None)
    print("%s batch %d prompt %d decode %d: %d events (%d in the prefill)" % (path, B, S, N, len(events), mark))
    peak, at_peak, _ = replay(events[:mark])
    print("prefill peak above the weights and input ids: %d bytes (%.3f MiB)" % (peak, peak / MiB))
    show("alive at the prefill peak", at_peak)
    _, _, end = replay(events)
    show("alive after decode", end)
    del past, nxt


if __name__ == "__main__":
    main()
