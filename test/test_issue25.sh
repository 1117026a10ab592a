#!/usr/bin/env bash
# The repros of issue 25, as a new user tries them (test/data/issue25/repros.tsv): each row
# marked fixed must hold; the open ones are listed. Run from the repository root.
set -u
cd "$(dirname "$0")/.."
CLI=${LLMMEM_CLI:-examples/llmmem}
[ -x "$CLI" ] || { echo "FAIL: no $CLI (run make)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (apt-get install python3)"; exit 1; }
PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" LLMMEM_LIBRARY="${LLMMEM_LIBRARY:-$PWD/lib/libllmmem.so}" \
exec python3 - "$CLI" <<'PY'
import ctypes, json, subprocess, sys
import llmmem
cli = sys.argv[1]
fails = checked = 0
open_rows = []
for no, line in enumerate(open("test/data/issue25/repros.tsv"), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    rid, state, kind, cmd, expect = (line.split("\t") + [""])[:5]
    if state != "fixed":
        open_rows.append("%s (%s)" % (rid, state))
        continue
    checked += 1
    bad = []
    if kind == "py":
        try:
            v = eval(cmd, {"llmmem": llmmem})  # a crash fails the whole test
            if expect.startswith("raises "):
                bad.append("did not raise %s" % expect[7:])
            elif not v:
                bad.append("is false")
        except Exception as e:
            want = expect[7:] if expect.startswith("raises ") else None
            if not want or not isinstance(e, getattr(llmmem, want, None) or getattr(ctypes, want)):
                bad.append("raised %s: %s" % (type(e).__name__, e))
    else:
        p = subprocess.run([cli] + cmd.split(" "), capture_output=True, text=True)
        for e in [x.strip() for x in expect.split(" ; ") if x.strip()]:
            if e.startswith("exit="):
                if p.returncode != int(e[5:]):
                    bad.append("exit %d, want %s" % (p.returncode, e[5:]))
            elif e.startswith("err~"):
                if e[4:] not in p.stderr:
                    bad.append("stderr lacks %r" % e[4:])
            elif e.startswith("out!~"):
                if e[5:] in p.stdout:
                    bad.append("stdout has %r" % e[5:])
            elif e.startswith("out~"):
                if e[4:] not in p.stdout:
                    bad.append("stdout lacks %r" % e[4:])
            elif e.startswith("json:"):
                try:
                    d = json.loads(p.stdout)
                    if not eval(e[5:], {"d": d}):
                        bad.append("false: %s" % e[5:])
                except ValueError:
                    bad.append("no JSON (exit %d): %s" % (p.returncode, p.stderr.strip()[:200]))
            else:
                bad.append("unknown expectation %r" % e)
        if bad:
            bad.append("stderr: %s" % p.stderr.strip()[:240])
    if bad:
        fails += 1
        print("FAIL repros.tsv:%d %s: %s" % (no, rid, "; ".join(bad)))
print("issue 25 repros: %d fixed checked, %d failing; open: %s" % (checked, fails, ", ".join(open_rows) or "none"))
sys.exit(1 if fails or checked < 30 else 0)
PY
