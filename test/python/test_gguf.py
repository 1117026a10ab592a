"""GGUF files through Python (issue 30): a .gguf path is a model for runtime llama_cpp, its
options are keywords (n_gpu_layers, ctx_size, ...), a slice of a file reads like the file
until the header goes past it, and llama.cpp's options are refused with another runtime.
The numbers are checked against llama.cpp in test/test_llamacpp.c."""
import json
import os
import unittest

import llmmem

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GGUF = os.path.join(ROOT, "fuzz", "corpus", "fuzz_gguf", "llama.gguf")


class Gguf(unittest.TestCase):
    def test_estimate_path(self):
        r0 = llmmem.estimate(GGUF, n_gpu_layers=0, ctx_size=4096)
        r2 = llmmem.estimate(GGUF, n_gpu_layers=2, ctx_size=4096)
        rall = llmmem.estimate(GGUF, ctx_size=4096)
        self.assertEqual(r0["weights_bytes"], 0)
        self.assertLess(0, r2["weights_bytes"])
        self.assertLess(r2["weights_bytes"], rall["weights_bytes"])
        # -ngl 2 of the 2 + 1 layers: the output layer and layer 1, so half the cache
        self.assertEqual(rall["kv_cache_bytes"], 2 * r2["kv_cache_bytes"])
        self.assertEqual(r0["kv_cache_bytes"], 0)

    def test_model_and_slices(self):
        with open(GGUF, "rb") as f:
            data = f.read()
        whole = llmmem.Model.from_gguf_bytes(data)
        self.assertEqual(whole.get("num_hidden_layers"), llmmem.Model.from_gguf(GGUF).get("num_hidden_layers"))
        with self.assertRaises(llmmem.Error) as e:
            llmmem.Model.from_gguf_bytes(data[:100], len(data))
        self.assertIn("read more of the file", str(e.exception))
        with self.assertRaises(llmmem.Error) as e:
            llmmem.Model.from_gguf_bytes(b"GGUG" + data[4:])
        self.assertIn("not a GGUF file", str(e.exception))

    def test_approximate(self):
        # what the estimate cannot know is said, flag and note: llama.cpp copies the experts
        # kept in host memory to the GPU for large batches (op offload), and with layers on the
        # CPU the host runs their part of the graph
        with open(os.path.join(ROOT, "test", "data", "llamacpp", "logs.jsonl")) as f:
            size = next(r["file_size"] for r in map(json.loads, f) if r["model"] == "qwen3moe-q4_k_m")
        with open(os.path.join(ROOT, "test", "data", "llamacpp", "headers", "qwen3moe-q4_k_m.gguf"), "rb") as f:
            moe = llmmem.Model.from_gguf_bytes(f.read(), size)
        full = llmmem.estimate(moe, mode="inference", runtime="llama_cpp", ctx_size=4096)
        self.assertFalse(full["approximate"])
        cpu_moe = llmmem.estimate(moe, mode="inference", runtime="llama_cpp", ctx_size=4096, n_cpu_moe=2)
        self.assertTrue(cpu_moe["approximate"])
        self.assertTrue(any("op offload" in n for n in cpu_moe.notes))
        # a ubatch under 32 tokens runs the host experts on the CPU: nothing copied
        small = llmmem.estimate(moe, mode="inference", runtime="llama_cpp", ctx_size=4096, n_cpu_moe=2,
                                n_batch=16, n_ubatch=16)
        self.assertFalse(small["approximate"])
        part = llmmem.estimate(moe, mode="inference", runtime="llama_cpp", ctx_size=4096, n_gpu_layers=2)
        self.assertTrue(part["approximate"])

    def test_refusals(self):
        with self.assertRaises(llmmem.InapplicableParameterError):
            llmmem.estimate("llama-3.2-1b", n_gpu_layers=3)
        with self.assertRaises(llmmem.Error) as e:
            llmmem.estimate("llama-3.2-1b", mode="inference", runtime="llama_cpp")
        self.assertIn("GGUF", str(e.exception))


if __name__ == "__main__":
    unittest.main()
