"""Models (``llmmem_model``): from a preset, a Hugging Face id, a config.json, or raw numbers."""

from __future__ import annotations

import json
import os
from ctypes import byref, c_int64
from typing import Any, Dict, List, Mapping, Type, TypeVar, Union

from . import _ffi
from ._base import _INT_MAX, _INT_MIN, PathLike, _b, _Handle, _int, _new, _suggest, _text, _wraps
from ._errors import E_UNKNOWN_PARAM, Error, UnknownParameterError, _check, _raise, _s
from ._ffi import fast as _fast, lib
from ._library import _MKEYS, _preset_names, presets

# What estimate() and the planner take as a model.
ModelLike = Union["Model", str, "os.PathLike[str]", Mapping[str, Any]]


def hub_cache() -> str:
    """The Hugging Face cache folder, as huggingface_hub's ``constants.py`` decides it:
    ``$HF_HUB_CACHE``, else ``$HUGGINGFACE_HUB_CACHE``, else ``$HF_HOME/hub``, where
    ``HF_HOME`` defaults to ``$XDG_CACHE_HOME/huggingface``, then ``~/.cache/huggingface``
    (``~`` and ``$VAR`` expanded). The library itself reads no environment variable: this is
    what the package passes it (docs/models.md, "Models by their Hugging Face id")."""
    env = os.environ
    home = os.path.expandvars(os.path.expanduser(env.get(
        "HF_HOME", os.path.join(env.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")),
                                "huggingface"))))
    return os.path.expandvars(os.path.expanduser(env.get(
        "HF_HUB_CACHE", env.get("HUGGINGFACE_HUB_CACHE", os.path.join(home, "hub")))))


def _cache_arg(cache: Union[None, bool, PathLike]) -> Any:
    """The cache folder argument: None = hub_cache(), False or "" = none."""
    if cache is None:
        return _b(hub_cache(), "hub_cache")
    if cache is False or cache == "":
        return None
    return _b(cache, "hub_cache")

_M = TypeVar("_M", bound="Model")


class Model(_Handle):
    """A model description (``llmmem_model``): architecture fields and exact parameter counts.

    Made from a HuggingFace config (:meth:`from_hf_config`), a preset (:meth:`from_preset`)
    or raw numbers (:meth:`from_numbers`). Fields read as items or attributes:
    ``m["hidden_size"]``, ``m.params``; :meth:`to_dict` has everything."""

    __slots__ = ()
    _free = staticmethod(lib.llmmem_model_free)

    @_wraps("llmmem_model_new")
    def __init__(self, **fields: Union[int, str]) -> None:
        """An empty dense decoder to describe with raw numbers (see :meth:`from_numbers`)."""
        self._h = _new(lib.llmmem_model_new)
        for k, v in fields.items():
            self.set(k, v)

    @classmethod
    def _wrap(cls: Type[_M], h: Any) -> _M:
        m = cls.__new__(cls)
        m._h = h
        return m

    @classmethod
    @_wraps("llmmem_model_from_preset")
    def from_preset(cls, name: str) -> Model:
        """A built-in model (:func:`presets`); UnknownParameterError if there is none of that name."""
        try:
            return cls._wrap(_new(lib.llmmem_model_from_preset, _b(name, "preset name")))
        except Error as e:
            if e.status == E_UNKNOWN_PARAM:
                raise UnknownParameterError(e.message + _suggest(name, list(presets()))) from None
            raise

    @classmethod
    @_wraps("llmmem_model_from_pretrained")
    def from_pretrained(cls, name: PathLike, hub_cache: Union[None, bool, PathLike] = None) -> Model:
        """A model named as ``from_pretrained`` names it, found offline: a ``config.json`` path
        or a folder holding one; a preset, or a Hugging Face id whose config.json is a
        preset's (``"meta-llama/Llama-3.1-8B-Instruct"``: the note says which); else the id's
        ``config.json`` in the local Hugging Face cache ``hub_cache`` (default
        :func:`hub_cache`; False: look in none), as huggingface_hub finds it (refs/main).
        UnknownParameterError names where it looked and the nearest presets."""
        try:
            return cls._wrap(_new(lib.llmmem_model_from_pretrained, _b(name, "model name"), _cache_arg(hub_cache)))
        except Error as e:
            if e.status == E_UNKNOWN_PARAM:
                raise UnknownParameterError(e.message) from None
            raise

    @classmethod
    @_wraps("llmmem_model_from_framework_file")
    def from_framework_file(cls, path: PathLike, kind: Union[str, int] = "auto",
                            hub_cache: Union[None, bool, PathLike] = None) -> Model:
        """The model a framework YAML names (axolotl ``base_model``, LLaMA-Factory
        ``model_name_or_path``, torchtune ``checkpointer.checkpoint_dir`` or
        ``model._component_``), found as :meth:`from_pretrained` finds it; errors name the
        file, the key and line:column. ``kind``: :func:`framework_names` ("auto" detects it)."""
        from ._config import _framework_kind
        return cls._wrap(_new(lib.llmmem_model_from_framework_file, _framework_kind(kind), _b(path, "path"),
                              _cache_arg(hub_cache)))

    @classmethod
    @_wraps("llmmem_model_from_hf_file", "llmmem_model_from_hf_json")
    def from_hf_config(cls, source: Union[PathLike, Mapping[str, Any]]) -> Model:
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
    def from_gguf(cls, path: PathLike) -> Model:
        """A model from a GGUF file (llama.cpp's format): only its header is read; the
        tensors' types and shapes give the weights exactly (runtime ``llama_cpp``)."""
        return cls._wrap(_new(lib.llmmem_model_from_gguf_file, _b(path, "path")))

    @classmethod
    @_wraps("llmmem_model_from_gguf")
    def from_gguf_bytes(cls, data: bytes, file_size: int = 0) -> Model:
        """A model from the first bytes of a GGUF file of ``file_size`` bytes (0: ``data`` is
        the whole file); raises Error (status LLMMEM_E_BUFFER_TOO_SMALL) while the header goes
        on past ``data``: read more of the file and call again."""
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("data must be bytes, not %s" % type(data).__name__)
        return cls._wrap(_new(lib.llmmem_model_from_gguf, bytes(data), len(data), int(file_size)))

    @classmethod
    @_wraps("llmmem_model_from_hf_file")
    def from_hf_file(cls, path: PathLike) -> Model:
        """A model from a HuggingFace ``config.json`` file."""
        return cls._wrap(_new(lib.llmmem_model_from_hf_file, _b(path, "path")))

    @classmethod
    @_wraps("llmmem_model_from_hf_json")
    def from_hf_json(cls, text: Union[str, bytes]) -> Model:
        """A model from the text of a HuggingFace ``config.json``."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        return cls._wrap(_new(lib.llmmem_model_from_hf_json, data, len(data)))

    @classmethod
    @_wraps("llmmem_model_set")
    def from_numbers(cls, **fields: Union[int, str]) -> Model:
        """A dense decoder from raw numbers: ``Model.from_numbers(num_parameters="7B",
        num_layers=32)`` (model keys, :func:`model_key_names`)."""
        return cls(**fields)

    @classmethod
    def load(cls, source: ModelLike) -> Model:
        """A :class:`Model` from whatever :func:`estimate` accepts as a model: a Model (returned
        as it is), a preset name, a Hugging Face id (:meth:`from_pretrained`), a
        ``config.json`` path or folder, a GGUF file, or a config dict."""
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
            if isinstance(source, str) and not source.endswith(".json") and source.count("/") <= 1:
                return cls.from_pretrained(source)  # a preset, a Hugging Face id (its preset, or the cache)
            return cls.from_hf_file(path)  # the library's E_IO names the file
        raise TypeError("a model must be a llmmem.Model, a preset name, a config.json path or a "
                        "dict, not %s" % type(source).__name__)

    @_wraps("llmmem_model_clone")
    def copy(self) -> Model:
        """An independent copy."""
        return Model._wrap(_new(lib.llmmem_model_clone, self._h))

    clone = copy

    def _key(self, key: Union[str, int]) -> int:
        if type(key) is str:
            try:
                return _MKEYS[key]
            except KeyError:
                raise UnknownParameterError("no model key %r%s" % (key, _suggest(key, list(_MKEYS)))) from None
        if isinstance(key, int) and not isinstance(key, bool):
            return _int(key, "model key", _INT_MIN, _INT_MAX)
        raise TypeError("a model key is a name (str), not %s" % type(key).__name__)

    @_wraps("llmmem_model_set_i64", "llmmem_model_set")
    def set(self, name: Union[str, int], value: Union[int, str, bytes]) -> None:
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
    def get(self, key: Union[str, int]) -> int:
        """A field or an exact count (``"params"``, ``"params_active"``, ...)."""
        out = c_int64()
        rc = _fast.llmmem_model_get_i64(byref(out), self._h, self._key(key))
        if rc:
            _raise(rc)
        return out.value

    __getitem__ = get
    __setitem__ = set

    def __getattr__(self, name: str) -> int:
        if name in _MKEYS:
            return self.get(name)
        raise AttributeError("llmmem.Model has no attribute %r" % name)

    def __contains__(self, key: object) -> bool:
        return key in _MKEYS

    def keys(self) -> List[str]:
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
        d: Dict[str, Any] = json.loads(self.to_json())
        return d

    def __repr__(self) -> str:
        if not self._h:
            return "<llmmem.Model (closed)>"
        p = self.get("params")
        return "<llmmem.Model %s: %s parameters, %d layers, hidden %d>" % (
            self.model_type, _count(p), self.get("num_hidden_layers"), self.get("hidden_size"))


_ffi.HANDLE_CLASSES["llmmem_model"] = Model

_PRESET_MODELS: Dict[str, Model] = {}


def _model(model: ModelLike) -> Model:
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
    raise TypeError("model must be a llmmem.Model, a preset name, a Hugging Face id, a config.json "
                    "path or a dict, not %s" % type(model).__name__)


def _count(n: int) -> str:
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return "%.3g%s" % (n / div, unit)
    return str(n)
