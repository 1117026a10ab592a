"""The running library: its version, and its name tables (phases, components, model and
result keys, rejection reasons, presets, architectures, GPUs), read once at import: they
are ABI constants."""

from __future__ import annotations

from ctypes import byref, c_uint64
from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

from ._base import _INT_MAX, _INT_MIN, _int
from ._errors import _check, _s
from ._ffi import lib


def version() -> str:
    """The version of the running library ("0.2.0")."""
    v: str = _s(lib.llmmem_version_string())
    return v


def version_number() -> int:
    """LLMMEM_VERSION_NUMBER of the running library (major * 10000 + minor * 100 + patch)."""
    n: int = lib.llmmem_version_number()
    return n


def soversion() -> int:
    """The ABI major of the running library (its SONAME is libllmmem.so.N)."""
    n: int = lib.llmmem_soversion()
    return n


def status_name(status: int) -> str:
    """"LLMMEM_E_PARSE" etc. for a status."""
    v: str = _s(lib.llmmem_status_name(_int(status, "status", _INT_MIN, _INT_MAX)))
    return v


def strerror(status: int) -> str:
    """A one-line description of a status."""
    v: str = _s(lib.llmmem_strerror(_int(status, "status", _INT_MIN, _INT_MAX)))
    return v


def last_error() -> str:
    """This thread's last error detail ("" if none)."""
    v: str = _s(lib.llmmem_last_error())
    return v


def clear_error() -> None:
    """Clears this thread's error detail."""
    lib.llmmem_clear_error()


__version__: str = version()


def _named(count: Callable[[], int], name_of: Callable[[int], Optional[bytes]],
           at: Optional[Callable[[int], int]] = None) -> Dict[str, int]:
    """{name: id} of an enumeration the library lists by index (at: index -> id)."""
    out = {}
    for i in range(count()):
        key = _check(at(i)) if at else i
        out[_s(name_of(key))] = key
    return out


_PHASES: Dict[str, int] = _named(lib.llmmem_phase_count, lib.llmmem_phase_name)
_PHASE_NAMES: Dict[int, str] = {v: k for k, v in _PHASES.items()}
_COMPONENTS: Dict[str, int] = _named(lib.llmmem_component_count, lib.llmmem_component_name)
_MKEYS: Dict[str, int] = _named(lib.llmmem_model_key_count, lib.llmmem_model_key_name, lib.llmmem_model_key_at)
_RKEY_IDS: Dict[str, int] = _named(lib.llmmem_result_key_count, lib.llmmem_result_key_name, lib.llmmem_result_key_at)


def _reject_table() -> Dict[str, int]:
    out, i = {}, 0
    while lib.llmmem_plan_reject_name(i) is not None:
        out[_s(lib.llmmem_plan_reject_name(i))] = i
        i += 1
    return out


_REJECTS: Dict[str, int] = _reject_table()


def phase_names() -> Dict[str, int]:
    """{name: id} of the phases (forward, backward, optimizer, prefill, decode)."""
    return dict(_PHASES)


def component_names() -> Dict[str, int]:
    """{name: id} of the memory components (weights, gradients, ...)."""
    return dict(_COMPONENTS)


def result_key_names() -> Dict[str, Tuple[int, int]]:
    """{name: (id, type)} of the scalar result keys (llmmem_result_key)."""
    return {n: (kid, _check(lib.llmmem_result_key_type(kid))) for n, kid in _RKEY_IDS.items()}


def model_key_names() -> Dict[str, int]:
    """{name: id} of the model keys (llmmem_model_key)."""
    return dict(_MKEYS)


def reject_names() -> Dict[str, int]:
    """{name: id} of the planner's rejection reasons."""
    return dict(_REJECTS)


def presets() -> Dict[str, str]:
    """{name: one-line description} of the built-in models."""
    return {_s(lib.llmmem_preset_name(i)): _s(lib.llmmem_preset_description(i))
            for i in range(lib.llmmem_preset_count())}


_PRESET_NAMES: Optional[FrozenSet[str]] = None


def _preset_names() -> FrozenSet[str]:
    global _PRESET_NAMES
    if _PRESET_NAMES is None:
        _PRESET_NAMES = frozenset(presets())
    return _PRESET_NAMES


_ARCH_KINDS = ("decoder", "multimodal", "refused")


def architectures() -> Dict[str, str]:
    """{model_type: kind} of the config.json model_types the library knows; kind is
    "decoder" (counted exactly), "multimodal" (text model plus the towers the config
    describes) or "refused" (out of scope: loading one raises Error)."""
    return {_s(lib.llmmem_architecture_name(i)): _ARCH_KINDS[_check(lib.llmmem_architecture_kind(i))]
            for i in range(lib.llmmem_architecture_count())}


def gpus() -> Dict[str, int]:
    """{name: memory in bytes} of the GPU table (the values of the ``gpu`` parameter)."""
    out: Dict[str, Any] = {}
    for i in range(lib.llmmem_gpu_count()):
        v = c_uint64()
        _check(lib.llmmem_gpu_memory_bytes(byref(v), i))
        out[_s(lib.llmmem_gpu_name(i))] = v.value
    return out
