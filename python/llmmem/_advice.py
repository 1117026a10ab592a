"""Advice (``llmmem_plan_advise``): what to change so that a run fits, ranked, each
suggestion an exact estimate of the changed run (docs/planner.md "Advice")."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, NamedTuple, Optional

from . import _ffi
from ._base import _INT_MAX, _INT_MIN, _doc, _gib, _Handle, _int, _new, _text, _wraps
from ._config import Config, _with_params
from ._errors import _check, _s
from ._ffi import lib
from ._models import ModelLike
from ._results import Result, estimate


class Suggestion(NamedTuple):
    """One suggestion of :func:`advise`: the change in words, its settings as command-line
    flags (``llmmem estimate ... FLAGS``), whether it keeps the run (same model, numerics
    and workload), and its estimate."""

    rank: int
    change: str
    flags: str
    keeps_run: bool
    fits: bool
    total_bytes_per_gpu: int
    peak_allocated_bytes: int
    gpu_memory_bytes: int
    headroom_bytes: int
    num_gpus: int
    approximate: bool
    step_time_s: float


class Advice(_Handle):
    """Ranked suggestions from :func:`advise`: ``len(a)``, ``a[i]`` (a :class:`Suggestion`,
    best first), ``a.result(i)`` and ``a.config(i)`` (the changed run's estimate and
    configuration), ``a.as_given`` (the run as given), :meth:`to_dict`."""

    __slots__ = ("_dict",)
    _dict: Optional[Dict[str, Any]]
    _free = staticmethod(lib.llmmem_advice_free)
    _no_copy = _no_pickle = ": to_dict() and to_json() keep its suggestions"

    @_wraps("llmmem_advice_new")
    def __init__(self) -> None:
        self._h = _new(lib.llmmem_advice_new)
        self._dict = None

    @_wraps("llmmem_plan_advise")
    def advise(self, model: ModelLike, config: Optional[Config] = None, **params: Any) -> Advice:
        """Finds the suggestions for the run; returns self."""
        self._dict = None
        _check(_with_params(lambda mh, ch: lib.llmmem_plan_advise(self._h, mh, ch), model, config, params))
        return self

    def __len__(self) -> int:
        return _check(lib.llmmem_advice_count(self._h))

    def _suggestions(self) -> List[Suggestion]:
        return [Suggestion(**s) for s in self.to_dict()["suggestions"]]

    def __getitem__(self, index: int) -> Suggestion:
        return self._suggestions()[index]

    def __iter__(self) -> Iterator[Suggestion]:
        return iter(self._suggestions())

    @property
    def as_given(self) -> Dict[str, Any]:
        """The run as given: fits, total_bytes_per_gpu, gpu_memory_bytes, num_gpus, ..."""
        d: Dict[str, Any] = self.to_dict()["as_configured"]
        return d

    @_wraps("llmmem_advice_result")
    def result(self, index: int) -> Result:
        """The estimate of suggestion ``index`` (-1: the run as given) as a new :class:`Result`."""
        r = Result()
        _check(lib.llmmem_advice_result(r, self._h, _int(index, "index", _INT_MIN, _INT_MAX)))
        r._state = True
        return r

    @_wraps("llmmem_advice_config")
    def config(self, index: int = 0) -> Config:
        """The configuration of suggestion ``index`` as a new :class:`Config`."""
        return Config._wrap(_new(lib.llmmem_advice_config, self._h, _int(index, "index", _INT_MIN, _INT_MAX)))

    @_wraps("llmmem_advice_change")
    def change(self, index: int) -> str:
        """Suggestion ``index`` in words."""
        text = _s(lib.llmmem_advice_change(self._h, _int(index, "index", _INT_MIN, _INT_MAX)))
        if text is None:
            raise IndexError("suggestion %d: the advice has %d" % (index, len(self)))
        return text

    @_wraps("llmmem_advice_to_json")
    def to_json(self) -> str:
        """The advice as JSON (docs/planner.md "Advice")."""
        return _text(lib.llmmem_advice_to_json, self._h)

    def to_dict(self) -> Dict[str, Any]:
        if self._dict is None:
            self._dict = json.loads(self.to_json())
        assert self._dict is not None
        return self._dict

    def __repr__(self) -> str:
        if not self._h:
            return "<llmmem.Advice (closed)>"
        n = len(self)
        if not n:
            return "<llmmem.Advice: no suggestion>"
        s = self[0]
        return "<llmmem.Advice %d suggestions, best: %s (%s per GPU, %s)>" % (
            n, s.change, _gib(s.total_bytes_per_gpu), "fits" if s.fits else "does not fit")


_ffi.HANDLE_CLASSES["llmmem_advice"] = Advice


def advise(model: ModelLike, config: Optional[Config] = None, **params: Any) -> Advice:
    """What to change so that the run fits (or has the most headroom): activation
    checkpointing, micro-batch with accumulation, ZeRO / FSDP over N GPUs, offload, TP,
    8-bit optimizers, LoRA / QLoRA, a shorter sequence; for serving TP, the KV dtype,
    max_model_len. Each :class:`Suggestion` is an estimate of the changed run, ranked:
    fits, keeps the run, fewer GPUs, step time. ``advise("llama-3.1-8b", seq_len=8192,
    gpu="H100-80GB")[0].flags``."""
    a = Advice()
    try:
        return a.advise(model, config, **params)
    except BaseException:
        a.close()
        raise


advise.__doc__ = (advise.__doc__ or "") + "\n\n" + _doc("llmmem_plan_advise")


class GpuFit(NamedTuple):
    """One GPU of the table in :func:`which_gpus`: its memory, the verdict, the total per
    GPU and the headroom of the run on it."""

    name: str
    memory_bytes: int
    fits: bool
    total_bytes_per_gpu: int
    headroom_bytes: int


def which_gpus(model: ModelLike, config: Optional[Config] = None, **params: Any) -> List[GpuFit]:
    """Which cards fit the run: the run estimated on each GPU of the table (its memory,
    CUDA context and cuBLAS workspace), as ``llmmem gpus [inputs]`` prints it. ``gpu`` and
    ``gpu_memory_bytes`` are refused: the table's GPUs are the question."""
    for k in ("gpu", "gpu_memory_bytes"):
        if k in params or (config is not None and k in config.changed()):
            raise ValueError("which_gpus: %s: the table's GPUs are compared (drop it)" % k)
    out: List[GpuFit] = []
    for i in range(lib.llmmem_gpu_count()):
        name = _s(lib.llmmem_gpu_name(i)) or ""
        r = estimate(model, config, **dict(params, gpu=name))
        out.append(GpuFit(name, r.gpu_memory_bytes, r.fits, r.total_bytes_per_gpu, r.headroom_bytes))
    return out
