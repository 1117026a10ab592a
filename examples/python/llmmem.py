"""Compatibility shim: ``import llmmem`` with examples/python on sys.path.

The binding is the package ``llmmem`` (python/llmmem in this tree; ``pip install .``
installs it). Scripts that put examples/python first on sys.path (llmmem_probe.py,
``PYTHONPATH=examples/python``) get that package through this module: an installed one
when there is one, else the tree's python/llmmem (which loads lib/libllmmem.so.N of the
tree, or LLMMEM_LIBRARY). The module replaces itself in sys.modules by the package.
"""

import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.normpath(os.path.join(_HERE, "..", "..", "python"))


def _load():
    here = os.path.normcase(_HERE)
    path = [p for p in sys.path if os.path.normcase(os.path.abspath(p or os.curdir)) != here]
    spec = importlib.machinery.PathFinder.find_spec("llmmem", path)
    if spec is None or spec.submodule_search_locations is None:
        spec = importlib.machinery.PathFinder.find_spec("llmmem", [_TREE])
    if spec is None:
        raise ImportError("the llmmem package is neither installed nor in %s" % _TREE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[__name__] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[__name__]
        raise
    return module


_load()
