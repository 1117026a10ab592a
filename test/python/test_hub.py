"""Python: models by their Hugging Face id, offline (llmmem.hub_cache, Model.from_pretrained,
estimate("org/name"), Model.from_framework_file, scenario_from_file with an id), the
planner's default global batch and its notes, vLLM's capacity keys.

A Hugging Face cache is made at test time in a temporary folder, laid out as huggingface_hub
writes it (models--ORG--NAME/refs/main, snapshots/<commit>/config.json), with a published
config.json of test/data; what a cached id gives is compared with that file's own estimate,
never with a number written here."""

import json
import os
import shutil
import tempfile
import unittest

import llmmem

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "test", "data", "configs", "published", "llama-3.2-1b.json")
ENV = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME")


class HubIds(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.saved = {k: os.environ.get(k) for k in ENV}
        for k in ENV:
            os.environ.pop(k, None)
        os.environ["HOME"] = os.path.join(self.tmp, "home")
        repo = os.path.join(self.tmp, "home", ".cache", "huggingface", "hub", "models--acme--tiny-llama")
        os.makedirs(os.path.join(repo, "refs"))
        os.makedirs(os.path.join(repo, "snapshots", "abc123"))
        with open(os.path.join(repo, "refs", "main"), "w") as f:
            f.write("abc123")
        shutil.copy(CONFIG, os.path.join(repo, "snapshots", "abc123", "config.json"))

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp)

    def test_hub_cache_follows_huggingface_hub(self):
        home = os.path.join(self.tmp, "home")
        self.assertEqual(llmmem.hub_cache(), os.path.join(home, ".cache", "huggingface", "hub"))
        os.environ["XDG_CACHE_HOME"] = "/x"
        self.assertEqual(llmmem.hub_cache(), "/x/huggingface/hub")
        os.environ["HF_HOME"] = "~/hf"
        self.assertEqual(llmmem.hub_cache(), os.path.join(home, "hf", "hub"))
        os.environ["HUGGINGFACE_HUB_CACHE"] = "/legacy"
        self.assertEqual(llmmem.hub_cache(), "/legacy")
        os.environ["LLMMEM_T"] = "/t"
        os.environ["HF_HUB_CACHE"] = "$LLMMEM_T/hub"
        self.assertEqual(llmmem.hub_cache(), "/t/hub")
        del os.environ["LLMMEM_T"]

    def test_estimate_by_id(self):
        want = llmmem.estimate(CONFIG, micro_batch_size=2).to_dict()
        got = llmmem.estimate("acme/tiny-llama", micro_batch_size=2).to_dict()
        want.pop("notes"), got.pop("notes")
        self.assertEqual(got, want)
        m = llmmem.Model.from_pretrained("acme/tiny-llama")
        self.assertTrue(any("snapshots/abc123/config.json" in n for n in m.notes), m.notes)
        # a preset's id is the preset, whatever the cache
        self.assertEqual(llmmem.estimate("meta-llama/Llama-3.1-8B-Instruct").peak_allocated_bytes,
                         llmmem.estimate("llama-3.1-8b").peak_allocated_bytes)
        # no cache: not found, and the error says so and names the nearest presets
        with self.assertRaises(llmmem.UnknownParameterError) as e:
            llmmem.Model.from_pretrained("acme/tiny-llama", hub_cache=False)
        self.assertIn("no Hugging Face cache", str(e.exception))
        with self.assertRaises(llmmem.UnknownParameterError) as e:
            llmmem.estimate("meta-llama/Llama-3.1-8B-FP8")
        self.assertIn("did you mean llama-3.1-8b?", str(e.exception))
        self.assertIn("models--meta-llama--Llama-3.1-8B-FP8", str(e.exception))

    def test_framework_file_and_scenario(self):
        ax = os.path.join(self.tmp, "ax.yaml")
        with open(ax, "w") as f:
            f.write("base_model: acme/tiny-llama\nsequence_len: 1024\n")
        m = llmmem.Model.from_framework_file(ax)
        self.assertEqual(m.params, llmmem.Model.load(CONFIG).params)
        sc = os.path.join(self.tmp, "s.json")
        with open(sc, "w") as f:
            json.dump({"model": "acme/tiny-llama", "training": {"micro_batch_size": 2}}, f)
        m, c = llmmem.scenario_from_file(sc)
        self.assertEqual(m.params, llmmem.Model.load(CONFIG).params)
        self.assertEqual(c["micro_batch_size"], 2)
        with self.assertRaises(llmmem.Error) as e:
            llmmem.scenario_from_file(sc, hub_cache=False)
        self.assertIn('s.json:1:11: "model"', str(e.exception))


class PlanAndCapacity(unittest.TestCase):
    def test_default_global_batch(self):
        p = llmmem.plan("llama-3.1-8b", num_gpus=8, top_k=5)
        self.assertEqual(p.global_batch, 8)
        self.assertEqual(len(p.notes), 1)
        self.assertIn("8 data-parallel GPUs", p.notes[0])
        self.assertEqual(p.to_dict()["notes"], p.notes)
        self.assertTrue(any(lay["dp"] > 1 for lay in p))

    def test_vllm_capacity(self):
        r = llmmem.estimate("llama-3.1-8b", mode="inference", runtime="vllm", gpu="L4")
        self.assertFalse(r.fits)
        n = r.estimated_max_model_len
        self.assertTrue(0 < n < r.max_model_len)
        self.assertTrue(llmmem.estimate("llama-3.1-8b", mode="inference", runtime="vllm", gpu="L4",
                                        max_model_len=n).fits)
        self.assertFalse(llmmem.estimate("llama-3.1-8b", mode="inference", runtime="vllm", gpu="L4",
                                         max_model_len=n + 1).fits)


if __name__ == "__main__":
    unittest.main()
