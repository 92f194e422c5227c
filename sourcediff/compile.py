"""Stage 6, compile: write generated source to the cache, import it, compile with Numba.

The generated module's file name is a hash of everything that determines its
text: the source of every function in the call tree, the module constants it
uses, the transformation options, the argument types, and the versions of
sourcediff, Python, NumPy and Numba. A file that exists is therefore valid:
it is imported as is, and ``numba.njit(cache=True)`` finds its machine code in
Numba's on-disk cache beside it, so a second process neither transforms nor
compiles. The directory is ``SOURCEDIFF_CACHE_DIR`` or the platform's user
cache folder.

The cache is derived data, so damage is repaired rather than reported. Each
module ends with a checksum line of the text above it; a file that is
truncated (full disk, killed process) or altered fails the check and is
rebuilt. Writes go to a temporary name and are renamed into place, so a
concurrent process sees the old file or the whole new one. A damaged Numba
index or data file beside a module is deleted and the function recompiled.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import types
from pathlib import Path

import numba
import numpy as np
from numba.core.caching import FunctionCache

from .errors import SourceDiffError

VERSION = "0.1.0"


def cache_dir() -> Path:
    """Where generated modules live (created on demand)."""
    explicit = os.environ.get("SOURCEDIFF_CACHE_DIR")
    if explicit:
        path = Path(explicit)
    elif sys.platform == "darwin":
        path = Path.home() / "Library" / "Caches" / "sourcediff"
    elif os.name == "nt":
        path = Path(os.environ.get("LOCALAPPDATA", Path.home())) / "sourcediff" / "Cache"
    else:
        path = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sourcediff"
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.lru_cache(maxsize=1)
def _own_source_hash() -> str:
    """A hash of sourcediff's own code: a changed transformation invalidates the cache."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(parts: list[str]) -> str:
    """A short hash of ``parts`` and the versions the generated code depends on."""
    versions = [VERSION, _own_source_hash(), sys.version, np.__version__, numba.__version__]
    digest = hashlib.sha256("\0".join(versions + parts).encode())
    return digest.hexdigest()[:20]


def module_path(stem: str, key: str) -> Path:
    """The cache file for a generated module named after ``stem``."""
    return cache_dir() / f"{stem}_{key}.py"


CHECKSUM_PREFIX = "# sourcediff-checksum: "


def _checksum(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write_module(path: Path, source: str, meta: dict | None = None) -> None:
    """Write ``source`` and its checksum atomically: readers never see half a file.

    ``meta``, what a caller needs of the module without importing it (its output count,
    result kind...), goes beside it as JSON, first: a present module has its metadata.
    """
    if meta is not None:
        _write_atomically(meta_path(path), json.dumps(meta, sort_keys=True))
    _write_atomically(path, source + CHECKSUM_PREFIX + _checksum(source) + "\n")


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)  # no fsync: a file cut short by a crash fails its checksum
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def meta_path(path: Path) -> Path:
    """The metadata file of the module at ``path``."""
    return path.with_suffix(".json")


def cached_meta(path: Path) -> dict | None:
    """The metadata of an intact cached module, or None (a damaged one is deleted)."""
    if read_module(path) is None:
        discard(path)
        return None
    try:
        return json.loads(meta_path(path).read_text())
    except (OSError, ValueError):
        discard(path)
        return None


def read_module(path: Path) -> str | None:
    """The text of the module at ``path`` (checksum line removed), or None if absent or damaged."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    body, _, last = text.rstrip("\n").rpartition("\n")
    if not last.startswith(CHECKSUM_PREFIX) or last[len(CHECKSUM_PREFIX) :] != _checksum(
        body + "\n"
    ):
        return None
    return body + "\n"


def discard(path: Path) -> None:
    """Delete a (damaged) module and Numba's cache files for its functions."""
    path.unlink(missing_ok=True)
    meta_path(path).unlink(missing_ok=True)
    _delete_numba_files(path.parent / "__pycache__", path.stem + ".")


def _delete_numba_files(folder: Path, prefix: str) -> None:
    for file in folder.glob(glob.escape(prefix) + "*"):
        if file.suffix in (".nbi", ".nbc"):
            file.unlink(missing_ok=True)


def import_module(path: Path):
    """Import a generated module from its file (so tracebacks and Numba see the file).

    The text executed is the checksummed text, never a half-written file.
    """
    name = f"sourcediff_generated.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    # The package the generated modules are registered under: Numba's cache unpickles
    # references to their functions (an outlined helper's primal) by importing them.
    package = types.ModuleType("sourcediff_generated")
    package = sys.modules.setdefault(package.__name__, package)
    package.__path__ = []
    text = read_module(path)
    if text is None:
        raise SourceDiffError(f"the generated module {path} is missing or damaged; call again")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    code = compile(text, str(path), "exec")
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


class _HealingCache(FunctionCache):
    """Numba's on-disk cache, except that a damaged entry is deleted and recompiled.

    Numba raises whatever its unpickler raises (``ValueError``,
    ``UnpicklingError``, ``EOFError``, ...) on a garbled index or data file;
    returning None instead makes the dispatcher compile and save afresh.
    """

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception:
            index = Path(self._cache_file._index_path)
            _delete_numba_files(index.parent, index.name[: -len("nbi")])
            return None


def compiled(module, function_name: str, jit: bool, fastmath: bool = False):
    """The module's function, wrapped with ``numba.njit(cache=True)`` unless ``jit`` is False
    (with ``fastmath``, Numba may reassociate and vectorize floating-point reductions)."""
    if not jit:
        return python_namespace(module)[function_name]
    func = getattr(module, function_name)
    dispatcher = numba.njit(cache=True, error_model="numpy", fastmath=fastmath)(func)
    dispatcher._cache = _HealingCache(func)
    return dispatcher


class PythonList:
    """``numba.typed.List`` as the generated code uses it, run as plain Python (``jit=False``).

    The records keep arrays in lists declared for their inferred Numba type. Run as Python,
    a typed list types each appended array with ``numba.typeof``, which can differ from the
    inferred type in layout only: ``H.T`` of a (1, 2) array is inferred Fortran-ordered but
    is contiguous both ways, and ``typeof`` calls it C, which a list of Fortran arrays
    refuses (an ``AssertionError`` inside Numba). A Python list keeps the same references.
    """

    @staticmethod
    def empty_list(item_type):
        return []


def python_namespace(module) -> dict:
    """The generated module's namespace for running as plain Python: a copy of its globals
    in which ``List`` is :class:`PythonList` and its own functions are rebound to the copy
    (same code objects, so tracebacks and breakpoints still point at the file). The
    compiled functions keep the module's globals and Numba's typed lists."""
    namespace = module.__dict__.setdefault("__sourcediff_python__", {})
    for name, value in module.__dict__.items():
        if name == "__sourcediff_python__":
            continue
        if isinstance(value, types.FunctionType) and value.__globals__ is module.__dict__:
            if name not in namespace:
                copy = types.FunctionType(
                    value.__code__, namespace, value.__name__, value.__defaults__, value.__closure__
                )
                copy.__kwdefaults__ = value.__kwdefaults__
                copy.__qualname__ = value.__qualname__
                copy.__doc__ = value.__doc__
                namespace[name] = copy
        else:  # imports, constants, and the user's rules set on the module (which may change)
            namespace[name] = PythonList if name == "List" else value
    return namespace
