"""Tests of the Python package llmmem (python/llmmem): the Pythonic layer (estimate with
keywords, Model/Config/Result/Plan), the binding's safety (issue 20 item 7: handle classes,
integer ranges, NUL, unknown and inapplicable keywords, unestimated results, keyword-only
arguments), the binding generated from the header, and the packaging (pyproject.toml, the
build backend, the installed wheel when LLMMEM_TEST_INSTALLED=1).

    make check      (PYTHONPATH=python: the tree)
    .ci/run         (the wheel installed in a venv, LLMMEM_TEST_INSTALLED=1)
"""

import copy
import ctypes
import gc
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
import weakref

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCEN = os.path.join(ROOT, "test", "data", "scenarios")
HEADER = os.path.join(ROOT, "include", "llmmem.h")
LLAMA_1B = os.path.join(SCEN, "configs", "dev", "llama-3.2-1b.json")
INSTALLED = os.environ.get("LLMMEM_TEST_INSTALLED") == "1"

try:
    import llmmem
    from llmmem import _header
except ImportError as exc:
    raise ImportError("the llmmem package does not load (run make; PYTHONPATH=python): %s" % exc) from exc


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def c_peak(preset, **params):
    """peak_allocated_bytes through the C functions themselves (llmmem.lib), not the
    Pythonic layer: the reference the Pythonic results must equal."""
    lib = llmmem.lib
    m, c, r = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.llmmem_model_from_preset(ctypes.byref(m), preset.encode()) == 0
    assert lib.llmmem_config_new(ctypes.byref(c)) == 0
    assert lib.llmmem_result_new(ctypes.byref(r)) == 0
    try:
        for k, v in params.items():
            assert lib.llmmem_config_set(c, k.encode(), str(v).encode()) == 0, llmmem.last_error()
        assert lib.llmmem_estimate(r, m, c) == 0, llmmem.last_error()
        out = ctypes.c_uint64()
        assert lib.llmmem_result_get_u64(ctypes.byref(out), r, llmmem.lib.llmmem_result_key_at(2)) == 0
        return out.value
    finally:
        lib.llmmem_result_free(r)
        lib.llmmem_config_free(c)
        lib.llmmem_model_free(m)


class TestEstimate(unittest.TestCase):
    def test_preset_and_keywords(self):
        """The README's call: a preset name and keywords; the same number as the C API."""
        r = llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096)
        want = c_peak("llama-3.1-8b", micro_batch_size=4, seq_len=4096)
        self.assertEqual(r["peak_allocated_bytes"], want)
        self.assertEqual(r.peak_allocated_bytes, want)
        # a keyword left out goes back to its default (the scratch configuration is reused)
        self.assertEqual(llmmem.estimate("llama-3.1-8b", micro_batch_size=4)["peak_allocated_bytes"],
                         c_peak("llama-3.1-8b", micro_batch_size=4))
        self.assertEqual(llmmem.estimate("llama-3.1-8b").peak_allocated_bytes, c_peak("llama-3.1-8b"))
        # aliases and dashes as the library accepts them
        self.assertEqual(llmmem.estimate("llama-3.1-8b", checkpointing="full").peak_allocated_bytes,
                         c_peak("llama-3.1-8b", activation_checkpointing="full"))

    def test_kept_keywords_keep_their_type(self):
        """1 and True are equal dict keys: a configuration kept for one never answers for the
        other, in either order (the bool is refused where the library refuses it)."""
        want = c_peak("llama-3.2-1b", micro_batch_size=1, allocator_replay=0)
        self.assertEqual(llmmem.estimate("llama-3.2-1b", micro_batch_size=1, allocator_replay=False)
                         .peak_allocated_bytes, want)
        for _ in range(2):
            with self.assertRaises(TypeError):
                llmmem.estimate("llama-3.2-1b", micro_batch_size=True, allocator_replay=False)
            self.assertEqual(llmmem.estimate("llama-3.2-1b", micro_batch_size=1, allocator_replay=0)
                             .peak_allocated_bytes, want)
            self.assertEqual(llmmem.estimate("llama-3.2-1b", allocator_replay=False, micro_batch_size=1)
                             .peak_allocated_bytes, want)
        with self.assertRaises(TypeError):
            llmmem.estimate("llama-3.2-1b", seq_len=True)
        self.assertEqual(llmmem.estimate("llama-3.2-1b", seq_len=1, allocator_replay=False).peak_allocated_bytes,
                         c_peak("llama-3.2-1b", seq_len=1, allocator_replay=0))

    def test_results_the_caller_holds_stay_theirs(self):
        """estimate() fills again the Result its last call returned only when nothing else
        refers to it: one held by a variable, a list or a weak reference, or closed, is
        never the next call's."""
        m = llmmem.Model.from_preset("llama-3.2-1b")
        want = {k: c_peak("llama-3.2-1b", micro_batch_size=k, allocator_replay=0) for k in (1, 2, 3)}
        r1 = llmmem.estimate(m, micro_batch_size=1, allocator_replay=False)
        kept = [llmmem.estimate(m, micro_batch_size=2, allocator_replay=False)]
        for k in (3, 3, 1, 2):
            r = llmmem.estimate(m, micro_batch_size=k, allocator_replay=False)
            self.assertIsNot(r, r1)
            self.assertIsNot(r, kept[0])
            self.assertEqual(r.peak_allocated_bytes, want[k])
        self.assertEqual(r1.peak_allocated_bytes, want[1])
        self.assertEqual(kept[0].peak_allocated_bytes, want[2])
        # a dropped Result is filled again: one object for a loop that reads and drops
        ids = {id(llmmem.estimate(m, micro_batch_size=3, allocator_replay=False)) for _ in range(4)}
        if llmmem._results._SPARE_ON:
            self.assertEqual(len(ids), 1)
        # a weak reference keeps it the caller's
        w = weakref.ref(llmmem.estimate(m, micro_batch_size=1, allocator_replay=False))
        r = llmmem.estimate(m, micro_batch_size=2, allocator_replay=False)
        self.assertIsNot(w(), r)
        self.assertEqual(r.peak_allocated_bytes, want[2])
        # a closed one is not filled again
        c = llmmem.estimate(m, micro_batch_size=3, allocator_replay=False)
        c.close()
        del c
        self.assertEqual(llmmem.estimate(m, micro_batch_size=1, allocator_replay=False).peak_allocated_bytes,
                         want[1])

    def test_copy_and_pickle_of_handles(self):
        """copy.copy/deepcopy of a Model or Config clone its C handle (they used to copy the
        slot: two owners, a double free when both were collected); a Result or Plan cannot
        be copied and says what keeps its values; no handle pickles."""
        m = llmmem.Model.from_preset("llama-3.2-1b")
        c = llmmem.Config(micro_batch_size=3, allocator_replay=False)
        for f in (copy.copy, copy.deepcopy):
            m2, c2 = f(m), f(c)
            self.assertIsInstance(m2, llmmem.Model)
            self.assertNotEqual(m2._h.value, m._h.value)
            self.assertEqual(m2["params"], m["params"])
            self.assertNotEqual(c2._h.value, c._h.value)
            c2["micro_batch_size"] = 5
            self.assertEqual(c["micro_batch_size"], 3)
            del m2, c2
            gc.collect()
        r = llmmem.estimate(m, c)
        for f in (copy.copy, copy.deepcopy, pickle.dumps):
            with self.assertRaises(TypeError) as cm:
                f(r)
            self.assertIn("to_dict()", str(cm.exception))
        for o in (m, c):
            with self.assertRaises(TypeError):
                pickle.dumps(o)
        self.assertEqual(llmmem.estimate(m, c).peak_allocated_bytes, r.peak_allocated_bytes)

    def test_model_sources(self):
        """A path, the folder holding config.json, its content as a dict, and a Model agree."""
        want = llmmem.Model.from_hf_file(LLAMA_1B)["params"]
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "config.json"), "w") as f:
                f.write(read(LLAMA_1B))
            for src in (LLAMA_1B, d, json.loads(read(LLAMA_1B)), llmmem.Model.from_hf_config(LLAMA_1B)):
                self.assertEqual(llmmem.estimate(src).params, want, src)
                self.assertEqual(llmmem.Model.from_hf_config(src if not isinstance(src, llmmem.Model)
                                                             else LLAMA_1B)["params"], want)
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate(os.path.join(SCEN, "no-such-config.json"))
        self.assertEqual(cm.exception.status, llmmem.E_IO)
        with self.assertRaises(llmmem.UnknownParameterError) as cm:
            llmmem.estimate("llama-3.1-8c")
        self.assertIn("llama-3.1-8b", str(cm.exception))  # the suggestion

    def test_config_argument(self):
        """Keywords apply to a copy of the Config, which stays as it was."""
        c = llmmem.Config(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8)
        r = llmmem.estimate("llama-3.1-8b", c, micro_batch_size=2)
        self.assertEqual(c["micro_batch_size"], 1)
        self.assertEqual(r.peak_allocated_bytes, c_peak("llama-3.1-8b", engine="zero", zero_stage=3, num_gpus=8,
                                                        data_parallel_size=8, micro_batch_size=2))
        self.assertEqual(r.engine, "zero")

    def test_result_reuse(self):
        r = llmmem.Result()
        self.assertIs(r.estimate("llama-3.2-1b", seq_len=512), r)
        self.assertEqual(r.peak_allocated_bytes, c_peak("llama-3.2-1b", seq_len=512))


class TestResult(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = llmmem.estimate("llama-3.1-8b", micro_batch_size=2, seq_len=2048, activation_checkpointing="full")
        cls.d = cls.r.to_dict()

    def test_every_key(self):
        """Every key of to_dict() reads as an item and as an attribute, with the same value."""
        self.assertIn("engine", self.d)
        self.assertGreater(len(self.d), 30)
        for k, v in self.d.items():
            if isinstance(v, float):  # the JSON writes ratios with 6 digits; the getter has them all
                self.assertAlmostEqual(self.r[k], v, delta=1e-6 * abs(v), msg=k)
                self.assertEqual(getattr(self.r, k), self.r[k], k)
            else:
                self.assertEqual(self.r[k], v, k)
                self.assertEqual(getattr(self.r, k), v, k)
            self.assertIn(k, self.r)
        self.assertEqual(sorted(self.r.keys()), sorted(self.d))
        self.assertEqual(dict(self.r.items()), self.d)
        self.assertEqual(self.r.values(), list(self.d.values()))
        self.assertIsInstance(self.r["fits"], bool)
        self.assertEqual(self.r["peak_phase"], self.d["peak_phase"])  # a name, as in the JSON
        self.assertEqual(self.r["engine"], "single")
        self.assertEqual(self.r.mode, "training")
        self.assertEqual(json.loads(self.r.to_json()), self.d)
        self.assertEqual(json.loads(self.r.to_json(indent=2)), self.d)

    def test_unknown_key(self):
        with self.assertRaises(KeyError):
            self.r["peak_allocated"]
        with self.assertRaises(AttributeError) as cm:
            self.r.peak_allocated
        self.assertIn("peak_allocated_bytes", str(cm.exception))
        self.assertIsNone(self.r.get("peak_allocated"))
        self.assertEqual(self.r.get("fits"), self.d["fits"])

    def test_breakdown(self):
        ph = self.d["peak_phase"]
        self.assertEqual(self.r.phase_bytes(ph), self.d["phases"][ph]["total"])
        for comp, b in self.d["phases"][ph]["components"].items():
            self.assertEqual(self.r.component_bytes(ph, comp), b)
        self.assertEqual(self.r.stage_peak_bytes(0), self.d["stages"][0])

    def test_explain(self):
        rows = self.r.explain()
        self.assertEqual([(x["name"], x["formula"], x["bytes"]) for x in rows],
                         [(t["name"], t["formula"], t["bytes"]) for t in self.d["terms"]])
        self.assertTrue(rows)
        self.assertTrue(all(set(x) == {"name", "formula", "bytes", "gib"} for x in rows))  # one table
        self.assertEqual(dict(self.r.inputs), self.d["inputs"])

    def test_repr(self):
        text = repr(self.r)
        self.assertIn("llama training, single", text)
        gib = "%.2f GiB" % (self.d["peak_allocated_bytes"] / 2**30)
        self.assertIn("peak %s allocated (%s)" % (gib, self.d["peak_phase"]), text)
        self.assertIn("fits" if self.d["fits"] else "does not fit", text)
        html = self.r._repr_html_()
        for ph in self.d["phases"]:
            self.assertIn(">%s" % ph, html)
        for comp, b in self.d["phases"][self.d["peak_phase"]]["components"].items():
            if b:
                self.assertIn('title="%s: ' % comp, html)  # a bar segment per component
        self.assertIn("GPU capacity", html)


class TestModelConfigPlan(unittest.TestCase):
    def test_model(self):
        m = llmmem.Model.from_preset("llama-3.1-8b")
        self.assertEqual(m.hidden_size, 4096)
        self.assertEqual(m["params"], m.to_dict()["params"])
        self.assertIn("llama", repr(m))
        m2 = llmmem.Model.from_numbers(num_parameters="7B", num_hidden_layers=32)
        self.assertEqual(m2.num_hidden_layers, 32)
        with self.assertRaises(llmmem.UnknownParameterError):
            m2["num_layer"]

    def test_config(self):
        c = llmmem.Config(engine="zero", zero_stage=3, reduce_bucket_size=2e8)
        self.assertEqual(c.zero_stage, 3)
        self.assertEqual(c["reduce_bucket_size"], 200000000)
        self.assertEqual(c.changed(), {"engine": "zero", "zero_stage": 3, "reduce_bucket_size": 200000000})
        self.assertEqual(repr(c), "llmmem.Config(engine='zero', zero_stage=3, reduce_bucket_size=200000000)")
        self.assertEqual(llmmem.Config(c.to_dict()), c)
        d = c.copy()
        d.update(micro_batch_size=3)
        self.assertNotEqual(d, c)
        self.assertEqual(len(c), len(llmmem.params()))

    def test_params(self):
        ps = {p["name"]: p for p in llmmem.params()}
        self.assertEqual(ps["micro_batch_size"]["type"], "int")
        self.assertEqual(ps["micro_batch_size"]["bounds"][0], 1)
        self.assertIn("adamw", ps["optimizer"]["values"])
        self.assertEqual(ps["optimizer"]["default"], llmmem.Config()["optimizer"])
        self.assertEqual(ps["lora_targets"]["default"], llmmem.Config()["lora_targets"])

    def test_plan(self):
        m = llmmem.Model.from_preset("llama-3.1-8b")
        p = llmmem.plan(m, top_k=3, num_gpus=8)
        self.assertTrue(0 < len(p) <= 3)
        self.assertEqual(p[0], p.to_dict()["layouts"][0])
        self.assertEqual(list(p), p.to_dict()["layouts"])
        r = llmmem.estimate(m, p.config(0))
        self.assertEqual(r.peak_allocated_bytes, p.peak_bytes(0))
        self.assertIn("layouts of", repr(p))
        self.assertGreater(llmmem.max_batch(m, activation_checkpointing="full"), 0)
        self.assertEqual(llmmem.max_batch("llama-3.1-8b", mode="inference"),
                         llmmem.max_batch(m, llmmem.Config(mode="inference")))

    def test_framework_files(self):
        fw = os.path.join(SCEN, "frameworks")
        c = llmmem.Config.from_hf_training_args(os.path.join(fw, "hf_training_args.json"))
        self.assertEqual(c.micro_batch_size, 2)
        m = llmmem.Model.from_hf_config(LLAMA_1B)
        ds = os.path.join(fw, "ds_zero3_auto.json")
        for src in (ds, read(ds), json.loads(read(ds))):
            c = llmmem.Config.from_deepspeed_config(src, m)
            self.assertEqual(c.zero_stage, 3)
            self.assertEqual(c.reduce_bucket_size, 2048 * 2048)  # HF Trainer's "auto": hidden^2
        # framework YAML (libyaml): a path or its text, the kind detected or named
        tt = os.path.join(ROOT, "test", "data", "anchors", "training", "configs", "tr014.yaml")
        self.assertEqual(llmmem.framework_names()[:2], ["auto", "torchtune"])
        for src in (tt, read(tt)):
            self.assertEqual(llmmem.framework_detect(src), "torchtune")
            c = llmmem.Config.from_framework_config(src, seq_len=1024)
            self.assertEqual((c.activation_profile, c.optimizer_in_backward, c.seq_len), ("torchtune", True, 1024))
            self.assertTrue(any("packed" in n for n in c.notes))
        c = llmmem.Config().apply_framework(read(tt), kind="torchtune")
        self.assertEqual(c.compile, "layers")
        with self.assertRaises(llmmem.UnknownParameterError):
            llmmem.Config().apply_framework(tt, kind="torchtun")
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.Config().apply_framework("base_model: x\ncut_cross_entropy: true\n", kind="axolotl")
        self.assertEqual(cm.exception.status, llmmem.E_UNSUPPORTED)
        self.assertIn("cut_cross_entropy", str(cm.exception))
        r = llmmem.estimate("llama-3.2-1b", optimizer="paged_adamw_8bit")
        self.assertGreater(r.managed_bytes, 0)
        self.assertEqual(r.optimizer_state_dtype, "int8")
        m1, c1 = llmmem.load_scenario(os.path.join(SCEN, "t01.json"))
        sc = json.loads(read(os.path.join(SCEN, "t01.json")))
        m2, c2 = llmmem.load_scenario(sc, base_dir=SCEN)
        self.assertEqual(c1, c2)
        self.assertEqual(llmmem.estimate(m1, c1).to_dict(), llmmem.estimate(m2, c2).to_dict())

    def test_docstrings_from_header(self):
        """The methods' documentation carries the header's Doxygen text of their C functions."""
        api = _header.parse(read(HEADER))["functions"]
        self.assertIn(api["llmmem_estimate"]["doc"], llmmem.estimate.__doc__)
        self.assertIn(api["llmmem_model_from_hf_file"]["doc"], llmmem.Model.from_hf_config.__doc__)
        self.assertIn(api["llmmem_plan_layouts"]["doc"], llmmem.plan.__doc__)
        self.assertEqual(llmmem.lib.llmmem_result_term.__doc__, api["llmmem_result_term"]["doc"])

    def test_threads(self):
        """Threads estimating with keywords at once (the pooled handles) get their own answers."""
        want = {mb: c_peak("llama-3.2-1b", micro_batch_size=mb) for mb in range(1, 9)}
        bad = []

        def work(t):
            for i in range(300):
                mb = 1 + (i + t) % 8
                r = llmmem.estimate("llama-3.2-1b", micro_batch_size=mb)
                if r.peak_allocated_bytes != want[mb]:
                    bad.append((t, mb))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(bad, [])


class TestSafety(unittest.TestCase):
    """Issue 20 item 7: what used to crash, truncate or be ignored is refused."""

    def setUp(self):
        self.m = llmmem.Model.from_preset("llama-3.2-1b")
        self.c = llmmem.Config()

    def test_handle_classes(self):
        """A wrong class is a TypeError, never a pointer read as something else."""
        with self.assertRaises(TypeError):
            llmmem.estimate(12345, 67890)  # used to segfault
        with self.assertRaises(TypeError):
            llmmem.estimate(self.m, 67890)
        plan = llmmem.plan(self.m, top_k=1)
        with self.assertRaises(TypeError):
            llmmem.estimate(self.m, plan)  # a plan read as a config
        with self.assertRaises(TypeError):
            llmmem.estimate(self.c, self.m)  # swapped
        with self.assertRaises(TypeError):
            llmmem.max_batch(self.m, llmmem.Result())
        with self.assertRaises(TypeError):
            llmmem.Result().estimate(self.m, self.m)
        with self.assertRaises(TypeError):
            self.c.apply_deepspeed({}, model=self.c)
        # the C functions of llmmem.lib check their handles too
        with self.assertRaises(ctypes.ArgumentError):
            llmmem.lib.llmmem_estimate(12345, self.m, self.c)
        with self.assertRaises(ctypes.ArgumentError):
            llmmem.lib.llmmem_estimate(llmmem.Result(), self.m, plan)

    def test_unbound_methods(self):
        """Issue 25: a method called unbound on another handle class's object
        (llmmem.Config.to_json(model)) crashed the interpreter (a model read as a config).
        Every method of Model, Config, Result and Plan called so either answers from the
        object's own methods or is refused naming both classes; never a crash. In a child
        process, so that a crash fails this test with its signal."""
        script = textwrap.dedent("""
            import ctypes, inspect, llmmem
            m = llmmem.Model.from_preset("llama-3.2-1b")
            objs = {"Model": lambda: llmmem.Model.from_preset("llama-3.2-1b"),
                    "Config": llmmem.Config,
                    "Result": lambda: llmmem.estimate(m, micro_batch_size=1),
                    "Plan": lambda: llmmem.plan(m, top_k=1)}
            refused = 0
            for an in objs:
                for name, fn in sorted(vars(getattr(llmmem, an)).items()):
                    if not inspect.isfunction(fn) or name.startswith("__") or name == "close":
                        continue
                    for bn in objs:
                        if bn == an:
                            continue
                        try:
                            fn(objs[bn]())
                        except ctypes.ArgumentError as e:
                            want = "expected a llmmem.%s handle, not a llmmem.%s one" % (an, bn)
                            assert want in str(e), (an, name, bn, str(e))
                            refused += 1
                        except Exception:
                            pass
            print("refused", refused)
            """)
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(r.returncode, 0, "exit %d: %s" % (r.returncode, r.stderr[-2000:]))
        refused = int(r.stdout.split()[-1])
        self.assertGreaterEqual(refused, 30, r.stdout)  # Config.to_json(model) and the like
        with self.assertRaises(ctypes.ArgumentError) as cm:
            llmmem.Config.to_json(self.m)
        self.assertIn("not a llmmem.Model one", str(cm.exception))

    def test_integer_range(self):
        """Beyond int64 (or int for an index) is an OverflowError, not a wrapped value."""
        for v in (2**64 + 4, 2**63, -2**63 - 1):
            with self.assertRaises(OverflowError):
                llmmem.Config(seq_len=v)  # 2**64+4 used to store 4
            with self.assertRaises(OverflowError):
                self.c["micro_batch_size"] = v
            with self.assertRaises(OverflowError):
                llmmem.estimate(self.m, micro_batch_size=v)
            with self.assertRaises(OverflowError):
                llmmem.Model.from_numbers(hidden_size=v)
        with self.assertRaises(OverflowError):
            llmmem.plan(self.m, top_k=2**32 + 1)
        r = llmmem.estimate(self.m)
        with self.assertRaises(OverflowError):
            r.stage_peak_bytes(2**32)
        self.assertEqual(self.c["micro_batch_size"], 1)  # nothing was stored
        # within int64 but outside the parameter's bounds: the library's own error
        with self.assertRaises(llmmem.Error) as cm:
            self.c["micro_batch_size"] = 2**62
        self.assertEqual(cm.exception.status, llmmem.E_OUT_OF_RANGE)

    def test_value_types(self):
        with self.assertRaises(TypeError):
            llmmem.Config(micro_batch_size=True)
        with self.assertRaises(TypeError):
            llmmem.Config(gradient_checkpointing=None)
        with self.assertRaises(ValueError):
            llmmem.Config(micro_batch_size=2.5)
        with self.assertRaises(TypeError):
            llmmem.Config(engine="ddp", gradient_as_bucket_view=1.0)  # a bool takes a bool (or 0/1)
        with self.assertRaises(llmmem.Error):
            llmmem.Config(engine="ddp", gradient_as_bucket_view=2)
        self.assertIs(llmmem.Config(engine="ddp", gradient_as_bucket_view=1).gradient_as_bucket_view, True)
        self.assertIs(llmmem.Config(engine="ddp", gradient_as_bucket_view=True).gradient_as_bucket_view, True)

    def test_nul_refused(self):
        """A NUL inside a string would cut it short in C: refused."""
        with self.assertRaises(ValueError):
            llmmem.Model.from_preset("llama-3.2-1b\x00junk")
        with self.assertRaises(ValueError):
            self.c["optimizer"] = "adamw\x00x"
        with self.assertRaises(ValueError):
            llmmem.Config(lora_rank=8, lora_targets="q_proj\x00v_proj")
        with self.assertRaises(ValueError):
            self.c["micro_batch_size"] = "4\x005"
        with self.assertRaises(ValueError):
            llmmem.Model.from_hf_file(LLAMA_1B + "\x00.txt")
        with self.assertRaises(ValueError):
            llmmem.scenario_from_file(os.path.join(SCEN, "t01.json\x00"))
        with self.assertRaises(ValueError):
            llmmem.Model().set("num_parameters", "7B\x00")
        self.assertEqual(self.c["optimizer"], "adamw")

    def test_unknown_keyword(self):
        with self.assertRaises(llmmem.UnknownParameterError) as cm:
            llmmem.estimate(self.m, micro_batch=4)
        self.assertIsInstance(cm.exception, TypeError)
        self.assertIn("micro_batch_size", str(cm.exception))
        for call in (lambda: llmmem.Config(zzz=1), lambda: llmmem.plan(self.m, zzz=1),
                     lambda: llmmem.max_batch(self.m, zzz=1), lambda: self.c.update(zzz=1)):
            with self.assertRaises(llmmem.UnknownParameterError):
                call()
        with self.assertRaises(TypeError):  # one parameter twice, under two names
            llmmem.Config(checkpointing="full", activation_checkpointing="none")

    def test_inapplicable_keyword(self):
        """A keyword the engine, mode or runtime in effect does not read raises."""
        with self.assertRaises(llmmem.InapplicableParameterError) as cm:
            llmmem.Config(zero_stage=3)  # used to be ignored silently: engine single
        self.assertIn("engine", str(cm.exception))
        self.assertEqual(llmmem.Config(engine="zero", zero_stage=3).zero_stage, 3)
        self.assertEqual(llmmem.Config(zero_stage=3, engine="zero").zero_stage, 3)  # order is free
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.estimate(self.m, batch_size=8)  # an inference parameter in training
        self.assertTrue(llmmem.estimate(self.m, mode="inference", batch_size=8).params)
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.estimate(self.m, mode="inference", gpu_memory_utilization=0.8)  # runtime hf
        llmmem.estimate(self.m, mode="inference", runtime="vllm", gpu_memory_utilization=0.8)
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.estimate(self.m, runtime="vllm")  # a runtime in training
        zero = llmmem.Config(engine="zero")
        self.assertEqual(llmmem.estimate(self.m, zero, zero_stage=3).engine, "zero")  # the gate from the Config
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.estimate(self.m, llmmem.Config(mode="inference"), micro_batch_size=2)
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.Config(engine="fsdp", zero_stage=2)
        # item assignment sets one value, as the C API does
        self.c["zero_stage"] = 3
        self.assertEqual(self.c["zero_stage"], 3)

    def test_not_estimated(self):
        """A result no estimate filled (or whose estimate failed) raises instead of reading 0."""
        r = llmmem.Result()
        for read in (lambda: r["peak_allocated_bytes"], lambda: r.fits, lambda: r["engine"], r.to_dict,
                     r.explain, lambda: r.phase_bytes("forward"), lambda: r.notes):
            with self.assertRaises(llmmem.NotEstimatedError):
                read()
        self.assertIn("not estimated", repr(r))
        r.estimate(self.m)
        self.assertGreater(r.peak_allocated_bytes, 0)
        with self.assertRaises(llmmem.Error):
            r.estimate(self.m, engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=3)
        with self.assertRaises(llmmem.NotEstimatedError):
            r.peak_allocated_bytes

    def test_keyword_only(self):
        """Where a positional would be ambiguous it is refused."""
        with self.assertRaises(TypeError):
            llmmem.plan(self.m, self.c, 8)  # used to be read as top_k
        with self.assertRaises(TypeError):
            llmmem.estimate(self.m, self.c, "zero")
        with self.assertRaises(TypeError):
            llmmem.max_batch(self.m, self.c, 1)
        self.assertLessEqual(len(llmmem.plan(self.m, self.c, top_k=2)), 2)

    def test_closed_handles(self):
        m = llmmem.Model.from_preset("llama-3.2-1b")
        m.close()
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate(m)
        self.assertEqual(cm.exception.status, llmmem.E_INVALID_ARG)


class TestVllmHostAndNvfp4(unittest.TestCase):
    """Issue 28: vLLM --cpu-offload-gb and --swap-space as keywords, host bytes in the result,
    an NVFP4 checkpoint with vLLM's --quantization spellings, the V0 fallback refused."""

    V = dict(mode="inference", runtime="vllm", gpu="L4", vllm_version="0.14.1")

    def test_cpu_offload_and_swap(self):
        m = llmmem.Model.from_preset("qwen3-8b")
        base = llmmem.estimate(m, **self.V)
        off = llmmem.estimate(m, cpu_offload_gb=4, **self.V)
        moved = base.weights_bytes - off.weights_bytes
        self.assertEqual(base.host_bytes, 0)
        self.assertGreaterEqual(moved, 4 << 30)  # at least the limit leaves the GPU
        self.assertGreaterEqual(off.host_bytes, moved)  # pinned blocks are powers of two
        self.assertGreater(off.kv_tokens, base.kv_tokens)
        self.assertTrue(any("--cpu-offload-gb" in n for n in off.notes))
        v17 = dict(self.V, vllm_version="0.17.1")
        swap = llmmem.estimate(m, swap_space=16, **v17)
        self.assertEqual(swap.host_bytes, 0)  # V1 allocates no CPU swap
        self.assertEqual(swap.kv_tokens, llmmem.estimate(m, **v17).kv_tokens)
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate(m, swap_space=16, **dict(self.V, vllm_version="0.18.0"))
        self.assertEqual(cm.exception.status_name, "LLMMEM_E_UNSUPPORTED")

    def test_nvfp4_and_v0(self):
        cfg = {"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
               "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
               "head_dim": 128, "vocab_size": 8192, "max_position_embeddings": 1024,
               "tie_word_embeddings": False, "torch_dtype": "bfloat16",
               "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
        m = llmmem.Model.from_hf_json(json.dumps(cfg))
        h100 = dict(self.V, gpu="H100-80GB")
        a = llmmem.estimate(m, **h100)
        b = llmmem.estimate(m, quantization="modelopt_fp4", **h100)
        self.assertEqual(a.weights_bytes, b.weights_bytes)
        # 0.5 B a weight + an fp8 scale per 16: well under half the bf16 model's linears
        bf16 = dict(cfg)
        del bf16["quantization_config"]
        self.assertLess(a.weights_bytes, llmmem.estimate(llmmem.Model.from_hf_json(json.dumps(bf16)),
                                                         **h100).weights_bytes)
        for q in ("fp8", "modelopt", "compressed-tensors"):
            with self.assertRaises(llmmem.Error):
                llmmem.estimate(m, quantization=q, **h100)
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate(llmmem.Model.from_preset("qwen3-8b"),
                            **dict(self.V, gpu="V100-32GB", vllm_version="0.8.5"))
        self.assertIn("Falling back to V0", cm.exception.message)


class TestApplicabilityRules(unittest.TestCase):
    """Each row of the binding's rule (llmmem._config._APPLIES: a parameter applies only under some
    values of engine, mode or runtime) is checked against the library: where the rule says
    a parameter does not apply, changing it must not change any estimate (or error)."""

    CONTEXTS = [dict(mode="training", engine="single"),
                dict(mode="training", engine="ddp", num_gpus=8, data_parallel_size=8),
                dict(mode="training", engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8),
                dict(mode="training", engine="zero", zero_stage=1, num_gpus=8, data_parallel_size=8),
                dict(mode="training", engine="fsdp", num_gpus=8, data_parallel_size=8),
                dict(mode="training", engine="megatron", num_gpus=8, tensor_parallel_size=2,
                     pipeline_parallel_size=2, data_parallel_size=2),
                dict(mode="training", engine="megatron_deepspeed", zero_stage=1, num_gpus=8,
                     tensor_parallel_size=2, pipeline_parallel_size=2, data_parallel_size=2),
                dict(mode="inference", runtime="hf"), dict(mode="inference", runtime="vllm")]

    @staticmethod
    def alternatives(p):
        if p.type == llmmem.TYPE_BOOL:
            return [not p.default]
        if p.type == llmmem.TYPE_ENUM:
            return [v for v in p.values if v != p.default]
        if p.type == llmmem.TYPE_STR:
            return ["all-linear"]
        lo, hi = p.bounds
        if p.type == llmmem.TYPE_F64:
            return [v for v in ((p.default or 0.25) * 2, (lo + p.default) / 2) if lo <= v <= hi and v != p.default]
        return [v for v in dict.fromkeys([p.default * 2 or 1, p.default + 1, lo, min(hi, 4096)])
                if lo <= v <= hi and v != p.default]

    @staticmethod
    def outcome(m, ctx, extra=None):
        c = llmmem.Config()
        for k, v in ctx.items():
            c[k] = v
        for k, v in (extra or {}).items():
            c[k] = v
        try:
            d = llmmem.estimate(m, c).to_dict()
        except llmmem.Error as e:
            return e.status_name
        d.pop("notes", None)  # a note that a setting is ignored changes no number
        return json.dumps(d, sort_keys=True)

    @staticmethod
    def applies(name, ctx):
        while name in llmmem._config._APPLIES:
            gate, allowed = llmmem._config._APPLIES[name]
            if ctx.get(gate, llmmem._config._PARAMS[gate].default) not in allowed:
                return False
            name = gate
        return True

    def test_rules_against_the_library(self):
        models = [llmmem.Model.from_preset(n) for n in ("llama-3.1-8b", "mixtral-8x7b", "gemma-3-4b")]
        checked, wrong = 0, []
        for name in sorted(llmmem._config._APPLIES):
            p = llmmem._config._PARAMS[name]
            for ctx in self.CONTEXTS:
                if self.applies(name, ctx):
                    continue
                for m in models:
                    base = self.outcome(m, ctx)
                    for alt in self.alternatives(p):
                        try:
                            o = self.outcome(m, ctx, {name: alt})
                        except llmmem.Error:  # a value the library refuses anywhere
                            continue
                        checked += 1
                        # the library refusing the setting there (a contradiction) agrees
                        # with the package's InapplicableParameterError
                        if o != base and o != "LLMMEM_E_INCONSISTENT":
                            wrong.append("%s=%r changes the estimate under %s (%s)" % (name, alt, ctx, m.model_type))
        self.assertGreater(checked, 500)
        self.assertEqual(wrong, [])

    def test_the_check_sees_a_change(self):
        """The comparison above detects a parameter that matters (so its silence means something)."""
        m = llmmem.Model.from_preset("llama-3.1-8b")
        ctx = self.CONTEXTS[2]
        self.assertNotEqual(self.outcome(m, ctx), self.outcome(m, ctx, {"zero_stage": 2}))
        self.assertNotEqual(self.outcome(m, ctx), self.outcome(m, ctx, {"micro_batch_size": 2}))
        self.assertNotEqual(self.outcome(m, self.CONTEXTS[8]), self.outcome(m, self.CONTEXTS[8], {"max_num_seqs": 8}))

    def test_rule_names(self):
        for name, (gate, allowed) in llmmem._config._APPLIES.items():
            self.assertIn(name, llmmem._config._PARAMS)
            self.assertTrue(set(allowed) <= set(llmmem._config._PARAMS[gate].values), name)


class TestHeaderBinding(unittest.TestCase):
    def test_generated_equals_header(self):
        """The binding in use (generated at build time, or read at import) is the header's."""
        self.assertEqual(llmmem._ffi.API, _header.parse(read(HEADER)))
        api = _header.parse(read(HEADER))
        ns = {}
        exec(_header.render(api), ns)
        self.assertEqual({k: ns[k.upper()] for k in api}, api)

    def test_constants_match_the_library(self):
        lib = llmmem.lib
        for name, value in llmmem._ffi.CONSTANTS.items():
            if name.startswith("LLMMEM_P_"):
                self.assertIsNotNone(lib.llmmem_param_name(value), name)
            elif name.startswith("LLMMEM_R_"):
                self.assertIsNotNone(lib.llmmem_result_key_name(value), name)
            elif name.startswith("LLMMEM_M_"):
                self.assertIsNotNone(lib.llmmem_model_key_name(value), name)
            elif name.startswith("LLMMEM_E_") or name == "LLMMEM_OK":
                self.assertEqual(llmmem.status_name(value), name)
        self.assertEqual(llmmem.E_OUT_OF_RANGE, -8)

    def test_unknown_c_type_refused(self):
        src = read(HEADER).replace("LLMMEM_API int llmmem_soversion(void);",
                                   "LLMMEM_API float llmmem_soversion(void);")
        with self.assertRaises(ValueError):
            _header.parse(src)


class TestCommandLine(unittest.TestCase):
    def test_python_m_llmmem(self):
        """python -m llmmem is the C CLI (the bundled one when installed)."""
        out = subprocess.run([sys.executable, "-m", "llmmem", "--version"], capture_output=True, text=True,
                             env=dict(os.environ))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "llmmem %s (library %s, soversion %d)" % (
            llmmem.__version__, llmmem.__version__, llmmem.soversion()))
        bad = subprocess.run([sys.executable, "-m", "llmmem", "estimate", "--no-such-flag"], capture_output=True,
                             text=True)
        self.assertEqual(bad.returncode, 2)  # the C program's exit status
        self.assertIn("llmmem:", bad.stderr)

    def test_console_script_imports_nothing_of_the_package(self):
        """The console script's module (pyproject.toml: _llmmem_cli:main) finds the C program
        and runs it without importing llmmem (nor ctypes, which the binding loads), and its
        main is the C program (its output and exit status)."""
        probe = ("import sys, _llmmem_cli; exe = _llmmem_cli._load().binary(); "
                 "print(exe); print(sorted(m for m in sys.modules if m == 'llmmem' or m.startswith('llmmem.') "
                 "or m == 'ctypes'))")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(out.returncode, 0, out.stderr)
        exe, mods = out.stdout.splitlines()
        self.assertEqual(mods, "[]")
        self.assertEqual(os.path.realpath(exe), os.path.realpath(llmmem.cli_path()))
        run = subprocess.run([sys.executable, "-c", "import sys, _llmmem_cli; sys.exit(_llmmem_cli.main())",
                              "--version"], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.stdout.startswith("llmmem %s " % llmmem.__version__), run.stdout)
        bad = subprocess.run([sys.executable, "-c", "import sys, _llmmem_cli; sys.exit(_llmmem_cli.main())",
                              "estimate", "--no-such-flag"], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(bad.returncode, 2)


@unittest.skipUnless(INSTALLED, "LLMMEM_TEST_INSTALLED=1: the installed wheel (.ci/run)")
class TestInstalled(unittest.TestCase):
    def test_not_the_tree(self):
        pkg = os.path.dirname(llmmem.__file__)
        self.assertFalse(os.path.realpath(pkg).startswith(os.path.realpath(ROOT) + os.sep), pkg)
        self.assertTrue(llmmem._ffi.API_SOURCE.endswith("_prototypes.py"), llmmem._ffi.API_SOURCE)
        self.assertEqual(os.path.dirname(os.path.realpath(llmmem.LIBRARY_PATH)),
                         os.path.realpath(os.path.join(pkg, "lib")))
        self.assertTrue(os.path.realpath(llmmem.cli_path()).startswith(os.path.realpath(pkg)))

    def test_console_script(self):
        exe = os.path.join(os.path.dirname(sys.executable), "llmmem")
        out = subprocess.run([exe, "estimate", "--preset", "llama-3.2-1b", "--json"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["peak_allocated_bytes"],
                         llmmem.estimate("llama-3.2-1b").peak_allocated_bytes)


@unittest.skipIf(INSTALLED, "the source tree's packaging files")
class TestPackaging(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(ROOT, "python", "backend"))
        import llmmem_build
        cls.b = llmmem_build

    def test_pyproject(self):
        """The backend's own reader (Python 3.9/3.10 have no tomllib) reads pyproject.toml
        as tomllib does."""
        try:
            import tomllib
        except ImportError:
            self.skipTest("no tomllib to compare with (Python < 3.11)")
        with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
            want = tomllib.load(f)
        real = sys.modules.pop("tomllib")
        sys.modules["tomllib"] = None  # the fallback reader
        try:
            got = self.b.read_pyproject()
        finally:
            sys.modules["tomllib"] = real
        self.assertEqual(got, want)
        self.assertEqual(want["project"]["requires-python"], ">=3.9")
        self.assertEqual(want["project"]["scripts"], {"llmmem": "_llmmem_cli:main"})

    def test_metadata(self):
        meta = self.b._metadata()
        self.assertIn("Version: %s\n" % llmmem.__version__, meta)  # the header's version
        self.assertIn("Requires-Python: >=3.9\n", meta)
        self.assertIn("\n\n# libllmmem", meta)  # the README as the description
        self.assertIn("llmmem = _llmmem_cli:main", self.b._entry_points())
        self.assertTrue(re.match(r"py3-none-\w+$", self.b._tag()))

    def test_source_files(self):
        files = set(self.b.source_files())
        for f in ("pyproject.toml", "include/llmmem.h", "python/backend/llmmem_build.py", "python/llmmem/__init__.py",
                  "Makefile", "src/libllmmem.map", "cmake/llmmemConfig.cmake.in", "CHANGELOG.md"):
            self.assertTrue(f in files, f)
        self.assertFalse([f for f in files if f.startswith(("build/", "lib/libllmmem")) or "__pycache__" in f])


if __name__ == "__main__":
    unittest.main()
