"""Ensembles beyond one process: the summed gradient of 1,000 heat problems with different
conductivities, computed on a ``dask.distributed`` cluster (the ``distributed`` extra).

``sd.value_and_grad(f)`` pickles as ``f`` and its options: each worker rebuilds the
derivative from the source, and with a shared ``SOURCEDIFF_CACHE_DIR`` (the default, on
one machine) it loads the generated module and Numba's compiled code from disk instead
of transforming and compiling again.

    python examples/ensemble_dask.py [--problems 1000] [--workers 2]
    python examples/ensemble_dask.py --compare --steps 2000   # speed-up over 1 worker

``--compare`` runs the same ensemble on one worker and on ``--workers``, and measures the
per-task overhead of the cluster with tasks that do nothing.
"""

import argparse
import time

import numpy as np

import sourcediff as sd


def heat_energy(u0, alpha, steps):
    u = u0.copy()
    v = np.zeros_like(u0)
    n = u0.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return np.sum(u * u)


def batch_gradient(value_and_grad, u0, alphas, steps):
    """Sum of values and of d/d u0 over one batch of conductivities (one task)."""
    total, grad = 0.0, np.zeros_like(u0)
    for alpha in alphas:
        value, du0 = value_and_grad(u0, alpha, steps)
        total += value
        grad += du0
    return total, grad


def ensemble(client, problems=1000, tasks=20, n=64, steps=200):
    """The summed value and gradient over ``problems`` conductivities, in ``tasks`` tasks."""
    u0 = np.sin(np.linspace(0.0, np.pi, n))
    alphas = np.linspace(0.05, 0.45, problems)
    value_and_grad = sd.value_and_grad(heat_energy)
    futures = [
        client.submit(batch_gradient, value_and_grad, u0, chunk, steps, pure=False)
        for chunk in np.array_split(alphas, tasks)
    ]
    parts = client.gather(futures)
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def _nothing(i):
    return i


def task_overhead(client, tasks=200):
    """Seconds per task of submitting and gathering tasks that do nothing."""
    client.gather(client.map(_nothing, range(tasks), pure=False))  # warm up
    start = time.perf_counter()
    client.gather(client.map(_nothing, range(tasks), pure=False))
    return (time.perf_counter() - start) / tasks


def timed_run(workers, problems, tasks, n=64, steps=200):
    """``(value, gradient, seconds, seconds per empty task)`` on a fresh local cluster."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster) as client:
            ensemble(client, problems=tasks, tasks=tasks, n=n, steps=1)  # warm up every worker
            start = time.perf_counter()
            value, grad = ensemble(client, problems=problems, tasks=tasks, n=n, steps=steps)
            seconds = time.perf_counter() - start
            return value, grad, seconds, task_overhead(client)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--n", type=int, default=64, help="grid points per problem")
    parser.add_argument("--steps", type=int, default=200, help="time steps per problem")
    parser.add_argument("--compare", action="store_true", help="also run on one worker")
    options = parser.parse_args(argv)
    counts = [1, options.workers] if options.compare else [options.workers]
    seconds = {}
    for workers in counts:
        value, grad, seconds[workers], overhead = timed_run(
            workers, options.problems, options.tasks, options.n, options.steps
        )
        print(
            f"{options.problems} heat problems ({options.n} points, {options.steps} steps) "
            f"in {options.tasks} tasks on {workers} workers: {seconds[workers]:.2f} s; "
            f"{1e3 * overhead:.2f} ms per empty task"
        )
    print(f"summed energy {value:.4f}; |summed d energy / d u0| = {np.linalg.norm(grad):.4f}")
    if options.compare:
        speed_up = seconds[1] / seconds[options.workers]
        print(f"speed-up on {options.workers} workers: {speed_up:.2f}x")


if __name__ == "__main__":
    main()
