"""The benchmark kernels (benchmarks/*.py, plain modules beside the tests) for tests to use."""

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def kernel_module(name: str):
    """``benchmarks/<name>.py`` imported as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
