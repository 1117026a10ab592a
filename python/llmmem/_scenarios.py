"""Scenarios (docs/config-format.md): a model and a configuration from one JSON file."""

from __future__ import annotations

import os
from ctypes import byref, c_void_p
from typing import Any, Mapping, Optional, Tuple, Union

from ._base import PathLike, _b, _wraps
from ._config import Config, _json_bytes
from ._errors import _check
from ._ffi import lib
from ._models import Model, _cache_arg


def load_scenario(source: Union[PathLike, bytes, Mapping[str, Any]],
                  base_dir: Optional[PathLike] = None) -> Tuple[Model, Config]:
    """(Model, Config) of a scenario (docs/config-format.md; gpu-mem-calculator files too):
    a path, JSON text, or a dict. ``hf_config`` paths resolve against the file's folder, or
    ``base_dir`` for text and dicts."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        return scenario_from_file(source)
    return scenario_from_json(source, base_dir)


@_wraps("llmmem_scenario_from_json")
def scenario_from_json(text: Union[str, bytes, Mapping[str, Any]],
                       base_dir: Optional[PathLike] = None) -> Tuple[Model, Config]:
    """(Model, Config) from a scenario's JSON text (or dict)."""
    data = _json_bytes(text) if isinstance(text, (Mapping, list)) else (
        text.encode("utf-8") if isinstance(text, str) else bytes(text))
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_json(byref(m), byref(c), data, len(data),
                                         _b(base_dir, "base_dir") if base_dir is not None else None))
    return Model._wrap(m), Config._wrap(c)


@_wraps("llmmem_scenario_from_file_hub")
def scenario_from_file(path: PathLike, hub_cache: Union[None, bool, PathLike] = None) -> Tuple[Model, Config]:
    """(Model, Config) from a scenario file. A model named by a Hugging Face id
    (``"model": "org/name"``) is its preset, or its config.json in the Hugging Face cache
    ``hub_cache`` (default :func:`hub_cache`; False: none)."""
    m, c = c_void_p(), c_void_p()
    _check(lib.llmmem_scenario_from_file_hub(byref(m), byref(c), _b(path, "path"), _cache_arg(hub_cache)))
    return Model._wrap(m), Config._wrap(c)
