"""What every part of the package uses: the value types of the header, the conversion of
Python arguments to C ones, calls that return text or a handle, docstrings from the header,
and the base class of the objects that own a C handle."""

from __future__ import annotations

import ctypes
import difflib
import os
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, TypeVar, Union

from . import _ffi
from ._errors import E_BUFFER_TOO_SMALL, OK, UnknownParameterError, _check, _s

_C = _ffi.CONSTANTS
_FUNCS = _ffi.API["functions"]

# Value types of parameters and result keys, and the planner's rejection reasons (ABI
# constants from the header).
TYPE_I64: int = _C["LLMMEM_TYPE_I64"]
TYPE_F64: int = _C["LLMMEM_TYPE_F64"]
TYPE_BOOL: int = _C["LLMMEM_TYPE_BOOL"]
TYPE_ENUM: int = _C["LLMMEM_TYPE_ENUM"]
TYPE_STR: int = _C["LLMMEM_TYPE_STR"]
TYPE_U64: int = _C["LLMMEM_TYPE_U64"]
REJECT_INDIVISIBLE: int = _C["LLMMEM_REJECT_INDIVISIBLE"]
REJECT_OOM: int = _C["LLMMEM_REJECT_OOM"]
REJECT_UNSUPPORTED: int = _C["LLMMEM_REJECT_UNSUPPORTED"]
REJECT_BATCH: int = _C["LLMMEM_REJECT_BATCH"]

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1

# What the API takes for a file path.
PathLike = Union[str, "os.PathLike[str]"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _doc(cname: str) -> str:
    """The header's text of C function ``cname``, for a docstring."""
    return "C: %s(): %s" % (cname, _FUNCS[cname]["doc"])


def _wraps(*cnames: str) -> Callable[[_F], _F]:
    """Appends the header's documentation of the C functions a method calls to its docstring."""

    def deco(fn: _F) -> _F:
        fn.__doc__ = (fn.__doc__ or "").rstrip() + "\n\n" + "\n".join(_doc(n) for n in cnames)
        return fn

    return deco


# ---- argument conversion ------------------------------------------------------------------

def _b(s: Any, what: str = "text") -> bytes:
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


def _int(v: Any, what: str, lo: int = _I64_MIN, hi: int = _I64_MAX) -> int:
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
    n: int = v
    return n


def _text(fn: Callable[..., int], *args: Any) -> str:
    """Calls an snprintf-style function (buf, cap, needed, ...) and returns its text."""
    need = c_size_t(0)
    rc = fn(None, 0, byref(need), *args)
    if rc not in (OK, E_BUFFER_TOO_SMALL):
        _check(rc)
    buf = ctypes.create_string_buffer(max(need.value, 1))
    _check(fn(buf, need.value, byref(need), *args))
    text: str = _s(buf.value)
    return text


def _new(fn: Callable[..., int], *args: Any) -> c_void_p:
    out = c_void_p()
    _check(fn(byref(out), *args))
    return out


def _suggest(name: object, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(name), list(names), n=3)
    return " (did you mean %s?)" % ", ".join(repr(c) for c in close) if close else ""


def _enum_id(table: Mapping[str, int], x: Union[str, int], what: str) -> int:
    """The id of a phase, component or rejection reason given by name or id."""
    if isinstance(x, str):
        try:
            return table[x]
        except KeyError:
            raise UnknownParameterError("no %s %r%s" % (what, x, _suggest(x, list(table)))) from None
    return _int(x, what, _INT_MIN, _INT_MAX)


def _gib(n: float) -> str:
    return "%.2f GiB" % (n / 2**30)


# ---- handles --------------------------------------------------------------------------------

class _Handle:
    """An owned C handle: freed by close(), by the end of a ``with`` block or by the
    garbage collector. A closed handle passes NULL: the library answers E_INVALID_ARG."""

    __slots__ = ("_h", "__weakref__")
    _h: Any
    _free: Optional[Callable[[Any], Any]] = None

    def close(self) -> None:
        h = self._h
        if h:
            self._h = None
            type(self)._free(h)  # type: ignore[misc]

    def __setattr__(self, name: str, value: Any) -> None:
        # the handle is kept typed (_ffi.handle_ptr): the library's functions take it only
        # where they take this class's handles
        if name == "_h" and type(value) is c_void_p:
            value = _ptr_type(type(self))(value.value)
        object.__setattr__(self, name, value)

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def _as_parameter_(self) -> Any:  # lets llmmem.lib's functions take the object itself
        return self._h

    # copy.copy and copy.deepcopy would copy the slot, and two objects would own one C
    # handle (each frees it: a double free). A handle the library can clone is cloned
    # (Model, Config); the others refuse.
    def __copy__(self) -> Any:
        copy = getattr(type(self), "copy", None)  # the class's (not a result key's)
        if copy is None:
            raise TypeError("a llmmem.%s cannot be copied (it owns a C handle the library does not "
                            "clone)%s" % (type(self).__name__, type(self)._no_copy))
        return copy(self)

    def __deepcopy__(self, memo: Dict[int, Any]) -> Any:
        return self.__copy__()

    def __reduce__(self) -> Any:
        raise TypeError("a llmmem.%s cannot be pickled (it owns a C handle)%s"
                        % (type(self).__name__, type(self)._no_pickle))

    _no_copy = ""
    _no_pickle = ""


_T = TypeVar("_T", bound=_Handle)
_PTR_TYPES: Dict[type, type] = {}


def _ptr_type(cls: type) -> type:
    """The typed pointer of a handle class (its C type's, from _ffi.HANDLE_CLASSES)."""
    t = _PTR_TYPES.get(cls)
    if t is None:
        name = next((n for n, k in _ffi.HANDLE_CLASSES.items() if issubclass(cls, k)), None)
        t = _PTR_TYPES[cls] = _ffi.handle_ptr(name) if name else c_void_p
    return t
