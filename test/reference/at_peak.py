#!/usr/bin/env python3
"""What is alive at a phase's peak, from a harness event list.

usage: at_peak.py ID.events.jsonl [--phase backward] [--step N] [--top 30]

Walks the events (harness.py --events), finds the moment of the highest live
bytes (512-rounded requests) inside the phase of the step (the last step by
default) and prints the live tensors grouped by category and label, largest
first."""
import argparse
import collections
import json


def blk(n):
    return (n + 511) // 512 * 512


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--phase", default="backward")
    ap.add_argument("--step", type=int)
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    with open(a.events) as f:
        head = json.loads(f.readline())
        ev = [json.loads(l) for l in f]
    phases = head["phases"]
    step = a.step if a.step is not None else max(p[1] for p in phases)
    idx = [i for i, p in enumerate(phases) if p[0] == a.phase and p[1] == step]
    if not idx:
        raise SystemExit(f"no phase {a.phase} in step {step}")
    pi = idx[0]
    live = {}
    cur = 0
    best, best_at = -1, None
    for k, e in enumerate(ev):
        op, i, nb = e[0], e[1], e[2]
        if op == "a":
            live[i] = e
            cur += blk(nb)
        else:
            if i in live:
                del live[i]
                cur -= blk(nb)
        if e[6] == pi and cur > best:
            best, best_at = cur, dict(live)
    groups = collections.Counter()
    count = collections.Counter()
    for e in best_at.values():
        key = (e[4], e[5])
        groups[key] += blk(e[2])
        count[key] += 1
    print(f"peak of {a.phase} step {step}: {best} B ({best / 2**30:.3f} GiB)")
    bycat = collections.Counter()
    for (c, _), b in groups.items():
        bycat[c] += b
    for c, b in bycat.most_common():
        print(f"  {c:16s} {b:>15,d}")
    for (c, lab), b in groups.most_common(a.top):
        print(f"{b:>15,d}  x{count[(c, lab)]:<4d} {c:14s} {lab}")


if __name__ == "__main__":
    main()
