"""Python call sequences equal fresh calls (issue 25 item 7): the keyword path keeps
configurations (a cache of int/bool/str keyword sets, a pool of scratch configurations for
the rest); a call must never inherit a setting of the call before it. Each call of a random
sequence is compared, JSON for JSON, with the same estimate from a fresh Config."""
import random
import unittest

import llmmem

KEYS = [
    ("micro_batch_size", [1, 2, 8, 1.0, 2.0]),
    ("seq_len", [512, 1024, 2048.0]),
    ("activation_checkpointing", ["none", "full"]),
    ("gradient_accumulation_steps", [1, 4, 4.0]),
    ("lora_rank", [0, 8]),
    ("param_dtype", ["bf16", "fp32"]),
    ("optimizer", ["adamw", "sgd"]),
]


def fresh(kw):
    c = llmmem.Config()
    for k, v in kw.items():
        c[k] = int(v) if isinstance(v, float) else v
    return llmmem.estimate("llama-3.2-1b", c).to_json()


class Sequences(unittest.TestCase):
    def test_random_sequences_equal_fresh_calls(self):
        rng = random.Random(25)
        calls = 0
        for _ in range(6):
            for _ in range(40):
                kw = {k: rng.choice(vs) for k, vs in rng.sample(KEYS, rng.randint(0, 4))}
                got = llmmem.estimate("llama-3.2-1b", **kw).to_json()
                self.assertEqual(got, fresh(kw), "after the calls before it, estimate(**%r)" % kw)
                calls += 1
        self.assertGreaterEqual(calls, 200)

    def test_a_bigger_batch_does_not_stay(self):
        """The issue's case: micro_batch_size=8 then a call without it (61.5 GB instead of 14.2)."""
        a = llmmem.estimate("llama-3.2-1b", micro_batch_size=8.0, seq_len=2048.0)
        b = llmmem.estimate("llama-3.2-1b", seq_len=2048.0)
        self.assertEqual(b.to_json(), fresh({"seq_len": 2048}))
        self.assertLess(b.peak_allocated_bytes, a.peak_allocated_bytes)


if __name__ == "__main__":
    unittest.main()
