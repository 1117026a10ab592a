#!/usr/bin/env bash
# llmmem timeline (llmmem_timeline): the SVG is valid XML with one stacked area per
# category, the reserved line and the GPU capacity line; the JSON's points are the
# allocator's (reserved never below the active bytes, its peak the estimate's replay); the
# snapshot is the dictionary of torch.cuda.memory._snapshot() (memory_viz): every free has
# its alloc, every block lies in a live segment. A training and an inference scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-examples/llmmem}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for sc in test/data/scenarios/t01.json test/data/scenarios/i01.json; do
    "$CLI" timeline --scenario "$sc" > "$T/chart.svg"
    "$CLI" timeline json --scenario "$sc" > "$T/timeline.json"
    "$CLI" timeline snapshot --scenario "$sc" > "$T/snapshot.json"
    "$CLI" estimate --scenario "$sc" --json > "$T/estimate.json"
    python3 - "$T" "$sc" <<'PY'
import json, sys, xml.dom.minidom as dom
d, sc = sys.argv[1], sys.argv[2]
cats = ["weights", "gradients", "optimizer_state", "activations", "logits", "kv_cache", "workspace", "other"]
svg = dom.parse(f"{d}/chart.svg").documentElement
assert svg.tagName == "svg" and svg.getAttribute("xmlns") == "http://www.w3.org/2000/svg", "an SVG document"
areas = [p.getAttribute("data-category") for p in svg.getElementsByTagName("path") if p.getAttribute("class") == "area"]
assert areas == cats, f"one area per category, in order: {areas}"
lines = [l.getAttribute("class") for l in svg.getElementsByTagName("line")]
assert "capacity" in lines, "GPU capacity line"

assert any(p.getAttribute("class") == "reserved" for p in svg.getElementsByTagName("polyline")), "reserved line"
assert lines.count("phase") >= 2, "phases marked"
t = json.load(open(f"{d}/timeline.json"))
est = json.load(open(f"{d}/estimate.json"))
assert t["categories"] == cats and t["point_fields"] == ["event"] + cats + ["reserved"]
pts = t["points"]
assert len(pts) > 10 and all(sum(p[1:-1]) <= p[-1] for p in pts), "reserved >= active at every point"
assert max(p[-1] for p in pts) == t["peak_reserved_bytes"], "the chart's reserved peak is the replay's"
assert abs(t["estimate_peak_allocated_bytes"] - est["peak_allocated_bytes"]) == 0
# the legend's colours are the areas' (the CUDA context a band under them)
fill = {e.getAttribute("data-category"): e.getAttribute("fill") for e in
        svg.getElementsByTagName("path") + svg.getElementsByTagName("rect") if e.getAttribute("class") == "area"}
legend = {r.getAttribute("data-category"): r.getAttribute("fill") for r in svg.getElementsByTagName("rect")
          if r.getAttribute("class") == "legend"}
assert set(fill) == set(cats) | {"cuda_context"} and legend == fill, (fill, legend)
def text(cls):
    return [t for t in svg.getElementsByTagName("text") if t.getAttribute("class") == cls]
def content(t):
    return "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
# the y axis: its grid labels give the scale; the capacity line is the GPU's memory, the
# number every output gives, at its height
grid = [(float(l.getAttribute("y1")), l) for l in svg.getElementsByTagName("line") if l.getAttribute("class") == "grid"]
ticks = [t for t in svg.getElementsByTagName("text") if content(t).endswith(" GiB") and t.getAttribute("text-anchor") == "end"]
vals = [(float(t.getAttribute("y")) - 4, float(content(t)[:-4])) for t in ticks]
(ya, va), (yb, vb) = vals[0], vals[-1]
gib = lambda v: ya + (v - va) * (yb - ya) / (vb - va)
G = 1 << 30
cap = [l for l in svg.getElementsByTagName("line") if l.getAttribute("class") == "capacity"][0]
cap_label = content(text("capacity-label")[0])
assert cap_label.startswith("GPU %.2f GiB" % (est["gpu_memory_bytes"] / G)), (cap_label, est["gpu_memory_bytes"])
if "above the scale" not in cap_label:
    assert abs(float(cap.getAttribute("y1")) - gib(est["gpu_memory_bytes"] / G)) < 0.6, "capacity line height"
# x in phases: labels under the axis, in order, inside the plot, none over another
labels = [content(t) for t in text("phase-label")]
want = ["forward", "backward"] if est["mode"] == "training" else ["prefill", "decode"]
assert all(w in labels for w in want), labels
xs = [float(t.getAttribute("x")) for t in text("phase-label")]
assert xs == sorted(xs) and all(72 <= x <= 800 for x in xs), xs
# the peak: marked, labelled with the replay's allocated peak and where it is, at its height
peak = text("peak-label")
assert len(peak) == 1, "one peak label"
pl = content(peak[0])
assert pl.startswith("peak %.2f GiB allocated (+ " % (t["peak_allocated_bytes"] / G)), (pl, t["peak_allocated_bytes"])
assert any(w in pl for w in want + ["optimizer", "model build"]), pl
dot = [c for c in svg.getElementsByTagName("circle") if c.getAttribute("class") == "peak"][0]
ctx = t["gpu_memory_bytes"] - t["allocator_budget_bytes"]
assert abs(float(dot.getAttribute("cy")) - gib((t["peak_allocated_bytes"] + ctx) / G)) < 0.6, "the peak's height"
names = {p["name"] for p in t["phases"]}
assert names >= ({"model build", "forward", "backward", "optimizer"} if est["mode"] == "training"
                 else {"model build", "prefill", "decode"}), names
s = json.load(open(f"{d}/snapshot.json"))
tr = s["device_traces"][0]
live = {}
for e in tr:
    assert set(e) >= {"action", "addr", "size", "stream", "frames"}, e
    if e["action"] == "alloc":
        assert e["addr"] not in live, "double alloc"
        live[e["addr"]] = e["size"]
    elif e["action"] == "free_completed":
        assert live.pop(e["addr"], None) is not None, "free without alloc"
segs = s["segments"]
assert segs and all(b["address"] >= g["address"] and b["address"] < g["address"] + g["total_size"]
                    for g in segs for b in g["blocks"]), "blocks inside their segments"
assert sum(len(g["blocks"]) for g in segs) == len(live), "the segments hold the live blocks"
print(f"ok: {sc}: {len(pts)} points, {len(tr)} trace entries, {len(segs)} segments")
PY
done
# --json is the json format (as with every command), a second format is refused, and a write
# that fails exits non-zero
cmp <("$CLI" timeline json --preset llama-3.2-1b) <("$CLI" timeline --preset llama-3.2-1b --json)
if "$CLI" timeline svg --preset llama-3.2-1b --json >/dev/null 2>"$T/err"; then
    echo "timeline svg --json was accepted"; exit 1
fi
grep -q "prints the json format, not svg" "$T/err"
if [ -w /dev/full ] && "$CLI" timeline --preset llama-3.2-1b >/dev/full 2>"$T/err"; then
    echo "timeline > /dev/full exited 0"; exit 1
fi
echo "ok: --json, format conflicts, write errors"
# a run the timeline does not draw is refused with the reason the estimate's note gives
if "$CLI" timeline --preset llama-3.2-1b --compile layers >/dev/null 2>"$T/err"; then
    echo "timeline of a compiled run was drawn"; exit 1
fi
grep -q "no allocation timeline: the allocation timeline does not draw torch.compile" "$T/err"
echo "ok: undrawn runs refused with their reason"
# the timeline is bounded before it starts: at most 8 micro-steps of each optimizer step
# (the peaks those of the whole run, which repeats from the second micro-step; each output
# names the cut), and at most 2,000,000 events (about) or a refusal naming the bound
"$CLI" timeline json --preset llama-3.2-1b --gradient-accumulation-steps 8 > "$T/ga8.json"
"$CLI" timeline json --preset llama-3.2-1b --gradient-accumulation-steps 3 > "$T/ga3.json"
for f in json svg snapshot; do
    timeout 60 "$CLI" timeline $f --preset llama-3.2-1b --gradient-accumulation-steps 100000 > "$T/cut.$f"
done
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
a, b = json.load(open(f"{d}/ga8.json")), json.load(open(f"{d}/cut.json"))
note = "gradient_accumulation_steps = 100000: the timeline draws 8 micro-steps of each optimizer step"
assert "notes" not in a and len(b["notes"]) == 1 and b["notes"][0].startswith(note), b.get("notes")
for k in ("peak_reserved_bytes", "peak_allocated_bytes", "events", "points"):
    assert a[k] == b[k], k
c = json.load(open(f"{d}/ga3.json"))  # micro-steps from the second on repeat: the same peaks
assert (c["peak_reserved_bytes"], c["peak_allocated_bytes"]) == (a["peak_reserved_bytes"], a["peak_allocated_bytes"])
assert c["events"] < a["events"]
assert note in open(f"{d}/cut.svg").read(), "the chart names the cut"
assert json.load(open(f"{d}/cut.snapshot"))["notes"][0].startswith(note), "the snapshot names the cut"
PY
if "$CLI" timeline json --num-layers 240 --hidden-size 512 --num-heads 8 --intermediate-size 1024 \
    --vocab-size 1000 --gradient-accumulation-steps 8 >/dev/null 2>"$T/err"; then
    echo "a timeline past its bound was drawn"; exit 1
fi
grep -q "no allocation timeline: the allocation timeline would have about 2304000 events (a timeline stops at 2000000)" "$T/err"
echo "ok: micro-steps and events bounded before the replay starts"
