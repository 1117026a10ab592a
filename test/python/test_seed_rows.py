"""The seed tools' rows (issue 29 item 8) from Python: the sgd-momentum spelling, AdaBelief
(torch_optimizer/adabelief.py: exp_avg and exp_avg_var like the parameter, + max_exp_avg_var
with amsgrad; a per-parameter step holding 4 copies of the largest parameter at most), and
Shampoo refused with its reason."""

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


if __name__ == "__main__":
    unittest.main()
