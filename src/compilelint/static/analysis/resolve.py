"""Find the installed packages a scanned project imports, without importing anything.

The search path is the ``site-packages`` of one Python environment, chosen in this order:
``--python PATH`` (or ``[tool.compilelint] python``), ``$VIRTUAL_ENV``, a ``.venv`` at the project
root, else the environment compilelint itself runs in. A virtual environment is read from its
folder (``pyvenv.cfg``, ``lib/python3.*/site-packages``); another interpreter is asked for its
``purelib``/``platlib`` with ``-S -I`` (no ``site``, no ``.pth`` files: nothing of the
environment's own code runs). Modules resolve to ``.py`` files by the import system's folder
rules; distributions are named from the ``*.dist-info`` folders beside them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

# Never followed: torch itself (dynamo knows its own code), numeric and typing helpers whose
# calls are judged by the rules directly, and compilelint.
SKIP_TOP = frozenset(
    {
        "torch",
        "torchgen",
        "functorch",
        "numpy",
        "typing_extensions",
        "compilelint",
        "libcst",
        "_pytest",
        "pytest",
        "setuptools",
        "pip",
        "pkg_resources",
        "sympy",
        "triton",
        "jinja2",
        "networkx",
        "scipy",
        "pandas",
    }
)


class ResolveError(Exception):
    """The interpreter given with --python (or the config) cannot be used; one-line message."""


@dataclass(frozen=True)
class ModuleFile:
    module: str
    path: str  # real path of the .py file
    is_package: bool
    top: str  # top-level package name
    site: str  # the site-packages folder it lies in


def _venv_site(venv: Path) -> list[str]:
    out: list[str] = []
    for lib in ("lib", "lib64", "Lib"):
        base = venv / lib
        if not base.is_dir():
            continue
        if (base / "site-packages").is_dir():  # Windows layout
            out.append(str(base / "site-packages"))
        for d in sorted(base.glob("python3*")):
            sp = d / "site-packages"
            if sp.is_dir():
                out.append(str(sp))
    seen: set[str] = set()
    unique: list[str] = []
    for p in out:
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            unique.append(p)
    return unique


def _interpreter_site(python: str) -> list[str]:
    exe = Path(python)
    if exe.is_dir():  # a virtual environment folder
        got = _venv_site(exe)
        if got:
            return got
        raise ResolveError(f"--python {python}: no lib/python3.*/site-packages in this folder")
    for cfg in (exe.parent.parent / "pyvenv.cfg", exe.parent / "pyvenv.cfg"):
        if cfg.is_file():
            got = _venv_site(cfg.parent)
            if got:
                return got
    if not exe.exists():
        raise ResolveError(f"--python {python}: no such file")
    code = (
        "import json, sysconfig; p = sysconfig.get_paths(); "
        "print(json.dumps([p['purelib'], p['platlib']]))"
    )
    try:
        out = subprocess.run(
            [str(exe), "-S", "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ResolveError(f"--python {python}: cannot run it ({exc})") from None
    try:
        paths = json.loads(out.stdout)
    except ValueError:
        raise ResolveError(f"--python {python}: not a Python interpreter") from None
    return [p for p in dict.fromkeys(paths) if isinstance(p, str) and os.path.isdir(p)]


def search_path(python: str | None, root: str | os.PathLike[str]) -> tuple[list[str], str]:
    """The site-packages folders to follow imports into, and where they came from."""
    if python:
        return _interpreter_site(python), f"--python {python}"
    venv = os.environ.get("VIRTUAL_ENV")
    if venv and os.path.realpath(venv) != os.path.realpath(sys.prefix):
        got = _venv_site(Path(venv))
        if got:
            return got, f"VIRTUAL_ENV {venv}"
    dot = Path(root) / ".venv"
    if dot.is_dir() and os.path.realpath(dot) != os.path.realpath(sys.prefix):
        got = _venv_site(dot)
        if got:
            return got, f"{dot}"
    paths = sysconfig.get_paths()
    own = [p for p in dict.fromkeys((paths["purelib"], paths["platlib"])) if os.path.isdir(p)]
    return own, "the running environment"


_POSIX = os.sep == "/" and os.altsep is None


class Resolver:
    """Dotted module names to files on a search path, and files to their distribution."""

    def __init__(self, site: list[str], cache_dir: Path | None = None) -> None:
        self.site = site
        self.cache_dir = cache_dir  # where the distribution tables are kept between runs
        self._cache: dict[str, ModuleFile | None] = {}
        self._dists: dict[str, dict[str, tuple[str, str]]] = {}
        self._dirs: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._norm = [str(Path(sp)) for sp in site]  # as the paths of ``ModuleFile`` always were

    def find(self, dotted: str) -> ModuleFile | None:
        if dotted in self._cache:
            return self._cache[dotted]
        out = self._find(dotted)
        self._cache[dotted] = out
        return out

    def _find(self, dotted: str) -> ModuleFile | None:
        parts = dotted.split(".")
        if not parts or parts[0] in SKIP_TOP or parts[0].startswith("_") or not all(parts):
            return None
        for sp, norm in zip(self.site, self._norm):
            d = norm
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                files, dirs = self._listing(d)
                is_dir = part in dirs
                # what ``os.path.join`` gives, without its checks (thousands of names a run),
                # only where it is a folder
                pkg = (
                    ""
                    if not is_dir
                    else d + "/" + part
                    if _POSIX and part.isidentifier() and not d.endswith("/")
                    else os.path.join(d, part)
                )
                if last:
                    if is_dir and "__init__.py" in self._listing(pkg)[0]:
                        return ModuleFile(
                            dotted, os.path.join(pkg, "__init__.py"), True, parts[0], sp
                        )
                    if f"{part}.py" in files:
                        return ModuleFile(
                            dotted, os.path.join(d, f"{part}.py"), False, parts[0], sp
                        )
                    break
                if not is_dir:
                    break
                d = pkg
        return None

    def _listing(self, d: str) -> tuple[frozenset[str], frozenset[str]]:
        """The regular files and the folders in ``d`` (links followed), listed once: looking up
        thousands of dotted names costs a set look-up each instead of a few ``stat`` calls."""
        got = self._dirs.get(d)
        if got is None:
            files: set[str] = set()
            dirs: set[str] = set()
            try:
                with os.scandir(d) as it:
                    for e in it:
                        try:
                            if e.is_dir():
                                dirs.add(e.name)
                            elif e.is_file():
                                files.add(e.name)
                        except OSError:
                            continue
            except OSError:
                pass
            got = self._dirs[d] = (frozenset(files), frozenset(dirs))
        return got

    def read_distributions(self, site: str) -> None:
        """The distribution table of ``site`` read now, where it is not yet (``distribution``
        reads it on its first need): a scan reads it while it waits for its pool."""
        if site not in self._dists:
            self._dists[site] = _cached_dist_table(site, self.cache_dir)

    def distribution(self, mf: ModuleFile) -> tuple[str, str]:
        """(name, version) of the distribution that installed ``mf``; its top-level name when
        no metadata says."""
        table = self._dists.get(mf.site)
        if table is None:
            table = self._dists[mf.site] = _cached_dist_table(mf.site, self.cache_dir)
        return table.get(mf.top, (mf.top, "unknown"))


def _cached_dist_table(site: str, cache_dir: Path | None) -> dict[str, tuple[str, str]]:
    """``_dist_table(site)``, kept in ``cache_dir`` under the site folder's stamp (size and
    modification time: installing or removing a distribution adds or removes its
    ``.dist-info`` folder, which changes it). Reading every distribution's metadata was a
    tenth of a pre-commit run on an environment of 200 distributions."""
    import hashlib
    import marshal

    try:
        st = os.stat(site)
    except OSError:
        return _dist_table(site)
    stamp = f"{st.st_size}:{st.st_mtime_ns}"
    f = None
    if cache_dir is not None:
        name = hashlib.blake2b(site.encode(errors="surrogateescape"), digest_size=8).hexdigest()
        f = cache_dir / f"dists-{name}.marshal"
        try:
            got = marshal.loads(f.read_bytes())
            if isinstance(got, dict) and got.get("site") == site and got.get("stamp") == stamp:
                table = got.get("table")
                if isinstance(table, dict):
                    return {str(k): (str(v[0]), str(v[1])) for k, v in table.items()}
        except (OSError, ValueError, EOFError, TypeError, IndexError):
            pass
    table = _dist_table(site)
    if f is not None:
        try:
            f.parent.mkdir(parents=True, exist_ok=True)
            tmp = f.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(marshal.dumps({"site": site, "stamp": stamp, "table": table}))
            os.replace(tmp, f)
        except (OSError, ValueError):
            pass  # a cache that cannot be written is not an error
    return table


def _dist_table(site: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    try:
        entries = sorted(os.listdir(site))
    except OSError:
        return out
    for e in entries:
        if not e.endswith(".dist-info"):
            continue
        d = os.path.join(site, e)
        stem = e[: -len(".dist-info")].rsplit("-", 1)
        name, version = _metadata(d) or (stem[0], stem[1] if len(stem) > 1 else "unknown")
        tops: set[str] = set()
        try:
            with open(os.path.join(d, "top_level.txt"), encoding="utf-8") as fh:
                tops.update(t.strip() for t in fh if t.strip())
        except OSError:
            try:
                with open(os.path.join(d, "RECORD"), encoding="utf-8") as fh:
                    for line in fh:
                        first = line.split(",", 1)[0].split("/", 1)[0]
                        if first and not first.endswith((".dist-info", ".pth", "..")):
                            tops.add(first.removesuffix(".py"))
            except OSError:
                pass
        for t in tops:
            out.setdefault(t, (name, version))
    return out


def _metadata(d: str) -> tuple[str, str] | None:
    name = version = None
    try:
        with open(os.path.join(d, "METADATA"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break
                if line.startswith("Name:"):
                    name = line[5:].strip()
                elif line.startswith("Version:"):
                    version = line[8:].strip()
    except OSError:
        return None
    if name and version:
        return name, version
    return None
