"""Jacobian timings in each mode: a 10 x 1,000 Jacobian (few outputs, many inputs) and a
1,000 x 10 one (many outputs, few inputs), swept in one compiled call per Jacobian.

    python benchmarks/bench_jacobian.py
"""

import time

import numpy as np

import sourcediff as sd


def wide(x):
    """10 outputs of 1,000 inputs: weighted moments of a smooth transform."""
    y = np.tanh(x)
    out = np.zeros(10)
    for k in range(10):
        out[k] = np.sum(y ** (k + 1)) / x.shape[0]
    return out


def tall(p, t):
    """1,000 outputs of 10 parameters: a sum of damped modes sampled at times t."""
    out = np.zeros(t.shape[0])
    for k in range(p.shape[0]):
        out += np.exp(-0.1 * (k + 1) * t) * np.sin(p[k] * t)
    return out


def best(function, *args, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    x = np.linspace(-1.0, 1.0, 1000)
    p, t = np.linspace(0.5, 2.0, 10), np.linspace(0.0, 5.0, 1000)
    cases = [("10 x 1000", wide, (x,)), ("1000 x 10", tall, (p, t))]
    print(f"{'jacobian':>10} {'mode':>8} {'seconds':>10} {'primal s':>10} {'ratio':>8}")
    for label, func, args in cases:
        primal = sd.jit(func)
        primal(*args)
        base = best(primal, *args)
        for mode in ("forward", "reverse", "auto"):
            jac = sd.jacobian(func, mode=mode)
            jac(*args)  # compile
            seconds = best(jac, *args, repeat=3)
            print(f"{label:>10} {mode:>8} {seconds:>10.2e} {base:>10.2e} {seconds / base:>8.0f}")


if __name__ == "__main__":
    main()
