"""Stage 6, compile: write generated source to the cache, import it, compile with Numba.

The generated module's file name is a hash of everything that determines its
text: the source of every function in the call tree, the module constants it
uses, the transformation options, the argument types, and the versions of
sourcediff, Python, NumPy and Numba. A file that exists is therefore valid:
it is imported as is, and ``numba.njit(cache=True)`` finds its machine code in
Numba's on-disk cache beside it, so a second process neither transforms nor
compiles. The directory is ``SOURCEDIFF_CACHE_DIR`` or the platform's user
cache folder.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import numba
import numpy as np

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


def write_module(path: Path, source: str) -> None:
    """Write ``source`` atomically, so a concurrent reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        handle.write(source)
    os.replace(tmp, path)


def import_module(path: Path):
    """Import a generated module from its file (so tracebacks and Numba see the file)."""
    name = f"sourcediff_generated.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compiled(module, function_name: str, jit: bool):
    """The module's function, wrapped with ``numba.njit(cache=True)`` unless ``jit`` is False."""
    func = getattr(module, function_name)
    if not jit:
        return func
    return numba.njit(cache=True, error_model="numpy")(func)
