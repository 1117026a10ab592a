"""ctypes binding of libllmmem (include/llmmem.h): per-GPU memory of LLM training and inference.

Every public function of the header is bound in ``lib`` with its argtypes and restype.
The Pythonic layer raises :class:`Error` for a negative status; handles are the classes
:class:`Model`, :class:`Config` and :class:`Result` (context managers, ``close()``).
Enum names come from the library at run time.

The library is found through the environment variable LLMMEM_LIBRARY, else
``../../lib/libllmmem.so`` relative to this file, else ``ctypes.util.find_library``.

Example::

    import llmmem
    with llmmem.Model.from_preset("llama-3.1-8b") as m, llmmem.Config() as c:
        c["micro_batch_size"] = 4
        r = llmmem.estimate(m, c)
        print(r.to_dict()["peak_allocated_bytes"])
"""

import ctypes
import ctypes.util
import json
import os
from ctypes import (POINTER, byref, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint,
                    c_uint64, c_void_p)

__all__ = [
    "Error", "Model", "Config", "Result", "lib", "estimate", "scenario_from_json",
    "scenario_from_file", "params", "presets", "gpus", "phase_names", "component_names",
    "result_key_names", "model_key_names", "version", "version_number", "soversion",
    "status_name", "strerror", "last_error", "clear_error", "LIBRARY_PATH",
    "Plan", "plan", "max_batch", "max_seq_len", "min_gpus", "reject_names",
]

# What this binding was written for (checked at import, sqlite-style).
_ABI_MAJOR = 0
_SOVERSION = 1

# Status codes (values are part of the ABI; names also come from llmmem_status_name).
OK = 0
E_INVALID_ARG = -1
E_NOMEM = -2
E_IO = -3
E_PARSE = -4
E_SCHEMA = -5
E_UNKNOWN_PARAM = -6
E_PARAM_TYPE = -7
E_OUT_OF_RANGE = -8
E_UNSUPPORTED = -9
E_BUFFER_TOO_SMALL = -10
E_INCONSISTENT = -11
E_INTERNAL = -99

TYPE_I64, TYPE_F64, TYPE_BOOL, TYPE_ENUM, TYPE_STR, TYPE_U64 = 1, 2, 3, 4, 5, 6


def _find_library():
    env = os.environ.get("LLMMEM_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    local = os.path.normpath(os.path.join(here, "..", "..", "lib", "libllmmem.so"))
    if os.path.exists(local):
        return local
    found = ctypes.util.find_library("llmmem")
    if found:
        return found
    raise ImportError("libllmmem not found: build it (make) or set LLMMEM_LIBRARY")


LIBRARY_PATH = _find_library()
try:
    lib = ctypes.CDLL(LIBRARY_PATH)
except OSError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("cannot load libllmmem from %r: %s" % (LIBRARY_PATH, exc))

_p = c_void_p  # opaque handles
_pp = POINTER(c_void_p)
_sz = POINTER(c_size_t)

# name: (restype, [argtypes]) -- every function of include/llmmem.h
_PROTOTYPES = {
    # library information
    "llmmem_version_number": (c_uint, []),
    "llmmem_version_string": (c_char_p, []),
    "llmmem_soversion": (c_int, []),
    # errors
    "llmmem_status_name": (c_char_p, [c_int]),
    "llmmem_strerror": (c_char_p, [c_int]),
    "llmmem_last_error": (c_char_p, []),
    "llmmem_clear_error": (None, []),
    # enum names
    "llmmem_phase_name": (c_char_p, [c_int]),
    "llmmem_component_name": (c_char_p, [c_int]),
    "llmmem_result_key_name": (c_char_p, [c_int]),
    "llmmem_result_key_type": (c_int, [c_int]),
    "llmmem_model_key_name": (c_char_p, [c_int]),
    "llmmem_phase_count": (c_int, []),
    "llmmem_component_count": (c_int, []),
    "llmmem_result_key_count": (c_int, []),
    "llmmem_result_key_at": (c_int, [c_int]),
    "llmmem_model_key_count": (c_int, []),
    "llmmem_model_key_at": (c_int, [c_int]),
    # parameter introspection
    "llmmem_param_count": (c_int, []),
    "llmmem_param_at": (c_int, [c_int]),
    "llmmem_param_name": (c_char_p, [c_int]),
    "llmmem_param_from_name": (c_int, [POINTER(c_int), c_char_p]),
    "llmmem_param_type": (c_int, [c_int]),
    "llmmem_param_doc": (c_char_p, [c_int]),
    "llmmem_param_bounds_i64": (c_int, [POINTER(c_int64), POINTER(c_int64), c_int]),
    "llmmem_param_bounds_f64": (c_int, [POINTER(c_double), POINTER(c_double), c_int]),
    "llmmem_param_default_i64": (c_int, [POINTER(c_int64), c_int]),
    "llmmem_param_default_f64": (c_int, [POINTER(c_double), c_int]),
    "llmmem_param_enum_count": (c_int, [c_int]),
    "llmmem_param_enum_name": (c_char_p, [c_int, c_int64]),
    # models
    "llmmem_model_from_hf_json": (c_int, [_pp, c_char_p, c_size_t]),
    "llmmem_model_from_hf_file": (c_int, [_pp, c_char_p]),
    "llmmem_model_from_preset": (c_int, [_pp, c_char_p]),
    "llmmem_model_new": (c_int, [_pp]),
    "llmmem_model_clone": (c_int, [_pp, _p]),
    "llmmem_model_free": (None, [_p]),
    "llmmem_model_set_i64": (c_int, [_p, c_int, c_int64]),
    "llmmem_model_set": (c_int, [_p, c_char_p, c_char_p]),
    "llmmem_model_get_i64": (c_int, [POINTER(c_int64), _p, c_int]),
    "llmmem_model_type": (c_int, [c_char_p, c_size_t, _sz, _p]),
    "llmmem_model_to_json": (c_int, [c_char_p, c_size_t, _sz, _p]),
    "llmmem_model_note_count": (c_int, [_p]),
    "llmmem_model_note": (c_char_p, [_p, c_int]),
    "llmmem_preset_count": (c_int, []),
    "llmmem_preset_name": (c_char_p, [c_int]),
    "llmmem_preset_description": (c_char_p, [c_int]),
    "llmmem_gpu_count": (c_int, []),
    "llmmem_gpu_name": (c_char_p, [c_int]),
    "llmmem_gpu_memory_bytes": (c_int, [POINTER(c_uint64), c_int]),
    # configurations
    "llmmem_config_new": (c_int, [_pp]),
    "llmmem_config_clone": (c_int, [_pp, _p]),
    "llmmem_config_free": (None, [_p]),
    "llmmem_config_reset": (c_int, [_p]),
    "llmmem_config_set_i64": (c_int, [_p, c_int, c_int64]),
    "llmmem_config_set_f64": (c_int, [_p, c_int, c_double]),
    "llmmem_config_set_str": (c_int, [_p, c_int, c_char_p]),
    "llmmem_config_set": (c_int, [_p, c_char_p, c_char_p]),
    "llmmem_config_get_i64": (c_int, [POINTER(c_int64), _p, c_int]),
    "llmmem_config_get_f64": (c_int, [POINTER(c_double), _p, c_int]),
    "llmmem_config_get_str": (c_int, [c_char_p, c_size_t, _sz, _p, c_int]),
    "llmmem_config_to_json": (c_int, [c_char_p, c_size_t, _sz, _p]),
    # scenario and framework files
    "llmmem_scenario_from_json": (c_int, [_pp, _pp, c_char_p, c_size_t, c_char_p]),
    "llmmem_scenario_from_file": (c_int, [_pp, _pp, c_char_p]),
    "llmmem_config_apply_deepspeed_json": (c_int, [_p, _p, c_char_p, c_size_t]),
    "llmmem_config_apply_hf_training_args_json": (c_int, [_p, c_char_p, c_size_t]),
    "llmmem_config_apply_calibration_json": (c_int, [_p, c_char_p, c_size_t]),
    "llmmem_config_apply_deepspeed_file": (c_int, [_p, _p, c_char_p]),
    "llmmem_config_apply_hf_training_args_file": (c_int, [_p, c_char_p]),
    "llmmem_config_apply_calibration_file": (c_int, [_p, c_char_p]),
    "llmmem_config_note_count": (c_int, [_p]),
    "llmmem_config_note": (c_char_p, [_p, c_int]),
    "llmmem_framework_name": (c_char_p, [c_int]),
    "llmmem_framework_detect": (c_int, [POINTER(c_int), c_char_p, c_size_t]),
    "llmmem_config_apply_framework_yaml": (c_int, [_p, _p, c_int, c_char_p, c_size_t]),
    "llmmem_config_apply_framework_file": (c_int, [_p, _p, c_int, c_char_p]),
    "llmmem_config_clear_calibration": (c_int, [_p]),
    # results and estimators
    "llmmem_result_new": (c_int, [_pp]),
    "llmmem_result_free": (None, [_p]),
    "llmmem_estimate": (c_int, [_p, _p, _p]),
    "llmmem_estimate_single": (c_int, [_p, _p, _p]),
    "llmmem_estimate_ddp": (c_int, [_p, _p, _p]),
    "llmmem_estimate_zero": (c_int, [_p, _p, _p]),
    "llmmem_estimate_fsdp": (c_int, [_p, _p, _p]),
    "llmmem_estimate_megatron": (c_int, [_p, _p, _p]),
    "llmmem_estimate_megatron_deepspeed": (c_int, [_p, _p, _p]),
    "llmmem_estimate_inference": (c_int, [_p, _p, _p]),
    "llmmem_result_get_u64": (c_int, [POINTER(c_uint64), _p, c_int]),
    "llmmem_result_get_i64": (c_int, [POINTER(c_int64), _p, c_int]),
    "llmmem_result_get_f64": (c_int, [POINTER(c_double), _p, c_int]),
    "llmmem_result_component_bytes": (c_int, [POINTER(c_uint64), _p, c_int, c_int]),
    "llmmem_result_phase_bytes": (c_int, [POINTER(c_uint64), _p, c_int]),
    "llmmem_result_stage_peak_bytes": (c_int, [POINTER(c_uint64), _p, c_int]),
    "llmmem_result_term_count": (c_int, [_p]),
    "llmmem_result_term": (c_int, [POINTER(c_char_p), POINTER(c_char_p), POINTER(c_uint64), _p,
                                   c_int]),
    "llmmem_result_input_count": (c_int, [_p]),
    "llmmem_result_input": (c_int, [POINTER(c_char_p), POINTER(c_int64), _p, c_int]),
    "llmmem_result_note_count": (c_int, [_p]),
    "llmmem_result_note": (c_char_p, [_p, c_int]),
    "llmmem_result_to_json": (c_int, [c_char_p, c_size_t, _sz, _p]),
    # planner
    "llmmem_plan_max_batch": (c_int, [POINTER(c_int64), _p, _p]),
    "llmmem_plan_max_seq_len": (c_int, [POINTER(c_int64), _p, _p]),
    "llmmem_plan_min_gpus": (c_int, [POINTER(c_int64), _p, _p]),
    "llmmem_plan_new": (c_int, [_pp]),
    "llmmem_plan_free": (None, [_p]),
    "llmmem_plan_layouts": (c_int, [_p, _p, _p, c_int]),
    "llmmem_plan_count": (c_int, [_p]),
    "llmmem_plan_candidates": (c_int64, [_p]),
    "llmmem_plan_rejected": (c_int64, [_p, c_int]),
    "llmmem_plan_reject_name": (c_char_p, [c_int]),
    "llmmem_plan_config": (c_int, [_pp, _p, c_int]),
    "llmmem_plan_step_time": (c_int, [POINTER(c_double), _p, c_int]),
    "llmmem_plan_peak_bytes": (c_int, [POINTER(c_uint64), _p, c_int]),
    "llmmem_plan_to_json": (c_int, [c_char_p, c_size_t, _sz, _p]),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
del _name, _res, _args, _f


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _b(s):
    if isinstance(s, bytes):
        return s
    return str(s).encode("utf-8")


class Error(Exception):
    """A libllmmem call failed: .status (negative int), .status_name, .message."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _s(lib.llmmem_status_name(status))
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))


def _check(rc):
    """Raises Error for a negative status; reads this thread's error text at once."""
    if rc < 0:
        msg = _s(lib.llmmem_last_error()) or _s(lib.llmmem_strerror(rc))
        raise Error(rc, msg)
    return rc


def _text(fn, *args):
    """Calls an snprintf-style function (buf, cap, needed, ...) and returns the text."""
    need = c_size_t(0)
    rc = fn(None, 0, byref(need), *args)
    if rc not in (OK, E_BUFFER_TOO_SMALL):
        _check(rc)
    buf = ctypes.create_string_buffer(max(need.value, 1))
    _check(fn(buf, need.value, byref(need), *args))
    return _s(buf.value)


# ---- library information and enum names -------------------------------------------------

def version():
    return _s(lib.llmmem_version_string())


def version_number():
    return lib.llmmem_version_number()


def soversion():
    return lib.llmmem_soversion()


def status_name(status):
    return _s(lib.llmmem_status_name(status))


def strerror(status):
    return _s(lib.llmmem_strerror(status))


def last_error():
    return _s(lib.llmmem_last_error())


def clear_error():
    lib.llmmem_clear_error()


if version_number() // 10000 != _ABI_MAJOR or soversion() != _SOVERSION:
    raise ImportError("libllmmem %s (soversion %d) does not match this binding (major %d, "
                      "soversion %d)" % (version(), soversion(), _ABI_MAJOR, _SOVERSION))


def phase_names():
    """{name: id} of the phases."""
    return {_s(lib.llmmem_phase_name(i)): i for i in range(lib.llmmem_phase_count())}


def component_names():
    """{name: id} of the components."""
    return {_s(lib.llmmem_component_name(i)): i for i in range(lib.llmmem_component_count())}


def result_key_names():
    """{name: (id, type)} of the result keys."""
    out = {}
    for i in range(lib.llmmem_result_key_count()):
        key = _check(lib.llmmem_result_key_at(i))
        out[_s(lib.llmmem_result_key_name(key))] = (key, _check(lib.llmmem_result_key_type(key)))
    return out


def model_key_names():
    """{name: id} of the model keys."""
    out = {}
    for i in range(lib.llmmem_model_key_count()):
        key = _check(lib.llmmem_model_key_at(i))
        out[_s(lib.llmmem_model_key_name(key))] = key
    return out


def _param_id(name_or_id):
    if isinstance(name_or_id, int):
        return name_or_id
    out = c_int(0)
    _check(lib.llmmem_param_from_name(byref(out), _b(name_or_id)))
    return out.value


def params():
    """Every parameter: a list of dicts (id, name, type, doc, default, bounds, values)."""
    out = []
    for i in range(lib.llmmem_param_count()):
        pid = _check(lib.llmmem_param_at(i))
        t = _check(lib.llmmem_param_type(pid))
        d = {"id": pid, "name": _s(lib.llmmem_param_name(pid)), "type": t,
             "doc": _s(lib.llmmem_param_doc(pid))}
        if t == TYPE_F64:
            lo, hi, df = c_double(), c_double(), c_double()
            _check(lib.llmmem_param_bounds_f64(byref(lo), byref(hi), pid))
            _check(lib.llmmem_param_default_f64(byref(df), pid))
            d.update(bounds=(lo.value, hi.value), default=df.value)
        elif t in (TYPE_I64, TYPE_BOOL, TYPE_ENUM):
            lo, hi, di = c_int64(), c_int64(), c_int64()
            _check(lib.llmmem_param_bounds_i64(byref(lo), byref(hi), pid))
            _check(lib.llmmem_param_default_i64(byref(di), pid))
            d.update(bounds=(lo.value, hi.value), default=di.value)
            if t == TYPE_ENUM:
                d["values"] = [_s(lib.llmmem_param_enum_name(pid, k))
                               for k in range(lib.llmmem_param_enum_count(pid))]
                d["default"] = d["values"][di.value] if 0 <= di.value < len(d["values"]) else None
            elif t == TYPE_BOOL:
                d["default"] = bool(di.value)
        out.append(d)
    return out


def presets():
    """{name: description} of the built-in models."""
    return {_s(lib.llmmem_preset_name(i)): _s(lib.llmmem_preset_description(i))
            for i in range(lib.llmmem_preset_count())}


def gpus():
    """{name: memory bytes} of the GPU table."""
    out = {}
    for i in range(lib.llmmem_gpu_count()):
        v = c_uint64()
        _check(lib.llmmem_gpu_memory_bytes(byref(v), i))
        out[_s(lib.llmmem_gpu_name(i))] = v.value
    return out


# ---- handles ---------------------------------------------------------------------------

class _Handle:
    _free = None

    def __init__(self, ptr):
        self._ptr = c_void_p(ptr) if ptr is not None else c_void_p()

    @property
    def _as_parameter_(self):
        # a closed handle passes NULL: the library answers LLMMEM_E_INVALID_ARG
        return self._ptr

    def close(self):
        if self._ptr:
            type(self)._free(self._ptr)
            self._ptr = c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


def _new(fn, *args):
    out = c_void_p()
    _check(fn(byref(out), *args))
    return out.value


class Model(_Handle):
    """A model description (llmmem_model)."""

    _free = staticmethod(lib.llmmem_model_free)

    def __init__(self, _ptr=None):
        super().__init__(_ptr if _ptr is not None else _new(lib.llmmem_model_new))

    @classmethod
    def new(cls):
        return cls()

    @classmethod
    def from_hf_json(cls, text):
        data = _b(text)
        return cls(_new(lib.llmmem_model_from_hf_json, data, len(data)))

    @classmethod
    def from_hf_file(cls, path):
        return cls(_new(lib.llmmem_model_from_hf_file, _b(os.fspath(path))))

    @classmethod
    def from_preset(cls, name):
        return cls(_new(lib.llmmem_model_from_preset, _b(name)))

    @classmethod
    def from_numbers(cls, **fields):
        """Model.from_numbers(num_parameters="7B", num_layers=32, ...)."""
        m = cls()
        for k, v in fields.items():
            m.set(k, v)
        return m

    def clone(self):
        return Model(_new(lib.llmmem_model_clone, self))

    def _key(self, key):
        if isinstance(key, int):
            return key
        keys = model_key_names()
        if key not in keys:
            raise Error(E_UNKNOWN_PARAM, "unknown model key %r" % key)
        return keys[key]

    def set(self, name, value):
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int) and not isinstance(name, int):
            _check(lib.llmmem_model_set_i64(self, self._key(name), value))
        elif isinstance(name, int):
            _check(lib.llmmem_model_set_i64(self, name, int(value)))
        else:
            _check(lib.llmmem_model_set(self, _b(name), _b(value)))

    def get(self, key):
        out = c_int64()
        _check(lib.llmmem_model_get_i64(byref(out), self, self._key(key)))
        return out.value

    __getitem__ = get
    __setitem__ = set

    @property
    def model_type(self):
        return _text(lib.llmmem_model_type, self)

    @property
    def notes(self):
        return [_s(lib.llmmem_model_note(self, i)) for i in range(lib.llmmem_model_note_count(self))]

    def to_json(self):
        return _text(lib.llmmem_model_to_json, self)

    def to_dict(self):
        return json.loads(self.to_json())


FRAMEWORKS = ("auto", "torchtune", "axolotl", "accelerate", "llamafactory")


def _framework_kind(kind):
    if isinstance(kind, int):
        return kind
    if kind not in FRAMEWORKS:
        raise ValueError("framework kind %r: expected one of %s" % (kind, ", ".join(FRAMEWORKS)))
    return FRAMEWORKS.index(kind)


def framework_detect(text):
    """The kind of a framework YAML ("torchtune", ...; "auto" when none)."""
    data = _b(text)
    out = c_int()
    _check(lib.llmmem_framework_detect(byref(out), data, len(data)))
    return _s(lib.llmmem_framework_name(out.value))


class Config(_Handle):
    """A configuration (llmmem_config): parameters by name, typed values."""

    _free = staticmethod(lib.llmmem_config_free)

    def __init__(self, _ptr=None, **values):
        super().__init__(_ptr if _ptr is not None else _new(lib.llmmem_config_new))
        for k, v in values.items():
            self.set(k, v)

    def clone(self):
        return Config(_new(lib.llmmem_config_clone, self))

    def reset(self):
        _check(lib.llmmem_config_reset(self))

    def set(self, name, value):
        """Sets a parameter from a Python value (bool, int, float, str)."""
        pid = _param_id(name)
        t = _check(lib.llmmem_param_type(pid))
        if isinstance(value, str):
            if t in (TYPE_ENUM, TYPE_STR):
                _check(lib.llmmem_config_set_str(self, pid, _b(value)))
            else:
                _check(lib.llmmem_config_set(self, lib.llmmem_param_name(pid), _b(value)))
        elif isinstance(value, bool):
            _check(lib.llmmem_config_set_i64(self, pid, int(value)))
        elif isinstance(value, int):
            if t == TYPE_F64:
                _check(lib.llmmem_config_set_f64(self, pid, float(value)))
            else:
                _check(lib.llmmem_config_set_i64(self, pid, value))
        elif isinstance(value, float):
            if t == TYPE_F64:
                _check(lib.llmmem_config_set_f64(self, pid, value))
            else:
                if value != int(value):
                    raise Error(E_PARAM_TYPE, "parameter %r takes an integer, not %r" % (name, value))
                _check(lib.llmmem_config_set_i64(self, pid, int(value)))
        else:
            raise TypeError("parameter %r: unsupported value type %s" % (name, type(value).__name__))

    def get(self, name):
        """The value as Python: int, float, bool, or the name of an enum value / text."""
        pid = _param_id(name)
        t = _check(lib.llmmem_param_type(pid))
        if t == TYPE_F64:
            out = c_double()
            _check(lib.llmmem_config_get_f64(byref(out), self, pid))
            return out.value
        if t in (TYPE_ENUM, TYPE_STR):
            return _text(lib.llmmem_config_get_str, self, pid)
        out = c_int64()
        _check(lib.llmmem_config_get_i64(byref(out), self, pid))
        return bool(out.value) if t == TYPE_BOOL else out.value

    __getitem__ = get
    __setitem__ = set

    def apply_deepspeed(self, text, model=None):
        data = _b(text)
        _check(lib.llmmem_config_apply_deepspeed_json(self, model, data, len(data)))

    def apply_hf_training_args(self, text):
        data = _b(text)
        _check(lib.llmmem_config_apply_hf_training_args_json(self, data, len(data)))

    def apply_calibration(self, text):
        """Applies a calibration profile (JSON text or a dict; docs/calibration.md)."""
        if isinstance(text, dict):
            text = json.dumps(text)
        data = _b(text)
        _check(lib.llmmem_config_apply_calibration_json(self, data, len(data)))

    def clear_calibration(self):
        """Back to the identity (no calibration profile)."""
        _check(lib.llmmem_config_clear_calibration(self))

    def apply_framework(self, text, kind="auto", model=None):
        """Applies a framework YAML (torchtune recipe, axolotl, accelerate, llamafactory;
        kind "auto" detects it). Unmodelled keys raise Error(E_UNSUPPORTED)."""
        data = _b(text)
        _check(lib.llmmem_config_apply_framework_yaml(self, model, _framework_kind(kind), data, len(data)))

    def apply_framework_file(self, path, kind="auto", model=None):
        _check(lib.llmmem_config_apply_framework_file(self, model, _framework_kind(kind), _b(str(path))))

    @property
    def notes(self):
        """What the framework-file readers assumed or did not read."""
        return [_s(lib.llmmem_config_note(self, i)) for i in range(lib.llmmem_config_note_count(self))]

    def to_json(self):
        return _text(lib.llmmem_config_to_json, self)

    def to_dict(self):
        return json.loads(self.to_json())


_ENGINES = {
    None: "llmmem_estimate", "single": "llmmem_estimate_single", "ddp": "llmmem_estimate_ddp",
    "zero": "llmmem_estimate_zero", "fsdp": "llmmem_estimate_fsdp",
    "megatron": "llmmem_estimate_megatron",
    "megatron_deepspeed": "llmmem_estimate_megatron_deepspeed",
    "inference": "llmmem_estimate_inference",
}


class Result(_Handle):
    """The result of an estimate (llmmem_result)."""

    _free = staticmethod(lib.llmmem_result_free)

    def __init__(self, _ptr=None):
        super().__init__(_ptr if _ptr is not None else _new(lib.llmmem_result_new))

    def estimate(self, model, config, engine=None):
        """Fills this result; engine None = the one LLMMEM_P_ENGINE/MODE name."""
        if engine not in _ENGINES:
            raise ValueError("engine must be one of %s" % sorted(k for k in _ENGINES if k))
        _check(getattr(lib, _ENGINES[engine])(self, model, config))
        return self

    def get(self, key):
        keys = result_key_names()
        if isinstance(key, int):
            by_id = {v[0]: (k, v[1]) for k, v in keys.items()}
            if key not in by_id:
                raise Error(E_INVALID_ARG, "unknown result key %d" % key)
            kid, t = key, by_id[key][1]
        else:
            if key not in keys:
                raise Error(E_UNKNOWN_PARAM, "unknown result key %r" % key)
            kid, t = keys[key]
        if t == TYPE_U64:
            out = c_uint64()
            _check(lib.llmmem_result_get_u64(byref(out), self, kid))
        elif t == TYPE_F64:
            out = c_double()
            _check(lib.llmmem_result_get_f64(byref(out), self, kid))
        else:
            out = c_int64()
            _check(lib.llmmem_result_get_i64(byref(out), self, kid))
            if t == TYPE_BOOL:
                return bool(out.value)
        return out.value

    __getitem__ = get

    @staticmethod
    def _id(names, x):
        return names[x] if isinstance(x, str) else x

    def component_bytes(self, phase, component):
        out = c_uint64()
        _check(lib.llmmem_result_component_bytes(byref(out), self, self._id(phase_names(), phase),
                                                 self._id(component_names(), component)))
        return out.value

    def phase_bytes(self, phase):
        out = c_uint64()
        _check(lib.llmmem_result_phase_bytes(byref(out), self, self._id(phase_names(), phase)))
        return out.value

    def stage_peak_bytes(self, stage):
        out = c_uint64()
        _check(lib.llmmem_result_stage_peak_bytes(byref(out), self, stage))
        return out.value

    @property
    def terms(self):
        """[(name, formula, bytes), ...]"""
        out = []
        for i in range(lib.llmmem_result_term_count(self)):
            n, f, b = c_char_p(), c_char_p(), c_uint64()
            _check(lib.llmmem_result_term(byref(n), byref(f), byref(b), self, i))
            out.append((_s(n.value), _s(f.value), b.value))
        return out

    @property
    def inputs(self):
        """[(symbol, value), ...]: the inputs the terms' formulas use."""
        out = []
        for i in range(_check(lib.llmmem_result_input_count(self))):
            n, v = c_char_p(), c_int64()
            _check(lib.llmmem_result_input(byref(n), byref(v), self, i))
            out.append((_s(n.value), v.value))
        return out

    @property
    def notes(self):
        return [_s(lib.llmmem_result_note(self, i)) for i in range(lib.llmmem_result_note_count(self))]

    def to_json(self):
        return _text(lib.llmmem_result_to_json, self)

    def to_dict(self):
        return json.loads(self.to_json())


# Reasons a candidate layout is rejected (llmmem_reject; values are part of the ABI).
REJECT_INDIVISIBLE, REJECT_OOM, REJECT_UNSUPPORTED, REJECT_BATCH = 0, 1, 2, 3


def reject_names():
    """{name: id} of the planner's rejection reasons."""
    out = {}
    i = 0
    while True:
        n = lib.llmmem_plan_reject_name(i)
        if n is None:
            return out
        out[_s(n)] = i
        i += 1


class Plan(_Handle):
    """Ranked layouts from llmmem_plan_layouts (llmmem_plan)."""

    _free = staticmethod(lib.llmmem_plan_free)

    def __init__(self, _ptr=None):
        super().__init__(_ptr if _ptr is not None else _new(lib.llmmem_plan_new))

    def layouts(self, model, config, top_k=10):
        """Enumerates the layouts of config's num_gpus; keeps the top_k fastest that fit."""
        _check(lib.llmmem_plan_layouts(self, model, config, int(top_k)))
        return self

    def __len__(self):
        return _check(lib.llmmem_plan_count(self))

    @property
    def candidates(self):
        return lib.llmmem_plan_candidates(self)

    def rejected(self, reason=None):
        """Count for one reason (name or id), or {name: count} for all."""
        names = reject_names()
        if reason is None:
            return {n: lib.llmmem_plan_rejected(self, i) for n, i in names.items()}
        rid = names[reason] if isinstance(reason, str) else reason
        return lib.llmmem_plan_rejected(self, rid)

    def config(self, index):
        """Layout index (0 = best) as a new Config."""
        return Config(_new(lib.llmmem_plan_config, self, index))

    def step_time(self, index):
        out = c_double()
        _check(lib.llmmem_plan_step_time(byref(out), self, index))
        return out.value

    def peak_bytes(self, index):
        out = c_uint64()
        _check(lib.llmmem_plan_peak_bytes(byref(out), self, index))
        return out.value

    def to_json(self):
        return _text(lib.llmmem_plan_to_json, self)

    def to_dict(self):
        return json.loads(self.to_json())


def plan(model, config, top_k=10):
    """Plan.layouts on a new Plan."""
    p = Plan()
    try:
        return p.layouts(model, config, top_k)
    except Exception:
        p.close()
        raise


def _plan_i64(fn, model, config):
    out = c_int64()
    _check(fn(byref(out), model, config))
    return out.value


def max_batch(model, config):
    """Largest micro_batch_size (inference: batch size) that fits; 0 if none."""
    return _plan_i64(lib.llmmem_plan_max_batch, model, config)


def max_seq_len(model, config):
    """Longest sequence (inference: prompt + decode) that fits; 0 if none."""
    return _plan_i64(lib.llmmem_plan_max_seq_len, model, config)


def min_gpus(model, config):
    """Fewest GPUs of the configured kind that fit."""
    return _plan_i64(lib.llmmem_plan_min_gpus, model, config)


# ---- convenience -------------------------------------------------------------------------

def estimate(model, config, engine=None):
    """Estimates and returns a new Result."""
    r = Result()
    try:
        return r.estimate(model, config, engine)
    except Exception:
        r.close()
        raise


def scenario_from_json(text, base_dir=None):
    """(Model, Config) from a scenario JSON text; hf_config paths resolve against base_dir."""
    data = _b(text)
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_json(byref(m), byref(c), data, len(data),
                                         _b(base_dir) if base_dir is not None else None))
    return Model(m.value), Config(c.value)


def scenario_from_file(path):
    """(Model, Config) from a scenario file."""
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_file(byref(m), byref(c), _b(os.fspath(path))))
    return Model(m.value), Config(c.value)
