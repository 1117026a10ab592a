#!/usr/bin/env bash
# The docs match the code (issue 25): every repository path the docs, the README and the
# example files name exists; every "N presets" they state is llmmem presets' count.
# Run from the repository root (make check does).
set -u
cd "$(dirname "$0")/.."
CLI=${LLMMEM_CLI:-examples/llmmem}
[ -x "$CLI" ] || { echo "FAIL: no $CLI (run make)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (apt-get install python3)"; exit 1; }
exec python3 - "$CLI" <<'PY'
import glob, json, os, re, subprocess, sys
cli = sys.argv[1]
# (CHANGELOG.md tells what was, and may name what is no more)
files = sorted(glob.glob("docs/*.md")) + ["README.md"] + sorted(glob.glob("examples/**/*.json", recursive=True))
path_re = re.compile(r"(?<![\w./-])((?:examples|test|src|python|mk|bench|fuzz|include)/[A-Za-z0-9_./+-]+\.(?:py|sh|c|h|jsonl|json|md|tsv|def|yaml|js|html))")
presets = len(json.loads(subprocess.run([cli, "presets", "--json"], capture_output=True, text=True).stdout))
fails = 0
named = 0
for f in files:
    text = open(f, encoding="utf-8").read()
    for m in path_re.finditer(text):
        p = m.group(1).rstrip(".")
        named += 1
        if "<" in p or "*" in p or not os.path.exists(p) and not glob.glob(p):
            if "*" in p or "<" in p:
                continue
            # generated outputs (make web, make docs) are not in the tree
            if p in ("examples/web/llmmem.js", "examples/web/llmmem.wasm") or p.startswith(("test/bin/", "build/")) \
                    or os.path.basename(p).startswith("x."):  # the template of a new file (architecture.md)
                continue
            print("FAIL %s names %s, which does not exist" % (f, p))
            fails += 1
    for m in re.finditer(r"\b(\d+) presets\b", text):
        if int(m.group(1)) != presets and "(11 presets" not in text[m.start() - 1:m.end() + 1]:
            line = text.count("\n", 0, m.start()) + 1
            ctx = text[max(0, m.start() - 40):m.end() + 10].replace("\n", " ")
            if "(" + m.group(1) + " presets" in ctx:
                continue  # a subset (bench: "11 presets: ...")
            print("FAIL %s:%d says %s presets, llmmem presets lists %d: ...%s..." % (f, line, m.group(1), presets, ctx))
            fails += 1
print("docs facts: %d paths named, %d presets; %d failing" % (named, presets, fails))
sys.exit(1 if fails else 0)
PY
