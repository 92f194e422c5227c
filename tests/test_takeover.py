"""An input's adjoint taking over a buffer nobody reads again (transform/takeover.py).

Where it must not: the buffer is read afterwards (directly or through the name a swap
exchanged it with), the input's adjoint already holds a contribution, the shapes differ.
End to end: swapped-buffer time steppers whose inputs' adjoints end as such a buffer,
against Richardson-extrapolated central differences, under every policy, compiled and as
Python; the returned gradients never share memory.
"""

import ast

import numpy as np
from reference import assert_gradients_at_random_points
from scope import gradient_matrix

import sourcediff as sd
from sourcediff.transform.takeover import take_over_last_buffers

SHAPE = (("class", "n"),)
SHAPES = {"a": SHAPE, "b": SHAPE, "u": SHAPE, "v": SHAPE}
RANKS = {name: 1 for name in ("a", "b", "u", "v", "a_bar", "b_bar", "u_bar", "v_bar")}

TEMPLATE = """
def f_vjp(a, b, g, steps):
    a_bar = np.zeros_like(a)
    b_bar = np.zeros_like(b)
    u_bar = np.zeros_like(u)
    v_bar = np.zeros_like(v)
    u_bar += g
    for _ in range(steps):
        v_bar, u_bar = (u_bar, v_bar)
        v_bar[0] += 0.5 * u_bar[0]
{tail}
"""


def _rewritten(tail: str, shapes=SHAPES) -> tuple[bool, str]:
    fn = ast.parse(TEMPLATE.format(tail=tail)).body[0]
    changed = take_over_last_buffers(fn, shapes, RANKS)
    return changed, ast.unparse(fn)


def test_the_last_sum_becomes_the_buffer():
    changed, source = _rewritten("    add_into(a_bar, u_bar)\n    return (a_bar, b_bar)")
    assert changed and "a_bar = u_bar" in source


def test_a_buffer_read_afterwards_is_left():
    tail = "    add_into(a_bar, u_bar)\n    add_into(b_bar, u_bar)\n    return (a_bar, b_bar)"
    changed, source = _rewritten(tail)
    assert "add_into(a_bar, u_bar)" in source and "b_bar = u_bar" in source


def test_the_swap_partner_holds_another_buffer():
    tail = "    add_into(a_bar, u_bar)\n    add_into(b_bar, v_bar)\n    return (a_bar, b_bar)"
    changed, source = _rewritten(tail)
    assert "a_bar = u_bar" in source and "b_bar = v_bar" in source


def test_a_buffer_copied_under_another_name_is_left():
    tail = "    w_bar = u_bar\n    add_into(a_bar, u_bar)\n    return (a_bar, w_bar)"
    changed, source = _rewritten(tail)
    assert not changed


def test_an_adjoint_with_a_contribution_already_is_left():
    tail = "    a_bar += g\n    add_into(a_bar, u_bar)\n    return (a_bar, b_bar)"
    changed, _ = _rewritten(tail)
    assert not changed


def test_a_tuple_assignment_of_expressions_is_not_a_swap():
    tail = "    w, z = (g[0] + 1.0, steps)\n    add_into(a_bar, u_bar)\n    return (a_bar, w)"
    changed, source = _rewritten(tail)
    assert changed and "a_bar = u_bar" in source


def test_a_buffer_of_another_shape_is_left():
    shapes = dict(SHAPES, u=(("class", "m"),), v=(("class", "m"),))
    changed, _ = _rewritten("    add_into(a_bar, u_bar)\n    return (a_bar, b_bar)", shapes)
    assert not changed


def two_buffers(a, b, c, steps):
    """Two inputs copied into swapped buffers; each input's adjoint ends as one of them."""
    n = a.shape[0]
    u = a.copy()
    v = b.copy()
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * v[i]
        u, v = v, u
    return np.sum(u * u) + np.sum(np.sin(v))


def shared_start(a, c, steps):
    """One input copied twice: its adjoint sums two buffers."""
    u = a.copy()
    v = a.copy()
    for _ in range(steps):
        v[1:] = u[1:] + c * u[:-1] * v[1:]
        u, v = v, u
    return np.sum(u * v)


CASES = [
    (two_buffers, lambda rng: (rng.uniform(-1, 1, 7), rng.uniform(-1, 1, 7), 0.3, 3), (0, 1, 2)),
    (shared_start, lambda rng: (rng.uniform(-1, 1, 6), 0.4, 3), (0, 1)),
]


POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2)]


@gradient_matrix(CASES, POLICIES)
def test_gradients_against_central_differences(case, policy, jit):
    func, make_args, argnums = case
    assert_gradients_at_random_points(func, make_args, argnums, policy, jit, seed=3)


def test_returned_gradients_do_not_share_memory():
    args = (np.linspace(-0.5, 0.5, 7), np.linspace(0.2, 0.9, 7), 0.3, 4)
    da, db, _ = sd.grad(two_buffers, argnums=(0, 1, 2))(*args)
    assert not np.shares_memory(da, db)
    assert "add_into" not in sd.adjoint_source(two_buffers, argnums=(0, 1, 2), args=args)
