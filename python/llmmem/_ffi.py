"""Loads libllmmem and binds every function of include/llmmem.h with ctypes.

The prototypes come from the header: ``llmmem/_prototypes.py``, written by the build from
include/llmmem.h, or (in a source tree that has not run the build) the header itself,
parsed at import by ``llmmem/_header.py``. Two views of the same library:

``lib``
    a :class:`ctypes.CDLL` with ``argtypes`` and ``restype`` on every function: checked
    arguments, the GIL released during each call. For direct use of the C API.
``fast``
    a :class:`ctypes.PyDLL` with ``restype`` only: the Python layer calls the sub-microsecond
    functions (set, get, estimate) through it with arguments it has already converted
    (handles as :class:`ctypes.c_void_p`, 64-bit integers as :class:`ctypes.c_int64`),
    which skips ctypes' per-argument conversion and the GIL round trip.

The library is found through LLMMEM_LIBRARY, else ``lib/`` of the installed package (a
wheel bundles it), else ``lib/`` of the source tree around ``python/llmmem``, else the
system loader (``make install``) by its SONAME.
"""

import ctypes
import os
import re
import importlib
from typing import Any, Dict, Tuple

API: Dict[str, Any]

_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.normpath(os.path.join(_HERE, "..", ".."))

try:
    _api: Any = importlib.import_module(__name__.rsplit(".", 1)[0] + "._prototypes")  # made by the build

    API = {"version": _api.VERSION, "soversion": _api.SOVERSION, "functions": _api.FUNCTIONS,
           "enums": _api.ENUMS}
    API_SOURCE = _api.__file__
except ImportError:  # a source tree: read the header next to it
    from . import _header

    API_SOURCE = os.environ.get("LLMMEM_HEADER") or os.path.join(_TREE, "include", "llmmem.h")
    try:
        with open(API_SOURCE, encoding="utf-8") as _hf:
            API = _header.parse(_hf.read())
    except OSError as _exc:
        raise ImportError("llmmem: no llmmem/_prototypes.py (made by the build) and no header "
                          "at %s: %s" % (API_SOURCE, _exc)) from None

_P = ctypes.POINTER
_SIMPLE = {
    "void": None, "int": ctypes.c_int, "unsigned": ctypes.c_uint, "int64": ctypes.c_int64,
    "uint64": ctypes.c_uint64, "double": ctypes.c_double, "size_t": ctypes.c_size_t,
    "string": ctypes.c_char_p, "buffer": ctypes.c_char_p, "int_out": _P(ctypes.c_int),
    "int64_out": _P(ctypes.c_int64), "uint64_out": _P(ctypes.c_uint64),
    "double_out": _P(ctypes.c_double), "size_out": _P(ctypes.c_size_t),
    "string_out": _P(ctypes.c_char_p),
}


# The Python class of each C handle type (llmmem_model -> llmmem.Model), filled in by the
# package; lib's functions take only that class (or None for NULL, or a ctypes.c_void_p).
HANDLE_CLASSES: Dict[str, type] = {}


_HANDLE_PTRS: Dict[str, type] = {}


def handle_ptr(name):
    """The c_void_p subclass an object of the class of C handle type ``name`` keeps its
    handle in: the handle says its type, so a method called unbound on another class's
    object (llmmem.Config.to_json(model)) is refused instead of handing the library a
    model as a config (issue 25: it crashed)."""
    t = _HANDLE_PTRS.get(name)
    if t is None:
        t = _HANDLE_PTRS[name] = type("_%s_ptr" % name, (ctypes.c_void_p,), {"ctype": name})
    return t


class _HandleArg:
    """ctypes argument type of a handle: a wrong object is refused before the call (an
    integer or another handle class would be read by the library as this one)."""

    ctype = None

    @classmethod
    def from_param(cls, obj):
        if obj is None or type(obj) is ctypes.c_void_p:
            return obj
        if isinstance(obj, ctypes.c_void_p):  # a handle kept by an object: of its own type
            if obj.ctype == cls.ctype:
                return obj
            raise TypeError("expected a %s handle, not a %s one (a method of one class called "
                            "on an object of another)" % (_class_name(cls.ctype), _class_name(obj.ctype)))
        want = HANDLE_CLASSES.get(cls.ctype)
        if want is not None and isinstance(obj, want):
            return obj._as_parameter_
        raise TypeError("expected a %s (or None), not %s" % (
            want.__name__ if want is not None else cls.ctype, type(obj).__name__))


def _class_name(ctype):
    want = HANDLE_CLASSES.get(ctype)
    return "llmmem." + want.__name__ if want is not None else ctype


_HANDLE_ARGS = {}


def ctype_of(kind):
    """The ctypes type of a kind of llmmem/_header.py."""
    if kind.startswith("handle:"):
        name = kind.split(":", 1)[1]
        if name not in _HANDLE_ARGS:
            _HANDLE_ARGS[name] = type("_" + name, (_HandleArg,), {"ctype": name})
        return _HANDLE_ARGS[name]
    if kind.startswith("handle_out:"):
        return _P(ctypes.c_void_p)
    return _SIMPLE[kind]


def _candidates():
    env = os.environ.get("LLMMEM_LIBRARY")
    if env:
        return [env]
    soname = "libllmmem.so.%d" % API["soversion"]
    return [os.path.join(_HERE, "lib", soname), os.path.join(_TREE, "lib", soname), soname]


def _load() -> Tuple[str, Any, Any]:
    # A wheel bundles cJSON in llmmem/lib: loaded first, it is there (by its SONAME) when
    # libllmmem asks for it, so the library needs no RUNPATH and no libcjson on the system.
    bundled = os.path.join(_HERE, "lib")
    if not os.environ.get("LLMMEM_LIBRARY") and os.path.isdir(bundled):
        for dep in sorted(os.listdir(bundled)):
            if re.match(r"lib(?!llmmem).*\.so(\.\d+)*$", dep):
                ctypes.CDLL(os.path.join(bundled, dep), mode=ctypes.RTLD_GLOBAL)
    errors = []
    for cand in _candidates():
        if os.sep in cand and not os.path.exists(cand):
            errors.append("%s: no such file" % cand)
            continue
        try:
            return cand, ctypes.CDLL(cand), ctypes.PyDLL(cand)
        except OSError as exc:
            errors.append("%s: %s" % (cand, exc))
    raise ImportError("llmmem: cannot load libllmmem (build it with make, install it, or set "
                      "LLMMEM_LIBRARY): " + "; ".join(errors))


LIBRARY_PATH: str
lib: Any
fast: Any
LIBRARY_PATH, lib, fast = _load()

for _name, _fn in API["functions"].items():
    try:
        _f, _g = getattr(lib, _name), getattr(fast, _name)
    except AttributeError:
        raise ImportError("llmmem: %s lacks %s (the binding was made from a newer llmmem.h, %s)"
                          % (LIBRARY_PATH, _name, API["version"])) from None
    _f.restype = _g.restype = ctypes.c_void_p if _fn["ret"].startswith("handle") else ctype_of(_fn["ret"])
    _f.argtypes = [ctype_of(k) for k, _ in _fn["args"]]
    _f.__doc__ = _g.__doc__ = _fn["doc"]

if lib.llmmem_soversion() != API["soversion"]:
    raise ImportError("llmmem: %s has soversion %d, the binding was made for %d"
                      % (LIBRARY_PATH, lib.llmmem_soversion(), API["soversion"]))

# Every enum value of the header as a module constant (LLMMEM_P_SEQ_LEN = 102, ...).
CONSTANTS: Dict[str, int] = {name: value for e in API["enums"].values() for name, value, _ in e["values"]}
