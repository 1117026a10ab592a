#!/usr/bin/env bash
# The one number reader through the CLI (issue 25 item 2): every row of
# test/data/values.tsv written as a flag's value. An accepted text prints exactly what the
# number written out prints; a refused one exits 2 with the table's status, naming the flag.
# whole: --micro-batch-size, tokens: --seq-len, bool: --sequence-parallel (on megatron),
# size: --num-parameters (llmmem model). Run from the repository root (make check does).
set -u
cd "$(dirname "$0")/.."
CLI=${LLMMEM_CLI:-examples/llmmem}
[ -x "$CLI" ] || { echo "FAIL: no $CLI (run make)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (apt-get install python3)"; exit 1; }
exec python3 - "$CLI" <<'EOF'
import json, subprocess, sys

cli = sys.argv[1]
params = {p["name"]: p for p in json.loads(subprocess.run([cli, "params", "--json"], check=True,
                                                          capture_output=True, text=True).stdout)}
flags = {  # kind -> (command line before the flag, flag, parameter whose bounds apply or None)
    "whole": (["estimate", "--preset", "llama-3.2-1b", "--json"], "--micro-batch-size", "micro_batch_size"),
    "tokens": (["estimate", "--preset", "llama-3.2-1b", "--json"], "--seq-len", "seq_len"),
    "bool": (["estimate", "--preset", "llama-3.2-1b", "--engine", "megatron", "--gpus", "2",
              "--tensor-parallel-size", "2", "--json"], "--sequence-parallel", "sequence_parallel"),
    "size": (["model", "--json"], "--num-parameters", None),
}
SIZE_MAX = 1 << 50  # llmmem_model_set_i64: num_parameters in [1, 2^50]

def run(args):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr

fails, checked = 0, 0
for no, line in enumerate(open("test/data/values.tsv"), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    kind, text, want = line.split("\t")
    base, flag, param = flags[kind]
    if want.startswith("LLMMEM_"):
        status = want
    else:
        v = int(want)
        if param:
            lo, hi = (0, 1) if kind == "bool" else map(int, params[param]["range"].split(".."))
        else:
            lo, hi = 1, SIZE_MAX
        status = "LLMMEM_E_OUT_OF_RANGE" if not lo <= v <= hi else None
    rc, out, err = run(base + [flag, text])
    checked += 1
    where = "values.tsv:%d: %s %r" % (no, flag, text)
    if status:
        if rc != 2 or not err.startswith("llmmem: %s: " % status) or flag not in err or out:
            print("FAIL %s: exit %d, stderr %r; want exit 2 and %s naming %s" % (where, rc, err.strip(), status, flag))
            fails += 1
        continue
    canon = "true" if kind == "bool" and v else "false" if kind == "bool" else str(v)
    rc2, out2, err2 = run(base + [flag, canon])
    if rc != 0 or rc2 != 0 or out != out2:
        print("FAIL %s: exit %d (%s) does not print what %s %s prints (exit %d %s)" % (
            where, rc, err.strip()[:200], flag, canon, rc2, err2.strip()[:200]))
        fails += 1
print("%d values through the CLI, %d failed" % (checked, fails))
sys.exit(1 if fails or checked < 60 else 0)
EOF
