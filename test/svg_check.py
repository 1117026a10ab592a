#!/usr/bin/env python3
"""Checks an `llmmem estimate --svg` chart against the result it draws (test_cli.sh).

usage: svg_check.py CHART.svg RESULT.json UNIT

The title names the model and says the verdict; the subtitle holds the settings; the first
bar stacks what makes total_bytes_per_gpu (the peak phase's components, the allocator
reserve, the CUDA context), in the capacity line's scale, so it crosses the line exactly
when the verdict says it does not fit; every size is in UNIT (GiB or GB)."""
import json
import sys
import xml.dom.minidom


def text_of(t):
    spans = t.getElementsByTagName("tspan")
    nodes = [n for s in spans for n in s.childNodes] if spans else t.childNodes
    return " ".join(n.data for n in nodes if n.nodeType == n.TEXT_NODE)


def main():
    svg, res, unit = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
    d = xml.dom.minidom.parse(svg)
    texts = d.getElementsByTagName("text")
    by_class = {t.getAttribute("class"): text_of(t) for t in texts if t.getAttribute("class")}
    title, settings = by_class["title"], by_class["settings"]
    assert ("does NOT fit" in title) == (not res["fits"]), title
    assert "fit" in title and "GPU" in title, title
    assert "seq_len" in settings and "micro-batch" in settings, settings

    lines = d.getElementsByTagName("line")
    cap_y = float([l for l in lines if l.getAttribute("class") == "capacity"][0].getAttribute("y1"))
    base_y = max(float(l.getAttribute("y1")) for l in lines if l.getAttribute("stroke") == "black")
    segs = [r for r in d.getElementsByTagName("rect") if r.getAttribute("class") == "segment"]
    x0 = min(float(r.getAttribute("x")) for r in segs)
    first = [r for r in segs if float(r.getAttribute("x")) == x0]
    top = min(float(r.getAttribute("y")) for r in first)
    height = sum(float(r.getAttribute("height")) for r in first)
    want = res["total_bytes_per_gpu"] / res["gpu_memory_bytes"]
    got = height / (base_y - cap_y)
    assert abs(got - want) < 0.005, "first bar / capacity %.4f, total / capacity %.4f" % (got, want)
    assert (top < cap_y) == (not res["fits"]), (top, cap_y, res["fits"])
    names = " ".join(r.getElementsByTagName("title")[0].firstChild.data for r in first)
    assert "allocator reserve" in names and "CUDA context" in names, names

    other = {"GiB": " GB", "GB": " GiB"}[unit]
    assert all(other not in text_of(t) for t in texts), "sizes in the other unit"
    axis = [text_of(t) for t in texts if t.getAttribute("text-anchor") == "end"]
    assert any(a.endswith(" " + unit) for a in axis), "axis not in " + unit


if __name__ == "__main__":
    main()
