"""The Python examples in README.md run as written (they are part of the product)."""

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run(tmp_path):
    """In a process of their own, at the optimization level users get (the suite compiles
    at NUMBA_OPT=0: the checkpointed 100 000-step heat gradient took 110 s there)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3
    # Real files, so that sourcediff can read the functions' source.
    script = tmp_path / "readme_examples.py"
    checks = "\nassert du0.shape == u0.shape and isinstance(dalpha, float)\nprint('ran')\n"
    script.write_text("\n\n".join(blocks) + checks)
    root = str(README.parent)
    env = os.environ | {
        "NUMBA_OPT": "3",
        "SOURCEDIFF_CACHE_DIR": str(tmp_path / "generated"),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
    }
    ran = subprocess.run(
        [sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.returncode == 0 and ran.stdout.endswith("ran\n"), ran.stderr[-3000:]
