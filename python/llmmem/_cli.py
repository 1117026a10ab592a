"""The ``llmmem`` command of the package: runs the C command-line program.

It imports nothing of the package: the console script (``_llmmem_cli``, a top-level module)
loads this file alone, without importing ``llmmem``, and calls :func:`main`.

The wheel bundles the CLI built from examples/cli/ (``llmmem/bin/llmmem``, linked with the
static library; its RUNPATH finds the cJSON copy in ``llmmem/lib``); in a source
tree it is ``examples/llmmem`` beside ``python/``; ``LLMMEM_CLI`` names another one. The
process is replaced by it (``os.execv``), so its output, exit status and signals are the
C program's own: ``llmmem estimate --preset llama-3.1-8b`` is the same as in C.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

_HERE = os.path.dirname(os.path.abspath(__file__))


def binary() -> str:
    """The path of the C ``llmmem`` program this package runs."""
    env = os.environ.get("LLMMEM_CLI")
    if env:
        return env
    for cand in (os.path.join(_HERE, "bin", "llmmem"),
                 os.path.normpath(os.path.join(_HERE, "..", "..", "examples", "llmmem"))):
        if os.access(cand, os.X_OK):
            return cand
    raise FileNotFoundError("llmmem: the command-line program is not there (a wheel bundles it as "
                            "llmmem/bin/llmmem; in a source tree run make); set LLMMEM_CLI")


def cli_path() -> str:
    """The path of the ``llmmem`` command this package runs (``python -m llmmem``)."""
    return binary()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``llmmem`` console script and of ``python -m llmmem``."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        exe = binary()
    except FileNotFoundError as exc:
        sys.stderr.write("%s\n" % exc)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + args)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
