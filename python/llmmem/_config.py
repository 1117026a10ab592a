"""Configurations (``llmmem_config``): the parameters with their types, defaults and bounds,
the rule of which keywords apply, setting and reading values, framework files, and the
configurations that estimate() and the planner make from keyword arguments (kept, or
pooled scratch ones)."""

from __future__ import annotations

import json
import os
from ctypes import byref, c_double, c_int, c_int64, c_void_p
from typing import (Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple,
                    Type, TypeVar, Union)

from . import _ffi
from ._base import (_I64_MAX, _I64_MIN, _INT_MAX, _INT_MIN, TYPE_BOOL, TYPE_ENUM, TYPE_F64, TYPE_I64,
                    TYPE_STR, TYPE_U64, PathLike, _b, _Handle, _int, _new, _suggest, _text, _wraps)
from ._errors import InapplicableParameterError, UnknownParameterError, _check, _raise, _s
from ._ffi import fast as _fast, lib
from ._models import ModelLike, _model



class _Param:
    """A configuration parameter as the library describes it (read once at import)."""

    __slots__ = ("id", "name", "type", "doc", "bounds", "default", "values", "index")
    id: int
    name: str
    type: int
    doc: str
    bounds: Optional[Tuple[Any, Any]]
    default: Any
    values: Optional[Tuple[str, ...]]
    index: Optional[Dict[str, int]]

    def record(self) -> Dict[str, Any]:
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


def params() -> List[Dict[str, Any]]:
    """Every configuration parameter as a record: id, name, type ("int", "float", "bool",
    "enum", "str"), doc, default, bounds, values (enums). A list of dicts (pandas-ready)."""
    return [p.record() for p in _PARAMS.values()]


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
             "qlora_double_quant", "qlora_compute_dtype", "qlora_quantize_head", "vision_training")
_INFERENCE = ("batch_size", "prompt_len", "decode_len", "runtime", "kv_cache_dtype", "quant_bits",
              "quant_group_size", "weights_format")
_VLLM = ("gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs", "kv_block_size",
         "max_model_len", "cuda_graphs", "encoder_cache", "cpu_offload_gb", "swap_space")
_ZERO = ("offload_optimizer", "offload_param", "overlap_comm", "stage3_max_live_parameters",
         "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
         "zero_hpz_partition_size", "zero_init")
_LLAMA_CPP = ("n_gpu_layers", "ctx_size", "n_batch", "n_ubatch", "n_parallel", "cache_type_k",
              "cache_type_v", "flash_attn", "kv_unified", "swa_full", "n_cpu_moe", "no_kv_offload",
              "override_tensor")
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


# A parameter's value: int, float, bool, str (an enum value name, or text parsed by the
# parameter's type), or a list of names for a text list.
ParamValue = Union[int, float, bool, str, Sequence[str]]
# A JSON document: a dict (or list), the path of a file, or its text.
JsonSource = Union[Mapping[str, Any], List[Any], PathLike, bytes]
# A framework's YAML: a path, or its text.
YamlSource = Union[PathLike, bytes]

_C = TypeVar("_C", bound="Config")


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
    def __init__(self, _values: Optional[Mapping[str, Any]] = None, **params: Any) -> None:
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
    def _wrap(cls: Type[_C], h: Any) -> _C:
        c = cls.__new__(cls)
        c._h = h
        return c

    @_wraps("llmmem_config_clone")
    def copy(self) -> Config:
        """An independent copy."""
        return Config._wrap(_new(lib.llmmem_config_clone, self._h))

    clone = copy

    @_wraps("llmmem_config_reset")
    def reset(self) -> None:
        """Every parameter back to its default."""
        _check(lib.llmmem_config_reset(self._h))

    def update(self, _values: Optional[Mapping[str, Any]] = None, **params: Any) -> Config:
        """Applies parameters (a dict and/or keywords; each must apply); returns self."""
        values = dict(_values or {})
        values.update(params)
        _apply(self._h, values)
        return self

    def set(self, name: str, value: ParamValue) -> None:
        """Sets one parameter from a Python value (int, float, bool, str: an enum value name,
        or text parsed by the parameter's type, as ``--name value`` on the command line)."""
        _set(self._h, _param(name), value)

    def get(self, name: str) -> Any:
        """A parameter's value: int, float, bool, or str (enum value name or text)."""
        return _get(self._h, _param(name))

    __getitem__ = get
    __setitem__ = set

    def __getattr__(self, name: str) -> Any:
        if name in _PARAMS:
            return _get(self._h, _PARAMS[name])
        raise AttributeError("llmmem.Config has no attribute %r" % name)

    def __contains__(self, name: object) -> bool:
        try:
            _param(name)
            return True
        except (UnknownParameterError, TypeError):
            return False

    def keys(self) -> List[str]:
        return [p.name for p in _PARAMS_BY_ID.values()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(_PARAMS_BY_ID)

    def items(self) -> List[Tuple[str, Any]]:
        return [(k, self.get(k)) for k in self.keys()]

    @_wraps("llmmem_config_to_json")
    def to_json(self) -> str:
        """Every parameter as a flat JSON object of name: value."""
        return _text(lib.llmmem_config_to_json, self._h)

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = json.loads(self.to_json())
        return d

    def changed(self) -> Dict[str, Any]:
        """The parameters that differ from their defaults."""
        return {k: v for k, v in self.items() if v != _PARAMS[k].default}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self._h:
            return "<llmmem.Config (closed)>"
        return "llmmem.Config(%s)" % ", ".join("%s=%r" % kv for kv in self.changed().items())

    # framework files

    @classmethod
    @_wraps("llmmem_config_apply_deepspeed_json")
    def from_deepspeed_config(cls, source: JsonSource, model: Optional[ModelLike] = None, **params: Any) -> Config:
        """A configuration from a DeepSpeed ``ds_config.json`` (path, text or dict); "auto"
        values are resolved from ``model`` where HF Trainer would. Keywords apply after."""
        c = cls()
        c.apply_deepspeed(source, model)
        return c.update(params) if params else c

    @classmethod
    @_wraps("llmmem_config_apply_hf_training_args_json")
    def from_hf_training_args(cls, source: JsonSource, **params: Any) -> Config:
        """A configuration from HF ``TrainingArguments`` saved as JSON (path, text or dict;
        LLaMA-Factory keys too). Keywords apply after."""
        c = cls()
        c.apply_hf_training_args(source)
        return c.update(params) if params else c

    @_wraps("llmmem_config_apply_deepspeed_json")
    def apply_deepspeed(self, source: JsonSource, model: Optional[ModelLike] = None) -> Config:
        """Applies a DeepSpeed config (path, text or dict) to this configuration."""
        data = _json_bytes(source)
        mo = None if model is None else _model(model)
        _check(lib.llmmem_config_apply_deepspeed_json(self._h, mo, data, len(data)))
        return self

    @_wraps("llmmem_config_apply_hf_training_args_json")
    def apply_hf_training_args(self, source: JsonSource) -> Config:
        """Applies HF TrainingArguments (path, text or dict) to this configuration."""
        data = _json_bytes(source)
        _check(lib.llmmem_config_apply_hf_training_args_json(self._h, data, len(data)))
        return self

    @_wraps("llmmem_config_apply_calibration_json")
    def apply_calibration(self, source: JsonSource) -> Config:
        """Applies a calibration profile (path, text or dict; docs/calibration.md)."""
        data = _json_bytes(source)
        _check(lib.llmmem_config_apply_calibration_json(self._h, data, len(data)))
        return self

    @_wraps("llmmem_config_clear_calibration")
    def clear_calibration(self) -> Config:
        """Back to the identity (no calibration profile)."""
        _check(lib.llmmem_config_clear_calibration(self._h))
        return self

    @classmethod
    @_wraps("llmmem_config_apply_framework_yaml", "llmmem_config_apply_framework_file")
    def from_framework_config(cls, source: YamlSource, kind: Union[str, int] = "auto",
                              model: Optional[ModelLike] = None, **params: Any) -> Config:
        """A configuration from a framework's YAML file (a torchtune recipe config, an
        axolotl config, an accelerate config, a LLaMA-Factory training file; path or text).
        ``kind`` is one of :func:`framework_names` ("auto" detects it). Keywords apply after."""
        c = cls()
        c.apply_framework(source, kind, model)
        return c.update(params) if params else c

    @_wraps("llmmem_config_apply_framework_yaml", "llmmem_config_apply_framework_file")
    def apply_framework(self, source: YamlSource, kind: Union[str, int] = "auto",
                        model: Optional[ModelLike] = None) -> Config:
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
    def apply_framework_file(self, path: PathLike, kind: Union[str, int] = "auto",
                             model: Optional[ModelLike] = None) -> Config:
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
def framework_detect(source: YamlSource) -> str:
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


_PARAMS: Dict[str, _Param] = {}  # canonical name -> _Param
_PARAMS_BY_ID: Dict[int, _Param] = {}
_ALIASES: Dict[str, _Param] = {}  # other spellings the library accepts, as they are met
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


_ffi.HANDLE_CLASSES["llmmem_config"] = Config


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
_KW_CONFIGS: Dict[Tuple[Any, ...], c_void_p] = {}  # _kw_key(params) -> config handle
_KW_MAX = 256
_SCRATCH: List[List[Any]] = []  # [handle, {canonical name: (type, value) set on it}]
_POOL_MAX = 16  # handles kept in a pool (scratch configurations here, results in _results)


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

