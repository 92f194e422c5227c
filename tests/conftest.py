"""Settings for the whole test session, made before anything imports Numba.

The suite checks what sourcediff generates: its values, types and refusals. Numba's
LLVM optimization (``NUMBA_OPT=3``, what users get) changes how fast that code runs,
not what it computes (no fast-math unless asked), and costs about half of every
compile. The suite compiles at ``NUMBA_OPT=0`` unless told otherwise
(``NUMBA_OPT=3 python -m pytest`` tests the optimized machine code), and keeps
generated modules and Numba's on-disk cache in a directory of its own, so that code
compiled at another level never reaches a user's cache (Numba's cache index does not
record the optimization level).
"""

import os
import tempfile
from pathlib import Path

os.environ.setdefault("NUMBA_OPT", "0")
_CACHE = Path(tempfile.gettempdir()) / f"sourcediff-tests-opt{os.environ['NUMBA_OPT']}"
os.environ.setdefault("SOURCEDIFF_CACHE_DIR", str(_CACHE / "generated"))
os.environ.setdefault("NUMBA_CACHE_DIR", str(_CACHE / "numba"))
