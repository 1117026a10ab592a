#!/usr/bin/env python3
"""Mutation run (issue 25): does make check catch plausible one-line mistakes?

usage: python3 test/mutation/run.py [--work DIR] [--only NAME,...] [--out test/mutation/RESULTS.md]

Copies the tracked files of the tree (git ls-files) into a work directory and builds them
once; then for each row of test/mutation/mutations.tsv applies the one-line mutant, rebuilds
(incrementally) and runs every test of make check (test/run-check.sh's set: the C tests,
test/*.sh, test/python/test_*.py) in a fixed order, the quick ones first, until one fails:
the mutant is killed by that test, or it survives the whole suite. A mutant that does not
compile is not counted. Restores the line and goes on. At the end each test that killed a
mutant runs on the unmutated tree: one that fails there kills nothing ("invalid", not
counted). Writes a table of the results. The work directory is a git checkout (make dist
reads git ls-files).

A dev tool (each surviving mutant costs a whole make check), not run by make check."""
import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--work", default="/tmp/llmmem-mutation")
ap.add_argument("--only", default="")
ap.add_argument("--out", default=os.path.join(ROOT, "test/mutation/RESULTS.md"))
ap.add_argument("--timeout", type=int, default=900)
a = ap.parse_args()

FIRST = ["test_values", "test_readers", "test_verdict", "test_null_args", "test_scenario", "test_train",
         "test_engines", "test_recipes", "test_infer", "test_vllm", "test_model", "test_json", "test_replay",
         "test_plan", "test_table", "test_overflow"]
FIRST_SH = ["test_issue25.sh", "test_values.sh", "test_cli.sh", "test_cli_vllm.sh", "test_accuracy.sh",
            "test_anchors.sh", "test_timeline.sh", "test_timeline_peak.sh", "test_examples.sh"]
LAST_SH = ["test_properties.sh"]


def sh(cmd, cwd, timeout=None, env=None):
    return subprocess.run(cmd, cwd=cwd, shell=True, capture_output=True, text=True, timeout=timeout, env=env)


def prepare():
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        src = os.path.join(ROOT, f)
        if not os.path.isfile(src):
            continue
        dst = os.path.join(a.work, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
    # a git checkout, as the tree is (make dist, and test_python_package.sh through it, read
    # git ls-files): a commit of the unmutated files, the mutants in its work tree
    r = sh("git init -q && git add -A && git -c user.name=mutation -c user.email=mutation@localhost "
           "commit -q -m unmutated", a.work)
    if r.returncode:
        sys.exit("git init of the work directory failed:\n" + r.stderr[-2000:])
    r = sh("make -j2 all", a.work)
    if r.returncode:
        sys.exit("the unmutated tree does not build:\n" + r.stderr[-2000:])


def tests():
    """The tests in run order: (name, shell command)."""
    c = sorted(f[:-2] for f in os.listdir(os.path.join(a.work, "test")) if f.startswith("test_") and f.endswith(".c"))
    shs = sorted(f for f in os.listdir(os.path.join(a.work, "test")) if f.endswith(".sh") and f.startswith("test_"))
    shs += [f for f in ("install-test.sh",) if os.path.exists(os.path.join(a.work, "test", f))]
    pys = sorted(f for f in os.listdir(os.path.join(a.work, "test/python")) if f.startswith("test_") and f.endswith(".py"))
    order = [n for n in FIRST if n in c] + [n for n in c if n not in FIRST]
    out = []
    for n in order:
        out.append((n, "cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc "
                       "-O2 -g test/%s.c lib/libllmmem.a -lcmocka -lcjson -lyaml -lm -o test/bin/%s && test/bin/%s"
                       % (n, n, n)))
    shs_order = [s for s in FIRST_SH if s in shs] + [s for s in shs if s not in FIRST_SH + LAST_SH]
    for s in shs_order:
        out.append((s, "bash test/%s" % s))
    for p in pys:
        out.append((p, "PYTHONPATH=python:examples/python LLMMEM_LIBRARY=$PWD/lib/libllmmem.so python3 -m unittest "
                       "discover -s test/python -t test/python -p %s" % p))
    for s in LAST_SH:
        if s in shs:
            out.append((s, "bash test/%s" % s))
    return out


def mutations():
    rows = []
    for line in open(os.path.join(ROOT, "test/mutation/mutations.tsv")):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        name, f, old, new = line.split("\t")
        rows.append((name, f, old, new))
    return rows


def main():
    prepare()
    os.makedirs(os.path.join(a.work, "test/bin"), exist_ok=True)
    order = tests()
    only = set(x for x in a.only.split(",") if x)
    results = []
    for name, f, old, new in mutations():
        if only and name not in only:
            continue
        path = os.path.join(a.work, f)
        text = open(path).read()
        if text.count(old) != 1:
            results.append((name, f, "not applied", "the line is not there exactly once", 0))
            continue
        open(path, "w").write(text.replace(old, new))
        t0 = time.time()
        try:
            b = sh("make -j2 all", a.work)
            if b.returncode:
                results.append((name, f, "not viable", "does not compile", 0))
                continue
            killer = None
            # the tests nearest the mutated file first (the suite is the same, the order only
            # saves time): Python's for python/, the shell tests (the CLI's) for examples/
            near = (lambda t: t.endswith(".py")) if f.startswith("python/") else \
                (lambda t: t.endswith(".sh")) if f.startswith("examples/") else (lambda t: False)
            for tname, cmd in [t for t in order if near(t[0])] + [t for t in order if not near(t[0])]:
                try:
                    r = sh(cmd, a.work, timeout=a.timeout)
                    if r.returncode:
                        killer = tname
                        break
                except subprocess.TimeoutExpired:
                    killer = tname + " (timeout)"
                    break
            results.append((name, f, "killed" if killer else "SURVIVED", killer or "", time.time() - t0))
            print("%-44s %-9s %s (%.0f s)" % (name, results[-1][2], killer or "", time.time() - t0), flush=True)
        finally:
            open(path, "w").write(text)
    sh("make -j2 all", a.work)
    # a kill counts only where the killing test passes on the unmutated tree (a test that
    # fails anyway would kill every mutant that reaches it)
    cmd_of = dict(order)
    for killer in sorted(set(r[3].replace(" (timeout)", "") for r in results if r[2] == "killed")):
        r = sh(cmd_of[killer], a.work, timeout=a.timeout)
        if r.returncode:
            print("%s fails on the unmutated tree: its kills do not count" % killer, flush=True)
            results = [(n, f, "invalid" if res == "killed" and k.replace(" (timeout)", "") == killer else res,
                        k + (" (fails unmutated)" if res == "killed" and k.replace(" (timeout)", "") == killer else ""),
                        secs) for n, f, res, k, secs in results]
    counted = [r for r in results if r[2] in ("killed", "SURVIVED")]
    killed = sum(1 for r in counted if r[2] == "killed")
    with open(a.out, "w") as out:
        out.write("# Mutation run (test/mutation/run.py)\n\n")
        out.write("Each row of test/mutation/mutations.tsv applied alone to the tree of commit %s, rebuilt, and\n"
                  % subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                   text=True).stdout.strip())
        out.write("make check's tests run until one fails. %d of %d mutants killed (%.0f%%).\n\n"
                  % (killed, len(counted), 100.0 * killed / max(1, len(counted))))
        out.write("| mutant | file | result | first failing test | seconds |\n|---|---|---|---|---:|\n")
        for name, f, res, killer, secs in results:
            out.write("| %s | %s | %s | %s | %.0f |\n" % (name, f, res, killer, secs))
    print("%d of %d killed; %s" % (killed, len(counted), a.out))
    return 0 if killed >= 0.9 * len(counted) else 1


if __name__ == "__main__":
    sys.exit(main())
