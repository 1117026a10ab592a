#!/usr/bin/env python3
"""The Python binding's speed (issue 17): each case timed in Python and, in the same run,
the same sequence of C calls (build/bench/bench_python_c), round by round in turn.

    make bench                               (after the C benches)
    python3 bench/bench_python.py [ROUNDS [CALLS]]
    BENCH_STRICT=1 make bench                exit status 1 when a case is over its target

Per call, thread CPU time (the machine may be shared: CPU time leaves out the time other
processes hold the core), best and median of the rounds. Targets:
  full  llmmem.estimate("llama-3.1-8b", micro_batch_size=1..8, seq_len=4096)["peak_allocated_bytes"]
        (preset model, configuration, estimate, one key)                   <= 3 us
  bare  llmmem.estimate(model, config), the Result dropped                 <= 1.5 us
The package is this tree's (python/llmmem) with this tree's library. Every case runs the
plain estimate (allocator_replay off, on both sides): the replay's own cost is
bench_estimate's "+ allocator replay" rows, and at milliseconds per call it would hide what
this bench measures, the binding's overhead.

The interpreter matters: the targets are for a distribution's python3 (Debian's is built with
PGO and LTO; the README's venv uses it). A CPython built without --enable-optimizations, as
pyenv builds by default, runs the binding's Python about 20% slower (measured here: full
3.08 us and bare 1.63 us against 2.56 us and 1.39 us with /usr/bin/python3, the same C
figures). PYTHON=/usr/bin/python3 make bench picks the interpreter.
"""

import os
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import llmmem  # noqa: E402

C_BENCH = os.path.join(ROOT, "build", "bench", "bench_python_c")

MODEL = llmmem.Model.from_preset("llama-3.1-8b")
CONFIG = llmmem.Config(allocator_replay=False)
RESULT = llmmem.estimate(MODEL, CONFIG)

# name: (Python statement run with i = 0, 1, ..., target in us or None, what it is); "numbers"
# runs CALLS / 1000 times, as in bench_python_c.c (a raw-numbers model takes milliseconds in C)
DIV = {"numbers": 1000}
CASES = [
    ("full", 'llmmem.estimate("llama-3.1-8b", micro_batch_size=1 + (i & 7), seq_len=4096, allocator_replay=False)["peak_allocated_bytes"]',
     3.0, 'estimate("llama-3.1-8b", micro_batch_size=1..8, seq_len=4096)[key]'),
    ("full_fixed", 'llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096, allocator_replay=False)["peak_allocated_bytes"]',
     3.0, 'the same, micro_batch_size=4 every call'),
    ("full_float", 'llmmem.estimate("llama-3.1-8b", micro_batch_size=1.0 + (i & 7), seq_len=4096, allocator_replay=False)["peak_allocated_bytes"]',
     None, "the same with a float micro_batch_size: no kept configuration, every value checked and set"),
    ("numbers", 'llmmem.estimate(llmmem.Model.from_numbers(num_parameters="7B"), micro_batch_size=4, allocator_replay=False)'
     '["peak_allocated_bytes"]', None, "a model from raw numbers each call, configuration, estimate, one key"),
    ("bare", "llmmem.estimate(MODEL, CONFIG)", 1.5, "estimate(model, config), the Result dropped"),
    ("reuse", "RESULT.estimate(MODEL, CONFIG)", None, "result.estimate(model, config)"),
    ("get", 'RESULT["peak_allocated_bytes"]', None, 'result["peak_allocated_bytes"]'),
]


def python_round(stmt, calls):
    calls = max(calls, 5)
    code = compile("def run(calls):\n for i in range(calls):\n  %s\n" % stmt, "bench", "exec")
    ns = {"llmmem": llmmem, "MODEL": MODEL, "CONFIG": CONFIG, "RESULT": RESULT}
    exec(code, ns)
    run = ns["run"]
    run(max(calls // 10, 1))  # warm-up
    t0 = time.thread_time()
    run(calls)
    return (time.thread_time() - t0) / calls * 1e6


def c_round(calls):
    out = subprocess.run([C_BENCH, "1", str(calls)], check=True, capture_output=True, text=True).stdout
    return {f[0]: float(f[1]) / 1000 for f in (line.split() for line in out.splitlines()) if f and f[0][0] != "#"}


def main(argv):
    rounds = int(argv[1]) if len(argv) > 1 else 7
    calls = int(argv[2]) if len(argv) > 2 else 20000
    if not os.access(C_BENCH, os.X_OK):
        sys.stderr.write("bench_python: %s is missing (make bench builds it)\n" % C_BENCH)
        return 1
    py = {name: [] for name, _, _, _ in CASES}
    c = {name: [] for name, _, _, _ in CASES}
    for _ in range(rounds):
        cr = c_round(calls)
        for name, stmt, _, _ in CASES:
            py[name].append(python_round(stmt, calls // DIV.get(name, 1)))
            c[name].append(cr[name])
    print("Python binding (llmmem %s, %s; Python %s, %s): thread CPU time per call, %d rounds of %d calls"
          % (llmmem.__version__, os.path.relpath(llmmem.LIBRARY_PATH, ROOT), sys.version.split()[0],
             sys.executable, rounds, calls))

    print("%-11s %9s %9s %9s %9s %7s %8s  %s" % ("case", "py best", "py med", "C best", "C med", "py/C", "target", "verdict"))
    over = 0
    for name, _, target, what in CASES:
        p, q = sorted(py[name]), sorted(c[name])
        pb, pm, cb, cm = p[0], p[len(p) // 2], q[0], q[len(q) // 2]
        verdict = "" if target is None else ("ok" if pb <= target else "OVER")
        over += verdict == "OVER"
        print("%-11s %7.2fus %7.2fus %7.2fus %7.2fus %6.1fx %8s  %s  (%s)" % (
            name, pb, pm, cb, cm, pb / cb, "" if target is None else "<=%.1fus" % target, verdict, what))
    if over and os.environ.get("BENCH_STRICT") == "1":
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
