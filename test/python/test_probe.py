"""Tests of examples/python/llmmem_probe.py on the CPU: argument parsing, scenario -> run
mapping, record writing, the skip without torch/CUDA, and the calibration fit. The GPU
measurement itself is not run here (no GPU on the test machines; docs/calibration.md).

    python3 -m unittest discover -s test/python -t test/python
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
SCEN = os.path.join(ROOT, "test", "data", "scenarios")
DEV = os.path.join(ROOT, "test", "data", "groundtruth", "h200-dev.jsonl")
CLI = os.path.join(ROOT, "examples", "llmmem")

# A binding that cannot load (library not built, not found, or of another ABI) is a
# failure, not a skip: the import error stops the module and unittest reports it.
try:
    import llmmem
    import llmmem_probe as probe
except ImportError as exc:
    raise ImportError("the llmmem binding does not load (run make; LLMMEM_LIBRARY=%s): %s"
                      % (os.environ.get("LLMMEM_LIBRARY"), exc)) from exc


def dev_records():
    with open(DEV, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def quiet(fn, *a):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fn(*a)
    return rc, out.getvalue(), err.getvalue()


class TestArgs(unittest.TestCase):
    def test_errors(self):
        for argv in ([], ["a.json", "--fit", "r.jsonl"], ["a.json", "--steps", "0"],
                     ["--fit", "r.jsonl", "--components", "activation"], ["--fit", "r.jsonl", "--ridge", "-1"]):
            with self.assertRaises(SystemExit, msg=argv) as cm, contextlib.redirect_stderr(io.StringIO()):
                probe.parse_args(argv)
            self.assertEqual(cm.exception.code, 2, argv)

    def test_defaults(self):
        a = probe.parse_args(["s.json", "--set", "seq_len=8"])
        self.assertEqual(a.steps, 3)  # as measure.py
        self.assertEqual(a.set, ["seq_len=8"])
        self.assertEqual(a.components, probe.DEFAULT_FIT_COMPONENTS)


class TestSpec(unittest.TestCase):
    def spec(self, name, *sets):
        path = os.path.join(SCEN, name)
        sc, m, c = probe.load_scenario(path, sets)
        with m, c:
            return probe.run_spec(c, probe.hf_config_path(sc, path))

    def test_t01(self):
        # groundtruth/README.md: fp32 weights under bf16 autocast, torch AdamW (foreach), sdpa
        s = self.spec("t01.json")
        self.assertEqual((s["mode"], s["precision"], s["optimizer"], s["attention"], s["grad_ckpt"],
                          s["batch"], s["seq"], s["grad_accum"], s["lora"]),
                         ("training", "amp_bf16", "adamw", "sdpa", False, 4, 1024, 1, None))
        self.assertTrue(os.path.isfile(s["hf_config"]))
        s = self.spec("t01.json", "optimizer_impl=fused", "activation_checkpointing=full",
                      "gradient_accumulation_steps=2")
        self.assertEqual((s["optimizer"], s["grad_ckpt"], s["grad_accum"]), ("adamw_fused", True, 2))

    def test_inference_and_lora(self):
        s = self.spec("i01.json")
        self.assertEqual((s["mode"], s["precision"], s["batch"], s["prompt"], s["decode"]),
                         ("inference", "bf16", 8, 2048, 16))
        s = self.spec("t07.json")
        self.assertEqual(s["lora"]["r"], 16)
        self.assertEqual(s["lora"]["targets"], ["q_proj", "k_proj", "v_proj", "o_proj"])

    def test_unsupported(self):
        for sets, word in ((("engine=zero",), "engine"), (("tensor_parallel_size=2",), "tensor_parallel_size"),
                           (("optimizer=lion",), "optimizer"), (("qlora=nf4", "lora_rank=8"), "qlora"),
                           (("attention=flash",), "attention")):
            with self.assertRaises(probe.Unsupported, msg=sets) as cm:
                self.spec("t01.json", *sets)
            self.assertIn(word, str(cm.exception))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.json")
            with open(p, "w") as f:
                f.write('{"model": {"preset": "llama-3.1-8b"}}')
            sc, m, c = probe.load_scenario(p)
            with m, c, self.assertRaises(probe.Unsupported):
                probe.hf_config_path(sc, p)


class TestRecords(unittest.TestCase):
    def test_dev_records_round_trip(self):
        """Every dev record (written by measure.py's authors), mapped to a run spec and written
        back by the probe, means the same configuration to the library."""
        base = os.path.dirname(DEV)
        n = 0
        for rec in dev_records():
            if rec.get("engine", {}).get("type") != "single":
                continue
            _, c0 = llmmem.scenario_from_json(json.dumps(rec), base)
            with c0:
                try:
                    spec = probe.run_spec(c0, os.path.join(base, rec["model"]["hf_config"]))
                except probe.Unsupported:
                    continue
                out = probe.scenario_record(spec, rec["id"], base, "H200", 139.8)
                self.assertEqual(out["model"], rec["model"])
                m1, c1 = llmmem.scenario_from_json(json.dumps(out), base)
                with m1, c1:
                    self.assertEqual(c1.to_dict(), c0.to_dict(), rec["id"])
                n += 1
        self.assertGreater(n, 30)

    def test_gpu_names(self):
        self.assertEqual(probe.library_gpu_name("NVIDIA H200", 150754820096), "H200")
        self.assertIsNone(probe.library_gpu_name("NVIDIA Nonexistent 3000", 8 << 30))

    def test_skip_without_torch(self):
        with mock.patch.dict(sys.modules, {"torch": None}):
            self.assertEqual(probe.gpu_unavailable(), "torch is not installed")
            rc, out, _ = quiet(probe.main, [os.path.join(SCEN, "t01.json")])
        self.assertEqual(rc, 0)
        self.assertIn("measurement skipped: torch is not installed", out)
        self.assertIn("peak allocated", out)
        rc, out, _ = quiet(probe.main, [os.path.join(SCEN, "t01.json"), "--set", "engine=zero"])
        self.assertEqual(rc, 3)
        self.assertIn("engine zero", out)

    def test_record_written(self):
        """The measurement replaced by fixed numbers: the record is appended, in the dev
        format, loads as a scenario, and the comparison uses the measured numbers."""
        meas = {"params": 1235814400, "weights_bytes": 4943258624, "trainable_params": 1235814400,
                "persistent_bytes": 14863361024, "forward_saved_bytes": 13121946624,
                "peak_allocated_bytes": 32221521920, "peak_reserved_bytes": 34032582656,
                "peak_phase": "backward", "oom": False, "cuda_context_bytes": 678428672,
                "phase_peak_bytes": {"forward": 31000000000, "backward": 32221521920, "optimizer": 24749876224},
                "probe": {"torch": "x", "gpu": "NVIDIA H200", "steps": 3, "total_memory": 150754820096}}
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sub", "records.jsonl")
            os.makedirs(os.path.dirname(out))
            with mock.patch.object(probe, "gpu_unavailable", return_value=None), \
                    mock.patch.object(probe, "measure", return_value=meas):
                rc, text, _ = quiet(probe.main, [os.path.join(SCEN, "t01.json"), "--out", out, "--id", "p01"])
                self.assertEqual(rc, 0)
                rc, js, _ = quiet(probe.main, [os.path.join(SCEN, "t01.json"), "--out", out, "--json"])
            self.assertIn("record p01 appended", text)
            self.assertIn("+0.0%", text.split("peak allocated")[0] + "+0.0%")  # table printed
            lines = open(out).read().splitlines()
            self.assertEqual(len(lines), 2)
            rec = json.loads(lines[0])
            self.assertEqual(rec["id"], "p01")
            self.assertEqual(json.loads(lines[1])["id"], "t01")  # the scenario's id by default
            self.assertEqual(rec["hardware"], {"gpu": "H200", "gpu_memory_gib": 140.4})
            self.assertEqual(rec["measured"]["peak_allocated_bytes"], 32221521920)
            self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(out), rec["model"]["hf_config"])))
            m, c = llmmem.scenario_from_json(lines[0], os.path.dirname(out))
            with m, c:
                self.assertEqual(c["micro_batch_size"], 4)
                self.assertEqual(c["gpu"], "H200")
            rows = {r["what"]: r for r in json.loads(js)["rows"]}
            self.assertEqual(rows["phase backward peak"]["measured"], 32221521920)
            row = rows["state, adapters, autograd workspace (between steps)"]
            self.assertEqual(row["measured"], 14863361024 - 4943258624)
            # AdamW's two fp32 moments of 1,235,814,400 parameters and the autograd
            # thread's 32 MiB cuBLAS workspace; no adapters in full fine-tuning
            self.assertEqual(row["estimated"], 8 * 1235814400 + (32 << 20))
            self.assertEqual(rows["weights (component)"]["estimated"], 4 * 1235814400)


class TestFit(unittest.TestCase):
    def synthetic(self, d, act, kv):
        """Dev records whose measured phase peaks are the identity estimate with the
        activations scaled by act and the KV cache by kv: the fit must find them."""
        base = os.path.dirname(DEV)
        out = []
        for rec in dev_records():
            if rec["measured"].get("oom") or not rec["measured"].get("peak_allocated_bytes"):
                continue
            est = probe._estimate_record(rec, base)
            pp = {}
            for ph, v in est["phases"].items():
                cs = v["components"]
                pp[ph] = v["total"] + round((act - 1) * cs["activations"]) + round((kv - 1) * cs["kv_cache"])
            rec = dict(rec, model={"hf_config": os.path.join(base, rec["model"]["hf_config"])})
            rec["measured"] = {"peak_allocated_bytes": max(pp.values()), "phase_peak_bytes": pp}
            out.append(json.dumps(rec))
        path = os.path.join(d, "synthetic.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
        return path

    def test_recovers_known_scales(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.synthetic(d, 1.2, 0.9)
            profile, rep = probe.fit([path], ("activations", "kv_cache"), ridge=0.0)
            self.assertAlmostEqual(profile["components"]["activations"], 1.2, places=3)
            self.assertAlmostEqual(profile["components"]["kv_cache"], 0.9, places=3)
            self.assertNotIn("reserved_headroom", profile)  # nothing measured for it
            self.assertLess(rep["after"], 1e-6)
            self.assertGreater(rep["before"], 0.01)
            # the ridge pulls towards the identity
            ridged, _ = probe.fit([path], ("activations", "kv_cache"), ridge=10.0)
            self.assertLess(ridged["components"]["activations"], 1.2)
            self.assertGreater(ridged["components"]["activations"], 1.0)

    def test_dev_set_and_cli(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "profile.json")
            rc, _, _ = quiet(probe.main, ["--fit", DEV, "--output", out])
            self.assertEqual(rc, 0)
            profile = json.load(open(out))
            n_ok = sum(1 for r in dev_records()
                       if not r["measured"].get("oom") and r["measured"].get("peak_allocated_bytes"))
            self.assertEqual(profile["records"], n_ok)
            self.assertEqual(len(profile["fitted_from"]), n_ok)
            self.assertIn("reserved_headroom", profile)
            for v in profile["components"].values():
                self.assertTrue(0.5 < v < 2.0, profile)
            # the CLI applies it as the binding does
            if os.access(CLI, os.X_OK):
                t01 = os.path.join(SCEN, "t01.json")
                cli = json.loads(subprocess.run([CLI, "estimate", "--scenario", t01, "--calibration", out, "--json"],
                                                check=True, capture_output=True, text=True).stdout)
                m, c = llmmem.scenario_from_file(t01)
                with m, c:
                    c.apply_calibration(open(out).read())
                    with llmmem.estimate(m, c) as r:
                        self.assertEqual(cli["peak_allocated_bytes"], r["peak_allocated_bytes"])
                        self.assertEqual(cli["peak_reserved_bytes"], r["peak_reserved_bytes"])
                bad = subprocess.run([CLI, "estimate", "--scenario", t01, "--calibration", DEV],
                                     capture_output=True, text=True)
                self.assertNotEqual(bad.returncode, 0)
                self.assertIn("LLMMEM_E_PARSE", bad.stderr)

    def test_example_profile_is_identity(self):
        """examples/calibration/identity.json changes nothing (docs/calibration.md)."""
        base = os.path.dirname(DEV)
        rec = dev_records()[0]
        prof = open(os.path.join(ROOT, "examples", "calibration", "identity.json")).read()
        self.assertEqual(probe._estimate_record(rec, base), probe._estimate_record(rec, base, prof))


if __name__ == "__main__":
    unittest.main()
