#!/usr/bin/env python3
"""Estimate vs measurement on the H200 data kept in test/data/ (a copy of
shared/groundtruth's dev set, its engine runs at world size 1, the project's own
extra measurements of test/gpu/measure_more.py and the probe's records).

For each record it runs `examples/llmmem estimate --scenario FILE --json` and checks:
params and trainable_params exact where measured, a measured OOM reported as not
fitting, a run that fitted reported as fitting, and each measured figure within the
record's own tolerance from --tolerances (test/data/tolerances.tsv):

    peak_allocated_bytes              estimate peak_allocated_bytes
    peak_reserved_bytes               estimate peak_reserved_bytes (the caching allocator replay)
    kv_cache_bytes_after_decode       estimate kv_cache_bytes
    phase_peak_bytes.<phase>          estimate phases.<phase>.total
    prefill_peak_bytes                estimate phases.prefill.total
    forward_saved_bytes, weights_bytes, persistent_bytes   the same key

The first three are required for every record that measured them (a missing row is a
failure); the others are checked where the file has a row. A known gap
(--known-gaps: "id figure error_pct half_width reason") excuses one figure of one record,
and only while its error stays within error_pct +- half_width; every other figure of
that record is checked as usual. --max-err (peaks), --max-kv-err and --max-phase-err are
the project's ceilings: a tolerance row above its ceiling is itself a failure.

Two checks per figure, named apart (issue 25):
    accuracy bound     |error| <= the row's tolerance: an absolute limit for that record,
                       whichever side of the measurement the estimate falls
    regression check   the signed error within PIN_HALF (0.10) percentage point of its pin
                       in --pins (test/data/regression-pins.tsv): a change that moves an
                       estimate, even towards zero or across it, is seen and must be
                       re-pinned on purpose (--write-pins)

    --check-rows       no estimates: every row names a measured figure of FILES and every
                       record of FILES has its rows (run once over all the files); with
                       --copies, each copy of a record (a scenario file with "measured")
                       measured what its record in FILES measured, so its rows bound it
    --write-pins       rewrites the pins of the records in FILES from the current signed
                       errors, keeping the pins of other records
    --write-tolerances rewrites the rows of the records in FILES from the current errors
                       (|error| + 0.10 percentage point, rounded up to 0.01), keeping the
                       notes, the rows of other records and the row order

--one-process FILE: the records of FILE were measured one after another in one process
(measure.py, measure_more.py MEASURE_BATCH=all): from the first training record on, the
autograd thread's cuBLAS workspace stays allocated inside the segment that run left it in
(empty_cache cannot release it), so every later record is estimated with
prior_workspace_segment_bytes set to that segment, read from `llmmem timeline json` of the
first training record (autograd_workspace_segment_bytes).

Prints one line per record and a summary; exits 1 on any failure."""
import argparse, json, math, os, subprocess, sys, tempfile

REQUIRED = ("peak_allocated_bytes", "kv_cache_bytes_after_decode", "peak_reserved_bytes")
OPTIONAL = ("prefill_peak_bytes", "forward_saved_bytes", "weights_bytes", "persistent_bytes")
MARGIN = 0.10  # percentage points above the error when a row is (re)written
PIN_HALF = 0.10  # percentage points a figure may move from its pin (the regression check)


PIN_HEADER = """# Regression pins (issue 25): the signed error, in percent, of each measured figure that
# has a tolerance row in tolerances.tsv, as the estimate stood when the pin was written.
# test/accuracy.py --pins fails a figure that moves more than 0.10 percentage point from its
# pin, in either direction: a "regression check", apart from the accuracy bound (the
# row's absolute limit on |error|). A change that moves an estimate on purpose re-pins with
#   python3 test/accuracy.py --pins test/data/regression-pins.tsv --write-pins [the options
#     and files of the test/test_accuracy.sh line that failed]
# and names the moved figures in its commit message.
#
# Columns (tab-separated): id, figure, signed_error_pct.
"""


def run_cli(cli, sc, command="estimate"):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sc, f)
        path = f.name
    try:
        args = [cli, command, "--scenario", path] + (["--json"] if command == "estimate" else ["json"])
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip().splitlines()[-1:]
    return json.loads(p.stdout), None


def measured_figures(meas):
    """The figures of a measured record this test can compare, name -> bytes."""
    figs = {k: meas[k] for k in REQUIRED + OPTIONAL if isinstance(meas.get(k), int)}
    for ph, v in (meas.get("phase_peak_bytes") or {}).items():
        figs["phase_peak_bytes." + ph] = v
    return figs


def required(fig):
    return fig in REQUIRED or fig.startswith("phase_peak_bytes.")


def estimated(out, fig):
    if fig == "kv_cache_bytes_after_decode":
        return out.get("kv_cache_bytes")
    if fig == "prefill_peak_bytes":
        return out.get("phases", {}).get("prefill", {}).get("total")
    if fig.startswith("phase_peak_bytes."):
        return out.get("phases", {}).get(fig.split(".", 1)[1], {}).get("total")
    return out.get(fig)


def read_tolerances(path):
    """Rows (id, figure) -> [tolerance or None for "-", note], in file order; the header
    comment lines are kept for --write-tolerances."""
    rows, header = {}, []
    for n, line in enumerate(open(path), 1):
        if line.startswith("#") or not line.strip():
            if not rows:
                header.append(line.rstrip("\n"))
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3:
            sys.exit(f"{path}:{n}: want 'id<TAB>figure<TAB>tolerance_pct[<TAB>note]'")
        key = (parts[0], parts[1])
        if key in rows:
            sys.exit(f"{path}:{n}: {key[0]} {key[1]} twice")
        rows[key] = [None if parts[2] == "-" else float(parts[2]), parts[3] if len(parts) > 3 else ""]
    return rows, header


def read_pins(path):
    """(id, figure) -> signed error in percent (the regression pins), in file order, and the
    header comment lines."""
    pins, header = {}, []
    if not os.path.exists(path):
        return pins, header
    for n, line in enumerate(open(path), 1):
        if line.startswith("#") or not line.strip():
            if not pins:
                header.append(line.rstrip("\n"))
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            sys.exit(f"{path}:{n}: want 'id<TAB>figure<TAB>signed_error_pct'")
        if (parts[0], parts[1]) in pins:
            sys.exit(f"{path}:{n}: {parts[0]} {parts[1]} twice")
        pins[(parts[0], parts[1])] = float(parts[2])
    return pins, header


def read_known_gaps(path):
    known = {}
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 4)
        if len(parts) < 5:
            sys.exit(f"{path}:{n}: want 'id figure error_pct half_width reason'")
        known[(parts[0], parts[1])] = (float(parts[2]), float(parts[3]), parts[4])
    return known


def records(files):
    for path in files:
        base = os.path.dirname(os.path.abspath(path))
        for line in open(path):
            if line.strip():
                sc = json.loads(line)
                hf = sc.get("model", {}).get("hf_config")
                if hf and not os.path.isabs(hf):
                    sc["model"]["hf_config"] = os.path.join(base, hf)
                yield sc


def check_rows(files, tol, known, copies, pins=None):
    """Every record has its rows, every row (and known gap) names a measured figure, every
    figure with a tolerance row has its regression pin and every pin its row, every copy is
    its record."""
    problems, have, nrec, byid = [], set(), 0, {}
    for sc in records(files):
        nrec += 1
        byid[sc["id"]] = sc["measured"]
        meas = sc["measured"]
        figs = measured_figures(meas)
        sid = sc["id"]
        if meas.get("oom"):
            have.add((sid, "oom"))
            if (sid, "oom") not in tol:
                problems.append(f"{sid}: measured OOM, no 'oom' row")
            continue
        for fig in figs:
            have.add((sid, fig))
            if required(fig) and (sid, fig) not in tol and (sid, fig) not in known:
                problems.append(f"{sid} {fig}: measured, no tolerance row and no known gap")
            if (sid, fig) in tol and (sid, fig) in known:
                problems.append(f"{sid} {fig}: both a tolerance row and a known gap")
    for key in list(tol) + list(known):
        if key not in have:
            problems.append(f"{key[0]} {key[1]}: no such measured figure in {' '.join(files)}")
    if pins is not None:
        for key, row in tol.items():
            if key[1] != "oom" and key not in pins:
                problems.append(f"{key[0]} {key[1]}: a tolerance row without a regression pin")
        for key in pins:
            if key not in tol:
                problems.append(f"{key[0]} {key[1]}: a regression pin without a tolerance row")
    for path in copies:
        sc = json.load(open(path))
        if sc.get("id") not in byid:
            problems.append(f"{path}: id {sc.get('id')} is no record of the files")
        elif sc.get("measured") != byid[sc["id"]]:
            problems.append(f"{path}: measured differs from record {sc['id']}")
    for p in problems:
        print("FAIL", p)
    print(f"{nrec} records, {len(copies)} copies, {len(tol)} tolerance rows, "
          f"{len(pins or {})} regression pins, {len(known)} known gaps; "
          f"{len(problems)} problems")
    return 1 if problems else 0


def ceiling(a, fig):
    if fig == "kv_cache_bytes_after_decode":
        return a.max_kv_err
    if fig == "peak_reserved_bytes":
        return a.max_reserved_err
    if fig.startswith("phase_peak_bytes."):
        return a.max_phase_err if a.max_phase_err is not None else a.max_err
    return a.max_err


def judge(sid, fig, e, a, tol, known, problems, pins=None):
    """Checks one figure's error e (percent) against its row (the accuracy bound) and its pin
    (the regression check), or against its known gap."""
    if (sid, fig) in known:
        centre, half, why = known[(sid, fig)]
        if abs(e - centre) > half:
            problems.append(f"known gap {fig} moved: {e:+.2f}%, listed as {centre:+.2f} +-{half} "
                            f"(fixed? remove it from the known gaps and give it a tolerance row)")
            return ""
        return f"KNOWN {fig} {e:+.2f}% ({why[:60]})"
    row = tol.get((sid, fig))
    if row is None or row[0] is None:
        problems.append(f"{fig}: no tolerance row")
    elif row[0] > ceiling(a, fig):
        problems.append(f"{fig}: tolerance {row[0]}% above the ceiling {ceiling(a, fig)}%")
    elif abs(e) > row[0]:
        problems.append(f"accuracy bound: {fig} error {e:+.2f}% beyond its limit {row[0]}%")
    if pins is not None and row is not None:
        pin = pins.get((sid, fig))
        if pin is None:
            problems.append(f"regression check: {fig} has no pin (--write-pins)")
        elif abs(e - pin) > PIN_HALF + 1e-9:
            problems.append(f"regression check: {fig} moved from its pin {pin:+.2f}% to {e:+.2f}% "
                            f"(more than {PIN_HALF} point; if intended, re-pin with --write-pins)")
    return ""


def process_priors(a):
    """id -> prior_workspace_segment_bytes for the records measured after a training record
    in the same process (--one-process files)."""
    prior = {}
    for path in a.one_process:
        if path not in a.files:
            continue
        recs = [sc for sc in records([path])]
        first = next((i for i, sc in enumerate(recs)
                      if sc["mode"] == "training" and not sc["measured"].get("oom")), None)
        if first is None:
            continue
        sc = dict(recs[first])
        sc.pop("measured")
        out, _ = run_cli(a.cli, sc, "timeline")
        seg = (out or {}).get("autograd_workspace_segment_bytes", 0)
        for sc in recs[first + 1:]:
            if seg:
                prior[sc["id"]] = seg
    return prior


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--cli", default="examples/llmmem")
    ap.add_argument("--tolerances", help="per-record bounds (id, figure, pct)",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                         "tolerances.tsv"))
    ap.add_argument("--max-err", type=float, default=3.0)
    ap.add_argument("--max-kv-err", type=float, default=0.5)
    ap.add_argument("--max-phase-err", type=float, default=None,
                    help="ceiling for the per-phase peaks (default: --max-err)")
    ap.add_argument("--max-reserved-err", type=float, default=5.0)
    ap.add_argument("--one-process", action="append", default=[],
                    help="a file whose records one process measured in order")
    ap.add_argument("--known-gaps", default=None, help="file of 'id figure pct half reason' lines")
    ap.add_argument("--check-rows", action="store_true")
    ap.add_argument("--copies", nargs="*", default=[], help="scenario files copied from records")
    ap.add_argument("--write-tolerances", action="store_true")
    ap.add_argument("--pins", default=None, help="regression pins (id, figure, signed error pct)")
    ap.add_argument("--write-pins", action="store_true")
    a = ap.parse_args()
    tol, header = read_tolerances(a.tolerances)
    pins, pin_header = read_pins(a.pins) if a.pins else ({}, [])
    check_pins = a.pins is not None and not a.write_pins
    known = read_known_gaps(a.known_gaps) if a.known_gaps else {}
    if a.check_rows:
        sys.exit(check_rows(a.files, tol, known, a.copies, pins if a.pins else None))
    fails = nknown = 0
    errs, rerrs = [], []
    prior = process_priors(a)
    print(f"{'id':5s} {'mode':5s} {'model':24s} {'estimate GiB':>12s} {'measured GiB':>12s} {'error':>7s}")
    for sc in records(a.files):
        meas = sc.pop("measured")
        sid = sc["id"]
        if sid in prior:
            sc.setdefault("params", {})["prior_workspace_segment_bytes"] = prior[sid]
        out, err = run_cli(a.cli, sc)
        name = os.path.basename(sc.get("model", {}).get("hf_config") or "?")[:24]
        if out is None:
            print(f"{sid:5s} FAIL: {err}")
            fails += 1
            continue
        problems = []
        if meas.get("oom"):
            if out.get("fits") is not False:
                problems.append("measured OOM but estimate fits")
            if a.write_tolerances and (sid, "oom") not in tol:
                tol[(sid, "oom")] = [None, "measured out of memory: the estimate must not fit"]
            if (sid, "oom") not in tol:
                problems.append("no 'oom' row")
            print(f"{sid:5s} {sc['mode'][:5]:5s} {name:24s} {out['peak_allocated_bytes']/2**30:12.2f} "
                  f"{'OOM':>12s} {'':>7s} {'ok' if not problems else 'FAIL ' + '; '.join(problems)}")
            fails += bool(problems)
            continue
        if "params" in meas and out.get("params") != meas["params"]:
            problems.append(f"params {out.get('params')} != {meas.get('params')}")
        if "trainable_params" in meas and out.get("trainable_params") != meas["trainable_params"]:
            problems.append(f"trainable {out.get('trainable_params')} != {meas['trainable_params']}")
        if out.get("fits") is not True:
            problems.append("the run fitted but the estimate says it does not")
        figs = measured_figures(meas)
        fig_err, notes = {}, []
        for fig, mv in figs.items():
            if not required(fig) and (sid, fig) not in tol and (sid, fig) not in known:
                continue
            ev = estimated(out, fig)
            if ev is None or not mv:
                problems.append(f"{fig} measured but not estimated")
                continue
            e = fig_err[fig] = 100.0 * (ev - mv) / mv
            if a.write_tolerances and (sid, fig) not in known:
                note = tol.get((sid, fig), [None, ""])[1]
                tol[(sid, fig)] = [math.ceil(round((abs(e) + MARGIN) * 100, 6)) / 100, note]
            if a.write_pins and (sid, fig) not in known and (sid, fig) in tol:
                pins[(sid, fig)] = round(e, 2)
            note = judge(sid, fig, e, a, tol, known, problems, pins if check_pins else None)
            if note:
                notes.append(note)
                nknown += 1
        m = meas["peak_allocated_bytes"]
        e = fig_err.get("peak_allocated_bytes", float("nan"))
        errs.append(abs(e))
        kve = fig_err.get("kv_cache_bytes_after_decode")
        kv = f" kv {kve:+.2f}%" if kve is not None else ""
        re_ = fig_err.get("peak_reserved_bytes")
        if re_ is not None:
            rerrs.append(abs(re_))
            kv += f" reserved {re_:+.2f}%"
        verdict = "; ".join(notes) if notes else "ok"
        if problems:
            verdict = "FAIL " + "; ".join(problems)
        print(f"{sid:5s} {sc['mode'][:5]:5s} {name:24s} {out['peak_allocated_bytes']/2**30:12.2f} "
              f"{m/2**30:12.2f} {e:+6.2f}%{kv} {verdict}")
        fails += bool(problems)
    errs.sort()
    rerrs.sort()
    if errs:
        res = (f"; peak reserved: median |error| {rerrs[len(rerrs)//2]:.2f}%, max {rerrs[-1]:.2f}%"
               if rerrs else "")
        print(f"{len(errs)} compared: median |error| {errs[len(errs)//2]:.2f}%, max {errs[-1]:.2f}%{res}; "
              f"{fails} failing, {nknown} known gaps")
    if a.write_tolerances:
        with open(a.tolerances, "w") as f:
            f.write("\n".join(header) + "\n")
            for (sid, fig), (t, note) in tol.items():
                f.write("\t".join([sid, fig, "-" if t is None else f"{t:.2f}"] + ([note] if note else [])) + "\n")
        print(f"wrote {a.tolerances}")
    if a.write_pins:
        with open(a.pins, "w") as f:
            f.write("\n".join(pin_header) + "\n" if pin_header else PIN_HEADER)
            for (sid, fig), pin in pins.items():
                f.write(f"{sid}\t{fig}\t{pin + 0.0:+.2f}\n")
        print(f"wrote {a.pins}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
