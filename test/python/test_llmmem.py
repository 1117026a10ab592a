"""Tests of the Python binding, the package llmmem (python/llmmem): the C API through it;
stdlib unittest. test_package.py tests its Pythonic layer, safety and packaging.

    make check      (builds the library first; PYTHONPATH=python, LLMMEM_LIBRARY)
    python3 -m unittest discover -s test/python -t test/python
    .ci/run         the same against the installed wheel (LLMMEM_TEST_INSTALLED=1)

A library that is not built or does not match the binding fails the run.
"""

import json
import os
import re
import sys
import threading
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCEN = os.path.join(ROOT, "test", "data", "scenarios")
HEADER = os.path.join(ROOT, "include", "llmmem.h")

# A binding that cannot load (library not built, not found, or of another ABI) is a
# failure, not a skip: the import error stops the module and unittest reports it.
try:
    import llmmem
except ImportError as exc:
    raise ImportError("the llmmem binding does not load (run make; LLMMEM_LIBRARY=%s): %s"
                      % (os.environ.get("LLMMEM_LIBRARY"), exc)) from exc


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def header_functions():
    """Names of the functions declared between the cdef markers of the header."""
    src = read(HEADER)
    body = src[src.index("LLMMEM_CDEF_BEGIN"):src.index("LLMMEM_CDEF_END")]
    return set(re.findall(r"LLMMEM_API[^;(]*?\b(llmmem_\w+)\s*\(", body))


class TestBinding(unittest.TestCase):
    def test_every_function_bound(self):
        """Every function of the header is in the binding, with its argument count; the
        binding made at build time (installed wheel) or read from the header (tree)."""
        names = header_functions()
        self.assertGreater(len(names), 80)
        self.assertEqual(names, set(llmmem._ffi.API["functions"]), "header and binding differ")
        src = read(HEADER)
        for name in names:
            f = getattr(llmmem.lib, name)
            self.assertIsNotNone(f.argtypes, name)
            args = re.search(r"LLMMEM_API[^;(]*\b%s\s*\(([^)]*)\)" % name, src).group(1).strip()
            self.assertEqual(len(f.argtypes), 0 if args == "void" else args.count(",") + 1, name)

    def test_version(self):
        src = read(HEADER)
        want = re.search(r'#define LLMMEM_VERSION_STRING "([^"]+)"', src).group(1)
        self.assertEqual(llmmem.version(), want)
        self.assertEqual(llmmem.__version__, want)
        self.assertEqual(llmmem.soversion(), int(re.search(r"#define LLMMEM_SOVERSION (\d+)", src).group(1)))

    def test_names_at_run_time(self):
        self.assertEqual(llmmem.phase_names()["forward"], 0)
        self.assertEqual(llmmem.component_names()["weights"], 0)
        self.assertIn("peak_allocated_bytes", llmmem.result_key_names())
        self.assertIn("hidden_size", llmmem.model_key_names())
        ps = {p["name"]: p for p in llmmem.params()}
        self.assertIn("micro_batch_size", ps)
        self.assertIn("adamw", ps["optimizer"]["values"])
        self.assertEqual(ps["micro_batch_size"]["bounds"][0], 1)
        self.assertTrue(llmmem.presets())
        arch = llmmem.architectures()
        self.assertEqual(arch["llama"], "decoder")
        self.assertEqual(arch["gemma3"], "multimodal")
        self.assertEqual(arch["whisper"], "refused")
        with self.assertRaises(llmmem.Error) as e:
            llmmem.Model.from_hf_json('{"model_type": "whisper"}')
        self.assertIn("speech", str(e.exception))
        tl = llmmem.timeline("llama-3.2-1b", seq_len=512)
        self.assertEqual(tl["model_type"], "llama")
        self.assertTrue(llmmem.timeline("llama-3.2-1b", format="svg").startswith("<svg"))
        self.assertIn("segments", llmmem.timeline("llama-3.2-1b", format="snapshot"))
        with self.assertRaises(ValueError):
            llmmem.timeline("llama-3.2-1b", format="png")
        with self.assertRaises(llmmem.Error):
            llmmem.timeline("llama-3.2-1b", engine="zero", zero_stage=2)
        self.assertIn("H200", " ".join(llmmem.gpus()))
        self.assertEqual(llmmem.status_name(llmmem.E_PARSE), "LLMMEM_E_PARSE")


class TestSmoke(unittest.TestCase):
    def test_scenario_estimate(self):
        m, c = llmmem.scenario_from_file(os.path.join(SCEN, "t01.json"))
        with m, c:
            self.assertEqual(c["micro_batch_size"], 4)
            self.assertEqual(c["param_dtype"], "fp32")
            self.assertEqual(m["hidden_size"], 2048)
            self.assertEqual(m.hidden_size, 2048)
            with llmmem.estimate(m, c) as r:
                d = r.to_dict()
                # groundtruth t01: model.parameters() counted 1,235,814,400
                self.assertEqual(d["params"], 1235814400)
                self.assertEqual(r["params"], 1235814400)
                for k in ("trainable_params", "peak_allocated_bytes", "peak_reserved_bytes",
                          "total_bytes_per_gpu", "fits"):
                    self.assertIn(k, d)
                self.assertIsInstance(r["fits"], bool)
                self.assertGreater(r.phase_bytes("backward"), r.component_bytes("backward", "weights"))
                self.assertTrue(all(isinstance(t["bytes"], int) for t in r.terms))
                ins = dict(r.inputs)
                self.assertTrue(ins)
                self.assertTrue(all(isinstance(v, int) for v in ins.values()))

    def test_host_memory(self):
        """Host RAM per node as results (issue 28): pinned + pageable = host_bytes, and the
        second verdict fits_host beside fits when a host RAM size is given."""
        kw = dict(engine="zero", zero_stage=3, num_gpus=8, offload_optimizer="cpu")
        with llmmem.estimate("llama-2-7b", **kw) as r:
            d = r.to_dict()
            self.assertGreater(r.host_pinned_bytes, 0)
            self.assertGreater(r["host_pageable_bytes"], 0)
            self.assertEqual(r.host_pinned_bytes + r.host_pageable_bytes, r.host_bytes)
            self.assertNotIn("fits_host", d)
            need = r.host_bytes
        with llmmem.estimate("llama-2-7b", host_memory_bytes=need, **kw) as r:
            self.assertIs(r.fits_host, True)
            self.assertEqual(r.host_memory_bytes, need)
        with llmmem.estimate("llama-2-7b", host_memory_bytes=need - 1, **kw) as r:
            self.assertIs(r["fits_host"], False)
            self.assertIs(r.fits, True)

    def test_config_roundtrip(self):
        with llmmem.Config() as c:
            c["seq_len"] = 4096
            c["lora_alpha"] = 32
            c["gradient_as_bucket_view"] = True
            c["optimizer"] = "adafactor"
            c.set("micro-batch-size", "3")  # a dashed spelling, a value from text
            self.assertEqual(c["seq_len"], 4096)
            self.assertEqual(c["lora_alpha"], 32.0)
            self.assertIs(c["gradient_as_bucket_view"], True)
            self.assertEqual(c["optimizer"], "adafactor")
            self.assertEqual(c["micro_batch_size"], 3)
            d = c.to_dict()
            self.assertEqual(d["seq_len"], 4096)
            with c.clone() as c2:
                self.assertEqual(c2["optimizer"], "adafactor")
            c.reset()
            self.assertNotEqual(c["optimizer"], "adafactor")

    def test_models(self):
        with llmmem.Model.from_hf_file(os.path.join(SCEN, "configs/dev/llama-3.2-1b.json")) as m:
            self.assertEqual(m.model_type, "llama")
            self.assertEqual(m["num_hidden_layers"], 16)
            self.assertEqual(m.to_dict()["hidden_size"], 2048)
        text = read(os.path.join(SCEN, "configs/dev/gpt2-medium.json"))
        with llmmem.Model.from_hf_json(text) as m:
            self.assertEqual(m["hidden_size"], 1024)  # n_embd of gpt2-medium
        with llmmem.Model.from_numbers(num_parameters="7B", num_hidden_layers=32) as m:
            self.assertEqual(m["num_hidden_layers"], 32)

    def test_framework_files(self):
        with llmmem.Config() as c:
            c.apply_hf_training_args(read(os.path.join(SCEN, "frameworks/hf_training_args.json")))
            self.assertEqual(c["micro_batch_size"], 2)
            with llmmem.Model.from_hf_file(os.path.join(SCEN, "configs/dev/llama-3.2-1b.json")) as m:
                c.apply_deepspeed(read(os.path.join(SCEN, "frameworks/ds_zero3_auto.json")), m)
            self.assertEqual(c["zero_stage"], 3)
            self.assertEqual(c["reduce_bucket_size"], 2048 * 2048)  # HF Trainer: hidden^2

    def test_framework_yaml(self):
        # a torchtune recipe: its keys onto parameters, the unknown one in the notes
        text = read(os.path.join(ROOT, "test/data/anchors/training/configs/tr014.yaml")) + "mystery: 1\n"
        self.assertEqual(llmmem.framework_detect(text), "torchtune")
        with llmmem.Config() as c:
            c.apply_framework(text)
            self.assertEqual(c["activation_profile"], "torchtune")
            self.assertEqual(c["activation_offloading"], "streams")
            self.assertTrue(c["optimizer_in_backward"])
            self.assertTrue(any("mystery" in n for n in c.notes))
            with self.assertRaises(llmmem.Error) as e:
                c.apply_framework("model:\n  _component_: x.llama3_2_1b\nloss:\n  _component_: my.Loss\n")
            self.assertEqual(e.exception.status, llmmem.E_UNSUPPORTED)
            self.assertIn('"loss._component_"', str(e.exception))

    def test_close(self):
        m = llmmem.Model.from_hf_file(os.path.join(SCEN, "configs/dev/llama-3.2-1b.json"))
        m.close()
        m.close()
        with self.assertRaises(llmmem.Error) as cm:
            m.get("hidden_size")
        self.assertEqual(cm.exception.status, llmmem.E_INVALID_ARG)


class TestApproximate(unittest.TestCase):
    """An unknown model_type or a shape from a size alone: result.approximate, its note,
    the repr; a counted model is not approximate."""

    UNKNOWN = {"model_type": "foobar", "hidden_size": 1024, "num_hidden_layers": 4,
               "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 32000}

    def test_unknown_model_type(self):
        r = llmmem.estimate(self.UNKNOWN)
        self.assertIs(r.approximate, True)
        self.assertIs(r.to_dict()["approximate"], True)
        self.assertTrue(any(n.startswith("approximate: ") and '"foobar"' in n for n in r.notes))
        self.assertIn("APPROXIMATE", repr(r))

    def test_counted_model(self):
        r = llmmem.estimate(dict(self.UNKNOWN, model_type="llama"))
        self.assertIs(r.approximate, False)
        self.assertNotIn("APPROXIMATE", repr(r))
        self.assertFalse(any(n.startswith("approximate: ") for n in r.notes))


class TestCalibration(unittest.TestCase):
    """The profile's meaning (docs/calibration.md): each component scaled in every phase,
    the CUDA context replaced; the identity by default and after clear."""

    def test_scale_and_context(self):
        m, c = llmmem.scenario_from_file(os.path.join(SCEN, "t01.json"))
        with m, c:
            with llmmem.estimate(m, c) as base:
                b_act = {ph: base.component_bytes(ph, "activations") for ph in ("forward", "backward")}
                b_w = base.component_bytes("backward", "weights")
                b_peak = base["peak_allocated_bytes"]
            self.assertGreater(b_act["forward"], 0)
            c.apply_calibration({"components": {"activations": 2.0}, "cuda_context_bytes": 123456789,
                                 "description": "test"})
            with llmmem.estimate(m, c) as r:
                for ph, v in b_act.items():
                    self.assertEqual(r.component_bytes(ph, "activations"), 2 * v)
                self.assertEqual(r.component_bytes("backward", "weights"), b_w)
                self.assertEqual(r["cuda_context_bytes"], 123456789)
                self.assertGreater(r["peak_allocated_bytes"], b_peak)
            c.clear_calibration()
            with llmmem.estimate(m, c) as r:
                self.assertEqual(r["peak_allocated_bytes"], b_peak)

    def test_example_profile_and_errors(self):
        prof = os.path.join(ROOT, "examples", "calibration", "identity.json")
        with llmmem.Config() as c:
            c.apply_calibration(read(prof))
            with self.assertRaises(llmmem.Error) as cm:
                c.apply_calibration('{"components": {"activation": 1.1}}')
            self.assertEqual(cm.exception.status, llmmem.E_UNKNOWN_PARAM)
            self.assertIn("activation", cm.exception.message)
            with self.assertRaises(llmmem.Error) as cm:
                c.apply_calibration('{"reserved_headroom": -1}')
            self.assertEqual(cm.exception.status, llmmem.E_OUT_OF_RANGE)


class TestPlan(unittest.TestCase):
    def test_inverse_questions(self):
        """max_batch: that batch fits and one more does not (by the estimator itself)."""
        with llmmem.Model.from_preset("llama-3.1-8b") as m, llmmem.Config() as c:
            c["gpu"] = "H100-80GB"
            c["checkpointing"] = "full"
            c["engine"] = "zero"
            c["zero_stage"] = 3
            c["num_gpus"] = 8
            c["data_parallel_size"] = 8
            mb = llmmem.max_batch(m, c)
            self.assertGreater(mb, 0)
            c["micro_batch_size"] = mb
            with llmmem.estimate(m, c) as r:
                self.assertTrue(r["fits"])
            c["micro_batch_size"] = mb + 1
            with llmmem.estimate(m, c) as r:
                self.assertFalse(r["fits"])
            self.assertGreater(llmmem.max_seq_len(m, c), 0)
            self.assertGreaterEqual(llmmem.min_gpus(m, c), 1)

    def test_layouts(self):
        with llmmem.Model.from_preset("llama-3.1-8b") as m, llmmem.Config() as c:
            c["num_gpus"] = 8
            with llmmem.plan(m, c, top_k=3) as p:
                n = len(p)
                self.assertTrue(0 < n <= 3)
                d = p.to_dict()
                self.assertEqual(len(d["layouts"]), n)
                rej = p.rejected()
                self.assertEqual(set(rej), set(llmmem.reject_names()))
                self.assertEqual(rej["oom"], p.rejected(llmmem.REJECT_OOM))
                self.assertGreaterEqual(p.candidates, n + sum(rej.values()))
                times = [p.step_time(i) for i in range(n)]
                self.assertEqual(times, sorted(times))
                for i in range(n):
                    self.assertAlmostEqual(times[i], d["layouts"][i]["step_time_s"], places=4)
                    # the layout's configuration, estimated again, gives the plan's peak
                    with p.config(i) as ci, llmmem.estimate(m, ci) as r:
                        self.assertEqual(r["peak_allocated_bytes"], p.peak_bytes(i))
                        self.assertEqual(r["peak_allocated_bytes"], d["layouts"][i]["peak_allocated_bytes"])
                        self.assertTrue(r["fits"])
                with self.assertRaises(llmmem.Error):
                    p.step_time(n)


class TestErrors(unittest.TestCase):
    def test_out_of_range(self):
        with llmmem.Config() as c:
            with self.assertRaises(llmmem.Error) as cm:
                c["micro_batch_size"] = 0
            e = cm.exception
            self.assertEqual(e.status, llmmem.E_OUT_OF_RANGE)
            self.assertEqual(e.status_name, "LLMMEM_E_OUT_OF_RANGE")
            self.assertIn("micro_batch_size", e.message)

    def test_unknown_and_type(self):
        with llmmem.Config() as c:
            with self.assertRaises(llmmem.Error) as cm:
                c["no_such_parameter"] = 1
            self.assertEqual(cm.exception.status, llmmem.E_UNKNOWN_PARAM)
            with self.assertRaises(llmmem.Error) as cm:
                c["lora_alpha"] = float("nan")
            self.assertEqual(cm.exception.status, llmmem.E_OUT_OF_RANGE)
            with self.assertRaises(llmmem.Error) as cm:
                c["optimizer"] = "adamq"
            self.assertIn("adamq", cm.exception.message)
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.Model.from_preset("no-such-model-7b")
        self.assertEqual(cm.exception.status, llmmem.E_UNKNOWN_PARAM)

    def test_scenario_position(self):
        text = '{"training": {\n  "seq_len": "long"\n}}'
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.scenario_from_json(text)
        e = cm.exception
        self.assertEqual(e.status, llmmem.E_SCHEMA)
        self.assertIn("2:14", e.message)  # "long" starts at line 2, column 14
        self.assertIn("training.seq_len", e.message)

    def test_threads_see_their_own_error(self):
        """Each thread triggers its own error in a loop and must read its own text."""
        failures = []

        def worker(tid):
            with llmmem.Config() as c:
                for i in range(300):
                    bad = -(1000 * (tid + 1) + i)
                    try:
                        c["seq_len"] = bad
                    except llmmem.Error as e:
                        if str(bad) not in e.message:
                            failures.append((tid, bad, e.message))
                    else:
                        failures.append((tid, bad, "no error"))
                    try:
                        llmmem.Model.from_preset("missing-%d-%d" % (tid, i))
                    except llmmem.Error as e:
                        if "missing-%d-%d" % (tid, i) not in e.message:
                            failures.append((tid, i, e.message))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
