"""llmmem.advise (issue 29 item 1): what to change so that a run fits, from Python.

Every suggestion is checked against the library's own estimate, never against numbers of
the code: its configuration and its flags (read back as keyword arguments) estimate to the
total it reports; the run as given is llmmem.estimate of the same inputs; the ranking puts
the fitting ones first; the Hub id of a preset is taken as the preset."""

import os
import unittest

try:
    import llmmem
except ImportError as exc:
    raise ImportError("the llmmem binding does not load (run make; LLMMEM_LIBRARY=%s): %s"
                      % (os.environ.get("LLMMEM_LIBRARY"), exc)) from exc


def flags_to_params(flags):
    """'--a-b 1 --c x' -> {'a_b': '1', 'c': 'x'}"""
    words = flags.split()
    assert len(words) % 2 == 0, flags
    return {words[i][2:].replace("-", "_"): words[i + 1] for i in range(0, len(words), 2)}


class TestAdvise(unittest.TestCase):
    RUN = dict(gpu="H100-80GB", seq_len=8192, micro_batch_size=2)

    def check(self, model, **run):
        a = llmmem.advise(model, **run)
        given = llmmem.estimate(model, **run)
        self.assertEqual(a.as_given["total_bytes_per_gpu"], given.total_bytes_per_gpu)
        self.assertEqual(a.as_given["fits"], given.fits)
        self.assertGreater(len(a), 0)
        seen_unfit = False
        for i, s in enumerate(a):
            self.assertIsInstance(s, llmmem.Suggestion)
            self.assertEqual(s.rank, i + 1)
            self.assertEqual(s.change, a.change(i))
            seen_unfit |= not s.fits
            if seen_unfit:
                self.assertFalse(s.fits, "a fitting suggestion after one that does not fit")
            # the configuration, estimated again
            self.assertEqual(llmmem.estimate(model, a.config(i)).total_bytes_per_gpu, s.total_bytes_per_gpu)
            self.assertEqual(a.result(i).total_bytes_per_gpu, s.total_bytes_per_gpu)
            # the flags as keyword arguments on the run as given
            r = llmmem.estimate(model, **dict(run, **flags_to_params(s.flags)))
            self.assertEqual((r.total_bytes_per_gpu, r.fits), (s.total_bytes_per_gpu, s.fits), s.flags)
            self.assertTrue(s.total_bytes_per_gpu < given.total_bytes_per_gpu or (s.fits and not given.fits))
        return a

    def test_training_does_not_fit(self):
        a = self.check("llama-3.1-8b", **self.RUN)
        self.assertFalse(a.as_given["fits"])
        self.assertTrue(a[0].fits)
        self.assertTrue(a[0].keeps_run)
        self.assertIn("fits", repr(a))

    def test_hub_id(self):
        """A Hub id that names a preset gives the preset's advice."""
        a = llmmem.advise("meta-llama/Llama-3.1-8B", **self.RUN).to_dict()
        b = llmmem.advise("llama-3.1-8b", **self.RUN).to_dict()
        self.assertEqual(a, b)

    def test_serving(self):
        a = self.check("qwen2.5-72b", mode="inference", runtime="vllm", gpu="A100-80GB", tensor_parallel_size=2)
        self.assertTrue(any(s.fits for s in a))

    def test_config_and_errors(self):
        c = llmmem.Config(gpu="H100-80GB", seq_len=8192, micro_batch_size=2)
        a = llmmem.advise("llama-3.1-8b", c)
        self.assertEqual(a.to_dict(), llmmem.advise("llama-3.1-8b", **self.RUN).to_dict())
        with self.assertRaises(IndexError):
            a.change(len(a))
        with self.assertRaises(llmmem.Error):
            a.config(len(a))
        with self.assertRaises(llmmem.UnknownParameterError):
            llmmem.advise("llama-3.1-8b", no_such_parameter=1)
        a.close()
        self.assertEqual(repr(a), "<llmmem.Advice (closed)>")


class TestFourQuestions(unittest.TestCase):
    """The issue's four questions: each fits as given or its first suggestion fits."""

    QUESTIONS = [
        ("llama-3.1-8b", dict(gpu="H100-80GB")),
        ("llama-3.1-70b", dict(engine="fsdp", gpu="H100-80GB")),
        ("qwen2.5-72b", dict(mode="inference", runtime="vllm", gpu="A100-80GB", tensor_parallel_size=4)),
        ("llama-3.1-70b", dict(qlora="nf4", lora_rank=16, gpu="A6000")),
    ]

    def test_each_has_a_next_step(self):
        for model, run in self.QUESTIONS:
            a = llmmem.advise(model, **run)
            self.assertTrue(a.as_given["fits"] or (len(a) and a[0].fits), (model, run, a.to_dict()))


if __name__ == "__main__":
    unittest.main()
