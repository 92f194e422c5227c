"""N-body sensitivity: how the final total energy of a velocity-Verlet simulation depends
on each body's initial position (energy drift is a property of the integrator).

    python examples/nbody_sensitivity.py
"""

import numpy as np

import sourcediff as sd


def accelerations(x, soft2):
    n = x.shape[0]
    acc = np.zeros_like(x)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = x[j] - x[i]
                r2 = np.sum(d * d) + soft2
                acc[i] += d / (r2 * np.sqrt(r2))
    return acc


def energy(x, v, soft2):
    e = 0.5 * np.sum(v * v)
    n = x.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = x[j] - x[i]
            e -= 1.0 / np.sqrt(np.sum(d * d) + soft2)
    return e


def final_energy(x0, v0, dt, steps, soft2):
    x = x0.copy()
    v = v0.copy()
    a = accelerations(x, soft2)
    for _ in range(steps):
        v = v + 0.5 * dt * a
        x = x + dt * v
        a = accelerations(x, soft2)
        v = v + 0.5 * dt * a
    return energy(x, v, soft2)


def main(bodies=8, steps=200, dt=1e-3):
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((bodies, 3))
    v0 = 0.3 * rng.standard_normal((bodies, 3))
    soft2 = 0.01
    e0 = sd.jit(energy)(x0, v0, soft2)
    e1, dx0 = sd.value_and_grad(final_energy)(x0, v0, dt, steps, soft2)
    print(f"energy {e0:.6f} -> {e1:.6f} after {steps} steps (drift {e1 - e0:.2e})")
    print("d final energy / d initial position, per body (norm):")
    print(np.round(np.linalg.norm(dx0, axis=1), 4))
    sd.check_grad(final_energy, x0, v0, dt, 10, soft2)
    print("check_grad against central finite differences (10 steps): ok")


if __name__ == "__main__":
    main()
