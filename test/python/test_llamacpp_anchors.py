"""Public CUDA logs of llama.cpp (and Ollama, LM Studio, its front ends) re-predicted (issue 30,
item 5): test/data/anchors/llamacpp, one JSON per log (format: that folder's README.md).

Each anchor's model is the header make_headers.py wrote from the log's own metadata print
(headers/<id>.gguf, read as the first bytes of a file of the size in headers/sizes.json); its
llama.cpp options are the log's. The GPU's total is what llama.cpp puts in cudaMalloc'd
buffers on CUDA0: the model buffer, the KV (and recurrent-state) buffer and the compute
buffer, which the log prints ("CUDA0 model/KV/compute buffer size"); the library's is the
sum of its terms weights_gpu, kv_cache_gpu and compute_buffer_gpu (the CUDA context is
neither printed by llama.cpp nor compared). Prints one row per anchor; fails when the median
|error| of the totals exceeds 3%, any exceeds 10% (the issue's bounds), or a model or KV
buffer is off by more than a printed rounding (0.01 MiB per buffer) plus 0.01%, or so is the
compute buffer of a log marked compute_graph_current (the replay reproduces it: the graph
this library follows, or one with the same peak; older llama.cpp built other graphs)."""
import glob
import json
import os
import statistics
import sys
import unittest

import llmmem

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DIR = os.path.join(ROOT, "test", "data", "anchors", "llamacpp")
MIB = 2**20


def predict(a, size):
    with open(os.path.join(DIR, "headers", a["id"] + ".gguf"), "rb") as f:
        m = llmmem.Model.from_gguf_bytes(f.read(), size)
    r = llmmem.estimate(m, mode="inference", runtime="llama_cpp", **a["args"])
    t = {x["name"]: x["bytes"] / MIB for x in r.terms}
    return t["weights_gpu"], t["kv_cache_gpu"], t["compute_buffer_gpu"]


class CudaAnchors(unittest.TestCase):
    def test_anchors(self):
        with open(os.path.join(DIR, "headers", "sizes.json")) as f:
            sizes = json.load(f)
        files = sorted(glob.glob(os.path.join(DIR, "l[0-9]*.json")))
        self.assertGreater(len(files), 0, "no anchors in " + DIR)
        rows, errs, exact_bad = [], [], []
        for path in files:
            with open(path) as f:
                a = json.load(f)
            rep = a["reported"]
            w, kv, comp = predict(a, sizes[a["id"]])
            total = w + kv + comp
            want = rep["cuda_model_mib"] + rep["cuda_kv_mib"] + rep["cuda_compute_mib"]
            err = 100.0 * (total - want) / want
            errs.append(abs(err))
            checks = [("model", w, rep["cuda_model_mib"]), ("KV", kv, rep["cuda_kv_mib"])]
            if a.get("compute_graph_current"):  # reproduced: held to the printed rounding
                checks.append(("compute", comp, rep["cuda_compute_mib"]))
            for name, got, printed in checks:
                if abs(got - printed) > 0.01 + 1e-4 * printed:
                    exact_bad.append("%s %s: %.2f MiB, the log %.2f" % (a["id"], name, got, printed))
            rows.append("%-5s %-44.44s %9.2f %9.2f %8.2f/%-8.2f %9.2f %9.2f %+6.2f%%" % (
                a["id"], a["model"], w, kv, comp, rep["cuda_compute_mib"], total, want, err))
        print("\nid    model                                        model MiB    KV MiB  compute (ours/log)"
              "   total       log   error", file=sys.stderr)
        for row in rows:
            print(row, file=sys.stderr)
        med = statistics.median(errs)
        print("%d anchors: median |error| %.2f%%, worst %.2f%% (bounds 3%% and 10%%)" % (len(errs), med, max(errs)),
              file=sys.stderr)
        self.assertEqual(exact_bad, [])
        self.assertLessEqual(med, 3.0)
        self.assertLessEqual(max(errs), 10.0)


if __name__ == "__main__":
    unittest.main()
