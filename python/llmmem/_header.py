"""Reads include/llmmem.h: the functions, enums and version macros the binding is made from.

The build (python/backend/llmmem_build.py, run by ``pip install .`` / ``pip wheel .``)
writes what :func:`parse` returns into ``llmmem/_prototypes.py``; a tree without that file
(``PYTHONPATH=python`` after ``make``) parses the header at import instead. Either way the
binding comes from the header alone: there is no table of prototypes to keep in step.

    python3 python/llmmem/_header.py include/llmmem.h > python/llmmem/_prototypes.py

The header keeps the declarations between the markers LLMMEM_CDEF_BEGIN and
LLMMEM_CDEF_END (no preprocessor lines there); every function is ``LLMMEM_API type
name(args);`` with its Doxygen comment (``/** ... */``) right above it, every enum value
may carry a ``/**< ... */`` comment.
"""

import pprint
import re
import sys

__all__ = ["parse", "render", "C_TYPES"]

# The C types of the header's declarations, as the binding passes them (see _ffi.py).
# A handle (llmmem_model *, ...) is "handle:llmmem_model", a handle out-parameter
# (llmmem_model **) "handle_out:llmmem_model"; a caller buffer (char *buf) is "buffer".
C_TYPES = {
    "void": "void", "int": "int", "unsigned": "unsigned", "int64_t": "int64", "uint64_t": "uint64",
    "double": "double", "size_t": "size_t", "const char *": "string", "char *": "buffer",
    "int *": "int_out", "int64_t *": "int64_out", "uint64_t *": "uint64_out",
    "double *": "double_out", "size_t *": "size_out", "const char **": "string_out",
}


def _norm_type(t):
    t = re.sub(r"\s+", " ", t.strip())
    t = re.sub(r"\s*\*\s*", " *", t).replace("* *", "**")
    return t.replace(" *", " *").strip()


def _kind(ctype):
    """The binding's kind of a C type: one of C_TYPES' values, "handle:llmmem_model" (a
    handle) or "handle_out:llmmem_model" (where a new handle is written)."""
    t = _norm_type(ctype)
    m = re.match(r"^(?:const )?(llmmem_\w+) (\*+)$", t)
    if m:
        return ("handle:" if m.group(2) == "*" else "handle_out:") + m.group(1)
    if t in C_TYPES:
        return C_TYPES[t]
    raise ValueError("llmmem.h: no binding for the C type %r" % ctype)


def _clean_doc(text):
    """The text of a /** ... */ comment without its stars, tags kept as words."""
    text = re.sub(r"^/\*\*<?|\*/$", "", text.strip())
    lines = [re.sub(r"^\s*\*\s?", "", ln).rstrip() for ln in text.splitlines()]
    out = " ".join(ln.strip() for ln in lines if ln.strip())
    out = re.sub(r"@(?:p|c)\s+(\w+)", r"\1", out)
    out = re.sub(r"@return\b", "Returns", out)
    out = re.sub(r"@param\s+(\w+)", r"\1:", out)
    out = re.sub(r"@since\s+", "since ", out)
    out = out.replace("::", "")
    return out.strip()


def _section(src):
    m = re.search(r"LLMMEM_CDEF_BEGIN[^\n]*\n(.*?)/\*\s*LLMMEM_CDEF_END", src, re.S)
    if not m:
        raise ValueError("llmmem.h has no LLMMEM_CDEF_BEGIN/LLMMEM_CDEF_END section")
    body = m.group(1)
    end = body.find("*/")  # the BEGIN marker sits inside a comment: drop its rest
    if end >= 0 and "/*" not in body[:end]:
        body = body[end + 2:]
    return body


def _macro(src, name, pattern=r"(\d+)"):
    m = re.search(r"^#define %s %s" % (name, pattern), src, re.M)
    if not m:
        raise ValueError("llmmem.h: no #define %s" % name)
    return m.group(1)


def parse(src):
    """{version, soversion, functions, enums} of the header text ``src``.

    functions: {name: {"ret": kind, "args": [(kind, name), ...], "doc": text}} in header
    order; enums: {enum_name: {"doc": text, "values": [(NAME, value, doc), ...]}}.
    """
    body = _section(src)
    functions = {}
    # a Doxygen comment, then one declaration up to its semicolon
    decl = re.compile(r"(/\*\*(?:(?!\*/).)*\*/)?\s*LLMMEM_API\s+([^;]*?)\b(llmmem_\w+)\s*\(([^)]*)\)\s*;", re.S)
    for m in decl.finditer(body):
        doc, ret, name, args = m.group(1) or "", m.group(2), m.group(3), m.group(4)
        arglist = []
        if args.strip() != "void":
            for a in args.split(","):
                a = " ".join(a.split())
                am = re.match(r"^(.*?)(\w+)$", a)
                if not am:
                    raise ValueError("llmmem.h: cannot read argument %r of %s" % (a, name))
                arglist.append((_kind(am.group(1)), am.group(2)))
        functions[name] = {"ret": _kind(ret), "args": arglist, "doc": _clean_doc(doc)}
    enums = {}
    for m in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/)?\s*typedef enum (llmmem_\w+) \{(.*?)\}\s*\2\s*;", body, re.S):
        values = []
        for vm in re.finditer(r"\b(LLMMEM_\w+)\s*=\s*(-?\d+)\s*,?\s*(/\*\*<(?:(?!\*/).)*\*/)?", m.group(3), re.S):
            values.append((vm.group(1), int(vm.group(2)), _clean_doc(vm.group(3) or "")))
        enums[m.group(2)] = {"doc": _clean_doc(m.group(1) or ""), "values": values}
    if not functions or not enums:
        raise ValueError("llmmem.h: no functions or enums between the markers")
    return {
        "version": _macro(src, "LLMMEM_VERSION_STRING", r'"([^"]+)"'),
        "soversion": int(_macro(src, "LLMMEM_SOVERSION")),
        "functions": functions,
        "enums": enums,
    }


def render(api):
    """The text of llmmem/_prototypes.py for ``parse``'s result."""
    head = ('"""Generated from include/llmmem.h at build time (llmmem/_header.py); do not edit."""\n\n'
            "# fmt: off\n")
    return head + "".join("%s = %s\n\n" % (k.upper(), pprint.pformat(api[k], width=100, sort_dicts=False))
                          for k in ("version", "soversion", "functions", "enums"))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: _header.py include/llmmem.h > llmmem/_prototypes.py\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        sys.stdout.write(render(parse(f.read())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
