#!/usr/bin/env python3
"""The estimates a user times first, beside the peer's (issue 27 item 7): gpu-mem-calculator
(github.com/George614/gpu-mem-calculator, Python), where it is installed.

    make bench                              (after the C benches; the peer when there)
    python3 bench/bench_peer.py             the same alone
    LLMMEM_PEER_SRC=DIR make bench          installs the peer from DIR (a checkout of the
                                            repository) into build/peer-venv first

The peer is not on PyPI: `make bench` uses build/peer-venv when it holds it, installs it
there from LLMMEM_PEER_SRC when that is set (pip: its dependencies pydantic, click, rich come
from PyPI), and otherwise says how and times ours alone. `make check` never installs it.

Each case asks new questions (a scheduler's loop): it cycles through 12 configurations
(micro-batch 1-4 x sequence 1024/2048/4096, or batch x prompt for inference), each call
making its configuration from keywords and estimating it. Columns, CPU time per call (the
thread's: the machine may be shared), median of 5 rounds:
  llmmem C      the library through ctypes (llmmem.lib.llmmem_estimate on prepared handles:
                the C call plus about 0.3 us of ctypes)
  llmmem Python llmmem.estimate(model, **keywords) (the binding's configuration included)
  peer          the peer's configuration objects for the question, then calculate()
The default training estimate replays the caching allocator: 12 configurations are more
than the model's memo keeps (8), so each call is a whole replay, as a new question is.

With valgrind on the PATH each path's instructions per call are counted beside its time
(callgrind, which does not depend on the machine's load): all cases of one side in one
process under `valgrind --tool=callgrind --dump-before=getppid`, each measured stretch of
12 calls (every question once, after a round of warm-up) between two os.getppid() calls,
whose dumps bound it. "C instr" counts inside llmmem__estimate alone (--toggle-collect; the
body of llmmem_estimate: the library, as bench_count counts it, without ctypes and the
interpreter), "Py instr" the whole binding call in the interpreter, "peer instr" the
peer's configuration objects and calculate() in the interpreter (the two Python columns
compare like with like). Without valgrind it says so and times alone.
"""

import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
VENV = os.path.join(ROOT, "build", "peer-venv")
VPY = os.path.join(VENV, "bin", "python")
ROUNDS = 5
PEER_URL = "github.com/George614/gpu-mem-calculator"


def have_peer(python):
    return subprocess.run([python, "-c", "import gpu_mem_calculator"], capture_output=True).returncode == 0


def ensure_peer():
    """The python that has the peer (this one when it does), or None with why not."""
    try:
        import gpu_mem_calculator  # noqa: F401
        return sys.executable, None
    except ImportError:
        pass
    if os.path.exists(VPY) and have_peer(VPY):
        return VPY, None
    src = os.environ.get("LLMMEM_PEER_SRC")
    if not src:
        return None, ("gpu-mem-calculator is not installed (it is not on PyPI): LLMMEM_PEER_SRC=DIR, a "
                      "checkout of %s, installs it into build/peer-venv" % PEER_URL)
    if not os.path.exists(VPY):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    r = subprocess.run([VPY, "-m", "pip", "install", "-q", src], capture_output=True, text=True)
    if r.returncode or not have_peer(VPY):
        return None, "pip could not install the peer from %s: %s" % (src, (r.stderr or r.stdout).strip()[-300:])
    return VPY, None


# ---- the cases (the same questions on both sides) ----------------------------------------------

QUESTIONS = [(b, s) for b in (1, 2, 3, 4) for s in (1024, 2048, 4096)]
LLAMA8B = dict(preset="llama-3.1-8b", params=8030261248, layers=32, hidden=4096, heads=32, vocab=128256)
LLAMA70B = dict(preset="llama-3-70b", params=70553706496, layers=80, hidden=8192, heads=64, vocab=128256)

# (name, model, ours: fixed keywords, peer: engine and parallelism, inference)
CASES = [
    ("training, single GPU, replay off", LLAMA8B, dict(allocator_replay=False), ("pytorch_ddp", None, 1, 1, 1), False),
    ("training, single GPU (default: replay)", LLAMA8B, {}, ("pytorch_ddp", None, 1, 1, 1), False),
    ("training, ZeRO-3, 8 GPUs", LLAMA8B, dict(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8),
     ("deepspeed", 3, 8, 1, 1), False),
    ("training, FSDP, 8 GPUs, 70B", LLAMA70B, dict(engine="fsdp", num_gpus=8, data_parallel_size=8),
     ("fsdp", None, 8, 1, 1), False),
    ("training, Megatron TP4 PP2, 70B", LLAMA70B,
     dict(engine="megatron", num_gpus=8, tensor_parallel_size=4, pipeline_parallel_size=2),
     ("megatron_lm", None, 1, 4, 2), False),
    ("inference, HF generate (default: replay)", LLAMA8B, dict(mode="inference"), ("huggingface",), True),
    ("inference, HF generate, replay off", LLAMA8B, dict(mode="inference", allocator_replay=False),
     ("huggingface",), True),
    ("inference, vLLM", LLAMA8B, dict(mode="inference", runtime="vllm"), ("vllm",), True),
]


def ours_keywords(fixed, q, inference):
    b, s = q
    kw = dict(fixed)
    if inference:
        kw.update(batch_size=b, prompt_len=s, decode_len=128)
        if kw.get("runtime") == "vllm":
            kw = dict(fixed, max_num_seqs=64 * b, max_model_len=s + 128)
    else:
        kw.update(micro_batch_size=b, seq_len=s)
    return kw


def timed(fn, calls):
    """CPU time per call of fn(i) over `calls` calls, median of ROUNDS rounds (a warm-up first)."""
    fn(0)
    per = []
    for _ in range(ROUNDS):
        t0 = time.thread_time()
        for i in range(calls):
            fn(i)
        per.append((time.thread_time() - t0) / calls)
    return statistics.median(per)


def calls_for(fn, budget=0.08):
    """How many calls take about `budget` s of CPU (at least 12: every question once)."""
    t0 = time.thread_time()
    n = 0
    while time.thread_time() - t0 < budget / 4 and n < 100000:
        fn(n)
        n += 1
    return max(12, n * 4)


def ours_calls(case):
    """The C call (through ctypes) and the Python binding's call of a case, each fn(i)."""
    if os.path.join(ROOT, "python") not in sys.path:
        sys.path.insert(0, os.path.join(ROOT, "python"))
    import llmmem
    name, mdl, fixed, _, inference = case
    model = llmmem.Model.from_preset(mdl["preset"])
    configs = [llmmem.Config(**ours_keywords(fixed, q, inference)) for q in QUESTIONS]
    result = llmmem.Result()
    lib = llmmem.lib

    def c_call(i):
        rc = lib.llmmem_estimate(result, model, configs[i % len(configs)])
        if rc:
            raise RuntimeError("%s: %s" % (name, llmmem.last_error()))

    def py_call(i):
        llmmem.estimate(model, **ours_keywords(fixed, QUESTIONS[i % len(QUESTIONS)], inference))

    return c_call, py_call


def ours(case):
    c_call, py_call = ours_calls(case)
    n = calls_for(py_call)
    return timed(c_call, n), timed(py_call, n)


def peer_call(case):
    """The peer's call of a case, fn(i): its configuration objects, then calculate()."""
    from gpu_mem_calculator.core import models as pm
    from gpu_mem_calculator.core.calculator import GPUMemoryCalculator
    from gpu_mem_calculator.inference.calculator import InferenceMemoryCalculator
    name, mdl, _, eng, inference = case
    gpu = pm.GPUConfig(num_gpus=1 if inference else max(1, eng[2] * eng[3] * eng[4]), gpu_memory_gb=80)

    def model_cfg(s):
        return pm.ModelConfig(name=mdl["preset"], num_parameters=mdl["params"], num_layers=mdl["layers"],
                              hidden_size=mdl["hidden"], num_attention_heads=mdl["heads"],
                              vocab_size=mdl["vocab"], max_seq_len=s + (128 if inference else 0))

    if inference:
        kind = pm.InferenceEngineType(eng[0])

        def call(i):
            b, s = QUESTIONS[i % len(QUESTIONS)]
            InferenceMemoryCalculator(model_cfg(s), pm.InferenceConfig(batch_size=b, max_seq_len=s + 128),
                                      gpu).calculate(kind)
    else:
        engine = pm.EngineConfig(type=pm.EngineType(eng[0]), zero_stage=eng[1])
        par = pm.ParallelismConfig(data_parallel_size=eng[2], tensor_parallel_size=eng[3],
                                   pipeline_parallel_size=eng[4])

        def call(i):
            b, s = QUESTIONS[i % len(QUESTIONS)]
            GPUMemoryCalculator(model_cfg(s), pm.TrainingConfig(batch_size=b, dtype="bf16", optimizer="adamw"),
                                par, engine, gpu).calculate()

    return call


def peer(case):
    call = peer_call(case)
    return timed(call, calls_for(call))


# ---- instruction counts (callgrind) -------------------------------------------------------------

COUNT_CALLS = len(QUESTIONS)


def count_regions(fns):
    """Runs each fn(i) COUNT_CALLS times (after a warm-up round) between two os.getppid()
    calls: under --dump-before=getppid the second one's dump holds the stretch alone."""
    for fn in fns:
        for i in range(COUNT_CALLS):
            fn(i)
        os.getppid()
        for i in range(COUNT_CALLS):
            fn(i)
        os.getppid()


def count_ours(which):
    count_regions([ours_calls(case)[which] for case in CASES])


def count_peer():
    count_regions([peer_call(case) for case in CASES])


def counted(python, mode, regions, tmp, only=None):
    """Instructions per call of each of `regions` stretches that `python bench_peer.py mode`
    runs under callgrind (inside the function `only` alone when given), or None with why
    not."""
    out = os.path.join(tmp, "cg.%s" % mode)
    cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid", "--callgrind-out-file=" + out]
    if only:
        cmd.append("--toggle-collect=" + only)
    r = subprocess.run(cmd + [python, os.path.abspath(__file__), mode], capture_output=True, text=True)
    if r.returncode:
        return None, "valgrind %s failed: %s" % (mode, r.stderr.strip()[-300:])
    per = []
    for k in range(regions):
        with open("%s.%d" % (out, 2 * k + 2)) as f:  # dumps: .1 before the first stretch, .2 the stretch, ...
            total = [int(line.split()[1]) for line in f if line.startswith("totals:")]
        per.append(total[0] / COUNT_CALLS if total else None)
    return per, None


def counts(peer_python):
    """Instructions per call of each case: the C library's, the binding's, the peer's (lists,
    or None), and a line saying what is missing."""
    import shutil
    import tempfile
    if not shutil.which("valgrind"):
        return None, None, None, ("valgrind is not installed (apt-get install valgrind): times alone, no "
                                  "instruction counts")
    with tempfile.TemporaryDirectory() as tmp:
        c_per, why = counted(sys.executable, "--count-c", len(CASES), tmp, only="llmmem__estimate")
        if why:
            return None, None, None, why
        py_per, why = counted(sys.executable, "--count-py", len(CASES), tmp)
        if why:
            return c_per, None, None, why
        peer_per = None
        if peer_python:
            peer_per, why = counted(peer_python, "--count-peer", len(CASES), tmp)
            if why:
                return c_per, py_per, None, why
    return c_per, py_per, peer_per, None


def instr(v):
    if v is None:
        return "%11s" % "-"
    return "%10.1fk" % (v / 1e3) if v < 1e6 else "%10.2fM" % (v / 1e6)


def us(v):
    return "%12.2f us" % (v * 1e6) if v is not None else "%15s" % "-"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--peer-case":  # run inside the peer's python
        print(repr(peer(CASES[int(sys.argv[2])])))
        return 0
    if len(sys.argv) == 2 and sys.argv[1] in ("--count-c", "--count-py", "--count-peer"):  # under callgrind
        if sys.argv[1] == "--count-peer":
            count_peer()
        else:
            count_ours(0 if sys.argv[1] == "--count-c" else 1)
        return 0
    python, why = ensure_peer()
    print("bench_peer: new questions per call (12 configurations in turn): instructions per call (callgrind) "
          "and CPU time (median of %d rounds)" % ROUNDS)
    print("peer: %s" % ("gpu-mem-calculator (%s), %s" % (PEER_URL, python) if python else why))
    c_per, py_per, peer_per, why_not = counts(python)
    if why_not:
        print("instructions: %s" % why_not)
    print()
    print("| %-42s | %11s | %15s | %11s | %15s | %11s | %15s | %14s |" % (
        "case", "C instr", "llmmem C", "Py instr", "llmmem Python", "peer instr", "peer", "peer / Python"))
    print("|%s|%s|%s|%s|%s|%s|%s|%s|" % ("-" * 44, "-" * 13, "-" * 17, "-" * 13, "-" * 17, "-" * 13, "-" * 17,
                                         "-" * 16))
    for k, case in enumerate(CASES):
        c, py = ours(case)
        p = None
        if python:
            r = subprocess.run([python, os.path.abspath(__file__), "--peer-case", str(k)], capture_output=True,
                               text=True)
            if r.returncode:
                print("bench_peer: the peer failed on %s: %s" % (case[0], r.stderr.strip()[-300:]), file=sys.stderr)
                return 1
            p = float(r.stdout.strip())
        ratio = ("%13.1fx" if p / py >= 10 else "%13.2fx") % (p / py) if p else "%14s" % "-"
        ci = c_per[k] if c_per else None
        pi = py_per[k] if py_per else None
        qi = peer_per[k] if peer_per else None
        print("| %-42s | %s | %s | %s | %s | %s | %s | %s |" % (case[0], instr(ci), us(c), instr(pi), us(py),
                                                               instr(qi), us(p), ratio))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
