"""cffi (ABI mode) binding of libllmmem.

The cdef is cut from include/llmmem.h between the markers LLMMEM_CDEF_BEGIN and
LLMMEM_CDEF_END, with "LLMMEM_API " removed, so it always matches the header.
The header is found through LLMMEM_HEADER, else ../../include/llmmem.h relative to this
file; the library through LLMMEM_LIBRARY, else ../../lib/libllmmem.so, else the SONAME.

    from llmmem_cffi import ffi, lib, check, text
    m = ffi.new("llmmem_model **")
    check(lib.llmmem_model_from_preset(m, b"llama-3.1-8b"))

Every function of the header is there, the planner (llmmem_plan_*) and the calibration
profile (llmmem_config_apply_calibration_json) included, with no list to keep in step.
"""

import os
import re

from cffi import FFI

_HERE = os.path.dirname(os.path.abspath(__file__))
SOVERSION = 1


def _header_path():
    env = os.environ.get("LLMMEM_HEADER")
    if env:
        return env
    return os.path.normpath(os.path.join(_HERE, "..", "..", "include", "llmmem.h"))


def cdef_text(header=None):
    """The cdef source: the header's section between the markers, LLMMEM_API removed."""
    with open(header or _header_path(), encoding="utf-8") as f:
        src = f.read()
    m = re.search(r"LLMMEM_CDEF_BEGIN[^\n]*\n(.*?)/\*\s*LLMMEM_CDEF_END", src, re.S)
    if not m:
        raise ImportError("llmmem.h has no LLMMEM_CDEF_BEGIN/LLMMEM_CDEF_END section")
    body = m.group(1)
    # the BEGIN marker sits inside a comment: drop the rest of that comment
    end = body.find("*/")
    if end >= 0 and "/*" not in body[:end]:
        body = body[end + 2:]
    return body.replace("LLMMEM_API ", "")


def _library_candidates():
    env = os.environ.get("LLMMEM_LIBRARY")
    if env:
        return [env]
    local = os.path.normpath(os.path.join(_HERE, "..", "..", "lib", "libllmmem.so"))
    return [local, "libllmmem.so.%d" % SOVERSION, "libllmmem.so"]


ffi = FFI()
ffi.cdef(cdef_text())


def _open():
    errors = []
    for cand in _library_candidates():
        try:
            return ffi.dlopen(cand)
        except OSError as exc:
            errors.append("%s: %s" % (cand, exc))
    raise ImportError("cannot load libllmmem: " + "; ".join(errors))


lib = _open()


class Error(Exception):
    """A libllmmem call failed: .status, .status_name, .message."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = ffi.string(lib.llmmem_status_name(status)).decode()
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))


def check(rc):
    """Raises Error for a negative status (reads this thread's error text at once)."""
    if rc < 0:
        raise Error(rc, ffi.string(lib.llmmem_last_error()).decode("utf-8", "replace"))
    return rc


def text(fn, *args):
    """Calls an snprintf-style function (buf, cap, needed, ...) and returns the text."""
    need = ffi.new("size_t *")
    rc = fn(ffi.NULL, 0, need, *args)
    if rc not in (lib.LLMMEM_OK, lib.LLMMEM_E_BUFFER_TOO_SMALL):
        check(rc)
    buf = ffi.new("char[]", max(need[0], 1))
    check(fn(buf, need[0], need, *args))
    return ffi.string(buf).decode("utf-8", "replace")
