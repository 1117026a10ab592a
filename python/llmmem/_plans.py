"""The planner (``llmmem_plan``): ranked layouts, the largest batch and the longest
sequence that fit, the fewest GPUs; and the allocation timeline of an estimate."""

from __future__ import annotations

import json
from ctypes import byref, c_double, c_int64, c_uint64
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from . import _ffi
from ._base import _INT_MAX, _INT_MIN, _doc, _enum_id, _gib, _Handle, _int, _new, _text, _wraps
from ._config import Config, _with_params
from ._errors import _check, _s
from ._ffi import lib
from ._library import _REJECTS
from ._models import ModelLike

class Plan(_Handle):
    """Ranked layouts from :func:`plan` (``llmmem_plan``): ``len(p)``, ``p[i]`` (a record of
    layout i, best first), ``p.config(i)``, ``p.rejected()``, :meth:`to_dict`."""

    __slots__ = ("_dict",)
    _dict: Optional[str]
    _free = staticmethod(lib.llmmem_plan_free)
    _no_copy = _no_pickle = ": to_dict() and to_json() keep its layouts"

    @_wraps("llmmem_plan_new")
    def __init__(self) -> None:
        self._h = _new(lib.llmmem_plan_new)
        self._dict = None

    @_wraps("llmmem_plan_layouts")
    def layouts(self, model: ModelLike, config: Optional[Config] = None, *, top_k: int = 10,
                **params: Any) -> Plan:
        """Enumerates the layouts of the configuration's ``num_gpus`` GPUs and keeps the
        ``top_k`` fastest that fit; returns self."""
        self._dict = None
        k = _int(top_k, "top_k", 0, _INT_MAX)
        _check(_with_params(lambda mh, ch: lib.llmmem_plan_layouts(self._h, mh, ch, k), model, config, params))
        return self

    def __len__(self) -> int:
        return _check(lib.llmmem_plan_count(self._h))

    def __getitem__(self, index: int) -> Dict[str, Any]:
        layout: Dict[str, Any] = self.to_dict()["layouts"][index]
        return layout

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return iter(self.to_dict()["layouts"])

    @property
    @_wraps("llmmem_plan_global_batch")
    def global_batch(self) -> int:
        """Sequences per optimizer step every layout keeps (training; inference: the batch):
        when no data_parallel_size is given, micro_batch_size x gradient_accumulation_steps x
        the data-parallel GPUs (num_gpus / (TP x PP x CP)); :attr:`notes` says which."""
        n: int = lib.llmmem_plan_global_batch(self._h)
        return n

    @property
    @_wraps("llmmem_plan_note_count", "llmmem_plan_note")
    def notes(self) -> List[str]:
        """What the plan assumed (where the global batch came from)."""
        return [_s(lib.llmmem_plan_note(self._h, i)) or "" for i in range(lib.llmmem_plan_note_count(self._h))]

    @property
    @_wraps("llmmem_plan_candidates")
    def candidates(self) -> int:
        """Candidates considered."""
        n: int = lib.llmmem_plan_candidates(self._h)
        return n

    @_wraps("llmmem_plan_rejected")
    def rejected(self, reason: Union[None, str, int] = None) -> Any:
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
        d: Dict[str, Any] = json.loads(self._dict)
        return d

    def __repr__(self) -> str:
        if not self._h:
            return "<llmmem.Plan (closed)>"
        n = len(self)
        best = ", best %.3g s/step at %s" % (self.step_time(0), _gib(self.peak_bytes(0))) if n else ""
        return "<llmmem.Plan %d layouts of %d candidates%s>" % (n, self.candidates, best)


_ffi.HANDLE_CLASSES["llmmem_plan"] = Plan


def plan(model: ModelLike, config: Optional[Config] = None, *, top_k: int = 10, **params: Any) -> Plan:
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


plan.__doc__ = (plan.__doc__ or "") + "\n\n" + _doc("llmmem_plan_layouts")


_TIMELINE_FORMATS = {"json": 0, "svg": 1, "snapshot": 2}


def timeline(model: ModelLike, config: Optional[Config] = None, *, format: str = "json", **params: Any) -> Any:
    """The estimate's allocation timeline replayed through the model of PyTorch's caching
    allocator (``llmmem_timeline``): ``format="json"`` (a dict: active bytes by category and
    reserved bytes over the events, the phases), ``"svg"`` (the chart, as text) or
    ``"snapshot"`` (the dict ``torch.cuda.memory._snapshot()`` returns, for
    pytorch.org/memory_viz). Single-GPU training and HF generate only."""
    if format not in _TIMELINE_FORMATS:
        raise ValueError("format %r: one of %s" % (format, ", ".join(_TIMELINE_FORMATS)))
    fmt = _TIMELINE_FORMATS[format]

    def call(mh: Any, ch: Any) -> str:
        return _text(lambda buf, cap, need: lib.llmmem_timeline(buf, cap, need, mh, ch, fmt))

    text = _with_params(call, model, config, params)
    return text if format == "svg" else json.loads(text)


def _plan_i64(fn: Callable[..., int], model: ModelLike, config: Optional[Config], params: Dict[str, Any]) -> int:
    out = c_int64()
    _check(_with_params(fn, model, config, params, byref(out)))
    return out.value


def max_batch(model: ModelLike, config: Optional[Config] = None, **params: Any) -> int:
    """Largest micro_batch_size (inference: batch_size) that fits; 0 when even 1 does not."""
    return _plan_i64(lib.llmmem_plan_max_batch, model, config, params)


def max_seq_len(model: ModelLike, config: Optional[Config] = None, **params: Any) -> int:
    """Longest seq_len (inference: prompt + decode) that fits; 0 when even 1 token does not."""
    return _plan_i64(lib.llmmem_plan_max_seq_len, model, config, params)


def min_gpus(model: ModelLike, config: Optional[Config] = None, **params: Any) -> int:
    """Fewest GPUs of the configured kind that fit."""
    return _plan_i64(lib.llmmem_plan_min_gpus, model, config, params)


for _f, _n in ((max_batch, "llmmem_plan_max_batch"), (max_seq_len, "llmmem_plan_max_seq_len"),
               (min_gpus, "llmmem_plan_min_gpus")):
    _f.__doc__ = (_f.__doc__ or "") + "\n\n" + _doc(_n)
del _f, _n
