"""A first look at sourcediff: a gradient, its value, the generated adjoint, the compiled primal.

Run with ``python examples/quickstart.py``.
"""

import math

import sourcediff as sd


def helper(x, y):
    return x * y + math.cos(y)


def f(x, y, n):
    s = 0.0
    for i in range(n):
        if s < 3.0:
            s += math.sin(x * i) * y
        else:
            s = s * 0.5 + helper(x, y)
    return s


def main():
    dfdx, dfdy = sd.grad(f, argnums=(0, 1))(1.5, 0.3, 10)
    value, dfdx_again = sd.value_and_grad(f)(1.5, 0.3, 10)
    print(f"f(1.5, 0.3, 10) = {value:.12f}")
    print(f"df/dx = {dfdx:.12f}   df/dy = {dfdy:.12f}")
    sd.check_grad(f, 1.5, 0.3, 10, argnums=(0, 1))
    print("check_grad against central finite differences: ok")
    print(f"sd.jit(f)(1.5, 0.3, 10) = {sd.jit(f)(1.5, 0.3, 10):.12f}")
    print()
    print(sd.adjoint_source(f, argnums=(0, 1), args=(1.5, 0.3, 10)))


if __name__ == "__main__":
    main()
