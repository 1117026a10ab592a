#!/usr/bin/env python3
"""Golden snapshot of the estimator's numbers, for refactors that must not move them.

usage: snapshot.py [--cli examples/llmmem] > snapshot.txt

Runs the CLI over a wide matrix (every preset under several configurations and engines,
every scenario and measured record of test/data and ../shared/groundtruth, every published
config.json) and prints one block per case: the command and its --json output (or its error
line and exit status). Two snapshots of a pure refactor must be identical
(`diff old.txt new.txt`)."""
import argparse, glob, json, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--cli", default="examples/llmmem")
ap.add_argument("--quick", action="store_true", help="a smaller matrix")
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)

CONFIGS = [
    [],
    ["--micro-batch-size", "2", "--seq-len", "2048", "--activation-checkpointing", "full"],
    ["--lora-rank", "16", "--lora-targets", "all-linear", "--param-dtype", "bf16", "--compute-dtype", "bf16"],
    ["--qlora", "nf4", "--lora-rank", "8", "--seq-len", "1024"],
    ["--optimizer", "adafactor", "--attention", "eager", "--param-dtype", "fp32", "--compute-dtype", "bf16"],
    ["--mode", "inference", "--batch-size", "4", "--prompt-len", "1024", "--decode-len", "128"],
    ["--mode", "inference", "--runtime", "vllm", "--max-model-len", "4096"],
    ["--mode", "inference", "--runtime", "vllm", "--tensor-parallel-size", "2", "--kv-cache-dtype", "fp8"],
    ["--engine", "zero", "--zero-stage", "3", "--num-gpus", "8", "--offload-optimizer", "cpu"],
    ["--engine", "zero", "--zero-stage", "2", "--num-gpus", "4"],
    ["--engine", "fsdp", "--num-gpus", "8"],
    ["--engine", "ddp", "--num-gpus", "2"],
    ["--engine", "megatron", "--num-gpus", "8", "--tensor-parallel-size", "4", "--pipeline-parallel-size", "2", "--sequence-parallel", "true"],
    ["--engine", "megatron_deepspeed", "--num-gpus", "8", "--tensor-parallel-size", "2", "--zero-stage", "1"],
]
QUICK_CONFIGS = [0, 1, 5, 8, 12]


def run(args):
    cp = subprocess.run([a.cli] + args, capture_output=True, text=True)
    out = cp.stdout if cp.returncode == 0 else cp.stderr
    return f"$ {' '.join(args)}\nrc={cp.returncode}\n{out.rstrip()}\n"


presets = [l.split()[0] for l in subprocess.run([a.cli, "presets"], capture_output=True, text=True).stdout.splitlines() if l.strip()]
cases = []
for p in presets:
    for i, c in enumerate(CONFIGS):
        if a.quick and i not in QUICK_CONFIGS:
            continue
        cases.append(["estimate", "--preset", p, "--json"] + c)
    cases.append(["model", "--preset", p, "--json"])
for f in sorted(glob.glob("test/data/configs/**/*.json", recursive=True)):
    cases.append(["model", "--hf-config", f, "--json"])
    cases.append(["estimate", "--hf-config", f, "--json", "--explain"])
tmp = tempfile.mkdtemp()
for jl in sorted(glob.glob("test/data/**/*.jsonl", recursive=True)) + sorted(glob.glob("../shared/groundtruth/h*.jsonl")):
    base = os.path.dirname(jl)
    for n, line in enumerate(open(jl)):
        r = json.loads(line)
        if "mode" not in r:
            continue
        cases.append(("file", base, r))
for f in sorted(glob.glob("test/data/**/scenarios/**/*.json", recursive=True)) + sorted(glob.glob("test/data/scenarios/*.json")):
    cases.append(["estimate", "--scenario", f, "--json"])
for q in ["7B", "13B", "70B", "405B", "1.5B"]:
    cases.append(["quick", q, "--gpus", "8", "--gpu-mem", "80", "--engine", "zero3"])
for p in ["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "deepseek-v3"]:
    cases.append(["plan", "--preset", p, "--gpus", "64", "--gpu", "H100", "--top", "5", "--json"])
    cases.append(["plan", "--preset", p, "--gpus", "8", "--max-batch", "--json"])
    cases.append(["plan", "--preset", p, "--engine", "zero", "--zero-stage", "3", "--min-gpus", "--json"])
    cases.append(["plan", "--preset", p, "--mode", "inference", "--gpus", "8", "--top", "3", "--json"])
for p in ["llama-3.1-8b", "gemma-2-9b", "deepseek-v2-lite", "gpt-oss-20b", "llava-1.5-7b"]:
    cases.append(["explain", "--preset", p])
    cases.append(["estimate", "--preset", p])
for c in cases:
    if isinstance(c, tuple):
        _, base, r = c
        p = os.path.join(base, f".snap-{os.getpid()}.json")
        with open(p, "w") as fh:
            json.dump(r, fh)
        out = run(["estimate", "--scenario", p, "--json"])
        sys.stdout.write(out.replace(p, "<record>"))
        os.unlink(p)
    else:
        sys.stdout.write(run(c))
