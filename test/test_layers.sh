#!/usr/bin/env bash
# The layers of src/ (docs/architecture.md) and the one direction their dependencies run:
#
#   api -> plan -> engines -> replay -> train, infer -> memory -> model, config -> core
#                  input  -> model, config
#
# A file may use only its own layer and the layers below it. Checks:
#  1. includes: every #include "layer/..." of src/<layer>/ names an allowed layer, and
#     only src/input/ includes a parser library (cJSON, libyaml);
#  2. symbols: every global symbol an object of build/obj/<layer>/ uses is defined in
#     an allowed layer (public llmmem_* functions included), read with nm; every global
#     the library defines is prefixed (llmmem_ public, llmmem__ internal);
#  3. no circles: the graph of which object uses which other object's symbols (every
#     global, not only llmmem ones) is acyclic, in the library and in the CLI
#     (examples/cli/, compiled here into a temporary folder);
#  4. every source file that docs/*.md, README.md or a comment of src/ names by its layer
#     path (layer/file.c, src/layer/sub/file.h, ...) exists: a file that moves takes its
#     mentions along (the placeholder x of docs/architecture.md's how-tos aside).
# Runs after make (it reads build/obj). Exit 1 with every violation listed.
set -u
cd "$(dirname "$0")/.."
OBJDIR=${OBJDIR:-build/obj}
CLIOBJ=$(mktemp -d)
trap 'rm -rf "$CLIOBJ"' EXIT
for f in examples/cli/*.c; do
    ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -c "$f" -o "$CLIOBJ/$(basename "$f" .c).o" ||
        { echo "could not compile $f for the CLI's circle check"; exit 1; }
done
python3 - "$OBJDIR" "$CLIOBJ" <<'PY'
import os, re, subprocess, sys, glob
objdir, cliobj = sys.argv[1], sys.argv[2]
below = {
    "core": [],
    "config": ["core"],
    "model": ["core"],
    "input": ["core", "config", "model"],
    "memory": ["core", "config", "model"],
    "train": ["core", "config", "model", "memory"],
    "infer": ["core", "config", "model", "memory"],
    "replay": ["core", "config", "model", "memory", "train", "infer"],
    "engines": ["core", "config", "model", "memory", "train", "infer", "replay"],
    "plan": ["core", "config", "model", "memory", "train", "infer", "replay", "engines"],
    "api": ["core", "config", "model", "memory", "train", "infer", "replay", "engines", "plan", "input"],
}
allowed = {k: set(v) | {k} for k, v in below.items()}
bad = []
layers_found = sorted(d for d in os.listdir("src") if os.path.isdir(os.path.join("src", d)))
for d in layers_found:
    if d not in below:
        bad.append(f"src/{d}/: not a known layer (add it to test/test_layers.sh and docs/architecture.md)")
if glob.glob("src/*.c") or glob.glob("src/*.h"):
    bad.append("src/: sources belong in a layer folder: " + " ".join(glob.glob("src/*.[ch]")))
# 1. includes
for f in sorted(glob.glob("src/*/**/*.[ch]", recursive=True) + glob.glob("src/*/**/*.def", recursive=True)):
    layer = f.split("/")[1]
    for n, line in enumerate(open(f), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            inc = m.group(1)
            if inc == "llmmem.h":
                continue
            tgt = inc.split("/")[0] if "/" in inc else None
            if tgt is None:
                bad.append(f"{f}:{n}: #include \"{inc}\": name the layer (\"layer/file.h\")")
            elif tgt not in allowed.get(layer, set()):
                bad.append(f"{f}:{n}: {layer} includes {inc} ({tgt} is above or beside {layer})")
        m = re.match(r'\s*#\s*include\s+<(cjson|yaml)[/.]', line)
        if m and layer != "input":
            bad.append(f"{f}:{n}: only src/input/ includes a parser library ({line.strip()})")
# 2. symbols (objects whose source is gone are stale: left out)
objs = sorted(o for o in glob.glob(os.path.join(objdir, "*", "**", "*.o"), recursive=True)
              if os.path.exists(os.path.join("src", os.path.relpath(o, objdir))[:-2] + ".c"))
if not objs:
    print(f"no objects under {objdir}: run make first"); sys.exit(1)

def symbols(paths, root):
    """Global definitions (symbol -> object) and uses (object -> symbols) of the objects."""
    defs, uses = {}, {}
    for o in paths:
        rel = os.path.relpath(o, root)
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        uses[rel] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRBCG":
                defs[parts[2]] = rel
            elif len(parts) == 2 and parts[0] == "U":
                uses[rel].add(parts[1])
    return defs, uses

def circles(edges):
    """The strongly connected components of more than one object (Tarjan)."""
    idx, low, on, st, comps, c = {}, {}, set(), [], [], [0]
    def visit(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in edges[v]:
            if w not in idx:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)
    for v in sorted(edges):
        if v not in idx:
            visit(v)
    return comps

sys.setrecursionlimit(10000)
defs, uses = symbols(objs, objdir)
for sym, o in sorted(defs.items()):
    if not sym.startswith("llmmem_"):
        bad.append(f"{o}: defines the global {sym} without the llmmem_ / llmmem__ prefix")
edges = {o: set() for o in uses}
for o, syms in uses.items():
    layer = o.split("/")[0]
    for s in sorted(syms):
        if s not in defs:
            continue
        t = defs[s]
        if t == o:
            continue
        edges[o].add(t)
        if t.split("/")[0] not in allowed.get(layer, set()):
            bad.append(f"{o}: uses {s} of {t} ({t.split('/')[0]} is above or beside {layer})")
# 3. circles, in the library and in the CLI
for comp in circles(edges):
    bad.append("circle between " + ", ".join(sorted(comp)))
cli_defs, cli_uses = symbols(sorted(glob.glob(os.path.join(cliobj, "*.o"))), cliobj)
cli_edges = {o: {cli_defs[s] for s in syms if s in cli_defs and cli_defs[s] != o} for o, syms in cli_uses.items()}
for comp in circles(cli_edges):
    bad.append("circle in the CLI between examples/cli/" + ", examples/cli/".join(sorted(c[:-2] + ".c" for c in comp)))
# 4. files named by their layer path exist
named = re.compile(r"(?<![\w/.-])(?:src/)?((?:" + "|".join(below) + r")/(?:[a-z_0-9]+/)*[a-z_0-9]+\.(?:c|h|def))\b")
for f in sorted(glob.glob("docs/*.md") + ["README.md"] + glob.glob("src/**/*.[ch]", recursive=True) +
                glob.glob("src/**/*.def", recursive=True)):
    for n, line in enumerate(open(f, encoding="utf-8"), 1):
        for m in named.finditer(line):
            path = m.group(1)
            parts = path.split("/")
            if "x" in parts[1:-1] or parts[-1].split(".")[0] == "x":
                continue
            if not os.path.exists("src/" + path):
                bad.append(f"{f}:{n}: names src/{path}, which does not exist (moved? name its new place)")
for b in bad:
    print(b)
print(f"layers: {len(objs)} objects in {len(layers_found)} layers, {sum(len(e) for e in edges.values())} file edges; "
      f"the CLI: {len(cli_edges)} objects, {sum(len(e) for e in cli_edges.values())} file edges; {len(bad)} violation(s)")
sys.exit(1 if bad else 0)
PY
