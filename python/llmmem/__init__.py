"""libllmmem for Python: per-GPU memory of LLM training and inference, before launch.

::

    import llmmem

    r = llmmem.estimate("llama-3.1-8b", micro_batch_size=4, seq_len=4096)
    r.peak_allocated_bytes, r["fits"], r.engine     # every key of r.to_dict()
    r.explain()                                      # the terms, as records (pandas-ready)

    m = llmmem.Model.from_hf_config("config.json")   # or a dict, or a preset name
    c = llmmem.Config(engine="zero", zero_stage=3, num_gpus=8, data_parallel_size=8)
    llmmem.estimate(m, c, micro_batch_size=2)        # keywords apply on a copy of c
    llmmem.plan(m, c, top_k=5)                       # the fastest layouts that fit
    llmmem.max_batch(m, c)

The first argument of :func:`estimate` and the planner is a :class:`Model`, a preset name
(:func:`presets`), the path of a HuggingFace ``config.json`` (or of its folder), or its
content as a dict. Every configuration parameter (:func:`params`) is a keyword argument;
a value is checked by the library (type, bounds, value names) and by the binding (64-bit
range, no NUL characters, a keyword that does not apply to the engine or mode raises).

This package is a binding of the C library libllmmem (the single source of truth); the
functions come from its header, ``include/llmmem.h``, and ``llmmem.lib`` exposes them all,
with every enum value of the header as a constant (``llmmem.LLMMEM_P_SEQ_LEN``). Results
are typed (``py.typed``): ``r.peak_allocated_bytes`` is an int, ``r.fits`` a bool,
``r.phases["backward"]["total"]`` an int.

The modules (private; everything is imported from ``llmmem``): ``_ffi`` loads the library
and binds the header's functions with ctypes, ``_errors`` the exceptions and status codes,
``_base`` argument conversion and the handle base class, ``_library`` the version and the
library's name tables, ``_models`` :class:`Model`, ``_config`` the parameters and
:class:`Config` (and the configurations made from keywords), ``_results`` :class:`Result`
and :func:`estimate`, ``_plans`` the planner and the timeline, ``_scenarios`` scenario
files, ``_cli`` the ``llmmem`` command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _ffi
from ._base import (REJECT_BATCH as REJECT_BATCH, REJECT_INDIVISIBLE as REJECT_INDIVISIBLE,
                    REJECT_OOM as REJECT_OOM, REJECT_UNSUPPORTED as REJECT_UNSUPPORTED,
                    TYPE_BOOL as TYPE_BOOL, TYPE_ENUM as TYPE_ENUM, TYPE_F64 as TYPE_F64,
                    TYPE_I64 as TYPE_I64, TYPE_STR as TYPE_STR, TYPE_U64 as TYPE_U64)
from ._cli import cli_path
from ._config import Config, framework_detect, framework_names, params
from ._errors import (E_BUFFER_TOO_SMALL as E_BUFFER_TOO_SMALL, E_INCONSISTENT as E_INCONSISTENT,
                      E_INTERNAL as E_INTERNAL, E_INVALID_ARG as E_INVALID_ARG, E_IO as E_IO,
                      E_NOMEM as E_NOMEM, E_OUT_OF_RANGE as E_OUT_OF_RANGE,
                      E_PARAM_TYPE as E_PARAM_TYPE, E_PARSE as E_PARSE, E_SCHEMA as E_SCHEMA,
                      E_UNKNOWN_PARAM as E_UNKNOWN_PARAM, E_UNSUPPORTED as E_UNSUPPORTED, OK as OK,
                      Error, InapplicableParameterError, NotEstimatedError, UnknownParameterError)
from ._ffi import LIBRARY_PATH, lib
from ._library import (__version__, architectures, clear_error, component_names, gpus, last_error,
                       model_key_names, phase_names, presets, reject_names, result_key_names, soversion,
                       status_name, strerror, version, version_number)
from ._models import Model, hub_cache
from ._plans import Plan, max_batch, max_seq_len, min_gpus, plan, timeline
from ._results import ExplainRecord, PhaseRecord, Result, TermRecord, estimate
from ._scenarios import load_scenario, scenario_from_file, scenario_from_json

# What `from llmmem import *` imports. dir(llmmem) lists these and the status, type and
# rejection constants (not the header's LLMMEM_* values, nor the modules).
__all__ = [
    "Error", "UnknownParameterError", "InapplicableParameterError", "NotEstimatedError",
    "Model", "Config", "Result", "Plan", "estimate", "plan", "max_batch", "max_seq_len",
    "min_gpus", "load_scenario", "scenario_from_json", "scenario_from_file", "params",
    "presets", "architectures", "timeline", "gpus", "phase_names", "component_names", "result_key_names",
    "model_key_names", "reject_names", "version", "version_number", "soversion",
    "status_name", "strerror", "last_error", "clear_error", "lib", "LIBRARY_PATH",
    "framework_names", "framework_detect", "__version__", "cli_path", "hub_cache",
    "PhaseRecord", "TermRecord", "ExplainRecord",
]

_CONSTANTS = (
    "OK", "E_INVALID_ARG", "E_NOMEM", "E_IO", "E_PARSE", "E_SCHEMA", "E_UNKNOWN_PARAM",
    "E_PARAM_TYPE", "E_OUT_OF_RANGE", "E_UNSUPPORTED", "E_BUFFER_TOO_SMALL", "E_INCONSISTENT",
    "E_INTERNAL", "TYPE_I64", "TYPE_F64", "TYPE_BOOL", "TYPE_ENUM", "TYPE_STR", "TYPE_U64",
    "REJECT_INDIVISIBLE", "REJECT_OOM", "REJECT_UNSUPPORTED", "REJECT_BATCH",
)


# Every enum value of the header, for llmmem.lib: llmmem.LLMMEM_P_SEQ_LEN, llmmem.LLMMEM_R_FITS,
# ... (ABI constants). Module attributes, not a module __getattr__: CPython does not
# specialise attribute reads (llmmem.estimate) on a module that has one.
globals().update(_ffi.CONSTANTS)

if TYPE_CHECKING:  # for mypy: llmmem.LLMMEM_* are ints
    def __getattr__(name: str) -> int: ...


def __dir__() -> list[str]:
    return sorted(__all__ + list(_CONSTANTS))
