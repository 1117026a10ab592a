"""The package's types (issue 29 item 7): mypy --strict passes on a user's script that reads
result fields (test/python/typed_script.py) and flags wrong uses of them; every annotation
of Result is the type its value has at run time and the library's own type of the key; the
public names of the package (dir, __all__, everything importable before the split into
modules); one version everywhere.

mypy comes from Debian (apt-get install mypy; ./setup.sh test-deps installs it). Without
it the mypy tests FAIL and say so.

    make check      (PYTHONPATH=python: the tree, mypy reads python/llmmem)
    .ci/run         (the wheel installed in a venv: mypy finds it as an installed package
                     through its py.typed)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import typing
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "test", "python", "typed_script.py")
INSTALLED = os.environ.get("LLMMEM_TEST_INSTALLED") == "1"

import llmmem  # noqa: E402
from llmmem import _results  # noqa: E402

# The public names of `llmmem` before it became a package of modules (main at 3693e6a:
# dir(llmmem) without the modules and the names it imported from os, ctypes and typing).
# Every one stays importable; the header's LLMMEM_* constants are test/abi/constants.txt.
PUBLIC_BEFORE = """
Config E_BUFFER_TOO_SMALL E_INCONSISTENT E_INTERNAL E_INVALID_ARG E_IO E_NOMEM E_OUT_OF_RANGE
E_PARAM_TYPE E_PARSE E_SCHEMA E_UNKNOWN_PARAM E_UNSUPPORTED Error InapplicableParameterError
LIBRARY_PATH Model NotEstimatedError OK Plan REJECT_BATCH REJECT_INDIVISIBLE REJECT_OOM
REJECT_UNSUPPORTED Result TYPE_BOOL TYPE_ENUM TYPE_F64 TYPE_I64 TYPE_STR TYPE_U64
UnknownParameterError __version__ architectures clear_error cli_path component_names estimate
framework_detect framework_names gpus last_error lib load_scenario max_batch max_seq_len
min_gpus model_key_names params phase_names plan presets reject_names result_key_names
scenario_from_file scenario_from_json soversion status_name strerror timeline version
version_number
""".split()
# What dir(llmmem) listed before that is not the package's API.
NOT_API = """
Any Dict Iterator List Mapping Optional Tuple Union byref c_char_p c_double c_int c_int64
c_size_t c_uint64 c_void_p ctypes difflib html json os sys threading weakref
""".split()


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def mypy_command():
    """The mypy command (Debian's mypy package, or a mypy this Python can import); without
    one the test fails and says what to install."""
    exe = shutil.which("mypy")
    if exe:
        return [exe]
    try:
        import mypy  # noqa: F401
    except ImportError:
        raise AssertionError("mypy is not installed: apt-get install mypy (Debian's package; "
                             "./setup.sh test-deps installs it) or pip install mypy") from None
    return [sys.executable, "-m", "mypy"]


def run_mypy(*paths):
    """mypy --strict on ``paths`` against this package: the tree's python/llmmem (MYPYPATH),
    or with LLMMEM_TEST_INSTALLED=1 the installed one (PEP 561, py.typed). Errors inside the
    package are not the script's: --follow-imports=silent reads its types only."""
    cmd = mypy_command()
    env = dict(os.environ)
    args = cmd + ["--strict", "--follow-imports=silent", "--cache-dir=" + os.devnull,
                  "--no-color-output", "--show-error-codes"]
    if INSTALLED:
        env.pop("MYPYPATH", None)
        args += ["--python-executable", sys.executable]
    else:
        env["MYPYPATH"] = os.path.join(ROOT, "python")
        args += ["--no-site-packages"]
    return subprocess.run(args + list(paths), capture_output=True, text=True, env=env, cwd=ROOT)


class TestMypy(unittest.TestCase):
    def test_strict_on_a_user_script(self):
        """mypy --strict passes on a script that reads result fields as typed values (ints,
        bools, floats, names, phase and term records)."""
        p = run_mypy(SCRIPT)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("Success", p.stdout)

    def test_the_package_checks(self):
        """mypy (default mode) passes on the package itself: its annotations agree with its
        code (the public API is annotated; strict mode is for the users' scripts)."""
        cmd = mypy_command()
        pkg = os.path.dirname(os.path.abspath(llmmem.__file__))
        p = subprocess.run(cmd + ["--cache-dir=" + os.devnull, "--no-color-output", "--show-error-codes",
                                  "--no-site-packages", pkg], capture_output=True, text=True,
                           cwd=os.path.dirname(pkg))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_the_script_runs(self):
        """The script mypy checks also runs, on the same package."""
        env = dict(os.environ)
        if not INSTALLED:
            env["PYTHONPATH"] = os.path.join(ROOT, "python")
        p = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        peak = llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096,
                               activation_checkpointing="full").peak_allocated_bytes
        self.assertIn("peak %.2f GiB" % (peak / 2**30), p.stdout)

    def test_wrong_uses_are_flagged(self):
        """The types are not Any: mypy --strict rejects a result field used as another type,
        a misspelt attribute, a misspelt phase-record key, and a phase given as a float."""
        bad = (
            "import llmmem\n"
            "r = llmmem.estimate('llama-3.1-8b')\n"
            "a: str = r.peak_allocated_bytes\n"       # 3: int is not str
            "b: int = r.peak_phase\n"                 # 4: str is not int
            "c: str = r.fits\n"                       # 5: bool is not str
            "d = r.peak_alocated_bytes\n"             # 6: no such attribute
            "e = r.phases['backward']['totl']\n"      # 7: no such key of a phase record
            "f: str = r.explain()[0]['gib']\n"        # 8: float is not str
            "g = r.phase_bytes(1.5)\n"                # 9: a phase is a name or an id
            "h: str = llmmem.max_batch('llama-3.1-8b')\n"  # 10: int is not str
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(bad)
            p = run_mypy(path)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        lines = {int(m.group(1)) for m in re.finditer(r"bad\.py:(\d+): error", p.stdout)}
        self.assertEqual(lines, set(range(3, 11)), p.stdout)


def _is(value, hint):
    """isinstance for the annotations Result uses (int, float, bool, str, List[X], Dict[K, V],
    TypedDicts)."""
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_is(v, item) for v in value)
    if origin is dict:
        k, v = typing.get_args(hint)
        return isinstance(value, dict) and all(_is(a, k) and _is(b, v) for a, b in value.items())
    if isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__annotations__"):
        hints = typing.get_type_hints(hint)
        return (isinstance(value, dict) and set(value) == set(hints)
                and all(_is(value[k], t) for k, t in hints.items()))
    if hint is int:  # a bool is an int to isinstance, not here
        return type(value) is int
    if hint is float:
        return type(value) is float or type(value) is int
    return isinstance(value, hint)


RUNS = [
    dict(),
    dict(micro_batch_size=4, seq_len=4096, activation_checkpointing="full"),
    dict(mode="inference"),
    dict(mode="inference", runtime="vllm", max_model_len=8192),
    dict(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8),
    dict(engine="megatron", num_gpus=8, pipeline_parallel_size=4, tensor_parallel_size=2),
    dict(optimizer="paged_adamw_32bit", qlora="nf4", lora_rank=16),
]


class TestResultTypes(unittest.TestCase):
    """Result's annotations against the library and against the values."""

    def hints(self):
        h = typing.get_type_hints(llmmem.Result)
        out = {k: v for k, v in h.items() if not k.startswith("_")}
        for name in dir(llmmem.Result):
            attr = getattr(llmmem.Result, name, None)
            if not name.startswith("_") and isinstance(attr, property) and name not in out:
                ret = typing.get_type_hints(attr.fget).get("return")
                if ret is not None:
                    out[name] = ret
        return out

    def test_scalar_keys_have_the_library_types(self):
        """Every scalar result key of the library is annotated, as its C type reads in Python:
        u64 and i64 int, f64 float, bool bool, enum str (the value's name)."""
        want = {llmmem.TYPE_U64: int, llmmem.TYPE_I64: int, llmmem.TYPE_F64: float,
                llmmem.TYPE_BOOL: bool, llmmem.TYPE_ENUM: str}
        hints = typing.get_type_hints(llmmem.Result)
        keys = llmmem.result_key_names()
        self.assertEqual(sorted(k for k in hints if not k.startswith("_")), sorted(keys),
                         "Result's annotations and the library's result keys differ")
        for name, (_, t) in keys.items():
            self.assertIs(hints[name], want[t], name)
            self.assertIsInstance(getattr(llmmem.Result, name), property, name)

    def test_every_key_is_typed_and_holds_its_type(self):
        """Every key of to_dict() of several estimates (training, serving, vLLM, ZeRO-3,
        pipeline, QLoRA with a paged optimizer) is a typed attribute whose value has its type
        and equals the JSON's."""
        hints = self.hints()
        for kw in RUNS:
            r = llmmem.estimate("llama-3.1-8b", **kw)
            d = r.to_dict()
            for key, value in d.items():
                with self.subTest(run=kw, key=key):
                    self.assertIn(key, hints, "to_dict() key without a typed attribute")
                    got = getattr(r, key)
                    self.assertTrue(_is(got, hints[key]), "%r is not %s" % (got, hints[key]))
                    if isinstance(value, float):
                        self.assertAlmostEqual(got, value, places=5)
                    else:
                        self.assertEqual(got, value)
            for key, hint in hints.items():  # also the keys the JSON leaves out when zero
                with self.subTest(run=kw, key=key):
                    self.assertTrue(_is(getattr(r, key), hint), key)

    def test_records(self):
        """explain() records are terms plus GiB; the record types are importable."""
        r = llmmem.estimate("llama-3.1-8b")
        for t, e in zip(r.terms, r.explain()):
            self.assertTrue(_is(t, llmmem.TermRecord), t)
            self.assertTrue(_is(e, llmmem.ExplainRecord), e)
            self.assertEqual(e["gib"], t["bytes"] / 2**30)
        for ph in r.phases.values():
            self.assertTrue(_is(ph, llmmem.PhaseRecord), ph)

    def test_attribute_errors(self):
        """Attributes that are no key still raise AttributeError with the nearest names; a
        result no estimate filled raises NotEstimatedError from a typed attribute too."""
        r = llmmem.estimate("llama-3.1-8b")
        with self.assertRaisesRegex(AttributeError, "peak_allocated_bytes"):
            r.peak_alocated_bytes  # noqa: B018
        with self.assertRaises(llmmem.NotEstimatedError):
            llmmem.Result().fits  # noqa: B018
        with self.assertRaises(llmmem.NotEstimatedError):
            llmmem.Result().phases  # noqa: B018

    def test_py_typed(self):
        """The package says it is typed (PEP 561)."""
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(llmmem.__file__), "py.typed")))


class TestPublicNames(unittest.TestCase):
    def test_nothing_lost(self):
        """Every public name of the module before the split is still there, and importable
        by `from llmmem import`; so is every enum constant of the header."""
        for name in PUBLIC_BEFORE:
            self.assertTrue(hasattr(llmmem, name), name)
            ns = {}
            exec("from llmmem import %s" % name, ns)
            self.assertIs(ns[name], getattr(llmmem, name), name)
        for line in read(os.path.join(ROOT, "test", "abi", "constants.txt")).splitlines():
            name, value = line.split()
            self.assertEqual(getattr(llmmem, name), int(value), name)
        ns = {}
        exec("from llmmem import LLMMEM_P_SEQ_LEN, LLMMEM_R_FITS", ns)
        self.assertEqual((ns["LLMMEM_P_SEQ_LEN"], ns["LLMMEM_R_FITS"]), (llmmem.LLMMEM_P_SEQ_LEN, llmmem.LLMMEM_R_FITS))
        with self.assertRaises(AttributeError):
            llmmem.LLMMEM_NO_SUCH_CONSTANT  # noqa: B018
        with self.assertRaises(ImportError):
            exec("from llmmem import no_such_name", {})

    def test_dir_is_the_api(self):
        """dir(llmmem) lists the API: __all__ and the status, type and rejection constants;
        not os, ctypes, typing's names or the header's 233 LLMMEM_* values."""
        names = dir(llmmem)
        self.assertEqual(names, sorted(set(names)))
        self.assertLessEqual(set(llmmem.__all__), set(names))
        for name in NOT_API:
            self.assertNotIn(name, names)
        self.assertFalse([n for n in names if n.startswith("LLMMEM_")])
        self.assertFalse([n for n in names if n.startswith("_") and n != "__version__"])
        self.assertEqual(set(names), set(PUBLIC_BEFORE) | {"PhaseRecord", "TermRecord", "ExplainRecord", "hub_cache"})
        for name in names:
            self.assertTrue(hasattr(llmmem, name), name)

    def test_all(self):
        """`from llmmem import *` gives __all__, every name of it defined."""
        ns = {}
        exec("from llmmem import *", ns)
        self.assertEqual(set(ns) - {"__builtins__"}, set(llmmem.__all__))
        self.assertEqual(len(llmmem.__all__), len(set(llmmem.__all__)))


class TestVersion(unittest.TestCase):
    """One version everywhere: the header, the running library, the package, the CHANGELOG,
    the man page and the docs."""

    def test_one_version(self):
        header = read(os.path.join(ROOT, "include", "llmmem.h"))
        v = re.search(r'^#define LLMMEM_VERSION_STRING "([^"]+)"', header, re.M).group(1)
        parts = [int(re.search(r"^#define LLMMEM_VERSION_%s (\d+)" % k, header, re.M).group(1))
                 for k in ("MAJOR", "MINOR", "PATCH")]
        self.assertEqual(v, "%d.%d.%d" % tuple(parts))
        self.assertEqual(llmmem.version(), v)
        self.assertEqual(llmmem.__version__, v)
        self.assertEqual(llmmem.version_number(), parts[0] * 10000 + parts[1] * 100 + parts[2])
        changelog = read(os.path.join(ROOT, "CHANGELOG.md"))
        self.assertEqual(re.search(r"^## (\S+)", changelog, re.M).group(1), v,
                         "CHANGELOG.md's first section is not the header's version")
        self.assertIn('"libllmmem %s"' % v, read(os.path.join(ROOT, "docs", "llmmem.1")))
        self.assertIn("llmmem-%s.tar.gz" % v, read(os.path.join(ROOT, "docs", "python.md")))
        pyproject = read(os.path.join(ROOT, "pyproject.toml"))
        self.assertIn('dynamic = ["version"]', pyproject)  # the build backend reads the header

    def test_since_tags_name_this_version_or_older(self):
        """The header's "@since X.Y" tags name no version after the header's: an item tagged
        0.2 means the version is at least 0.2.0."""
        header = read(os.path.join(ROOT, "include", "llmmem.h"))
        major_minor = tuple(int(x) for x in llmmem.version().split(".")[:2])
        tags = {tuple(int(x) for x in t.split(".")[:2]) for t in re.findall(r"@since (\d+\.\d+)", header)}
        self.assertTrue(tags)
        self.assertLessEqual(max(tags), major_minor)
        nodes = re.findall(r"^LLMMEM_(\d+)\.(\d+) \{", read(os.path.join(ROOT, "src", "libllmmem.map")), re.M)
        self.assertLessEqual(max((int(a), int(b)) for a, b in nodes), major_minor,
                             "src/libllmmem.map has a version node after the header's version")


if __name__ == "__main__":
    unittest.main()
