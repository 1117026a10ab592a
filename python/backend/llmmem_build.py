"""PEP 517 build backend of the ``llmmem`` Python package (pyproject.toml names it).

It needs nothing but the standard library, make and a C compiler, so that

    python3 -m venv v && v/bin/pip install --no-build-isolation .

works offline in a bare virtual environment (no setuptools, wheel or cffi there). A wheel
holds:

- ``python/llmmem/*.py`` and ``llmmem/_prototypes.py``, generated from include/llmmem.h
  (``llmmem/_header.py``): the binding has no hand-kept table of prototypes;
- ``llmmem/lib/libllmmem.so.N``: the shared library ``make`` builds, under its SONAME;
- ``llmmem/lib/libcjson.so.1``, ``llmmem/lib/libyaml-0.so.2``: the cJSON and libyaml it was
  linked with, copied (as auditwheel would) so the wheel runs where they are not installed;
  the binding loads them first;
- ``llmmem/bin/llmmem``: the C CLI linked with the static library, RUNPATH $ORIGIN/../lib;
  the ``llmmem`` console script runs it (``_llmmem_cli.py``, a top-level module: it loads
  ``llmmem/_cli.py`` alone, without importing the package);
- the licenses (this project's, cJSON's and libyaml's).

The version is the header's (LLMMEM_VERSION_STRING); the tag py3-none-<platform>: the
package has no extension module, only the C library of this machine's platform.

Config settings (``pip wheel . -C make=gmake -C jobs=4``): ``make`` (default $MAKE or
make), ``jobs`` (default 2), ``bundle-cjson`` ("0" to leave cJSON and libyaml out: the wheel then
uses the system's).
"""

import base64
import csv
import hashlib
import io
import os
import re
import stat
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PKG = os.path.join(ROOT, "python", "llmmem")
# The console script's module, top-level beside the package: it runs the CLI without
# importing the package (python/_llmmem_cli.py).
CONSOLE_SCRIPT = "_llmmem_cli.py"
HEADER = os.path.join(ROOT, "include", "llmmem.h")

__all__ = ["build_wheel", "build_sdist", "build_editable", "prepare_metadata_for_build_wheel",
           "prepare_metadata_for_build_editable", "get_requires_for_build_wheel",
           "get_requires_for_build_sdist", "get_requires_for_build_editable"]


# ---- pyproject.toml and the version ---------------------------------------------------------

def _toml_value(text):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("["):
        inner = text[1:text.rindex("]")]
        return [_toml_value(x) for x in re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', inner)]
    m = re.match(r'^"((?:[^"\\]|\\.)*)"|^\'([^\']*)\'', text)
    if m:
        return m.group(2) if m.group(1) is None else m.group(1).encode().decode("unicode_escape")
    if re.match(r"^-?\d+$", text):
        return int(text)
    raise ValueError("pyproject.toml: unsupported value %r" % text)


def read_pyproject(path=None):
    """pyproject.toml as a dict: tomllib where there is one (3.11+), else a reader of the
    subset this project's file uses (tables, strings, booleans, integers, string arrays)."""
    path = path or os.path.join(ROOT, "pyproject.toml")
    with open(path, "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ImportError:
        tomllib = None
    if tomllib is not None:
        return tomllib.loads(data.decode("utf-8"))
    out, table = {}, None
    lines = data.decode("utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].split(" #")[0].strip() if not lines[i].lstrip().startswith("#") else ""
        i += 1
        if not line:
            continue
        m = re.match(r"^\[([\w.-]+)\]$", line)
        if m:
            table = out
            for part in m.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        while value.startswith("[") and value.count("[") > value.count("]"):
            value += " " + lines[i].split(" #")[0].strip()
            i += 1
        table[key.strip().strip('"')] = _toml_value(value)
    return out


def version():
    with open(HEADER, encoding="utf-8") as f:
        m = re.search(r'^#define LLMMEM_VERSION_STRING "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError("include/llmmem.h has no LLMMEM_VERSION_STRING")
    return m.group(1)


def _metadata():
    """The core metadata (METADATA / PKG-INFO) from pyproject.toml's [project]."""
    proj = read_pyproject()["project"]
    lines = ["Metadata-Version: 2.1", "Name: %s" % proj["name"], "Version: %s" % version(),
             "Summary: %s" % proj["description"], "Requires-Python: %s" % proj["requires-python"],
             "License: %s" % proj["license"]]
    for k in proj.get("keywords", []):
        lines.append("Keywords: %s" % k)
    for c in proj.get("classifiers", []):
        lines.append("Classifier: %s" % c)
    for name, url in proj.get("urls", {}).items():
        lines.append("Project-URL: %s, %s" % (name, url))
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, proj["readme"]), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def _entry_points():
    scripts = read_pyproject()["project"].get("scripts", {})
    return "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in scripts.items())


def _dist_name():
    return "%s-%s" % (read_pyproject()["project"]["name"].replace("-", "_"), version())


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-%s" % plat


# ---- the C build ------------------------------------------------------------------------------

def _make(settings, *targets):
    make = (settings or {}).get("make") or os.environ.get("MAKE") or "make"
    jobs = str((settings or {}).get("jobs") or 2)
    cmd = [make, "-C", ROOT, "-j" + jobs] + list(targets)
    sys.stderr.write("llmmem build: %s\n" % " ".join(cmd))
    # make's output goes to stderr: a frontend reads stdout
    subprocess.run(cmd, check=True, stdout=sys.stderr.fileno())


def _soversion():
    with open(HEADER, encoding="utf-8") as f:
        return re.search(r"^#define LLMMEM_SOVERSION (\d+)", f.read(), re.M).group(1)


# The shared libraries the wheel bundles: (SONAME pattern, name, license files to try).
_BUNDLED = (
    (r"libcjson\.so\S*", "cJSON", ("/usr/share/doc/libcjson1/copyright", "/usr/share/licenses/cjson/LICENSE")),
    (r"libyaml-0\.so\S*", "libyaml", ("/usr/share/doc/libyaml-0-2/copyright", "/usr/share/licenses/libyaml/License")),
)


def _dep_path(solib, pattern):
    """(SONAME, file) of the library matching ``pattern`` the built library loads (ldd), or None."""
    try:
        out = subprocess.run(["ldd", solib], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"^\s*(%s)\s+=>\s+(\S+)" % pattern, out, re.M)
    return (m.group(1), m.group(2)) if m and os.path.exists(m.group(2)) else None


def _prototypes():
    sys.path.insert(0, PKG)
    try:
        import _header
    finally:
        sys.path.pop(0)
    with open(HEADER, encoding="utf-8") as f:
        return _header.render(_header.parse(f.read()))


# ---- wheels -----------------------------------------------------------------------------------

class _Wheel:
    """A wheel being written: files with their RECORD rows."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, arcname, data, mode=0o644):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(arcname, date_time=time.gmtime(_epoch())[:6])
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append((arcname, "sha256=" + digest, str(len(data))))

    def add_file(self, arcname, path):
        with open(path, "rb") as f:
            data = f.read()
        self.add(arcname, data, 0o755 if os.access(path, os.X_OK) else 0o644)

    def close(self, record_name):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(self.records + [(record_name, "", "")])
        self.add_raw(record_name, buf.getvalue())
        self.zip.close()

    def add_raw(self, arcname, text):
        info = zipfile.ZipInfo(arcname, date_time=time.gmtime(_epoch())[:6])
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, text)


def _epoch():
    return int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980: reproducible zips


def _dist_info_files(tag, editable=False):
    return {
        "METADATA": _metadata(),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: llmmem_build %s\nRoot-Is-Purelib: false\nTag: %s\n"
                 % (version(), "py3-none-any" if editable else tag),
        "entry_points.txt": _entry_points(),
    }


def _write_dist_info(wheel, distinfo, tag, editable=False):
    for name, text in _dist_info_files(tag, editable).items():
        wheel.add("%s/%s" % (distinfo, name), text)
    wheel.add_file("%s/LICENSE" % distinfo, os.path.join(ROOT, "LICENSE"))


def _package_sources():
    for name in sorted(os.listdir(PKG)):
        if name.endswith(".py") and name != "_prototypes.py" or name == "py.typed":
            yield name, os.path.join(PKG, name)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Builds the C library and CLI with make, then the wheel of the package around them."""
    settings = config_settings or {}
    _make(settings, "lib", "python-cli")
    so = _soversion()
    solib = os.path.join(ROOT, "lib", "libllmmem.so.%s" % so)
    name = _dist_name()
    tag = _tag()
    path = os.path.join(wheel_directory, "%s-%s.whl" % (name, tag))
    wheel = _Wheel(path)
    for arc, src in _package_sources():
        wheel.add_file("llmmem/" + arc, src)
    wheel.add_file(CONSOLE_SCRIPT, os.path.join(ROOT, "python", CONSOLE_SCRIPT))
    wheel.add("llmmem/_prototypes.py", _prototypes())
    wheel.add_file("llmmem/lib/libllmmem.so.%s" % so, os.path.realpath(solib))
    if str(settings.get("bundle-cjson", "1")) != "0":
        for pattern, dep, licenses in _BUNDLED:
            found = _dep_path(solib, pattern)
            if found is None:
                raise RuntimeError("llmmem build: cannot find the %s the library links (ldd %s); "
                                   "-C bundle-cjson=0 builds a wheel that uses the system's" % (dep, solib))
            wheel.add_file("llmmem/lib/%s" % found[0], os.path.realpath(found[1]))
            for lic in licenses:
                if os.path.exists(lic):
                    wheel.add_file("%s.dist-info/LICENSE.%s" % (name, dep), lic)
                    break
    wheel.add_file("llmmem/bin/llmmem", os.path.join(ROOT, "build", "python", "bin", "llmmem"))
    _write_dist_info(wheel, name + ".dist-info", tag)
    wheel.close(name + ".dist-info/RECORD")
    return os.path.basename(path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install (pip install -e .): a .pth file puts python/ of this tree on
    sys.path; the library and CLI are this tree's (make builds them)."""
    _make(config_settings, "lib", "examples/llmmem")
    name = _dist_name()
    tag = "py3-none-any"
    path = os.path.join(wheel_directory, "%s-%s.whl" % (name, tag))
    wheel = _Wheel(path)
    wheel.add("__editable__.llmmem.pth", os.path.join(ROOT, "python") + "\n")
    _write_dist_info(wheel, name + ".dist-info", tag, editable=True)
    wheel.close(name + ".dist-info/RECORD")
    return os.path.basename(path)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    distinfo = _dist_name() + ".dist-info"
    d = os.path.join(metadata_directory, distinfo)
    os.makedirs(d, exist_ok=True)
    for name, text in _dist_info_files(_tag()).items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return distinfo


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_editable = get_requires_for_build_wheel


# ---- source distributions ---------------------------------------------------------------------

# Outside a git checkout (an unpacked sdist), everything but these (make's outputs).
_NOT_SOURCE = re.compile(r"^(\.git|build|test/bin|docs/html|docs/xml|dist)(/|$)|(^|/)__pycache__(/|$)|"
                         r"^lib/libllmmem\.|^examples/(llmmem|minimal|scheduler)$|"
                         r"^python/llmmem/_prototypes\.py$|\.pyc$|\.o$")


def source_files():
    """The files of a source distribution: git's tracked files, else the tree minus build output."""
    if os.path.exists(os.path.join(ROOT, ".git")):
        try:
            out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout.decode("utf-8")
            return sorted(f for f in out.split("\0") if f and os.path.lexists(os.path.join(ROOT, f)))
        except (OSError, subprocess.CalledProcessError):
            pass
    files = []
    for top, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(top, ROOT)
        rel = "" if rel == "." else rel + "/"
        dirs[:] = [d for d in dirs if not _NOT_SOURCE.search(rel + d)]
        files += [rel + n for n in names if not _NOT_SOURCE.search(rel + n)]
    return sorted(files)


def build_sdist(sdist_directory, config_settings=None):
    """llmmem-X.Y.Z.tar.gz: the source files and PKG-INFO (it builds with make, or pip)."""
    base = "llmmem-%s" % version()
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in source_files():
            info = tar.gettarinfo(os.path.join(ROOT, rel), arcname="%s/%s" % (base, rel))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = _epoch()
            if info.isreg():
                with open(os.path.join(ROOT, rel), "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
        data = _metadata().encode("utf-8")
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size, info.mtime, info.mode = len(data), _epoch(), 0o644
        tar.addfile(info, io.BytesIO(data))
    return os.path.basename(path)


def _main(argv):
    """python3 python/backend/llmmem_build.py wheel|sdist DIR: the same without pip."""
    if len(argv) != 3 or argv[1] not in ("wheel", "sdist"):
        sys.stderr.write("usage: llmmem_build.py wheel|sdist DIR\n")
        return 2
    os.makedirs(argv[2], exist_ok=True)
    fn = build_wheel if argv[1] == "wheel" else build_sdist
    print(os.path.join(argv[2], fn(argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
