#!/usr/bin/env bash
# docs/llmmem.1 against the CLI: every command of `llmmem --help` has a SYNOPSIS line; a
# command's line shows --json exactly when the command prints JSON with --json (run here);
# every option of `llmmem plan --help` is documented; the page's version is the header's.
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-examples/llmmem}
python3 - "$CLI" <<'PY'
import json, re, subprocess, sys

cli = sys.argv[1]
page = open("docs/llmmem.1", encoding="utf-8").read()

def plain(roff):
    """Text of roff source: font macros applied (.RB and the like join their arguments),
    font escapes removed, \\- as -, .br as a line break."""
    out = []
    for line in roff.splitlines():
        m = re.match(r"^\.(B|I|BR|RB|BI|IB|RI|IR)\s+(.*)$", line)
        if m:
            args = [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', m.group(2))]
            line = ("" if len(m.group(1)) == 2 else " ").join(args)
        elif line.startswith("."):
            out.append("\n" if line.startswith(".br") else " ")
            continue
        line = re.sub(r"\\f[BIRP]", "", line).replace("\\-", "-").replace("\\~", " ")
        out.append(" " + line)
    return re.sub(r"[ \t]+", " ", "".join(out))

synopsis = plain(page[page.index(".SH SYNOPSIS"):page.index(".SH DESCRIPTION")].split("\n", 1)[1])
lines = [l.strip() for l in synopsis.split("\n") if l.strip()]

helptext = subprocess.run([cli, "--help"], capture_output=True, text=True, check=True).stdout
commands = re.findall(r"^  ([a-z]+)\s{2,}", helptext.split("Commands:", 1)[1], re.M)
assert len(commands) >= 9, commands

# The arguments each command needs to run (a new command must be added here).
ARGS = {"estimate": ["--preset", "llama-3.2-1b"], "explain": ["--preset", "llama-3.2-1b"],
        "model": ["--preset", "llama-3.2-1b"], "quick": ["7B", "--gpus", "8", "--gpu-mem", "80", "--engine", "zero3"],
        "plan": ["--preset", "llama-3.2-1b", "--gpus", "8", "--top", "2"],
        "validate": ["test/data/scenarios/t01.json"], "presets": [], "architectures": [], "gpus": [], "params": [],
        "vllm": ["llama-3.2-1b", "--max-model-len", "4096"], "timeline": ["--preset", "llama-3.2-1b"],
        "advise": ["--preset", "llama-3.2-1b"]}
errors = []
for cmd in commands:
    if cmd not in ARGS:
        errors.append("test_manpage.sh: add the arguments of the new command %r to ARGS" % cmd)
        continue
    mine = [l for l in lines if l.startswith("llmmem %s " % cmd) or l == "llmmem %s" % cmd]
    if not mine:
        errors.append("SYNOPSIS has no line for %r" % cmd)
        continue
    r = subprocess.run([cli, cmd] + ARGS[cmd] + ["--json"], capture_output=True, text=True)
    prints_json = False
    if r.returncode == 0:
        json.loads(r.stdout)
        prints_json = True
    documented = all("[--json]" in l for l in mine)
    if prints_json != documented:
        errors.append("%s: --json %s, but the SYNOPSIS %s" % (cmd, "works" if prints_json else "is refused",
                                                             "says so" if documented else "does not show it"))
# the inverse questions print JSON too
for q in ("--max-batch", "--max-seq-len", "--min-gpus"):
    out = subprocess.run([cli, "plan", "--preset", "llama-3.2-1b", q, "--json"], capture_output=True, text=True, check=True)
    key = q[2:].replace("-", "_")
    assert key in json.loads(out.stdout), out.stdout
    if '{"%s":' % key not in plain(page).replace(" ", ""):
        errors.append("--json of plan %s ({\"%s\": N}) is not described" % (q, key))

text = plain(page)
plan_help = subprocess.run([cli, "plan", "--help"], capture_output=True, text=True, check=True).stdout
for opt in sorted(set(re.findall(r"^  (--[a-z][a-z-]*)", plan_help.split("Parameter flags")[0], re.M))):
    if opt not in text:
        errors.append("plan option %s is not in the man page" % opt)

version = re.search(r'#define LLMMEM_VERSION_STRING "([^"]+)"', open("include/llmmem.h").read()).group(1)
if '"libllmmem %s"' % version not in page.splitlines()[0]:
    errors.append("the .TH line does not say libllmmem %s" % version)

for e in errors:
    print("FAIL:", e)
if errors:
    sys.exit(1)
print("man page: %d commands, --json where the CLI prints JSON, plan options: ok" % len(commands))
PY
