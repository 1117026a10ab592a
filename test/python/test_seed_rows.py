"""The seed tools' rows (issue 29 item 8) from Python: the sgd-momentum spelling, AdaBelief
(torch_optimizer/adabelief.py: exp_avg and exp_avg_var like the parameter, + max_exp_avg_var
with amsgrad; a per-parameter step holding 4 copies of the largest parameter at most), and
Shampoo refused with its reason; which cards of the GPU table fit a run (one call)."""

import os
import unittest

try:
    import llmmem
except ImportError as exc:
    raise ImportError("the llmmem binding does not load (run make; LLMMEM_LIBRARY=%s): %s"
                      % (os.environ.get("LLMMEM_LIBRARY"), exc)) from exc


class TestOptimizers(unittest.TestCase):
    def test_sgd_momentum_spelling(self):
        a = llmmem.estimate("llama-3.2-1b", optimizer="sgd-momentum").to_dict()
        b = llmmem.estimate("llama-3.2-1b", optimizer="sgd_momentum").to_dict()
        self.assertEqual(a, b)

    def test_adabelief(self):
        m = llmmem.Model.from_preset("llama-3.2-1b")
        largest = m["vocab_size"] * m["hidden_size"]  # the tied embedding, bf16
        for name, states in (("adabelief", 2), ("adabelief_amsgrad", 3)):
            r = llmmem.estimate(m, optimizer=name)
            opt = r.phases["optimizer"]["components"]
            self.assertEqual(opt["optimizer_state"], states * r.trainable_params * 2, name)
            self.assertEqual(opt["optimizer_transient"], 4 * largest * 2, name)

    def test_shampoo_refused(self):
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate("llama-3.2-1b", optimizer="shampoo")
        self.assertEqual(cm.exception.status, llmmem.E_UNSUPPORTED)
        self.assertIn("Distributed Shampoo", str(cm.exception))


class TestWhichGpus(unittest.TestCase):
    """One call for the GPU table: each row is llmmem.estimate on that GPU."""

    def test_each_gpu(self):
        rows = llmmem.which_gpus("llama-3.1-8b", lora_rank=16, seq_len=4096)
        self.assertEqual([g.name for g in rows], list(llmmem.gpus()))
        for g in rows:
            r = llmmem.estimate("llama-3.1-8b", lora_rank=16, seq_len=4096, gpu=g.name)
            self.assertEqual((g.fits, g.total_bytes_per_gpu, g.headroom_bytes, g.memory_bytes),
                             (r.fits, r.total_bytes_per_gpu, r.headroom_bytes, r.gpu_memory_bytes))
        self.assertTrue(any(g.fits for g in rows) and not all(g.fits for g in rows))

    def test_gpu_refused(self):
        with self.assertRaises(ValueError):
            llmmem.which_gpus("llama-3.1-8b", gpu="H100-80GB")
        with self.assertRaises(ValueError):
            llmmem.which_gpus("llama-3.1-8b", llmmem.Config(gpu="A100-80GB"))


class TestFlatSettings(unittest.TestCase):
    """A calibration profile's flat settings beside the per-component scale factors."""

    def test_flat(self):
        import math
        G = 2 ** 30
        a = llmmem.estimate("llama-3.1-8b", lora_rank=16)
        c = llmmem.Config(lora_rank=16).apply_calibration(
            '{"fragmentation_gib": 0.5, "overhead_gib": 1.25, "safety_margin": 0.05}')
        b = llmmem.estimate("llama-3.1-8b", c)
        self.assertEqual(b.peak_reserved_bytes, a.peak_reserved_bytes + G // 2)
        self.assertEqual(b.total_bytes_per_gpu, a.total_bytes_per_gpu + G // 2 + 5 * G // 4)
        cap = a.gpu_memory_bytes
        self.assertEqual(b.headroom_bytes, cap - math.ceil(cap * 0.05) - b.total_bytes_per_gpu)
        with self.assertRaises(llmmem.Error):
            llmmem.Config().apply_calibration('{"overhead_gib": -1}')


class TestAutoTP(unittest.TestCase):
    """ZeRO with tensor parallelism (DeepSpeed AutoTP training): refused with the reason."""

    def test_refused(self):
        ds = '{"zero_optimization": {"stage": 3}, "tensor_parallel": {"autotp_size": 4}}'
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.Config.from_deepspeed_config(ds, "llama-3.1-8b")
        self.assertEqual(cm.exception.status, llmmem.E_UNSUPPORTED)
        self.assertIn("AutoTP", str(cm.exception))
        with self.assertRaises(llmmem.Error) as cm:
            llmmem.estimate("llama-3.1-8b", engine="zero", zero_stage=3, data_parallel_size=4, tensor_parallel_size=2)
        self.assertIn("AutoTP", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
