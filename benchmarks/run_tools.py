"""How ``benchmarks/run.py`` measures each tool: first calls, medians, peak memory.

Each tool is a function ``(kernel, budget) -> Measured`` in ``TOOLS``. Gradients come back
as NumPy arrays in the order of ``kernel.argnums`` so that run.py can compare them.
"""

import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Kernel:
    """A benchmark kernel: the plain Python function, its arguments and hand adjoint."""

    name: str
    func: Callable
    args: tuple
    argnums: tuple
    hand_primal: Callable
    hand_grad: Callable  # returns (value, *gradients)


@dataclass
class Measured:
    """One tool on one kernel (seconds for first calls, microseconds for medians)."""

    first_grad: float
    first_primal: float | None
    primal: float | None
    grad: float
    grads: list = field(default_factory=list)
    peak: int | None = None
    diff: float | None = None


def copied(args):
    """The arguments with every array copied (kernels may write in place)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def timed_first(call):
    """``(seconds, result)`` of one call."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def median_us(call, budget):
    """Median time of ``call()`` in µs: batches of calls lasting about a millisecond,
    repeated for ``budget`` seconds (at least five batches)."""
    once, _ = timed_first(call)
    batch = max(1, int(1e-3 / max(once, 1e-9)))
    samples = []
    deadline = time.perf_counter() + budget
    while len(samples) < 5 or time.perf_counter() < deadline:
        start = time.perf_counter()
        for _ in range(batch):
            call()
        samples.append((time.perf_counter() - start) / batch)
    return 1e6 * statistics.median(samples)


def peak_bytes(call):
    """Peak bytes allocated by one call, as ``tracemalloc`` sees them."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def relative_difference(got, want):
    """Largest absolute difference over the largest reference magnitude, worst gradient."""
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
        if g.shape != w.shape:
            return float("inf")
        scale = max(float(np.max(np.abs(w))), 1e-300)
        worst = max(worst, float(np.max(np.abs(g - w))) / scale)
    return worst


def _as_arrays(grads):
    return [np.array(g, dtype=float) for g in grads]


# -------------------------------------------------------------------------- tools


def measure_sourcediff(kernel, budget):
    """``sd.grad`` (default policy) and ``sd.jit``; first calls transform and compile."""
    import sourcediff as sd

    grad = sd.grad(kernel.func, argnums=kernel.argnums)
    first_grad, grads = timed_first(lambda: grad(*copied(kernel.args)))
    primal = sd.jit(kernel.func)
    first_primal, _ = timed_first(lambda: primal(*copied(kernel.args)))
    return Measured(
        first_grad,
        first_primal,
        median_us(lambda: primal(*kernel.args), budget),
        median_us(lambda: grad(*kernel.args), budget),
        _as_arrays(grads),
        peak_bytes(lambda: grad(*kernel.args)),
    )


def measure_hand(kernel, budget):
    """The expert's Numba adjoint and a ``numba.njit`` copy of the primal."""
    first_grad, result = timed_first(lambda: kernel.hand_grad(*kernel.args))
    first_primal, _ = timed_first(lambda: kernel.hand_primal(*kernel.args))
    return Measured(
        first_grad,
        first_primal,
        median_us(lambda: kernel.hand_primal(*kernel.args), budget),
        median_us(lambda: kernel.hand_grad(*kernel.args), budget),
        _as_arrays(result[1:]),
        peak_bytes(lambda: kernel.hand_grad(*kernel.args)),
    )


def _port(kernel, backend):
    import ports

    port = ports.PORTS[kernel.name]
    return lambda *args: port(backend, *args)


def measure_jax(kernel, budget, port=None, check=None):
    """``jax.jit(jax.grad(...))`` in float64; numbers not differentiated are static.

    ``port`` is a JAX function of the kernel's arguments (by default the one in ``ports.py``);
    ``check(gradients)`` sees the first call's gradients before anything is timed and may
    raise to stop there.
    """
    import jax
    import ports

    backend = ports.jax_backend()
    func = port or _port(kernel, backend)
    static = tuple(
        i
        for i, a in enumerate(kernel.args)
        if isinstance(a, (int, float)) and i not in kernel.argnums
    )
    inputs = tuple(backend.asarray(a) if isinstance(a, np.ndarray) else a for a in kernel.args)
    grad = jax.jit(jax.grad(func, argnums=kernel.argnums), static_argnums=static)
    primal = jax.jit(func, static_argnums=static)
    run_grad = lambda: jax.block_until_ready(grad(*inputs))  # noqa: E731
    run_primal = lambda: jax.block_until_ready(primal(*inputs))  # noqa: E731
    first_grad, grads = timed_first(run_grad)
    if check is not None:
        check(_as_arrays(grads))
    first_primal, _ = timed_first(run_primal)
    timings = median_us(run_primal, budget), median_us(run_grad, budget)
    return Measured(first_grad, first_primal, *timings, _as_arrays(grads))


def measure_autograd(kernel, budget):
    """``autograd.grad`` of the port on NumPy arrays (no compilation)."""
    import autograd
    import ports

    func = _port(kernel, ports.autograd_backend())
    grad = autograd.grad(func, kernel.argnums)
    first_grad, grads = timed_first(lambda: grad(*kernel.args))
    return Measured(
        first_grad,
        None,
        median_us(lambda: func(*kernel.args), budget),
        median_us(lambda: grad(*kernel.args), budget),
        _as_arrays(grads),
        peak_bytes(lambda: grad(*kernel.args)),
    )


def measure_torch(kernel, budget):
    """PyTorch eager: the port on float64 tensors, ``torch.autograd.grad``."""
    import ports
    import torch

    torch.set_num_threads(1)
    func = _port(kernel, ports.torch_backend())
    inputs = []
    for position, a in enumerate(kernel.args):
        wanted = position in kernel.argnums
        if isinstance(a, np.ndarray) and a.dtype.kind in "iu":
            a = torch.tensor(a)  # index arrays keep their integer type
        elif isinstance(a, np.ndarray) or wanted:
            a = torch.tensor(a, dtype=torch.float64, requires_grad=wanted)
        inputs.append(a)
    leaves = [inputs[k] for k in kernel.argnums]

    def run_grad():
        return torch.autograd.grad(func(*inputs), leaves)

    def run_primal():
        with torch.no_grad():
            return func(*inputs)

    first_grad, grads = timed_first(run_grad)
    grads = [g.detach().numpy() for g in grads]
    timings = median_us(run_primal, budget), median_us(run_grad, budget)
    return Measured(first_grad, None, *timings, _as_arrays(grads))


TOOLS: dict[str, Any] = {
    "sourcediff": measure_sourcediff,
    "numba-hand": measure_hand,
    "jax": measure_jax,
    "autograd": measure_autograd,
    "torch": measure_torch,
}
