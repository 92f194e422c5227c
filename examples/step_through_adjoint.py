"""Reading and stepping through a generated adjoint.

``sd.adjoint_source`` returns the reverse-mode derivative as Python; with ``jit=False``
that very code runs as plain Python, so a debugger can stop in it. Run

    python examples/step_through_adjoint.py            # prints the adjoint and the gradient
    SOURCEDIFF_BREAK=1 python examples/step_through_adjoint.py   # stops in it with pdb

and in pdb: ``n`` steps, ``p s_bar`` shows an adjoint, ``c`` continues.
"""

import math
import os

import sourcediff as sd


def damped(x, k, n):
    s = x
    for _ in range(n):
        s = s * math.exp(-k) + math.sin(s)
    return s * s


def main():
    print(sd.adjoint_source(damped, argnums=(0, 1), args=(0.5, 0.1, 3)))
    grad = sd.grad(damped, argnums=(0, 1), jit=False)  # runs the code printed above
    if os.environ.get("SOURCEDIFF_BREAK"):
        import pdb

        pdb.runcall(grad, 0.5, 0.1, 3)  # 's' into the call to reach damped_vjp
    print("gradient:", grad(0.5, 0.1, 3))


if __name__ == "__main__":
    main()
