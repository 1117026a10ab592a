#!/usr/bin/env python3
"""FSDP2 through the harness's tracker: a first probe, not yet a reference (issue 24, item 4).

usage: fsdp_probe.py WORLD_SIZE LAYERS   (llama-3.1-8b, MixedPrecisionPolicy bf16/fp32, full
       checkpointing, 1 x 4096, AdamW foreach: shared/groundtruth h100-fsdp-fakepg f01's recipe)

A fake process group (torch.testing._internal.distributed.fake_pg) and a CPU device mesh let
fully_shard run on fake CPU tensors; the model is built on meta, its tensors made fake (the
tracker counts them), then sharded per decoder layer and at the root. What it shows so far (world
8, 32 layers): the sharded parameters match f01's measured start of step (4.015e9 B), but the
step's peaks are 35% above the measurement (backward 29.9e9 vs 22.2e9 B): FSDP2's CPU path
(no CUDA streams, so all-gather outputs and reduce-scatter inputs are not released as on the GPU;
resharding) is not CUDA's, and is not put back yet. Not used by any committed row.
"""
import sys, os, torch, json, time
sys.path.insert(0, "/work/wt/harness/test/reference")
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
from torch.distributed.device_mesh import init_device_mesh
from torch._subclasses.fake_tensor import FakeTensorMode
import harness, cuda_rules
cuda_rules.install_cuda_autocast(); cuda_rules.install_cuda_sdpa(); cuda_rules.install_real_tensor_answers(); cuda_rules.install_cuda_dropout()
WS = int(sys.argv[1]); L = int(sys.argv[2])
dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=WS)
mesh = init_device_mesh("cpu", (WS,))
cfg = harness.load_config("/work/wt/harness/test/data/groundtruth/configs/llama-3.1-8b.json")
cfg.num_hidden_layers = L
from transformers import AutoModelForCausalLM
fm = FakeTensorMode(allow_non_fake_inputs=True)
tr = harness.Tracker(on_op=harness.Rules())
t0 = time.time()
with fm, tr:
    with torch.device("meta"):
        m = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32, attn_implementation="sdpa")
    harness.materialize(m, tr)
    print("full params", tr.cur)
    m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in m.model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp)
    fully_shard(m, mesh=mesh, mp_policy=mp)
    import gc; gc.collect()
    print("sharded", tr.cur, type(next(m.parameters())._local_tensor))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-5, foreach=True)
    ids = torch.randint(0, 1000, (1, 4096), device="cpu")
    for step in range(2):
        tr.phase("forward", step + 1)
        loss = m(input_ids=ids, labels=ids).loss
        tr.phase("backward", step + 1); tr.in_backward = True
        loss.backward(); tr.in_backward = False
        del loss
        tr.phase("optimizer", step + 1)
        opt.step(); opt.zero_grad(set_to_none=True)
print({p[0] + str(p[1]): pk[0] for p, pk in zip(tr.phases, tr.phase_peak)}, time.time() - t0)
