"""Hessian cost in gradients: sd.hessian (reverse over forward, one Hessian-vector
product per input) over sd.grad, at n = 10, 100 and 1,000 inputs.

    python benchmarks/bench_second_order.py
"""

import time

import numpy as np

import sourcediff as sd


def chain(x):
    """A coupled chain: every Hessian entry within distance 1 of the diagonal is non-zero."""
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def best(function, *args, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    grad, hessian, hvp = sd.grad(chain), sd.hessian(chain), sd.hvp(chain)
    print(f"{'n':>6} {'grad s':>10} {'hvp s':>10} {'hessian s':>10} {'hess/grad':>10}")
    for n in (10, 100, 1000):
        x = np.linspace(-1.0, 1.0, n)
        grad(x), hvp(x, x), hessian(x)  # compile
        g = best(grad, x)
        v = best(hvp, x, x)
        h = best(hessian, x, repeat=1 if n >= 1000 else 3)
        print(f"{n:>6} {g:>10.2e} {v:>10.2e} {h:>10.2e} {h / g:>10.0f}")


if __name__ == "__main__":
    main()
