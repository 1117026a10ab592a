"""The exceptions of the package and the status codes they carry.

A failed libllmmem call raises :class:`Error` with the library's status and its message
(key, value, line:column); the binding's own refusals raise the subclasses, which are also
the built-in exceptions they mean (a ``TypeError``, a ``ValueError``, a ``RuntimeError``).
"""

from __future__ import annotations

from typing import Any, NoReturn, Optional, Tuple

from . import _ffi
from ._ffi import fast as _fast, lib

_C = _ffi.CONSTANTS

# Status codes (values are part of the ABI; they come from the header).
OK: int = _C["LLMMEM_OK"]
E_INVALID_ARG: int = _C["LLMMEM_E_INVALID_ARG"]
E_NOMEM: int = _C["LLMMEM_E_NOMEM"]
E_IO: int = _C["LLMMEM_E_IO"]
E_PARSE: int = _C["LLMMEM_E_PARSE"]
E_SCHEMA: int = _C["LLMMEM_E_SCHEMA"]
E_UNKNOWN_PARAM: int = _C["LLMMEM_E_UNKNOWN_PARAM"]
E_PARAM_TYPE: int = _C["LLMMEM_E_PARAM_TYPE"]
E_OUT_OF_RANGE: int = _C["LLMMEM_E_OUT_OF_RANGE"]
E_UNSUPPORTED: int = _C["LLMMEM_E_UNSUPPORTED"]
E_BUFFER_TOO_SMALL: int = _C["LLMMEM_E_BUFFER_TOO_SMALL"]
E_INCONSISTENT: int = _C["LLMMEM_E_INCONSISTENT"]
E_INTERNAL: int = _C["LLMMEM_E_INTERNAL"]


def _s(b: Optional[bytes]) -> Any:
    """The text of a C string (None for NULL)."""
    return b.decode("utf-8", "replace") if b is not None else None


class Error(Exception):
    """A libllmmem call failed: ``.status`` (a negative ``llmmem_status``), ``.status_name``
    ("LLMMEM_E_OUT_OF_RANGE") and ``.message`` (the library's detail: key, value, line:column)."""

    status: int
    status_name: str
    message: str

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.status_name = _s(lib.llmmem_status_name(status))
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.status, self.message))


class UnknownParameterError(Error, TypeError):
    """No configuration parameter (or model or result key) of that name."""

    def __init__(self, message: str, status: int = E_UNKNOWN_PARAM) -> None:
        super().__init__(status, message)

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.status))


class InapplicableParameterError(Error, ValueError):
    """A keyword argument that the chosen engine, mode or runtime does not read
    (``zero_stage`` without ``engine="zero"``): it would change nothing."""

    def __init__(self, message: str, status: int = E_INCONSISTENT) -> None:
        super().__init__(status, message)

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.status))


class NotEstimatedError(Error, RuntimeError):
    """A :class:`Result` read before an estimate filled it (or after one failed)."""

    def __init__(self, message: str = "the result holds no estimate (estimate() has not filled it, "
                 "or the last estimate into it failed)", status: int = E_INVALID_ARG) -> None:
        super().__init__(status, message)

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.status))


def _raise(rc: int) -> NoReturn:
    msg = _s(_fast.llmmem_last_error()) or _s(lib.llmmem_strerror(rc))
    # the library's refusal of a setting where it is not read (llmmem_config_param_applies,
    # engines/applies.c): "<name> = <value> does not apply: ..."
    if rc == E_INCONSISTENT and " does not apply: " in msg:
        raise InapplicableParameterError(msg)
    raise Error(rc, msg)


def _check(rc: int) -> int:
    """Raises :class:`Error` for a negative status; reads this thread's error text at once."""
    if rc < 0:
        _raise(rc)
    return rc
