"""Results (``llmmem_result``) and :func:`estimate`, the call a loop makes.

A :class:`Result`'s attributes are typed (``py.typed``): the scalar result keys of the
library (bytes and counts as ``int``, ``fits`` and ``approximate`` as ``bool``, the phase
and dtype keys as their names), and the JSON's phases, components, stages, terms, inputs
and notes as typed records. test/python/test_typing.py holds the annotations to the
library's own key types and runs mypy --strict on a script that reads them."""

from __future__ import annotations

import html
import json
import os
import sys
import threading
import weakref
from ctypes import byref, c_char_p, c_double, c_int64, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, TypedDict, Union

from . import _ffi
from ._base import (_INT_MAX, _INT_MIN, TYPE_BOOL, TYPE_ENUM, TYPE_F64, TYPE_I64, TYPE_U64, _doc, _enum_id, _gib,
                    _Handle, _int, _new, _suggest, _text, _wraps)
from ._config import _POOL_MAX, Config, _config_h, _kw_config, _scratch_call, _with_params
from ._errors import NotEstimatedError, _check, _raise, _s
from ._ffi import fast as _fast, lib
from ._library import _COMPONENTS, _PHASES, _RKEY_IDS
from ._models import _PRESET_MODELS, Model, ModelLike, _model


class PhaseRecord(TypedDict):
    """A phase of :attr:`Result.phases`: its live bytes and their components."""

    total: int
    components: Dict[str, int]


class TermRecord(TypedDict):
    """A term of :attr:`Result.terms`: name, formula (with the source it mirrors), bytes."""

    name: str
    formula: str
    bytes: int


class ExplainRecord(TermRecord):
    """A record of :meth:`Result.explain`: a term and its size in GiB."""

    gib: float


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


_RKEYS: Dict[Any, Any] = {name: _result_key(kid) for name, kid in _RKEY_IDS.items()}

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


_RESULTS: List[Any] = []  # result handles of collected Results (up to _POOL_MAX)


class Result(_Handle):
    """The result of an estimate (``llmmem_result``).

    Every key of :meth:`to_dict` reads as an item or an attribute: the scalar result keys
    (``peak_allocated_bytes``, ``fits``, ``peak_phase``, ...) straight from the library,
    the others (``engine``, ``mode``, ``phases``, ``terms``, ...) from the JSON. A result
    no estimate has filled raises :class:`NotEstimatedError`."""

    # _state: None before an estimate (or after one failed), True after one, then the JSON
    # text once to_dict() has read it.
    __slots__ = ("_state",)
    _state: Union[None, bool, str]
    _free = staticmethod(lib.llmmem_result_free)
    _no_copy = _no_pickle = ": to_dict() and to_json() keep its values"

    # The scalar result keys (llmmem_result_key; docs/json-schema.md), read straight from the
    # library by a property each (made below from the library's own list, so a key the
    # library adds reads at once): u64 and i64 as int, f64 as float, bool as bool, enum as
    # its value's name. These annotations type them; test_typing.py holds them to the
    # library's key types.
    params: int
    trainable_params: int
    peak_allocated_bytes: int
    peak_reserved_bytes: int
    total_bytes_per_gpu: int
    gpu_memory_bytes: int
    cuda_context_bytes: int
    peak_phase: str
    fits: bool
    utilization: float
    headroom_bytes: int
    gpus_needed: int
    num_gpus: int
    host_bytes: int
    nvme_bytes: int
    weights_bytes: int
    persistent_bytes: int
    forward_saved_bytes: int
    kv_cache_bytes: int
    kv_bytes_per_token: int
    max_concurrent_seqs: int
    max_context_tokens: int
    kv_blocks: int
    pipeline_stages: int
    peak_stage: int
    active_params: int
    kv_available_bytes: int
    kv_tokens: int
    max_concurrency: float
    profile_peak_bytes: int
    non_torch_bytes: int
    cuda_graph_bytes: int
    kv_block_tokens: int
    requested_bytes: int
    param_dtype: str
    compute_dtype: str
    master_dtype: str
    grad_dtype: str
    optimizer_state_dtype: str
    managed_bytes: int
    load_peak_bytes: int
    approximate: bool
    margin_bytes: int
    max_model_len: int
    estimated_max_model_len: int
    host_pinned_bytes: int
    host_pageable_bytes: int
    host_load_peak_bytes: int
    host_memory_bytes: int
    fits_host: bool

    def close(self) -> None:
        """Frees the C result (a later estimate() may reuse it)."""
        h = self._h
        if h:
            self._h = self._state = None
            if len(_RESULTS) < _POOL_MAX:
                _RESULTS.append(h)
            else:
                _fast.llmmem_result_free(h)

    def __del__(self) -> None:
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
    def __init__(self) -> None:
        """An empty result; :meth:`estimate` fills it."""
        self._h = _new(lib.llmmem_result_new)
        self._state = None

    @_wraps("llmmem_estimate")
    def estimate(self, model: ModelLike, config: Optional[Config] = None, **params: Any) -> Result:
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

    def _live(self) -> Any:
        if self._state is None:
            raise NotEstimatedError()
        return self._h

    def get(self, key: Union[str, int], default: Any = None) -> Any:
        """The value of a key of :meth:`to_dict`, or ``default`` when there is no such key."""
        try:
            return self[key]
        except KeyError:
            return default

    def __getitem__(self, key: Union[str, int]) -> Any:
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

    def _other(self, key: Any) -> Any:
        if self._state is None:
            raise NotEstimatedError()
        if isinstance(key, int) and not isinstance(key, bool):
            for name, v in _RKEYS.items():
                if v[0] == key:
                    return self[name]
            raise KeyError(key)
        d: Dict[Any, Any] = self.to_dict()
        if key in d:
            return d[key]
        raise KeyError(key)

    if not TYPE_CHECKING:  # the typed attributes are declared; mypy flags any other name
        def __getattr__(self, name):
            if name.startswith("_"):
                raise AttributeError(name)
            try:
                return self[name]
            except KeyError:
                raise AttributeError("llmmem.Result has no attribute %r%s" % (
                    name, _suggest(name, self.keys()))) from None

    def __contains__(self, key: object) -> bool:
        return key in _RKEYS or key in self.to_dict()

    def keys(self) -> List[str]:
        return list(self.to_dict())

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def __bool__(self) -> bool:  # not len(): a result is true without being serialised
        return True

    def items(self) -> List[Tuple[str, Any]]:
        return list(self.to_dict().items())

    def values(self) -> List[Any]:
        return list(self.to_dict().values())

    # The keys of the JSON that are not scalar result keys, typed.

    @property
    def mode(self) -> str:
        """``training`` or ``inference``."""
        v: str = self._other("mode")
        return v

    @property
    def engine(self) -> str:
        """The ``engine`` parameter's value name (``single``, ``zero``, ``fsdp``, ...)."""
        v: str = self._other("engine")
        return v

    @property
    def model_type(self) -> str:
        """The model's ``model_type`` (``"raw"`` for raw numbers)."""
        v: str = self._other("model_type")
        return v

    @property
    def components(self) -> Dict[str, int]:
        """{component: live bytes} in the peak phase (every component, zeros included)."""
        v: Dict[str, int] = self._other("components")
        return v

    @property
    def phases(self) -> Dict[str, PhaseRecord]:
        """{phase: {"total": bytes, "components": {component: bytes}}}, the phases the
        estimator used (training: forward, backward, optimizer; inference: prefill, decode)."""
        v: Dict[str, PhaseRecord] = self._other("phases")
        return v

    @property
    def stages(self) -> List[int]:
        """Peak allocated bytes of each pipeline stage (one without pipeline parallelism)."""
        v: List[int] = self._other("stages")
        return v

    @_wraps("llmmem_result_component_bytes")
    def component_bytes(self, phase: Union[str, int], component: Union[str, int]) -> int:
        """Live bytes of a component (name or id) in a phase (name or id)."""
        out = c_uint64()
        _check(_fast.llmmem_result_component_bytes(byref(out), self._live(), _enum_id(_PHASES, phase, "phase"),
                                                   _enum_id(_COMPONENTS, component, "component")))
        return out.value

    @_wraps("llmmem_result_phase_bytes")
    def phase_bytes(self, phase: Union[str, int]) -> int:
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
    def terms(self) -> List[TermRecord]:
        """[{"name", "formula" (with its source), "bytes"}, ...], as in to_dict()."""
        h = self._live()
        out: List[TermRecord] = []
        for i in range(lib.llmmem_result_term_count(h)):
            n, f, b = c_char_p(), c_char_p(), c_uint64()
            _check(lib.llmmem_result_term(byref(n), byref(f), byref(b), h, i))
            out.append({"name": _s(n.value), "formula": _s(f.value), "bytes": b.value})
        return out

    @property
    @_wraps("llmmem_result_input")
    def inputs(self) -> Dict[str, int]:
        """{symbol: value}: the inputs the terms' formulas use, as in to_dict()."""
        h = self._live()
        out: Dict[str, int] = {}
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

    def explain(self) -> List[ExplainRecord]:
        """Every term of the estimate as a record: name, formula (with its source), bytes,
        GiB. ``pandas.DataFrame(r.explain())`` makes a table of it."""
        return [dict(t, gib=t["bytes"] / 2**30) for t in self.terms]  # type: ignore[misc]

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
        d: Dict[str, Any] = json.loads(state)
        return d

    def __repr__(self) -> str:
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

    def _repr_html_(self) -> str:
        if not self._h or self._state is None:
            return html.escape(repr(self))
        return _html(self.to_dict())


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


def _key_property(name: str) -> property:
    """The property of scalar result key ``name``: ``r.fits`` is ``r["fits"]``."""

    def get(self: Result) -> Any:
        return self[name]

    get.__name__ = name
    return property(get, doc="The result key %s (llmmem_result_get_*; docs/json-schema.md)." % name)


for _name in _RKEY_IDS:
    if _name not in Result.__dict__:
        setattr(Result, _name, _key_property(_name))
del _name


def estimate(model: ModelLike, config: Optional[Config] = None, **params: Any) -> Result:
    """Estimates the per-GPU memory of a training step or an inference run.

    ``model``: a :class:`Model`, a preset name (:func:`presets`), a Hugging Face id
    (``"meta-llama/Llama-3.1-8B-Instruct"``: its preset, or its config.json in the local
    Hugging Face cache, :meth:`Model.from_pretrained`), a ``config.json`` path (or its
    folder), or the config as a dict. ``config``: a :class:`Config`, or None for
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
        mo = (_preset_model(model) if type(model) is str else None) or _model(model)
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
_SPARE: List[Result] = []


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


_estimate = _fast.llmmem_estimate
# The presets _model() has built. A bound method, not _PRESET_MODELS.get(...): CPython 3.11
# compiles a method call on an imported name as an attribute read and a call (a bound
# method made and freed each time), about 350 instructions more per estimate().
_preset_model = _PRESET_MODELS.get


_object_new = object.__new__
_ONE_LOCAL = _one_local_refs() if _SPARE_ON else -1


estimate.__doc__ = (estimate.__doc__ or "") + "\n\n" + _doc("llmmem_estimate")


_ffi.HANDLE_CLASSES["llmmem_result"] = Result
