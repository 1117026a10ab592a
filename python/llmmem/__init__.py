"""libllmmem for Python: per-GPU memory of LLM training and inference, before launch.

::

    import llmmem

    r = llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096)
    r.peak_allocated_bytes, r["fits"], r.engine     # every key of r.to_dict()
    r.explain()                                      # the terms, as records (pandas-ready)

    m = llmmem.Model.from_hf_config("config.json")   # or a dict, or a preset name
    c = llmmem.Config(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8)
    llmmem.estimate(m, c, micro_batch_size=2)        # keywords apply on a copy of c
    llmmem.plan(m, c, top_k=5)                       # the fastest layouts that fit
    llmmem.max_batch(m, c)

The first argument of :func:`estimate` and the planner is a :class:`Model`, a preset name
(:func:`presets`), the path of a HuggingFace ``config.json`` (or of its folder), or its
content as a dict. Every configuration parameter (:func:`params`) is a keyword argument;
a value is checked by the library (type, bounds, value names) and by the binding (64-bit
range, no NUL characters, a keyword that does not apply to the engine or mode raises).

This package is a binding of the C library libllmmem (the single source of truth); the
functions come from its header, ``include/llmmem.h``, and ``llmmem.lib`` exposes them all.
"""

import ctypes
import difflib
import html
import json
import os
import sys
import threading
import weakref
from ctypes import byref, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint64, c_void_p
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from . import _ffi
from ._ffi import LIBRARY_PATH, fast as _fast, lib

__all__ = [
    "Error", "UnknownParameterError", "InapplicableParameterError", "NotEstimatedError",
    "Model", "Config", "Result", "Plan", "estimate", "plan", "max_batch", "max_seq_len",
    "min_gpus", "load_scenario", "scenario_from_json", "scenario_from_file", "params",
    "presets", "architectures", "timeline", "gpus", "phase_names", "component_names", "result_key_names",
    "model_key_names", "reject_names", "version", "version_number", "soversion",
    "status_name", "strerror", "last_error", "clear_error", "lib", "LIBRARY_PATH",
    "framework_names", "framework_detect", "__version__",
]

_C = _ffi.CONSTANTS
_FUNCS = _ffi.API["functions"]
# every enum value of the header, for llmmem.lib: llmmem.LLMMEM_P_SEQ_LEN, llmmem.LLMMEM_R_FITS, ...
globals().update(_C)

# Status codes and value types (values are part of the ABI; they come from the header).
OK = _C["LLMMEM_OK"]
E_INVALID_ARG = _C["LLMMEM_E_INVALID_ARG"]
E_NOMEM = _C["LLMMEM_E_NOMEM"]
E_IO = _C["LLMMEM_E_IO"]
E_PARSE = _C["LLMMEM_E_PARSE"]
E_SCHEMA = _C["LLMMEM_E_SCHEMA"]
E_UNKNOWN_PARAM = _C["LLMMEM_E_UNKNOWN_PARAM"]
E_PARAM_TYPE = _C["LLMMEM_E_PARAM_TYPE"]
E_OUT_OF_RANGE = _C["LLMMEM_E_OUT_OF_RANGE"]
E_UNSUPPORTED = _C["LLMMEM_E_UNSUPPORTED"]
E_BUFFER_TOO_SMALL = _C["LLMMEM_E_BUFFER_TOO_SMALL"]
E_INCONSISTENT = _C["LLMMEM_E_INCONSISTENT"]
E_INTERNAL = _C["LLMMEM_E_INTERNAL"]
TYPE_I64 = _C["LLMMEM_TYPE_I64"]
TYPE_F64 = _C["LLMMEM_TYPE_F64"]
TYPE_BOOL = _C["LLMMEM_TYPE_BOOL"]
TYPE_ENUM = _C["LLMMEM_TYPE_ENUM"]
TYPE_STR = _C["LLMMEM_TYPE_STR"]
TYPE_U64 = _C["LLMMEM_TYPE_U64"]
REJECT_INDIVISIBLE = _C["LLMMEM_REJECT_INDIVISIBLE"]
REJECT_OOM = _C["LLMMEM_REJECT_OOM"]
REJECT_UNSUPPORTED = _C["LLMMEM_REJECT_UNSUPPORTED"]
REJECT_BATCH = _C["LLMMEM_REJECT_BATCH"]

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _doc(cname):
    """The header's text of C function ``cname``, for a docstring."""
    return "C: %s(): %s" % (cname, _FUNCS[cname]["doc"])


def _wraps(*cnames):
    """Appends the header's documentation of the C functions a method calls to its docstring."""

    def deco(fn):
        fn.__doc__ = (fn.__doc__ or "").rstrip() + "\n\n" + "\n".join(_doc(n) for n in cnames)
        return fn

    return deco


# ---- errors ------------------------------------------------------------------------------

def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


class Error(Exception):
    """A libllmmem call failed: ``.status`` (a negative ``llmmem_status``), ``.status_name``
    ("LLMMEM_E_OUT_OF_RANGE") and ``.message`` (the library's detail: key, value, line:column)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _s(lib.llmmem_status_name(status))
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))

    def __reduce__(self):
        return (type(self), (self.status, self.message))


class UnknownParameterError(Error, TypeError):
    """No configuration parameter (or model or result key) of that name."""

    def __init__(self, message, status=E_UNKNOWN_PARAM):
        super().__init__(status, message)

    def __reduce__(self):
        return (type(self), (self.message, self.status))


class InapplicableParameterError(Error, ValueError):
    """A keyword argument that the chosen engine, mode or runtime does not read
    (``zero_stage`` without ``engine="zero"``): it would change nothing."""

    def __init__(self, message, status=E_INCONSISTENT):
        super().__init__(status, message)

    def __reduce__(self):
        return (type(self), (self.message, self.status))


class NotEstimatedError(Error, RuntimeError):
    """A :class:`Result` read before an estimate filled it (or after one failed)."""

    def __init__(self, message="the result holds no estimate (estimate() has not filled it, "
                       "or the last estimate into it failed)", status=E_INVALID_ARG):
        super().__init__(status, message)

    def __reduce__(self):
        return (type(self), (self.message, self.status))


def _raise(rc):
    raise Error(rc, _s(_fast.llmmem_last_error()) or _s(lib.llmmem_strerror(rc)))


def _check(rc):
    """Raises :class:`Error` for a negative status; reads this thread's error text at once."""
    if rc < 0:
        _raise(rc)
    return rc


# ---- argument conversion ------------------------------------------------------------------

def _b(s, what="text"):
    """UTF-8 bytes of ``s`` for a C string; a NUL inside would silently cut it: refused."""
    if isinstance(s, str):
        if "\0" in s:
            raise ValueError("%s contains a NUL character: %r" % (what, s))
        return s.encode("utf-8")
    if isinstance(s, bytes):
        if b"\0" in s:
            raise ValueError("%s contains a NUL byte: %r" % (what, s))
        return s
    if isinstance(s, os.PathLike):
        return _b(os.fspath(s), what)
    raise TypeError("%s must be a str, not %s" % (what, type(s).__name__))


def _int(v, what, lo=_I64_MIN, hi=_I64_MAX):
    """An integer argument: bool and non-integral values refused, the C range checked."""
    if type(v) is not int:
        if isinstance(v, bool):
            raise TypeError("%s must be an integer, not a bool" % what)
        if isinstance(v, float):
            if not v.is_integer():
                raise ValueError("%s must be an integer, not %r" % (what, v))
            v = int(v)
        else:
            try:
                v = v.__index__()
            except AttributeError:
                raise TypeError("%s must be an integer, not %s" % (what, type(v).__name__)) from None
    if not lo <= v <= hi:
        raise OverflowError("%s = %d is outside the range of the C type [%d, %d]" % (what, v, lo, hi))
    return v


def _text(fn, *args):
    """Calls an snprintf-style function (buf, cap, needed, ...) and returns its text."""
    need = c_size_t(0)
    rc = fn(None, 0, byref(need), *args)
    if rc not in (OK, E_BUFFER_TOO_SMALL):
        _check(rc)
    buf = ctypes.create_string_buffer(max(need.value, 1))
    _check(fn(buf, need.value, byref(need), *args))
    return _s(buf.value)


def _new(fn, *args):
    out = c_void_p()
    _check(fn(byref(out), *args))
    return out


def _suggest(name, names):
    close = difflib.get_close_matches(str(name), names, n=3)
    return " (did you mean %s?)" % ", ".join(repr(c) for c in close) if close else ""


# ---- the library's tables, read once (they are ABI constants) ---------------------------

def version():
    """The version of the running library ("0.1.0")."""
    return _s(lib.llmmem_version_string())


def version_number():
    """LLMMEM_VERSION_NUMBER of the running library (major * 10000 + minor * 100 + patch)."""
    return lib.llmmem_version_number()


def soversion():
    """The ABI major of the running library (its SONAME is libllmmem.so.N)."""
    return lib.llmmem_soversion()


def status_name(status):
    """"LLMMEM_E_PARSE" etc. for a status."""
    return _s(lib.llmmem_status_name(_int(status, "status", _INT_MIN, _INT_MAX)))


def strerror(status):
    """A one-line description of a status."""
    return _s(lib.llmmem_strerror(_int(status, "status", _INT_MIN, _INT_MAX)))


def last_error():
    """This thread's last error detail ("" if none)."""
    return _s(lib.llmmem_last_error())


def clear_error():
    """Clears this thread's error detail."""
    lib.llmmem_clear_error()


__version__ = version()


class _Param:
    __slots__ = ("id", "name", "type", "doc", "bounds", "default", "values", "index")

    def record(self):
        d = {"id": self.id, "name": self.name, "type": _TYPE_NAMES[self.type], "doc": self.doc,
             "default": self.default}
        if self.bounds is not None:
            d["bounds"] = self.bounds
        if self.values is not None:
            d["values"] = list(self.values)
        return d


_TYPE_NAMES = {TYPE_I64: "int", TYPE_F64: "float", TYPE_BOOL: "bool", TYPE_ENUM: "enum",
               TYPE_STR: "str", TYPE_U64: "bytes"}


_DEFAULT_H = _new(lib.llmmem_config_new)  # every parameter at its default; never changed


def _read_params():
    by_name = {}
    for i in range(lib.llmmem_param_count()):
        p = _Param()
        p.id = _check(lib.llmmem_param_at(i))
        p.name = _s(lib.llmmem_param_name(p.id))
        p.type = _check(lib.llmmem_param_type(p.id))
        p.doc = _s(lib.llmmem_param_doc(p.id))
        p.values = p.bounds = p.index = None
        if p.type == TYPE_F64:
            lo, hi, df = c_double(), c_double(), c_double()
            _check(lib.llmmem_param_bounds_f64(byref(lo), byref(hi), p.id))
            _check(lib.llmmem_param_default_f64(byref(df), p.id))
            p.bounds, p.default = (lo.value, hi.value), df.value
        elif p.type == TYPE_STR:
            p.default = _text(lib.llmmem_config_get_str, _DEFAULT_H, p.id)
        else:
            lo, hi, di = c_int64(), c_int64(), c_int64()
            _check(lib.llmmem_param_bounds_i64(byref(lo), byref(hi), p.id))
            _check(lib.llmmem_param_default_i64(byref(di), p.id))
            p.bounds, p.default = (lo.value, hi.value), di.value
            if p.type == TYPE_ENUM:
                p.values = tuple(_s(lib.llmmem_param_enum_name(p.id, k))
                                 for k in range(lib.llmmem_param_enum_count(p.id)))
                p.index = {v: k for k, v in enumerate(p.values)}
                p.default = p.values[di.value]
            elif p.type == TYPE_BOOL:
                p.default = bool(di.value)
        by_name[p.name] = p
    return by_name


def _named(count, name_of, at=None):
    """{name: id} of an enumeration the library lists by index (at: index -> id)."""
    out = {}
    for i in range(count()):
        key = _check(at(i)) if at else i
        out[_s(name_of(key))] = key
    return out


_PHASES = _named(lib.llmmem_phase_count, lib.llmmem_phase_name)
_PHASE_NAMES = {v: k for k, v in _PHASES.items()}
_COMPONENTS = _named(lib.llmmem_component_count, lib.llmmem_component_name)
_MKEYS = _named(lib.llmmem_model_key_count, lib.llmmem_model_key_name, lib.llmmem_model_key_at)
_RKEY_IDS = _named(lib.llmmem_result_key_count, lib.llmmem_result_key_name, lib.llmmem_result_key_at)


def _reject_table():
    out, i = {}, 0
    while lib.llmmem_plan_reject_name(i) is not None:
        out[_s(lib.llmmem_plan_reject_name(i))] = i
        i += 1
    return out


_REJECTS = _reject_table()


def _enum_namer(kid):
    """The value names of an enum result key (peak_phase, the precision keys), from
    llmmem_result_enum_name once at import (they are ABI constants)."""
    names, v = {}, 0
    while True:
        n = lib.llmmem_result_enum_name(kid, v)
        if n is None:
            break
        names[v] = _s(n)
        v += 1
    return names.__getitem__


# result key -> (id, getter, slot of the out variable in _TLS.outs, conversion or None)
_GETTERS = {
    TYPE_U64: (_fast.llmmem_result_get_u64, 0, None),
    TYPE_I64: (_fast.llmmem_result_get_i64, 1, None),
    TYPE_F64: (_fast.llmmem_result_get_f64, 2, None),
    TYPE_BOOL: (_fast.llmmem_result_get_i64, 1, bool),
}


def _result_key(kid):
    t = _check(lib.llmmem_result_key_type(kid))
    if t == TYPE_ENUM:
        return (kid, _fast.llmmem_result_get_i64, 1, _enum_namer(kid))
    return (kid,) + _GETTERS[t]


_RKEYS = {name: _result_key(kid) for name, kid in _RKEY_IDS.items()}

# Out variables of the getters, one set per thread (allocating them per call costs more
# than the call): (variable, byref(variable)) for uint64, int64, double.
_TLS = threading.local()


def _thread_outs():
    outs = []
    for t in (c_uint64, c_int64, c_double):
        v = t()
        outs.append((v, byref(v)))
    _TLS.outs = outs
    return outs


def phase_names():
    """{name: id} of the phases (forward, backward, optimizer, prefill, decode)."""
    return dict(_PHASES)


def component_names():
    """{name: id} of the memory components (weights, gradients, ...)."""
    return dict(_COMPONENTS)


def result_key_names():
    """{name: (id, type)} of the scalar result keys (llmmem_result_key)."""
    return {n: (v[0], _check(lib.llmmem_result_key_type(v[0]))) for n, v in _RKEYS.items()}


def model_key_names():
    """{name: id} of the model keys (llmmem_model_key)."""
    return dict(_MKEYS)


def reject_names():
    """{name: id} of the planner's rejection reasons."""
    return dict(_REJECTS)


def presets():
    """{name: one-line description} of the built-in models."""
    return {_s(lib.llmmem_preset_name(i)): _s(lib.llmmem_preset_description(i))
            for i in range(lib.llmmem_preset_count())}


_ARCH_KINDS = ("decoder", "multimodal", "refused")


def architectures():
    """{model_type: kind} of the config.json model_types the library knows; kind is
    "decoder" (counted exactly), "multimodal" (text model plus the towers the config
    describes) or "refused" (out of scope: loading one raises Error)."""
    return {_s(lib.llmmem_architecture_name(i)): _ARCH_KINDS[_check(lib.llmmem_architecture_kind(i))]
            for i in range(lib.llmmem_architecture_count())}


def gpus():
    """{name: memory in bytes} of the GPU table (the values of the ``gpu`` parameter)."""
    out = {}
    for i in range(lib.llmmem_gpu_count()):
        v = c_uint64()
        _check(lib.llmmem_gpu_memory_bytes(byref(v), i))
        out[_s(lib.llmmem_gpu_name(i))] = v.value
    return out


def params():
    """Every configuration parameter as a record: id, name, type ("int", "float", "bool",
    "enum", "str"), doc, default, bounds, values (enums). A list of dicts (pandas-ready)."""
    return [p.record() for p in _PARAMS.values()]


# ---- handles --------------------------------------------------------------------------------

class _Handle:
    """An owned C handle: freed by close(), by the end of a ``with`` block or by the
    garbage collector. A closed handle passes NULL: the library answers E_INVALID_ARG."""

    __slots__ = ("_h", "__weakref__")
    _free = None

    def close(self):
        h = self._h
        if h:
            self._h = None
            type(self)._free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def _as_parameter_(self):  # lets llmmem.lib's functions take the object itself
        return self._h

    # copy.copy and copy.deepcopy would copy the slot, and two objects would own one C
    # handle (each frees it: a double free). A handle the library can clone is cloned
    # (Model, Config); the others refuse.
    def __copy__(self):
        copy = getattr(type(self), "copy", None)  # the class's (not a result key's)
        if copy is None:
            raise TypeError("a llmmem.%s cannot be copied (it owns a C handle the library does not "
                            "clone)%s" % (type(self).__name__, type(self)._no_copy))
        return copy(self)

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce__(self):
        raise TypeError("a llmmem.%s cannot be pickled (it owns a C handle)%s"
                        % (type(self).__name__, type(self)._no_pickle))

    _no_copy = ""
    _no_pickle = ""


# ---- models -----------------------------------------------------------------------------------

class Model(_Handle):
    """A model description (``llmmem_model``): architecture fields and exact parameter counts.

    Made from a HuggingFace config (:meth:`from_hf_config`), a preset (:meth:`from_preset`)
    or raw numbers (:meth:`from_numbers`). Fields read as items or attributes:
    ``m["hidden_size"]``, ``m.params``; :meth:`to_dict` has everything."""

    __slots__ = ()
    _free = staticmethod(lib.llmmem_model_free)

    @_wraps("llmmem_model_new")
    def __init__(self, **fields):
        """An empty dense decoder to describe with raw numbers (see :meth:`from_numbers`)."""
        self._h = _new(lib.llmmem_model_new)
        for k, v in fields.items():
            self.set(k, v)

    @classmethod
    def _wrap(cls, h):
        m = cls.__new__(cls)
        m._h = h
        return m

    @classmethod
    @_wraps("llmmem_model_from_preset")
    def from_preset(cls, name: str) -> "Model":
        """A built-in model (:func:`presets`); UnknownParameterError if there is none of that name."""
        try:
            return cls._wrap(_new(lib.llmmem_model_from_preset, _b(name, "preset name")))
        except Error as e:
            if e.status == E_UNKNOWN_PARAM:
                raise UnknownParameterError(e.message + _suggest(name, list(presets()))) from None
            raise

    @classmethod
    @_wraps("llmmem_model_from_hf_file", "llmmem_model_from_hf_json")
    def from_hf_config(cls, source: Union[str, os.PathLike, Mapping[str, Any]]) -> "Model":
        """A model from a HuggingFace ``config.json``: its path (or the folder holding it) or
        its content as a dict."""
        if isinstance(source, Mapping):
            return cls.from_hf_json(json.dumps(source))
        path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
        if path is None:
            raise TypeError("from_hf_config takes a path or a dict, not %s" % type(source).__name__)
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        return cls.from_hf_file(path)

    @classmethod
    @_wraps("llmmem_model_from_gguf_file")
    def from_gguf(cls, path: Union[str, os.PathLike]) -> "Model":
        """A model from a GGUF file (llama.cpp's format): only its header is read; the
        tensors' types and shapes give the weights exactly (runtime ``llama_cpp``)."""
        return cls._wrap(_new(lib.llmmem_model_from_gguf_file, _b(path, "path")))

    @classmethod
    @_wraps("llmmem_model_from_gguf")
    def from_gguf_bytes(cls, data: bytes, file_size: int = 0) -> "Model":
        """A model from the first bytes of a GGUF file of ``file_size`` bytes (0: ``data`` is
        the whole file); raises Error (status LLMMEM_E_BUFFER_TOO_SMALL) while the header goes
        on past ``data``: read more of the file and call again."""
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("data must be bytes, not %s" % type(data).__name__)
        return cls._wrap(_new(lib.llmmem_model_from_gguf, bytes(data), len(data), int(file_size)))

    @classmethod
    @_wraps("llmmem_model_from_hf_file")
    def from_hf_file(cls, path: Union[str, os.PathLike]) -> "Model":
        """A model from a HuggingFace ``config.json`` file."""
        return cls._wrap(_new(lib.llmmem_model_from_hf_file, _b(path, "path")))

    @classmethod
    @_wraps("llmmem_model_from_hf_json")
    def from_hf_json(cls, text: Union[str, bytes]) -> "Model":
        """A model from the text of a HuggingFace ``config.json``."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        return cls._wrap(_new(lib.llmmem_model_from_hf_json, data, len(data)))

    @classmethod
    @_wraps("llmmem_model_set")
    def from_numbers(cls, **fields) -> "Model":
        """A dense decoder from raw numbers: ``Model.from_numbers(num_parameters="7B",
        num_layers=32)`` (model keys, :func:`model_key_names`)."""
        return cls(**fields)

    @classmethod
    def load(cls, source) -> "Model":
        """A :class:`Model` from whatever :func:`estimate` accepts as a model: a Model (returned
        as it is), a preset name, a ``config.json`` path or folder, or a config dict."""
        if isinstance(source, Model):
            return source
        if isinstance(source, Mapping):
            return cls.from_hf_json(json.dumps(source))
        if isinstance(source, str) and source in _preset_names():
            return cls.from_preset(source)
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if path.endswith(".gguf"):
                return cls.from_gguf(path)
            if os.path.exists(path):
                return cls.from_hf_config(path)
            if isinstance(source, str) and os.sep not in source and not source.endswith(".json"):
                raise UnknownParameterError("no preset and no file named %r%s" % (
                    source, _suggest(source, sorted(_preset_names()))))
            return cls.from_hf_file(path)  # the library's E_IO names the file
        raise TypeError("a model must be a llmmem.Model, a preset name, a config.json path or a "
                        "dict, not %s" % type(source).__name__)

    @_wraps("llmmem_model_clone")
    def copy(self) -> "Model":
        """An independent copy."""
        return Model._wrap(_new(lib.llmmem_model_clone, self._h))

    clone = copy

    def _key(self, key):
        if type(key) is str:
            try:
                return _MKEYS[key]
            except KeyError:
                raise UnknownParameterError("no model key %r%s" % (key, _suggest(key, list(_MKEYS)))) from None
        if isinstance(key, int) and not isinstance(key, bool):
            return _int(key, "model key", _INT_MIN, _INT_MAX)
        raise TypeError("a model key is a name (str), not %s" % type(key).__name__)

    @_wraps("llmmem_model_set_i64", "llmmem_model_set")
    def set(self, name, value) -> None:
        """Sets a raw-number field: an integer, or text ("7B", "4096")."""
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, (str, bytes)):
            if not isinstance(name, str):
                name = _s(lib.llmmem_model_key_name(self._key(name))) or str(name)
            _check(lib.llmmem_model_set(self._h, _b(name, "model key"), _b(value, "value of %s" % name)))
        else:
            _check(lib.llmmem_model_set_i64(self._h, self._key(name), _int(value, "model %s" % name)))

    @_wraps("llmmem_model_get_i64")
    def get(self, key) -> int:
        """A field or an exact count (``"params"``, ``"params_active"``, ...)."""
        out = c_int64()
        rc = _fast.llmmem_model_get_i64(byref(out), self._h, self._key(key))
        if rc:
            _raise(rc)
        return out.value

    __getitem__ = get
    __setitem__ = set

    def __getattr__(self, name):
        if name in _MKEYS:
            return self.get(name)
        raise AttributeError("llmmem.Model has no attribute %r" % name)

    def __contains__(self, key):
        return key in _MKEYS

    def keys(self):
        return list(_MKEYS)

    @property
    @_wraps("llmmem_model_type")
    def model_type(self) -> str:
        """The ``model_type`` ("llama"; "raw" for raw numbers)."""
        return _text(lib.llmmem_model_type, self._h)

    @property
    def notes(self) -> List[str]:
        """Assumptions the parser made."""
        return [_s(lib.llmmem_model_note(self._h, i)) for i in range(lib.llmmem_model_note_count(self._h))]

    @_wraps("llmmem_model_to_json")
    def to_json(self) -> str:
        """The model description as JSON (docs/json-schema.md)."""
        return _text(lib.llmmem_model_to_json, self._h)

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.to_json())

    def __repr__(self):
        if not self._h:
            return "<llmmem.Model (closed)>"
        p = self.get("params")
        return "<llmmem.Model %s: %s parameters, %d layers, hidden %d>" % (
            self.model_type, _count(p), self.get("num_hidden_layers"), self.get("hidden_size"))


_PRESET_NAMES = None
_PRESET_MODELS = {}


def _preset_names():
    global _PRESET_NAMES
    if _PRESET_NAMES is None:
        _PRESET_NAMES = frozenset(presets())
    return _PRESET_NAMES


def _model(model):
    """The Model of what estimate() takes as a model (the caller keeps it alive while it uses
    the handle). A preset name is built once and kept: that model is only read."""
    if type(model) is Model:
        return model
    if type(model) is str:
        m = _PRESET_MODELS.get(model)
        if m is None:
            m = Model.load(model)
            if model in _preset_names():
                _PRESET_MODELS[model] = m
        return m
    if isinstance(model, Model):
        return model
    if isinstance(model, (os.PathLike, Mapping)):
        return Model.load(model)
    raise TypeError("model must be a llmmem.Model, a preset name, a config.json path or a dict, "
                    "not %s" % type(model).__name__)


def _count(n):
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return "%.3g%s" % (n / div, unit)
    return str(n)


# ---- configurations ---------------------------------------------------------------------------

_set_i64 = _fast.llmmem_config_set_i64
_set_f64 = _fast.llmmem_config_set_f64
_set_str = _fast.llmmem_config_set_str
_get_i64 = _fast.llmmem_config_get_i64
_get_f64 = _fast.llmmem_config_get_f64


def _param(name):
    """The _Param of a name (aliases and dashes as the library accepts them)."""
    try:
        return _PARAMS[name]
    except (KeyError, TypeError):
        pass
    if not isinstance(name, str):
        raise TypeError("a parameter is named by a str, not %s" % type(name).__name__)
    p = _ALIASES.get(name)
    if p is not None:
        return p
    pid = c_int()
    if "\0" in name or lib.llmmem_param_from_name(byref(pid), name.encode("utf-8")) < 0:
        raise UnknownParameterError("no configuration parameter %r%s" % (name, _suggest(name, list(_PARAMS))))
    p = _ALIASES[name] = _PARAMS_BY_ID[pid.value]  # remembered
    return p


def _set(h, p, value):
    """Sets parameter ``p`` of config handle ``h`` from a Python value, by the parameter's type."""
    t = p.type
    tv = type(value)
    if tv is int and (t == TYPE_I64 or t == TYPE_ENUM or t == TYPE_BOOL):
        if not _I64_MIN <= value <= _I64_MAX:
            raise OverflowError("%s = %d is outside the range of int64" % (p.name, value))
        rc = _set_i64(h, p.id, c_int64(value))
    elif tv is str:
        if "\0" in value:
            raise ValueError("%s: the value contains a NUL character: %r" % (p.name, value))
        if t == TYPE_ENUM or t == TYPE_STR:
            rc = _set_str(h, p.id, value.encode("utf-8"))
        else:  # numbers and bools from text, parsed as the CLI does ("8", "true", "5e8")
            rc = _fast.llmmem_config_set(h, p.name.encode(), value.encode("utf-8"))
    elif t == TYPE_F64:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("%s takes a real number, not %s" % (p.name, tv.__name__))
        rc = _set_f64(h, p.id, c_double(float(value)))
    elif t == TYPE_BOOL:
        if tv is not bool:
            raise TypeError("%s takes a bool, not %s" % (p.name, tv.__name__))
        rc = _set_i64(h, p.id, c_int64(int(value)))
    elif t == TYPE_STR:
        if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
            return _set(h, p, ",".join(value))
        raise TypeError("%s takes text, not %s" % (p.name, tv.__name__))
    elif t == TYPE_ENUM:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("%s takes one of %s, not %s" % (p.name, ", ".join(p.values), tv.__name__))
        rc = _set_i64(h, p.id, c_int64(_int(value, p.name)))
    else:  # TYPE_I64 from a float, a numpy integer, ...
        rc = _set_i64(h, p.id, c_int64(_int(value, p.name)))
    if rc:
        _raise(rc)


def _get(h, p):
    t = p.type
    if t == TYPE_F64:
        out = c_double()
        rc = _get_f64(byref(out), h, p.id)
    elif t == TYPE_STR:
        return _text(lib.llmmem_config_get_str, h, p.id)
    else:
        out = c_int64()
        rc = _get_i64(byref(out), h, p.id)
    if rc:
        _raise(rc)
    v = out.value
    if t == TYPE_ENUM:
        return p.values[v]
    if t == TYPE_BOOL:
        return bool(v)
    return v


# When a keyword argument means something (issue 20 item 7): parameter -> (the parameter that
# decides, the values under which the library reads it). A keyword given where it would change
# nothing raises InapplicableParameterError instead of being ignored. The gates chain
# (gpu_memory_utilization needs runtime vllm, runtime needs mode inference);
# test/python/test_package.py checks each row against the library: outside its values the
# parameter must not change any estimate.
_TRAINING = ("micro_batch_size", "seq_len", "gradient_accumulation_steps", "peak_scope", "engine",
             "optimizer", "optimizer_impl", "optimizer_state_dtype", "step", "optimizer_in_backward",
             "master_weights", "grad_dtype", "fp8_recipe", "activation_checkpointing", "loss",
             "activation_profile", "dropout", "compile", "activation_offloading", "loss_chunks",
             "liger_kernels", "lora_rank", "lora_alpha", "lora_targets", "lora_dropout", "qlora",
             "qlora_double_quant", "vision_training")
_INFERENCE = ("batch_size", "prompt_len", "decode_len", "runtime", "kv_cache_dtype", "quant_bits",
              "quant_group_size", "weights_format")
_VLLM = ("gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs", "kv_block_size",
         "max_model_len", "cuda_graphs", "encoder_cache")
_ZERO = ("offload_optimizer", "offload_param", "overlap_comm", "stage3_max_live_parameters",
         "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
         "zero_hpz_partition_size", "zero_init")
_LLAMA_CPP = ("n_gpu_layers", "ctx_size", "n_batch", "n_ubatch", "n_parallel", "cache_type_k",
              "cache_type_v", "flash_attn", "kv_unified", "swa_full", "n_cpu_moe", "no_kv_offload")
_APPLIES = dict(
    [(n, ("mode", ("training",))) for n in _TRAINING]
    + [(n, ("runtime", ("llama_cpp",))) for n in _LLAMA_CPP]
    + [(n, ("mode", ("inference",))) for n in _INFERENCE]
    + [(n, ("runtime", ("vllm",))) for n in _VLLM]
    + [(n, ("engine", ("zero",))) for n in _ZERO]
    + [(n, ("engine", ("zero", "megatron_deepspeed"))) for n in
       ("zero_stage", "reduce_bucket_size", "allgather_bucket_size", "contiguous_gradients")]
    + [(n, ("engine", ("ddp",))) for n in ("bucket_cap_mb", "gradient_as_bucket_view")]
    + [(n, ("engine", ("fsdp",))) for n in ("fsdp_version", "sharding_strategy", "fsdp_cpu_offload",
                                             "fsdp_custom_sharded_layers")]
    + [(n, ("engine", ("megatron", "megatron_deepspeed"))) for n in
       ("distributed_optimizer", "sequence_parallel", "num_microbatches")]
    + [("accounting", ("engine", ("zero", "megatron", "megatron_deepspeed")))]
)


_GATES = frozenset(g for g, _ in _APPLIES.values())


def _check_applies(h, given, based_on_default):
    """Raises InapplicableParameterError for a keyword of ``given`` (canonical name -> value)
    that the engine, mode or runtime in effect (``given``, else the configuration ``h``)
    does not read. A keyword at its default value changes nothing either way: allowed."""
    if based_on_default:  # most calls: no gate given, every keyword read with the defaults
        for name in given:
            if name in _GATES or not _READ_ON_DEFAULTS.get(name, True):
                break
        else:
            return
    for name in given:
        rule = _APPLIES.get(name)
        if rule is not None and given[name] == _PARAMS[name].default and type(given[name]) is not str:
            continue  # the default: nothing is lost (Config(other.to_dict()) has them all)
        if rule is not None and type(given[name]) is str and given[name] == str(_PARAMS[name].default):
            continue
        while rule is not None:
            gate, allowed = rule
            if gate in given:
                v = given[gate]
                if type(v) is not str:
                    v = _get(h, _PARAMS[gate])
            elif based_on_default:
                v = _PARAMS[gate].default
            else:
                v = _get(h, _PARAMS[gate])
            if v not in allowed:
                raise InapplicableParameterError(
                    "%s does not apply with %s %s (only with %s %s): it would change nothing; "
                    "set %s too, or leave %s out" % (
                        name, gate, v, gate, " or ".join(allowed), gate, name))
            name = gate
            rule = _APPLIES.get(gate)


def _apply(h, values, based_on_default=False):
    """Sets the keyword arguments ``values`` on config handle ``h`` and checks that each applies."""
    given = {}
    for name, v in values.items():
        p = _param(name)
        if p.name in given:
            raise TypeError("parameter %s given twice (as %r)" % (p.name, name))
        _set(h, p, v)
        given[p.name] = v
    _check_applies(h, given, based_on_default)


class Config(_Handle):
    """A configuration (``llmmem_config``): workload, precision, optimizer, LoRA, engine,
    parallelism, serving runtime and GPU, every parameter at its default until set.

    ``Config(micro_batch_size=4, engine="zero", zero_stage=3)``; ``c["seq_len"] = 4096``;
    ``c["seq_len"]`` or ``c.seq_len``; :meth:`to_dict`. Keyword arguments (here, in
    :meth:`update`, :func:`estimate`, :func:`plan`) must apply: ``zero_stage`` without
    ``engine="zero"`` raises; item assignment sets one value as the C API does."""

    __slots__ = ()
    _free = staticmethod(lib.llmmem_config_free)

    @_wraps("llmmem_config_new", "llmmem_config_set_i64", "llmmem_config_set_str")
    def __init__(self, _values: Optional[Mapping[str, Any]] = None, **params):
        """A configuration with every parameter at its default, then ``_values`` (a dict of
        parameters, e.g. ``Config.to_dict()``'s) and the keyword arguments applied."""
        self._h = _new(lib.llmmem_config_new)
        values = dict(_values) if _values is not None else {}
        if _values is not None and not isinstance(_values, Mapping):
            raise TypeError("Config() takes a dict of parameters, not %s" % type(_values).__name__)
        values.update(params)
        if values:
            _apply(self._h, values, based_on_default=True)

    @classmethod
    def _wrap(cls, h):
        c = cls.__new__(cls)
        c._h = h
        return c

    @_wraps("llmmem_config_clone")
    def copy(self) -> "Config":
        """An independent copy."""
        return Config._wrap(_new(lib.llmmem_config_clone, self._h))

    clone = copy

    @_wraps("llmmem_config_reset")
    def reset(self) -> None:
        """Every parameter back to its default."""
        _check(lib.llmmem_config_reset(self._h))

    def update(self, _values: Optional[Mapping[str, Any]] = None, **params) -> "Config":
        """Applies parameters (a dict and/or keywords; each must apply); returns self."""
        values = dict(_values or {})
        values.update(params)
        _apply(self._h, values)
        return self

    def set(self, name: str, value) -> None:
        """Sets one parameter from a Python value (int, float, bool, str: an enum value name,
        or text parsed by the parameter's type, as ``--name value`` on the command line)."""
        _set(self._h, _param(name), value)

    def get(self, name: str):
        """A parameter's value: int, float, bool, or str (enum value name or text)."""
        return _get(self._h, _param(name))

    __getitem__ = get
    __setitem__ = set

    def __getattr__(self, name):
        if name in _PARAMS:
            return _get(self._h, _PARAMS[name])
        raise AttributeError("llmmem.Config has no attribute %r" % name)

    def __contains__(self, name):
        try:
            _param(name)
            return True
        except (UnknownParameterError, TypeError):
            return False

    def keys(self):
        return [p.name for p in _PARAMS_BY_ID.values()]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(_PARAMS_BY_ID)

    def items(self):
        return [(k, self.get(k)) for k in self.keys()]

    @_wraps("llmmem_config_to_json")
    def to_json(self) -> str:
        """Every parameter as a flat JSON object of name: value."""
        return _text(lib.llmmem_config_to_json, self._h)

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.to_json())

    def changed(self) -> Dict[str, Any]:
        """The parameters that differ from their defaults."""
        return {k: v for k, v in self.items() if v != _PARAMS[k].default}

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        if not self._h:
            return "<llmmem.Config (closed)>"
        return "llmmem.Config(%s)" % ", ".join("%s=%r" % kv for kv in self.changed().items())

    # framework files

    @classmethod
    @_wraps("llmmem_config_apply_deepspeed_json")
    def from_deepspeed_config(cls, source, model=None, **params) -> "Config":
        """A configuration from a DeepSpeed ``ds_config.json`` (path, text or dict); "auto"
        values are resolved from ``model`` where HF Trainer would. Keywords apply after."""
        c = cls()
        c.apply_deepspeed(source, model)
        return c.update(params) if params else c

    @classmethod
    @_wraps("llmmem_config_apply_hf_training_args_json")
    def from_hf_training_args(cls, source, **params) -> "Config":
        """A configuration from HF ``TrainingArguments`` saved as JSON (path, text or dict;
        LLaMA-Factory keys too). Keywords apply after."""
        c = cls()
        c.apply_hf_training_args(source)
        return c.update(params) if params else c

    @_wraps("llmmem_config_apply_deepspeed_json")
    def apply_deepspeed(self, source, model=None) -> "Config":
        """Applies a DeepSpeed config (path, text or dict) to this configuration."""
        data = _json_bytes(source)
        mo = None if model is None else _model(model)
        _check(lib.llmmem_config_apply_deepspeed_json(self._h, mo, data, len(data)))
        return self

    @_wraps("llmmem_config_apply_hf_training_args_json")
    def apply_hf_training_args(self, source) -> "Config":
        """Applies HF TrainingArguments (path, text or dict) to this configuration."""
        data = _json_bytes(source)
        _check(lib.llmmem_config_apply_hf_training_args_json(self._h, data, len(data)))
        return self

    @_wraps("llmmem_config_apply_calibration_json")
    def apply_calibration(self, source) -> "Config":
        """Applies a calibration profile (path, text or dict; docs/calibration.md)."""
        data = _json_bytes(source)
        _check(lib.llmmem_config_apply_calibration_json(self._h, data, len(data)))
        return self

    @_wraps("llmmem_config_clear_calibration")
    def clear_calibration(self) -> "Config":
        """Back to the identity (no calibration profile)."""
        _check(lib.llmmem_config_clear_calibration(self._h))
        return self

    @classmethod
    @_wraps("llmmem_config_apply_framework_yaml", "llmmem_config_apply_framework_file")
    def from_framework_config(cls, source, kind: Union[str, int] = "auto", model=None, **params) -> "Config":
        """A configuration from a framework's YAML file (a torchtune recipe config, an
        axolotl config, an accelerate config, a LLaMA-Factory training file; path or text).
        ``kind`` is one of :func:`framework_names` ("auto" detects it). Keywords apply after."""
        c = cls()
        c.apply_framework(source, kind, model)
        return c.update(params) if params else c

    @_wraps("llmmem_config_apply_framework_yaml", "llmmem_config_apply_framework_file")
    def apply_framework(self, source, kind: Union[str, int] = "auto", model=None) -> "Config":
        """Applies a framework YAML (path or text) to this configuration, all or nothing: a
        key the estimate does not model raises :class:`Error` (E_UNSUPPORTED) naming it and
        its line:column; what the reader assumed or did not read is in :attr:`notes`."""
        k = _framework_kind(kind)
        mo = None if model is None else _model(model)
        path, data = _yaml_source(source)
        if path is not None:
            _check(lib.llmmem_config_apply_framework_file(self._h, mo, k, _b(path, "path")))
        else:
            _check(lib.llmmem_config_apply_framework_yaml(self._h, mo, k, data, len(data)))
        return self

    @_wraps("llmmem_config_apply_framework_file")
    def apply_framework_file(self, path, kind: Union[str, int] = "auto", model=None) -> "Config":
        """Applies the framework YAML file at ``path``; errors name the file."""
        mo = None if model is None else _model(model)
        _check(lib.llmmem_config_apply_framework_file(self._h, mo, _framework_kind(kind), _b(path, "path")))
        return self

    @property
    @_wraps("llmmem_config_note_count", "llmmem_config_note")
    def notes(self) -> List[str]:
        """What the framework-file readers assumed or did not read (estimates copy these
        into their result's notes)."""
        return [_s(lib.llmmem_config_note(self._h, i)) for i in range(lib.llmmem_config_note_count(self._h))]


def _yaml_source(source):
    """(path, None) for a path (an os.PathLike, or one line of text naming a file), else
    (None, bytes) of YAML text."""
    if isinstance(source, os.PathLike):
        return os.fspath(source), None
    if isinstance(source, str):
        if "\n" not in source and os.path.isfile(source):
            return source, None
        return None, _b(source, "YAML text")
    if isinstance(source, bytes):
        return None, source
    raise TypeError("expected a path or YAML text, not %s" % type(source).__name__)


def framework_names() -> List[str]:
    """The kinds of framework file :meth:`Config.apply_framework` reads, by value
    (``framework_names()[0]`` is "auto")."""
    return list(_FRAMEWORKS)


def _read_frameworks():
    names = []
    while True:
        n = lib.llmmem_framework_name(len(names))
        if n is None:
            return tuple(names)
        names.append(_s(n))


def _framework_kind(kind):
    if isinstance(kind, str):
        try:
            return _FRAMEWORKS.index(kind)
        except ValueError:
            raise UnknownParameterError("no framework %r (one of: %s)%s" % (
                kind, ", ".join(_FRAMEWORKS), _suggest(kind, list(_FRAMEWORKS)))) from None
    return _int(kind, "kind", _INT_MIN, _INT_MAX)


@_wraps("llmmem_framework_detect")
def framework_detect(source) -> str:
    """The kind of a framework YAML (path or text): "torchtune", "axolotl", "accelerate",
    "llamafactory"; "auto" when the keys match none."""
    path, data = _yaml_source(source)
    if path is not None:
        with open(path, "rb") as f:
            data = f.read()
    out = c_int()
    _check(lib.llmmem_framework_detect(byref(out), data, len(data)))
    return _s(lib.llmmem_framework_name(out.value))


_FRAMEWORKS = _read_frameworks()


def _json_bytes(source):
    """The bytes of a JSON document given as a dict/list, a path, or its text."""
    if isinstance(source, (Mapping, list)):
        return json.dumps(source).encode("utf-8")
    if isinstance(source, bytes):
        return source
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith(("{", "["))):
        with open(os.fspath(source), "rb") as f:
            return f.read()
    if isinstance(source, str):
        return source.encode("utf-8")
    raise TypeError("expected a dict, a path or JSON text, not %s" % type(source).__name__)


_PARAMS = {}  # canonical name -> _Param
_PARAMS_BY_ID = {}
_ALIASES = {}  # other spellings the library accepts, as they are met
_PARAMS.update(_read_params())
_PARAMS_BY_ID.update({p.id: p for p in _PARAMS.values()})
_CANONICAL = frozenset(_PARAMS)


def _read_on_defaults(name):
    rule = _APPLIES.get(name)
    while rule is not None:
        if _PARAMS[rule[0]].default not in rule[1]:
            return False
        rule = _APPLIES.get(rule[0])
    return True


_READ_ON_DEFAULTS = {n: _read_on_defaults(n) for n in _APPLIES}


_ffi.HANDLE_CLASSES.update(llmmem_model=Model, llmmem_config=Config)


def _config_h(config):
    if config is None:
        return _DEFAULT_H
    if type(config) is Config or isinstance(config, Config):
        return config._h
    raise TypeError("config must be a llmmem.Config (or None), not %s" % type(config).__name__)


# Keyword arguments on the defaults (estimate("llama-3.1-8b", micro_batch_size=4)):
# - the configuration made from them is kept, read-only, for the next call with the same
#   keywords (_KW_CONFIGS, up to _KW_MAX of them, never freed: the library lets many threads
#   read one configuration). Only keywords whose values are all int, bool or str are kept.
#   1, 1.0 and True are equal dict keys but not the same argument (a float or a bool can be
#   refused where the int is not): a bool's item in the key carries its type, (name, value,
#   bool), which no (name, value) pair equals, and a float always takes the checked way below;
# - otherwise they go into a scratch configuration taken from a pool. A scratch remembers
#   which parameters it holds away from their defaults; the next call sets only what differs
#   and puts back what it no longer gives.
# A keyword on a Config applies to a clone of it. Pools are lists (append and pop are
# atomic): each thread takes its own handle.
_KW_CONFIGS = {}  # _kw_key(params) -> config handle
_KW_MAX = 256
_SCRATCH = []  # [handle, {canonical name: (type, value) set on it}]
_RESULTS = []  # result handles of collected Results
_POOL_MAX = 16


def _kw_new(key, params):
    """Makes, checks and keeps the configuration of ``params`` (cache key ``key``); None when
    the cache is full."""
    if len(_KW_CONFIGS) >= _KW_MAX:
        return None
    h = _new(lib.llmmem_config_new)
    try:
        _apply(h, params, based_on_default=True)
    except BaseException:
        _fast.llmmem_config_free(h)
        raise
    kept = _KW_CONFIGS.setdefault(key, h)
    if kept is not h:  # another thread made the same one first
        _fast.llmmem_config_free(h)
    return kept


def _kw_key(params):
    """The key of ``params`` in _KW_CONFIGS, or None when a value is neither int, bool nor str."""
    key = []
    for item in params.items():
        t = type(item[1])
        if t is int or t is str:
            key.append(item)
        elif t is bool:
            key.append((item[0], item[1], bool))
        else:
            return None
    return tuple(key)


def _kw_config(params):
    """The kept configuration of ``params`` on the defaults, or None (see above)."""
    key = _kw_key(params)
    return None if key is None else _KW_CONFIGS.get(key) or _kw_new(key, params)


def _scratch_apply(s, params):
    """Applies ``params`` to scratch ``s`` (a pooled [handle, held]) and checks them."""
    h, held = s
    if params.keys() <= _CANONICAL:  # canonical names: no alias to resolve, none twice
        given = params
    else:
        given = {}
        for name, v in params.items():
            n = _param(name).name
            if n in given:
                raise TypeError("parameter %s given twice (as %r)" % (n, name))
            given[n] = v
    for n, v in given.items():
        tv = (type(v), v)
        if held.get(n) != tv:  # (a failure frees the scratch: held need not be undone)
            p = _PARAMS[n]
            if tv[0] is int and p.type == TYPE_I64:  # _set's first case, inline
                if not _I64_MIN <= v <= _I64_MAX:
                    raise OverflowError("%s = %d is outside the range of int64" % (n, v))
                rc = _set_i64(h, p.id, c_int64(v))
                if rc:
                    _raise(rc)
            else:
                _set(h, p, v)
            held[n] = tv
    if len(held) != len(given):
        for n in [n for n in held if n not in given]:
            p = _PARAMS[n]
            _set(h, p, p.default)
            del held[n]
    _check_applies(h, given, True)


def _with_params(fn, model, config, params, *args):
    """Calls ``fn(*args, model handle, config handle)`` with ``params`` applied to a copy of
    ``config`` (or to a scratch configuration when it is None)."""
    mo = _model(model)
    if not params:
        return fn(*args, mo._h, _config_h(config))
    if config is None:
        ch = _kw_config(params)
        if ch is not None:
            return fn(*args, mo._h, ch)
        return _scratch_call(fn, mo._h, params, *args)
    h = c_void_p()
    rc = _fast.llmmem_config_clone(byref(h), _config_h(config))
    if rc:
        _raise(rc)
    try:
        _apply(h, params)
        return fn(*args, mo._h, h)
    finally:
        _fast.llmmem_config_free(h)


# ---- results ----------------------------------------------------------------------------------

class Result(_Handle):
    """The result of an estimate (``llmmem_result``).

    Every key of :meth:`to_dict` reads as an item or an attribute: the scalar result keys
    (``peak_allocated_bytes``, ``fits``, ``peak_phase``, ...) straight from the library,
    the others (``engine``, ``mode``, ``phases``, ``terms``, ...) from the JSON. A result
    no estimate has filled raises :class:`NotEstimatedError`."""

    # _state: None before an estimate (or after one failed), True after one, then the JSON
    # text once to_dict() has read it.
    __slots__ = ("_state",)
    _free = staticmethod(lib.llmmem_result_free)
    _no_copy = _no_pickle = ": to_dict() and to_json() keep its values"

    def close(self):
        """Frees the C result (a later estimate() may reuse it)."""
        h = self._h
        if h:
            self._h = self._state = None
            if len(_RESULTS) < _POOL_MAX:
                _RESULTS.append(h)
            else:
                _fast.llmmem_result_free(h)

    def __del__(self):
        try:
            h = self._h  # close(), inline: every estimate() pays it
            if h:
                self._h = None
                if len(_RESULTS) < _POOL_MAX:
                    _RESULTS.append(h)
                else:
                    _fast.llmmem_result_free(h)
        except Exception:  # interpreter shutdown
            pass

    @_wraps("llmmem_result_new")
    def __init__(self):
        """An empty result; :meth:`estimate` fills it."""
        self._h = _new(lib.llmmem_result_new)
        self._state = None

    @_wraps("llmmem_estimate")
    def estimate(self, model, config=None, **params) -> "Result":
        """Fills this result (see :func:`estimate`); returns self."""
        self._state = None
        if not params and type(model) is Model:
            rc = _estimate(self._h, model._h, config._h if type(config) is Config else _config_h(config))
        else:
            rc = _with_params(_estimate, model, config, params, self._h)
        if rc:
            _raise(rc)
        self._state = True
        return self

    def _live(self):
        if self._state is None:
            raise NotEstimatedError()
        return self._h

    def get(self, key, default=None):
        """The value of a key of :meth:`to_dict`, or ``default`` when there is no such key."""
        try:
            return self[key]
        except KeyError:
            return default

    def __getitem__(self, key):
        try:
            kid, getter, slot, conv = _RKEYS[key]
        except (KeyError, TypeError):
            return self._other(key)
        if self._state is None:
            raise NotEstimatedError()
        try:
            out, ref = _TLS.outs[slot]
        except AttributeError:
            out, ref = _thread_outs()[slot]
        rc = getter(ref, self._h, kid)
        if rc:
            _raise(rc)
        return conv(out.value) if conv else out.value

    def _other(self, key):
        if self._state is None:
            raise NotEstimatedError()
        if isinstance(key, int) and not isinstance(key, bool):
            for name, v in _RKEYS.items():
                if v[0] == key:
                    return self[name]
            raise KeyError(key)
        d = self.to_dict()
        if key in d:
            return d[key]
        raise KeyError(key)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError("llmmem.Result has no attribute %r%s" % (name, _suggest(name, self.keys()))) from None

    def __contains__(self, key):
        return key in _RKEYS or key in self.to_dict()

    def keys(self):
        return list(self.to_dict())

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __bool__(self):  # not len(): a result is true without being serialised
        return True

    def items(self):
        return list(self.to_dict().items())

    def values(self):
        return list(self.to_dict().values())

    @_wraps("llmmem_result_component_bytes")
    def component_bytes(self, phase, component) -> int:
        """Live bytes of a component (name or id) in a phase (name or id)."""
        out = c_uint64()
        _check(_fast.llmmem_result_component_bytes(byref(out), self._live(), _enum_id(_PHASES, phase, "phase"),
                                                   _enum_id(_COMPONENTS, component, "component")))
        return out.value

    @_wraps("llmmem_result_phase_bytes")
    def phase_bytes(self, phase) -> int:
        """Live bytes in a phase (name or id)."""
        out = c_uint64()
        _check(_fast.llmmem_result_phase_bytes(byref(out), self._live(), _enum_id(_PHASES, phase, "phase")))
        return out.value

    @_wraps("llmmem_result_stage_peak_bytes")
    def stage_peak_bytes(self, stage: int) -> int:
        """Peak allocated bytes of pipeline stage ``stage`` (0-based)."""
        out = c_uint64()
        _check(lib.llmmem_result_stage_peak_bytes(byref(out), self._live(), _int(stage, "stage", _INT_MIN, _INT_MAX)))
        return out.value

    @property
    @_wraps("llmmem_result_term")
    def terms(self) -> List[Dict[str, Any]]:
        """[{"name", "formula" (with its source), "bytes"}, ...], as in to_dict()."""
        h, out = self._live(), []
        for i in range(lib.llmmem_result_term_count(h)):
            n, f, b = c_char_p(), c_char_p(), c_uint64()
            _check(lib.llmmem_result_term(byref(n), byref(f), byref(b), h, i))
            out.append({"name": _s(n.value), "formula": _s(f.value), "bytes": b.value})
        return out

    @property
    @_wraps("llmmem_result_input")
    def inputs(self) -> Dict[str, int]:
        """{symbol: value}: the inputs the terms' formulas use, as in to_dict()."""
        h, out = self._live(), {}
        for i in range(_check(lib.llmmem_result_input_count(h))):
            n, v = c_char_p(), c_int64()
            _check(lib.llmmem_result_input(byref(n), byref(v), h, i))
            out[_s(n.value)] = v.value
        return out

    @property
    def notes(self) -> List[str]:
        """Assumptions and fallbacks of the estimate."""
        h = self._live()
        return [_s(lib.llmmem_result_note(h, i)) for i in range(lib.llmmem_result_note_count(h))]

    def explain(self) -> List[Dict[str, Any]]:
        """Every term of the estimate as a record: name, formula (with its source), bytes,
        GiB. ``pandas.DataFrame(r.explain())`` makes a table of it."""
        return [dict(t, gib=t["bytes"] / 2**30) for t in self.terms]

    @_wraps("llmmem_result_to_json")
    def to_json(self, indent: Optional[int] = None) -> str:
        """The result as JSON (docs/json-schema.md)."""
        text = _text(lib.llmmem_result_to_json, self._live())
        return text if indent is None else json.dumps(json.loads(text), indent=indent)

    def to_dict(self) -> Dict[str, Any]:
        """The result as a dict (the JSON of docs/json-schema.md); a copy each call."""
        state = self._state
        if type(state) is not str:
            state = self.to_json()
            if self._state is True:
                self._state = state
        return json.loads(state)

    def __repr__(self):
        if not self._h:
            return "<llmmem.Result (closed)>"
        if self._state is None:
            return "<llmmem.Result (not estimated)>"
        d = self.to_dict()
        return ("<llmmem.Result %s %s, %s: peak %s allocated (%s), %s reserved, %s per GPU of %s: %s%s>" % (
            d["model_type"], d["mode"], d["engine"] if d["mode"] == "training" else "inference",
            _gib(d["peak_allocated_bytes"]), d["peak_phase"], _gib(d["peak_reserved_bytes"]),
            _gib(d["total_bytes_per_gpu"]), _gib(d["gpu_memory_bytes"]),
            "fits" if d["fits"] else "does not fit",
            " (APPROXIMATE model: see notes)" if d.get("approximate") else ""))

    def _repr_html_(self):
        if not self._h or self._state is None:
            return html.escape(repr(self))
        return _html(self.to_dict())


def _gib(n):
    return "%.2f GiB" % (n / 2**30)


def _enum_id(table, x, what):
    if isinstance(x, str):
        try:
            return table[x]
        except KeyError:
            raise UnknownParameterError("no %s %r%s" % (what, x, _suggest(x, list(table)))) from None
    return _int(x, what, _INT_MIN, _INT_MAX)


# A colour per component (the CLI's SVG uses the same order).
_COLOURS = ["#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d", "#f1ce63",
            "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#79706e", "#bab0ac", "#d37295", "#fabfd2"]


def _html(d):
    """The result as HTML: a stacked bar per phase (components), the capacity, the headline."""
    phases = d.get("phases", {})
    cap = d["gpu_memory_bytes"] or 1
    scale = max([cap, d["total_bytes_per_gpu"]] + [p["total"] for p in phases.values()])
    comps = list(_COMPONENTS)
    rows = []
    for name, ph in phases.items():
        segs = []
        for i, c in enumerate(comps):
            b = ph["components"].get(c, 0)
            if b:
                segs.append('<div title="%s: %s" style="width:%.3f%%;background:%s"></div>' % (
                    html.escape(c), _gib(b), 100.0 * b / scale, _COLOURS[i % len(_COLOURS)]))
        rows.append('<tr><td style="padding-right:8px">%s%s</td><td style="width:420px">'
                    '<div style="position:relative;display:flex;height:16px;background:#f4f4f4">%s'
                    '<div style="position:absolute;left:%.3f%%;top:-2px;bottom:-2px;border-left:2px solid #c00">'
                    '</div></div></td><td style="padding-left:8px;text-align:right">%s</td></tr>' % (
                        html.escape(name), " (peak)" if name == d.get("peak_phase") else "",
                        "".join(segs), 100.0 * cap / scale, _gib(ph["total"])))
    legend = " ".join('<span style="white-space:nowrap"><span style="display:inline-block;width:10px;'
                      'height:10px;background:%s"></span> %s</span>' % (_COLOURS[i % len(_COLOURS)], html.escape(c))
                      for i, c in enumerate(comps) if any(p["components"].get(c) for p in phases.values()))
    head = "%s %s, %s: peak %s allocated, %s reserved, %s per GPU of %s &mdash; <b>%s</b>" % (
        html.escape(d["model_type"]), html.escape(d["mode"]),
        html.escape(d["engine"] if d["mode"] == "training" else "inference"), _gib(d["peak_allocated_bytes"]), _gib(d["peak_reserved_bytes"]), _gib(d["total_bytes_per_gpu"]),
        _gib(d["gpu_memory_bytes"]), "fits" if d["fits"] else "does not fit")
    return ('<div class="llmmem-result"><div>%s</div><table style="border-collapse:collapse">%s</table>'
            '<div style="font-size:smaller">%s; red line: GPU capacity</div></div>' % (head, "".join(rows), legend))


def estimate(model, config: Optional[Config] = None, **params) -> Result:
    """Estimates the per-GPU memory of a training step or an inference run.

    ``model``: a :class:`Model`, a preset name (:func:`presets`), a ``config.json`` path
    (or its folder), or the config as a dict. ``config``: a :class:`Config`, or None for
    the defaults. Every other argument is a configuration parameter (:func:`params`),
    applied to a copy of ``config``: ``estimate("llama-3.1-8b", micro_batch_size=4,
    seq_len=4096, activation_checkpointing="full")``.

    Raises :class:`Error` when the library refuses the inputs,
    :class:`UnknownParameterError` for an unknown keyword, and
    :class:`InapplicableParameterError` for a keyword the engine or mode does not read."""
    r = _spare_result()
    if r is None:
        r = _object_new(Result)  # _state is set once it holds an estimate
        try:
            h = _RESULTS.pop()
        except IndexError:
            h = c_void_p()
            rc = _fast.llmmem_result_new(byref(h))
            if rc:
                r._h = None
                _raise(rc)
        r._h = h
    else:
        h = r._h
        r._state = None
    if type(model) is Model:
        mo = model
    else:
        mo = (_PRESET_MODELS.get(model) if type(model) is str else None) or _model(model)
        if isinstance(model, (str, os.PathLike)) and os.fspath(model).endswith(".gguf") and \
                config is None and "mode" not in params and "runtime" not in params:
            params = dict(params, mode="inference", runtime="llama_cpp")  # a GGUF is llama.cpp's
    if not params:
        rc = _estimate(h, mo._h, config._h if type(config) is Config else _config_h(config))
    elif config is None:  # _with_params' way, inline: the call a loop makes
        ch = _kw_config(params)
        if ch is not None:
            rc = _estimate(h, mo._h, ch)
        else:
            rc = _scratch_call(_estimate, mo._h, params, h)
    else:
        rc = _with_params(_estimate, mo, config, params, h)
    if rc:
        _raise(rc)
    r._state = True
    if _SPARE_ON:
        _SPARE.append(r)
    return r


# The Result estimate() returned last is kept here too; the next call takes it back when
# nothing else refers to it (the caller dropped it: estimate(...)["key"] in a loop), and
# fills it again instead of making a Result and collecting the old one. Held by anything
# else (a variable, a list, a weak reference), it stays the caller's: it leaves the list
# and a new Result is made. The count is CPython's own; the reference count of an object
# that only the local `r` holds is measured once at import, in the same code shape (an
# interpreter that borrows references counts lower), and the reuse is off where the
# count cannot tell (another implementation, or a build without the GIL).
_SPARE = []


def _one_local_refs():
    """sys.getrefcount of a Result only a local holds, as _spare_result sees it."""
    r = _object_new(Result)
    r._h = None
    _SPARE.append(r)
    del r
    try:
        r = _SPARE.pop()
    except IndexError:
        return -1
    return _getrefcount(r)


_getrefcount = getattr(sys, "getrefcount", None)
_weakrefs = weakref.getweakrefcount
_SPARE_ON = (sys.implementation.name == "cpython" and _getrefcount is not None and
             getattr(sys, "_is_gil_enabled", lambda: True)())


def _spare_result():
    """The Result kept by the last estimate() when only this call refers to it, else None."""
    try:
        r = _SPARE.pop()
    except IndexError:
        return None
    if _getrefcount(r) != _ONE_LOCAL or _weakrefs(r) or r._h is None:
        return None
    return r


def _scratch_call(fn, mh, params, *args):
    """``fn(*args, mh, config)`` with ``params`` applied to a pooled scratch configuration."""
    try:
        s = _SCRATCH.pop()
    except IndexError:
        s = [_new(lib.llmmem_config_new), {}]
    try:
        _scratch_apply(s, params)
        rc = fn(*args, mh, s[0])
    except BaseException:
        _fast.llmmem_config_free(s[0])  # its state is unknown: not back into the pool
        raise
    if len(_SCRATCH) < _POOL_MAX:
        _SCRATCH.append(s)
    else:
        _fast.llmmem_config_free(s[0])
    return rc


_estimate = _fast.llmmem_estimate


_object_new = object.__new__
_ONE_LOCAL = _one_local_refs() if _SPARE_ON else -1


estimate.__doc__ += "\n\n" + _doc("llmmem_estimate")


_ffi.HANDLE_CLASSES["llmmem_result"] = Result


# ---- planner ------------------------------------------------------------------------------------

class Plan(_Handle):
    """Ranked layouts from :func:`plan` (``llmmem_plan``): ``len(p)``, ``p[i]`` (a record of
    layout i, best first), ``p.config(i)``, ``p.rejected()``, :meth:`to_dict`."""

    __slots__ = ("_dict",)
    _free = staticmethod(lib.llmmem_plan_free)
    _no_copy = _no_pickle = ": to_dict() and to_json() keep its layouts"

    @_wraps("llmmem_plan_new")
    def __init__(self):
        self._h = _new(lib.llmmem_plan_new)
        self._dict = None

    @_wraps("llmmem_plan_layouts")
    def layouts(self, model, config=None, *, top_k: int = 10, **params) -> "Plan":
        """Enumerates the layouts of the configuration's ``num_gpus`` GPUs and keeps the
        ``top_k`` fastest that fit; returns self."""
        self._dict = None
        k = _int(top_k, "top_k", 0, _INT_MAX)
        _check(_with_params(lambda mh, ch: lib.llmmem_plan_layouts(self._h, mh, ch, k), model, config, params))
        return self

    def __len__(self):
        return _check(lib.llmmem_plan_count(self._h))

    def __getitem__(self, index: int) -> Dict[str, Any]:
        return self.to_dict()["layouts"][index]

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return iter(self.to_dict()["layouts"])

    @property
    @_wraps("llmmem_plan_candidates")
    def candidates(self) -> int:
        """Candidates considered."""
        return lib.llmmem_plan_candidates(self._h)

    @_wraps("llmmem_plan_rejected")
    def rejected(self, reason=None):
        """Rejections for one reason (name or id), or {name: count} for all."""
        if reason is None:
            return {n: lib.llmmem_plan_rejected(self._h, i) for n, i in _REJECTS.items()}
        return lib.llmmem_plan_rejected(self._h, _enum_id(_REJECTS, reason, "rejection reason"))

    @_wraps("llmmem_plan_config")
    def config(self, index: int = 0) -> Config:
        """Layout ``index`` (0 = best) as a new :class:`Config`."""
        return Config._wrap(_new(lib.llmmem_plan_config, self._h, _int(index, "index", _INT_MIN, _INT_MAX)))

    @_wraps("llmmem_plan_step_time")
    def step_time(self, index: int) -> float:
        """Modelled step time of layout ``index`` in seconds."""
        out = c_double()
        _check(lib.llmmem_plan_step_time(byref(out), self._h, _int(index, "index", _INT_MIN, _INT_MAX)))
        return out.value

    @_wraps("llmmem_plan_peak_bytes")
    def peak_bytes(self, index: int) -> int:
        """Peak allocated bytes per GPU of layout ``index``."""
        out = c_uint64()
        _check(lib.llmmem_plan_peak_bytes(byref(out), self._h, _int(index, "index", _INT_MIN, _INT_MAX)))
        return out.value

    @_wraps("llmmem_plan_to_json")
    def to_json(self) -> str:
        """The plan as JSON (docs/planner.md)."""
        return _text(lib.llmmem_plan_to_json, self._h)

    def to_dict(self) -> Dict[str, Any]:
        if self._dict is None:
            self._dict = self.to_json()
        return json.loads(self._dict)

    def __repr__(self):
        if not self._h:
            return "<llmmem.Plan (closed)>"
        n = len(self)
        best = ", best %.3g s/step at %s" % (self.step_time(0), _gib(self.peak_bytes(0))) if n else ""
        return "<llmmem.Plan %d layouts of %d candidates%s>" % (n, self.candidates, best)


_ffi.HANDLE_CLASSES["llmmem_plan"] = Plan


def plan(model, config: Optional[Config] = None, *, top_k: int = 10, **params) -> Plan:
    """The ``top_k`` fastest layouts of ``num_gpus`` GPUs that fit (DP x TP x PP x CP x EP,
    engine, ZeRO/FSDP mode, offload, recompute, micro-batch), by the step-time model of
    docs/planner.md. ``top_k`` and the parameters are keywords: ``plan(m, c, top_k=3,
    num_gpus=64)``."""
    p = Plan()
    try:
        return p.layouts(model, config, top_k=top_k, **params)
    except BaseException:
        p.close()
        raise


plan.__doc__ += "\n\n" + _doc("llmmem_plan_layouts")


_TIMELINE_FORMATS = {"json": 0, "svg": 1, "snapshot": 2}


def timeline(model, config: Optional[Config] = None, *, format: str = "json", **params):
    """The estimate's allocation timeline replayed through the model of PyTorch's caching
    allocator (``llmmem_timeline``): ``format="json"`` (a dict: active bytes by category and
    reserved bytes over the events, the phases), ``"svg"`` (the chart, as text) or
    ``"snapshot"`` (the dict ``torch.cuda.memory._snapshot()`` returns, for
    pytorch.org/memory_viz). Single-GPU training and HF generate only."""
    if format not in _TIMELINE_FORMATS:
        raise ValueError("format %r: one of %s" % (format, ", ".join(_TIMELINE_FORMATS)))
    fmt = _TIMELINE_FORMATS[format]

    def call(mh, ch):
        return _text(lambda buf, cap, need: lib.llmmem_timeline(buf, cap, need, mh, ch, fmt))

    text = _with_params(call, model, config, params)
    return text if format == "svg" else json.loads(text)


def _plan_i64(fn, model, config, params):
    out = c_int64()
    _check(_with_params(fn, model, config, params, byref(out)))
    return out.value


def max_batch(model, config: Optional[Config] = None, **params) -> int:
    """Largest micro_batch_size (inference: batch_size) that fits; 0 when even 1 does not."""
    return _plan_i64(lib.llmmem_plan_max_batch, model, config, params)


def max_seq_len(model, config: Optional[Config] = None, **params) -> int:
    """Longest seq_len (inference: prompt + decode) that fits; 0 when even 1 token does not."""
    return _plan_i64(lib.llmmem_plan_max_seq_len, model, config, params)


def min_gpus(model, config: Optional[Config] = None, **params) -> int:
    """Fewest GPUs of the configured kind that fit."""
    return _plan_i64(lib.llmmem_plan_min_gpus, model, config, params)


for _f, _n in ((max_batch, "llmmem_plan_max_batch"), (max_seq_len, "llmmem_plan_max_seq_len"),
               (min_gpus, "llmmem_plan_min_gpus")):
    _f.__doc__ += "\n\n" + _doc(_n)
del _f, _n


# ---- scenarios ----------------------------------------------------------------------------------

def load_scenario(source, base_dir=None) -> Tuple[Model, Config]:
    """(Model, Config) of a scenario (docs/config-format.md; gpu-mem-calculator files too):
    a path, JSON text, or a dict. ``hf_config`` paths resolve against the file's folder, or
    ``base_dir`` for text and dicts."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        return scenario_from_file(source)
    return scenario_from_json(source, base_dir)


@_wraps("llmmem_scenario_from_json")
def scenario_from_json(text, base_dir=None) -> Tuple[Model, Config]:
    """(Model, Config) from a scenario's JSON text (or dict)."""
    data = _json_bytes(text) if isinstance(text, (Mapping, list)) else (
        text.encode("utf-8") if isinstance(text, str) else bytes(text))
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_json(byref(m), byref(c), data, len(data),
                                         _b(base_dir, "base_dir") if base_dir is not None else None))
    return Model._wrap(m), Config._wrap(c)


@_wraps("llmmem_scenario_from_file")
def scenario_from_file(path) -> Tuple[Model, Config]:
    """(Model, Config) from a scenario file."""
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_file(byref(m), byref(c), _b(path, "path")))
    return Model._wrap(m), Config._wrap(c)


def cli_path() -> str:
    """The path of the ``llmmem`` command this package runs (``python -m llmmem``)."""
    from ._cli import binary
    return binary()
