"""The one number reader through Python (issue 25 item 2): every row of
test/data/values.tsv as a keyword's text (Config, estimate) and as a model field
(Model.from_numbers), with the answer the table gives: the number, or an llmmem.Error of
the table's status. The C test (test_values.c) and the CLI test (test_values.sh) read the
same table."""
import os
import unittest

import llmmem

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def rows():
    with open(os.path.join(ROOT, "test", "data", "values.tsv")) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            kind, text, want = line.split("\t")
            yield no, kind, text, want


PARAM = {"whole": "micro_batch_size", "tokens": "seq_len", "bool": "sequence_parallel"}
MODEL_KEY = {"whole": "num_hidden_layers", "tokens": "max_position_embeddings", "size": "num_parameters",
             "bool": "tie_word_embeddings"}


class Values(unittest.TestCase):
    def setUp(self):
        self.rows = list(rows())
        self.assertGreater(len(self.rows), 60)

    def expect(self, where, call, want, bounds):
        if want.startswith("LLMMEM_"):
            with self.assertRaises(llmmem.Error, msg=where) as e:
                call()
            self.assertEqual(e.exception.status_name, want, where)
            return
        v = int(want)
        lo, hi = bounds
        if not lo <= v <= hi:
            with self.assertRaises(llmmem.Error, msg=where) as e:
                call()
            self.assertEqual(e.exception.status_name, "LLMMEM_E_OUT_OF_RANGE", where)
            return
        self.assertEqual(call(), v, where)

    def test_config_keywords(self):
        info = {p["name"]: p for p in llmmem.params()}
        for no, kind, text, want in self.rows:
            if kind not in PARAM:
                continue
            name = PARAM[kind]
            lo, hi = (0, 1) if kind == "bool" else info[name]["bounds"]

            def call(name=name, text=text):
                c = llmmem.Config()
                c[name] = text
                v = c[name]
                return int(v)
            self.expect("values.tsv:%d: Config(%s=%r)" % (no, name, text), call, want, (lo, hi))

    def test_model_fields(self):
        bounds = {"num_hidden_layers": (1, 100000), "max_position_embeddings": (1, 1 << 40),
                  "num_parameters": (1, 1 << 50), "tie_word_embeddings": (0, 1)}
        for no, kind, text, want in self.rows:
            key = MODEL_KEY[kind]

            def call(key=key, text=text):
                m = llmmem.Model.from_numbers(**{key: text})
                if want.startswith("LLMMEM_") or not (bounds[key][0] <= int(want) <= bounds[key][1]):
                    return None
                # the same model as the number written out
                ref = llmmem.Model.from_numbers(**{key: int(want)})
                self.assertEqual(m.to_dict(), ref.to_dict(), "%s=%r" % (key, text))
                return int(want)
            self.expect("values.tsv:%d: Model.from_numbers(%s=%r)" % (no, key, text), call, want, bounds[key])

    def test_estimate_keyword_text_equals_number(self):
        a = llmmem.estimate("llama-3.2-1b", seq_len="4k", micro_batch_size="5e0").to_json()
        b = llmmem.estimate("llama-3.2-1b", seq_len=4096, micro_batch_size=5).to_json()
        self.assertEqual(a, b)
        with self.assertRaises(llmmem.Error) as e:
            llmmem.estimate("llama-3.2-1b", micro_batch_size="1 5")
        self.assertEqual(e.exception.status_name, "LLMMEM_E_PARSE")


if __name__ == "__main__":
    unittest.main()
