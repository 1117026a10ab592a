#!/usr/bin/env python3
"""Where a training step's memory goes: runs a probe scenario (examples/python/
llmmem_probe.py's model, optimizer and step, one GPU) for one step, then records the
CUDA caching allocator's history (torch.cuda.memory._record_memory_history) over a
second step and prints the peak above the step's start and the blocks alive at that
instant, grouped by the Python line that allocated them ("?" for the autograd engine's
own allocations in backward, which have no Python frame) and by size.
    python3 test/gpu/trace_train.py SCENARIO.json"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
sys.path.insert(0, HERE)
import llmmem_probe as probe  # noqa: E402
from trace_alloc import replay, where  # noqa: E402

MiB = 1 << 20


def main():
    sc, model, cfg = probe.load_scenario(sys.argv[1])
    spec = probe.run_spec(cfg, probe.hf_config_path(sc, sys.argv[1]))
    model.close()
    cfg.close()
    print(spec)
    import torch
    dev = torch.device("cuda")
    DT = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    a = torch.randn(1024, 1024, device=dev)
    b = a @ a
    del a, b
    torch.cuda.synchronize()
    prec = spec["precision"]
    amp = prec.startswith("amp_")
    m, hcfg, _ = probe._build(torch, spec, torch.float32 if amp else DT[prec])
    m.config.use_cache = False
    m, params = probe.prepare_training(m, spec)
    opt = probe._optimizer(torch, spec["optimizer"], params)
    ids = torch.randint(0, hcfg.vocab_size, (spec["batch"], spec["seq"]), device=dev)
    ctx = torch.autocast("cuda", dtype=torch.bfloat16 if prec == "amp_bf16" else torch.float16) if amp else None

    def step():
        if ctx is not None:
            with ctx:
                out = m(input_ids=ids, labels=ids)
        else:
            out = m(input_ids=ids, labels=ids)
        loss = out.loss
        del out
        torch.cuda.synchronize()
        mark = len(torch.cuda.memory._snapshot()["device_traces"][0]) if recording[0] else 0
        loss.backward()
        del loss
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        return mark

    recording = [False]
    step()
    start = torch.cuda.memory_allocated()
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python",
                                             max_entries=2000000)
    recording[0] = True
    fwd_end = step()
    events = torch.cuda.memory._snapshot()["device_traces"][0]
    torch.cuda.memory._record_memory_history(enabled=None)
    print("%s: %d events, backward from event %d; allocated at the step's start %d" %
          (sys.argv[1], len(events), fwd_end, start))
    for name, evs in (("forward", events[:fwd_end]), ("whole step", events)):
        peak, at_peak, _ = replay(evs)
        print("%s peak above the start: %d bytes (%.3f MiB)" % (name, peak, peak / MiB))
        groups = collections.defaultdict(lambda: [0, 0, collections.Counter()])
        for size, frames in at_peak.values():
            g = groups[where(frames)]
            g[0] += size
            g[1] += 1
            g[2][size] += 1
        for k, (size, n, sizes) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:40]:
            top = ", ".join("%dx%d" % (c, s) for s, c in sizes.most_common(4))
            print("  %10.3f MiB %5d  %-60s %s" % (size / MiB, n, top[:60], k))


if __name__ == "__main__":
    main()
