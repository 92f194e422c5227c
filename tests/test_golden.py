"""Golden files of generated adjoints: a readability change shows up as a reviewed diff.

Refresh with ``SOURCEDIFF_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""

import os
from pathlib import Path

import golden_functions as g
import numpy as np
import pytest
from benchmark_kernels import kernel_module

import sourcediff as sd

GOLDEN = Path(__file__).parent / "golden"
CASES = [
    ("series", g.series, (0, 1), (1.5, 0.3, 10), "auto"),
    ("newton_sqrt", g.newton_sqrt, 0, (2.0,), "auto"),
    ("first_crossing", g.first_crossing, (0, 1), (0.5, 3.0), "auto"),
    ("logistic", g.logistic, (0, 1), (2.0, 0.1, 100), "auto"),
    ("heat", g.heat, (0, 1), (np.linspace(0.0, 1.0, 8), 0.1, 10), "store"),
    ("pair_energy", g.pair_energy, (0, 1), (np.linspace(0.0, 1.0, 5), 0.5), "store"),
    ("gray_scott", g.gray_scott, (0, 1, 2, 3), (np.ones((4, 5)),) * 2 + (0.03, 0.06, 3), "auto"),
    ("heat_checkpoint", g.heat, (0, 1), (np.linspace(0.0, 1.0, 8), 0.1, 10), sd.Checkpoint(4)),
    (
        "rk4_outlined",
        kernel_module("kernels_more").rk4_rd,
        (0, 1),
        (np.linspace(0.0, 1.0, 6), 0.3, 0.05, 4),
        "auto",
    ),
    (
        "mlp_loss",
        g.mlp_loss,
        (0, 1, 2),
        (np.ones((4, 3)), np.ones(4), np.ones((2, 4)), np.ones(3), np.ones(2)),
        "auto",
    ),
]


@pytest.mark.parametrize(
    ("name", "func", "argnums", "args", "policy"), CASES, ids=[c[0] for c in CASES]
)
def test_generated_adjoint_matches_golden_file(name, func, argnums, args, policy):
    source = sd.adjoint_source(func, argnums=argnums, policy=policy, args=args)
    path = GOLDEN / f"{name}_adjoint.py"
    if os.environ.get("SOURCEDIFF_UPDATE_GOLDEN"):
        path.write_text(source)
    assert path.exists(), f"{path} is missing; run with SOURCEDIFF_UPDATE_GOLDEN=1"
    assert source == path.read_text(), (
        f"the generated adjoint of {name} changed; review the diff and refresh with "
        "SOURCEDIFF_UPDATE_GOLDEN=1"
    )


@pytest.mark.parametrize(
    ("name", "func", "argnums", "args", "policy"), CASES, ids=[c[0] for c in CASES]
)
def test_generation_is_deterministic(name, func, argnums, args, policy, tmp_path, monkeypatch):
    """Building again from scratch (another cache directory) gives the same bytes."""
    first = sd.adjoint_source(func, argnums=argnums, policy=policy, args=args)
    monkeypatch.setenv("SOURCEDIFF_CACHE_DIR", str(tmp_path))
    assert sd.adjoint_source(func, argnums=argnums, policy=policy, args=args) == first
