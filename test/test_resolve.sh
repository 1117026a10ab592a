#!/usr/bin/env bash
# Resolve once (issue 26; docs/architecture.md "Resolve once"): which files of src/ read
# the fields of struct llmmem_config, held to the lists of docs/architecture.md.
#
#  1. the workload (micro_batch_size, seq_len, batch_size, prompt_len, decode_len) is read
#     from a configuration only by the files of the doc's "workload" list (the resolver,
#     memory/run.c, and the few places it names with their reason); every other file takes
#     B, S, T, N from the run (struct llmmem__run);
#  2. any other field of struct llmmem_config, read through a configuration pointer
#     (c->, cfg->, conf->, cx->, ->c->, .c->), only in the files or folders of the doc's
#     "options" list;
#  3. the lists hold no stale entry: each names a file or folder that exists and reads
#     what the list says it does;
#  4. the derived quantities written once stay so: "num_kv_heads, else the heads"
#     (memory/run.h llmmem__kv_heads), "gpu_memory_bytes, else the GPU table's" and
#     "cuda_context_bytes, else the GPU table's" (memory/alloc.h llmmem__gpu_capacity,
#     llmmem__gpu_context) appear in their one file only.
# Reads the source, needs no build. Exit 1 with every violation listed.
set -u
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "FAIL: python3 not found (install python3)"; exit 1; }
python3 - <<'PY'
import glob, re, sys

doc = open("docs/architecture.md").read()
def listed(tag):
    m = re.search(r"<!-- %s -->(.*?)<!-- /%s -->" % (tag, tag), doc, re.S)
    if not m:
        print(f"docs/architecture.md: no <!-- {tag} --> list"); sys.exit(1)
    paths = []
    for line in m.group(1).splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            paths += re.findall(r"`((?:[a-z]+/)+(?:[a-z_0-9]+\.[ch])?)`", line.split("|")[1])
    return paths

workload_ok, options_ok = listed("resolve-workload"), listed("resolve-options")
header = open("src/config/config.h").read()
body = re.search(r"^struct llmmem_config \{(.*?)^\};", header, re.S | re.M).group(1)
body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
fields = set()
for decl in body.split(";"):
    decl = re.sub(r"\[[^]]*\]", "", decl).strip()
    if not decl:
        continue
    for name in decl.split(","):
        toks = re.findall(r"[A-Za-z_]\w*", name)
        if toks:
            fields.add(toks[-1])
workload = {"micro_batch_size", "seq_len", "batch_size", "prompt_len", "decode_len"}
assert workload <= fields, workload - fields

def covered(path, entries):
    rel = path[len("src/"):]
    return any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in entries)

wl_re = re.compile(r"->(%s)\b" % "|".join(sorted(workload)))
cfg_re = re.compile(r"(?:\b(?:c|cfg|conf|cx)->|->c->|\.c->)(\w+)\b")
bad, wl_files, opt_files = [], set(), set()
for f in sorted(glob.glob("src/**/*.[ch]", recursive=True)):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), open(f).read(), flags=re.S)
    for n, line in enumerate(text.splitlines(), 1):
        for m in wl_re.finditer(line):
            wl_files.add(f)
            if not covered(f, workload_ok):
                bad.append(f"{f}:{n}: reads the workload field {m.group(1)} outside the resolver "
                           f"(take it from the run, or list the file with its reason under "
                           f"<!-- resolve-workload --> in docs/architecture.md)")
        for m in cfg_re.finditer(line):
            if m.group(1) in fields:
                opt_files.add(f)
                if not covered(f, options_ok):
                    bad.append(f"{f}:{n}: reads configuration field {m.group(1)}; the file is in no "
                               f"folder of <!-- resolve-options --> in docs/architecture.md")
for tag, entries, readers in (("resolve-workload", workload_ok, wl_files), ("resolve-options", options_ok, opt_files)):
    for e in entries:
        if not glob.glob("src/" + e):
            bad.append(f"docs/architecture.md <!-- {tag} -->: src/{e} does not exist")
        elif not any(covered(f, [e]) for f in readers):
            bad.append(f"docs/architecture.md <!-- {tag} -->: src/{e} reads none of it any more (drop it)")
once = {r"num_kv_heads\s*>\s*0\s*\?": "src/memory/run.h",
        r"gpu_memory_bytes\s*>\s*0\s*\?": "src/memory/alloc.h",
        r"cuda_context_bytes\s*>=\s*0\s*\?": "src/memory/alloc.h"}
for pat, home in once.items():
    homes = set()
    for f in sorted(glob.glob("src/**/*.[ch]", recursive=True)):
        for n, line in enumerate(open(f), 1):
            if re.search(pat, line):
                homes.add(f)
                if f != home:
                    bad.append(f"{f}:{n}: re-derives what {home} defines once ({line.strip()}): call it")
    if home not in homes:
        bad.append(f"{home}: no longer holds the rule /{pat}/ (update test/test_resolve.sh)")
for b in bad:
    print(b)
print(f"resolve: {len(fields)} configuration fields; the workload read in {len(wl_files)} files "
      f"({len(workload_ok)} listed), options in {len(opt_files)} files ({len(options_ok)} listed); "
      f"{len(bad)} violation(s)")
sys.exit(1 if bad else 0)
PY
