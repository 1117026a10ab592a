"""The ``llmmem`` console script: runs the C command-line program without importing the package.

``import llmmem._cli`` would first import ``llmmem`` (the binding: ctypes, the library, its
prototypes), which the command does not need: this top-level module loads the one file
``llmmem/_cli.py`` on its own (it imports nothing of the package) and calls its ``main``,
which replaces the process by the C program (``os.execv``). ``python -m llmmem`` runs the
same ``main`` through the package.
"""

import importlib.util
import os
import sys
from types import ModuleType
from typing import Optional, Sequence


def _load() -> ModuleType:
    """``llmmem/_cli.py`` beside this module, as a module of its own (not ``llmmem._cli``)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llmmem", "_cli.py")
    spec = importlib.util.spec_from_file_location("_llmmem_cli_main", path)
    if spec is None or spec.loader is None:
        raise ImportError("llmmem: cannot load %s" % path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``llmmem`` console script (pyproject.toml)."""
    result: int = _load().main(argv)
    return result


if __name__ == "__main__":
    sys.exit(main())
