"""The optimizer stage (sourcediff/transform/optimize.py): each pass alone on small
functions, what it must leave alone, and the whole stage bit for bit against the
unoptimized derivative on the construct cases and the silent-wrong regressions."""

import ast
import textwrap

import numpy as np
import pytest
from benchmark_kernels import kernel_module
from construct_cases import CASES as CONSTRUCTS
from scope import case_policy_pairs, every_third
from silent_wrong_cases import CASES as REGRESSIONS

import sourcediff as sd
from sourcediff import pipeline
from sourcediff.analysis.dataflow import Dataflow
from sourcediff.transform.cleanup import drop_dead_stores
from sourcediff.transform.cse import share_common_subexpressions
from sourcediff.transform.first_arrays import bind_first_contributions
from sourcediff.transform.fold import fold_temporaries
from sourcediff.transform.forward_loops import run_independent_loops_forward
from sourcediff.transform.forwarding import forward_array_adjoints
from sourcediff.transform.optimize import optimize
from sourcediff.transform.repeats import drop_repeated_reads
from sourcediff.transform.stack_moves import merge_stack_moves
from sourcediff.transform.trip_counts import replay_invariant_ranges
from sourcediff.transform.zeros import assign_first_contributions


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _run(fn: ast.FunctionDef, *args):
    namespace = {"np": np, "add_into": _add_into}
    exec(compile(ast.fix_missing_locations(ast.Module([fn], [])), "<opt>", "exec"), namespace)
    return namespace[fn.name](*args)


def _add_into(target, value):
    target += value


def test_a_value_does_not_move_past_a_change_to_what_it_reads():
    fn = _function(
        """
        def f(x):
            t = x * 2.0
            x[0] = 100.0
            return t
        """
    )
    assert not fold_temporaries(fn)
    x = np.ones(3)
    np.testing.assert_array_equal(_run(fn, x), 2.0 * np.ones(3))


def test_a_value_does_not_move_past_a_call_that_changes_its_input():
    fn = _function(
        """
        def f(x, g):
            t = x + 1.0
            add_into(x, g)
            return t
        """
    )
    assert not fold_temporaries(fn)


def test_a_value_is_not_moved_into_a_loop_body_or_a_while_test():
    fn = _function(
        """
        def f(x, n):
            t = x * 2.0
            for i in range(n):
                x = x + t
            u = x * 3.0
            while u > 0.0:
                u = u - 1.0
            return u
        """
    )
    before = ast.dump(fn)
    fold_temporaries(fn)
    assert "t = x * 2.0" in ast.unparse(fn) and "u = x * 3.0" in ast.unparse(fn), before


def test_a_copy_is_not_propagated_past_a_rebinding_of_its_source():
    fn = _function(
        """
        def f(a):
            b = a
            a = a + 1.0
            return b * a
        """
    )
    fold_temporaries(fn)
    assert _run(fn, 1.0) == 2.0


def test_a_value_rebound_elsewhere_folds_only_where_it_is_dead_afterwards():
    fn = _function(
        """
        def f(x, n):
            s = 0.0
            t = x - 1.0
            s = s + t
            for i in range(n):
                s = s + t
                t = x * 2.0
            return s + t
        """
    )
    expected = _run(fn, 3.0, 2)
    fold_temporaries(fn)
    text = ast.unparse(fn)
    assert "t = x - 1.0" in text  # read again at the loop's first iteration
    assert "t = x * 2.0" in text  # read at the next iteration and after the loop
    assert _run(fn, 3.0, 2) == expected


def test_a_recomputed_value_folds_into_its_one_reader_in_each_sweep():
    fn = _function(
        """
        def f(u_bar, g, i):
            t = i - 1
            u_bar[t] += g
            t = i - 1
            u_bar[t] += 2.0 * g
            return u_bar
        """
    )
    fold_temporaries(fn)
    assert ast.unparse(fn).count("u_bar[i - 1] +=") == 2
    np.testing.assert_array_equal(_run(fn, np.zeros(3), 1.0, 2), [0.0, 3.0, 0.0])


def test_a_node_shared_by_two_places_is_rewritten_in_one():
    shared = ast.parse("t = x * 2.0").body[0]
    fn = _function(
        """
        def f(x):
            pass
        """
    )
    fn.body = [shared, ast.parse("y = t + 1.0").body[0], shared, ast.parse("return y + t").body[0]]
    optimized = optimize(fn)
    assert _run(optimized, 1.0) == 5.0
    assert ast.unparse(fn.body[0]) == "t = x * 2.0"  # the input is left as it was


FORWARDED = """
def f_vjp(g, t, A_bar):
    t_bar = np.zeros_like(t)
    u_bar = np.zeros_like(t)
    for k in range(3):
        add_into(t_bar, g * (k + 1.0))
        add_into(u_bar, g)
        add_into(A_bar[1:], u_bar)
        add_into(A_bar[:-1], t_bar)
        u_bar.fill(0.0)
        t_bar.fill(0.0)
    return A_bar
"""


def test_an_adjoint_buffer_passed_on_once_is_skipped_and_the_sum_is_unchanged():
    fn = _function(FORWARDED)
    g, t = np.array([0.5, -1.25]), np.zeros(2)
    expected = _run(_function(FORWARDED), g, t, np.zeros(3))
    assert forward_array_adjoints(fn)
    text = ast.unparse(fn)
    assert "add_into(A_bar[1:], g)" in text  # nothing touches A_bar in between
    assert "add_into(A_bar[:-1], t_bar)" in text  # A_bar[1:] is added to in between
    assert "u_bar.fill" not in text
    np.testing.assert_array_equal(_run(fn, g, t, np.zeros(3)), expected)


def test_an_adjoint_buffer_read_twice_or_shared_is_kept():
    fn = _function(
        """
        def f_vjp(g, t, A_bar, B_bar):
            t_bar = np.zeros_like(t)
            w_bar = t_bar
            add_into(t_bar, g)
            add_into(A_bar, t_bar)
            add_into(B_bar, t_bar)
            t_bar.fill(0.0)
            return A_bar
        """
    )
    assert not forward_array_adjoints(fn)


SHAPE = (("class", "n"),)


def _bound(source: str, shapes: dict) -> tuple[ast.FunctionDef, bool]:
    fn = _function(source)
    return fn, bind_first_contributions(fn, shapes)


def test_a_zero_buffer_is_bound_to_its_first_contribution_a_new_array_of_its_shape():
    source = """
        def f_vjp(t, g):
            t_bar = np.zeros_like(t)
            t_bar += g * 2.0
            add_into(t_bar, g)
            return (t_bar,)
        """
    fn, changed = _bound(source, {"t": SHAPE, "g": SHAPE})
    assert changed and ast.unparse(fn.body[1]) == "t_bar = g * 2.0"
    g = np.array([1.0, -2.0])
    np.testing.assert_array_equal(_run(fn, g, g)[0], _run(_function(source), g, g)[0])


def test_a_broadcast_contribution_or_an_unknown_shape_keeps_the_zeros():
    source = """
        def f_vjp(t, g):
            t_bar = np.zeros_like(t)
            t_bar += g * 2.0
            return (t_bar,)
        """
    assert not _bound(source, {"t": SHAPE, "g": ()})[1]  # a number broadcast into t_bar
    assert not _bound(source, {"t": SHAPE})[1]  # g's shape unknown


def test_a_buffer_is_taken_over_only_if_neither_changes_and_no_result_shares_it():
    taken = """
        def f_vjp(t, u, g, v_bar, w_bar):
            t_bar = np.zeros_like(t)
            u_bar = np.zeros_like(u)
            t_bar += g * 2.0
            add_into(u_bar, t_bar)
            add_into(v_bar, t_bar)
            add_into(w_bar, u_bar)
            return (v_bar, w_bar)
        """
    shapes = {"t": SHAPE, "u": SHAPE, "g": SHAPE}
    fn, changed = _bound(taken, shapes)
    assert changed and "u_bar = t_bar" in ast.unparse(fn)
    g, v, w = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    np.testing.assert_array_equal(_run(fn, g, g, g, v, w), _run(_function(taken), g, g, g, v, w))
    written = taken.replace("add_into(v_bar, t_bar)", "add_into(t_bar, g)")
    assert "u_bar = t_bar" not in ast.unparse(_bound(written, shapes)[0])
    result = taken.replace("return (v_bar, w_bar)", "return (u_bar,)")
    assert "u_bar = t_bar" not in ast.unparse(_bound(result, shapes)[0])  # t_bar read later
    dead = result.replace("add_into(v_bar, t_bar)", "")
    assert "u_bar = t_bar" in ast.unparse(_bound(dead, shapes)[0])


def test_a_same_rank_sum_of_other_symbols_may_return_its_argument_and_is_not_bound():
    """np.zeros(4) and a vector of class n have different symbols but may be equal at run
    time; then sum_to returns s_bar itself, and b_bar must not share it."""
    source = """
        def f_vjp(b, g, c_bar):
            s_bar = np.zeros(4)
            b_bar = np.zeros_like(b)
            add_into(s_bar, g)
            add_into(b_bar, sum_to(s_bar, b_bar))
            add_into(s_bar, g)
            add_into(c_bar, s_bar)
            return (b_bar,)
        """
    shapes = {"b": (("class", "n"),), "s_bar": (("constant", 4),), "g": (("constant", 4),)}
    fn, _ = _bound(source, shapes)
    assert "add_into(b_bar, sum_to(s_bar, b_bar))" in ast.unparse(fn)
    lower_rank = source.replace("np.zeros_like(b)", "np.zeros_like(c)")
    fn, _ = _bound(lower_rank, shapes | {"c": ()})
    assert "add_into(b_bar" not in ast.unparse(fn)  # a sum over every axis is a new value


def test_a_shared_buffer_is_never_bound():
    source = """
        def f_vjp(t, g):
            t_bar = np.zeros_like(t)
            alias = t_bar
            t_bar += g * 2.0
            return (alias,)
        """
    assert not _bound(source, {"t": SHAPE, "g": SHAPE})[1]


def test_accumulation_into_a_loop_carried_adjoint_stays_an_accumulation():
    fn = _function(
        """
        def f(g, n):
            s_bar = 0.0
            for i in range(n):
                s_bar += g
            return s_bar
        """
    )
    assert not assign_first_contributions(fn)
    assert _run(fn, 1.5, 3) == 4.5


def test_a_zero_on_one_branch_only_is_not_known():
    fn = _function(
        """
        def f(g, c):
            s_bar = 1.0
            if c:
                s_bar = 0.0
            s_bar += g
            return s_bar
        """
    )
    assert not assign_first_contributions(fn)


def test_dead_stores_keep_a_while_loops_test_and_counters():
    fn = _function(
        """
        def f(y):
            n = 0
            running = y > 0.01
            while running:
                y = 0.5 * y
                n += 1
                running = y > 0.01
            return y + n
        """
    )
    drop_dead_stores(fn)
    assert _run(fn, 1.0) == 0.0078125 + 7


def test_no_sharing_of_arrays_changed_in_place():
    fn = _function(
        """
        def f(x):
            a = x * 2.0
            b = x * 2.0
            b[0] = 0.0
            return a
        """
    )
    assert not share_common_subexpressions(fn)
    np.testing.assert_array_equal(_run(fn, np.ones(2)), [2.0, 2.0])


def test_no_sharing_across_a_change_to_an_input():
    fn = _function(
        """
        def f(x):
            a = x * 2.0
            x[0] = 5.0
            b = x * 2.0
            return a + b
        """
    )
    assert not share_common_subexpressions(fn)


def test_the_stage_reaches_a_fixed_point_and_keeps_the_value():
    fn = _function(
        """
        def f(x, dt):
            s_bar = 0.0
            t1 = 0.5 * dt
            t2 = x + t1
            t3 = 0.5 * dt
            t4 = t2 * t3
            s_bar += t4
            r = s_bar
            return r
        """
    )
    optimized = optimize(fn)
    assert optimize(optimized) is not optimized
    assert ast.dump(optimize(optimized)) == ast.dump(optimized)
    assert _run(optimized, 1.0, 0.2) == _run(fn, 1.0, 0.2)
    assert len(optimized.body) < len(fn.body)


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def _gradients(func, args, argnums, optimize_flag, monkeypatch, policy):
    monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", optimize_flag)
    value_and_grad = sd.value_and_grad(func, argnums=argnums, policy=policy, jit=False)
    return value_and_grad(*_copied(args))


POLICIES = [sd.Checkpoint(snapshots=2), "auto"]  # replays and records; the default
CASES = [c[:3] for c in CONSTRUCTS] + [c[:3] for c in REGRESSIONS]


# Every other case, under one of the two policies, alternating (every case under both with
# SOURCEDIFF_FULL_SUITE=1).
@pytest.mark.parametrize(
    ("case", "policy"),
    [
        pytest.param(c, p, id=f"{c[0].__name__}-{p}")
        for c, p in case_policy_pairs(every_third(CASES), POLICIES, share=1)
    ],
)
def test_optimized_derivative_is_bit_for_bit_the_unoptimized_one(case, policy, monkeypatch):
    func, args, argnums = case
    plain = _gradients(func, args, argnums, "0", monkeypatch, policy)
    optimized = _gradients(func, args, argnums, "1", monkeypatch, policy)
    for mine, theirs in zip(_flat(optimized), _flat(plain)):
        np.testing.assert_array_equal(mine, theirs)


def _flat(result):
    value, grads = result
    grads = grads if isinstance(grads, tuple) else (grads,)
    return [np.asarray(value)] + [np.asarray(g) for g in grads]


# RK4 of the Lorenz system: a large reverse sweep whose rewrites free and allocate many
# nodes (the optimizer once kept facts by id() and gave a new statement a freed one's
# facts: "c2_bar = 2.0 * t46_bar" dropped under "auto", the gradient 110% off).
lorenz_rk4 = kernel_module("kernels_more").lorenz


@pytest.mark.parametrize(
    "policy", ["auto", "store", "recompute", sd.Checkpoint(snapshots=2)], ids=str
)
def test_rk4_lorenz_under_every_policy_is_bit_for_bit_the_unoptimized_one(policy, monkeypatch):
    args = (1.0, 1.0, 20.0, 10.0, 28.0, 8.0 / 3.0, 3, 0.01)
    argnums = (0, 1, 2, 3, 4, 5)
    plain = _gradients(lorenz_rk4, args, argnums, "0", monkeypatch, policy)
    optimized = _gradients(lorenz_rk4, args, argnums, "1", monkeypatch, policy)
    for mine, theirs in zip(_flat(optimized), _flat(plain)):
        np.testing.assert_array_equal(mine, theirs)


def test_an_element_subtracted_from_makes_a_buffer_nonzero():
    """``x_bar[0] -= g`` writes the buffer: the zeroing after it stays (the all-zero
    analysis once saw only additions, and would have dropped it as already zero)."""
    fn = ast.parse(
        "def f_vjp(x, g, w_bar):\n"
        "    x_bar = np.zeros_like(x)\n"
        "    for k in range(3):\n"
        "        x_bar[0] -= g\n"
        "        w_bar[0] += x_bar[0]\n"
        "        x_bar.fill(0.0)\n"
        "    return w_bar\n"
    ).body[0]
    forward_array_adjoints(fn)
    assert "x_bar.fill(0.0)" in ast.unparse(fn)


def test_a_buffer_read_one_element_at_a_time_stays_private_only_given_its_rank():
    """``g = t_bar[i, j]`` copies a number out (no memory shared) when ``t_bar`` is known
    to be of rank 2; a read of a row (rank 1 left) or of the whole buffer shares it."""
    from sourcediff.transform.forwarding import private_buffers

    def buffers(body: str, ranks):
        source = "def f(t, n):\n    t_bar = np.zeros_like(t)\n" + textwrap.indent(body, "    ")
        return private_buffers(_function(source), ranks=ranks)

    element = "for i in range(n):\n    g = t_bar[i, 0]\n    t_bar[i, 0] = 0.0\n"
    assert buffers(element, {"t_bar": 2}) == {"t_bar"}
    assert buffers(element, None) == set()
    row = "for i in range(n):\n    g = t_bar[i]\n"
    assert buffers(row, {"t_bar": 2}) == set()
    assert buffers("g = t_bar\n", {"t_bar": 2}) == set()


def _passed_through(source: str, ranks: dict) -> str:
    from sourcediff.transform.passthrough import pass_through_increments

    fn = _function(source)
    pass_through_increments(fn, ranks)
    return ast.unparse(fn)


INCREMENT_REVERSE = """
def f_vjp(f_bar, w_bar, n):
    for j in range(n):
        t_bar = f_bar[j, 1]
        f_bar[j, 1] = 0.0
        w_bar += -t_bar
        {between}
        f_bar[j, 1] += t_bar
    return w_bar
"""


def test_an_increments_adjoint_is_left_in_place_unless_something_reads_it_meanwhile():
    plain = _passed_through(INCREMENT_REVERSE.format(between="u = 2.0 * t_bar"), {"f_bar": 2})
    assert "f_bar[j, 1] = 0.0" not in plain and "f_bar[j, 1] +=" not in plain
    for between in ("s = np.sum(f_bar)", "g = f_bar[j, 1]", "j = j + 1", "t_bar = 2.0"):
        kept = _passed_through(INCREMENT_REVERSE.format(between=between), {"f_bar": 2})
        assert "f_bar[j, 1] = 0.0" in kept and "f_bar[j, 1] += t_bar" in kept, between
    row = _passed_through(INCREMENT_REVERSE.format(between="u = 2.0"), {"f_bar": 3})
    assert "f_bar[j, 1] = 0.0" in row  # a row, not an element: the zeroing changes the view


def pairwise_forces(x, n):
    f = np.zeros((x.shape[0], 2))
    t = 0.0
    for _ in range(n):
        for i in range(x.shape[0]):
            for j in range(i + 1, x.shape[0]):
                d = x[j] - x[i]
                w = d / (1.0 + d * d)
                f[i, 0] += w * d
                t = t + f[j, 0] * w
                f[j, 0] -= w
                f[j, 1] += 0.5 * w * w
    return np.sum(f * f) + t


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(2), "auto"], ids=str)
def test_pairwise_increments_against_central_differences(policy, jit, monkeypatch):
    if not jit:
        monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    x = np.array([0.3, -0.8, 1.1, 0.05])
    sd.check_grad(pairwise_forces, x, 2, argnums=(0,), policy=policy, jit=jit)


def _moves(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` with its ``top += k`` / ``top -= k`` marked as record moves, as lowering does."""
    for node in ast.walk(fn):
        if isinstance(node, ast.AugAssign) and getattr(node.target, "id", "") == "top":
            node.record_writes = frozenset({"top"})
    return fn


def test_stack_moves_do_not_merge_across_a_loop_a_branch_or_a_rebinding():
    fn = _moves(
        _function(
            """
            def f(t, top, a, n):
                t[top] = a
                top += 1
                for i in range(n):
                    t[top] = a
                    top += 1
                t[top] = a
                top += 1
                if a > 0.0:
                    t[top] = a
                t[top] = a
                top += 1
                top = 0
                t[top] = a
                top += 1
                return top
            """
        )
    )
    before = ast.unparse(fn)
    assert not merge_stack_moves(fn)
    assert ast.unparse(fn) == before


def test_merged_stack_moves_store_and_read_the_same_slots():
    source = """
        def f(t, top, a, b):
            t[top] = a
            top += 1
            b = a * 2.0
            t[top] = b
            top += 1
            t[top] = a + b
            top += 1
            top -= 1
            c = t[top]
            top -= 1
            d = t[top]
            top -= 1
            return c, d, t[top], top
        """
    plain, merged = _moves(_function(source)), _moves(_function(source))
    assert merge_stack_moves(merged)
    assert ast.unparse(merged).count("top +=") == 1
    assert ast.unparse(merged).count("top -=") == 1
    expected = _run(plain, np.zeros(5), 1, 0.5, 0.0)
    assert _run(merged, np.zeros(5), 1, 0.5, 0.0) == expected


@pytest.mark.parametrize(
    ("bounds", "rebinding", "kept"),
    [
        ("range(1, t)", "", False),  # invariant: the count is dropped
        ("range(1, t)", "t = t + 1", True),  # its bound rebound: the count stays
        ("range(0, t, 2)", "", True),  # a step: the reverse range keeps the count
    ],
)
def test_reverse_ranges_read_invariant_bounds_only(bounds, rebinding, kept):
    fn = _function(
        f"""
        def f(x):
            t = x.shape[0]
            n_j = len({bounds})
            for j in {bounds}:
                x[j] = x[j] * 2.0
            {rebinding}
            for j in range(1 + (n_j - 1), 0, -1):
                x[j] = x[j] + 1.0
            return x
        """
    )
    replay_invariant_ranges(fn)
    assert ("n_j - 1" in ast.unparse(fn)) == kept


@pytest.mark.parametrize(
    ("body", "after", "turns"),
    [
        ("t = x[j] * g; w_bar[k, j] += t", "", True),  # elementwise: forwards
        ("w_bar[j, k] = w_bar[j, k] * 2.0; w_bar[j, k] += x[j]", "", True),
        ("w_bar[k, j] += x[j]; w_bar[k, j + 1] += x[j]", "", False),  # neighbours
        ("s += x[j]", "", False),  # a carried sum: the order of its rounding stays
        ("w_bar[k, j] += s; s = x[j]", "", False),  # read before it is bound
        ("t = x[j]; w_bar[k, j] += t", "return t", False),  # the last t is read
        ("w_bar[k, j] += v[j]", "", False),  # v may be a view of w_bar
        ("w_bar[k] += x[j]", "", False),  # a row, not an element
        ("w_bar[k, j] += x[j]; w_bar[k, 0] += 1.0", "", False),  # two axes differ
    ],
)
def test_a_reverse_loop_runs_forwards_only_when_its_iterations_share_nothing(body, after, turns):
    source = f"""
        def f(x, w_bar, g, k, n):
            s = 0.0
            t = 0.0
            v = w_bar[k]
            for j in range(n - 1, -1, -1):
                {body}
            {after or "return w_bar, s"}
        """
    fn = _function(source)
    ranks = {"x": 1, "w_bar": 2, "v": 1}
    assert run_independent_loops_forward(fn, ranks) == turns
    loop = next(s for s in fn.body if isinstance(s, ast.For))
    assert ast.unparse(loop.iter) == ("range(n)" if turns else "range(n - 1, -1, -1)")
    args = (np.linspace(0.1, 0.9, 4), np.arange(20.0).reshape(4, 5), 0.3, 1, 4)
    plain = _run(_function(source), args[0], args[1].copy(), *args[2:])
    again = _run(fn, args[0], args[1].copy(), *args[2:])
    assert repr(plain) == repr(again)


def test_a_forward_loop_keeps_its_bounds_and_a_record_keeps_it_reversed():
    fn = _function(
        """
        def f(x, x_bar, i, n, t, top):
            for j in range(n - 1, i, -1):
                x_bar[j] += 2.0 * x[j]
            for j in range(n - 1, -1, -1):
                top -= 1
                x_bar[j] += t[top]
        """
    )
    fn.body[1].body[0].record_writes = frozenset({"top"})
    assert run_independent_loops_forward(fn, {"x": 1, "x_bar": 1})
    assert ast.unparse(fn.body[0].iter) == "range(i + 1, n)"
    assert ast.unparse(fn.body[1].iter) == "range(n - 1, -1, -1)"


@pytest.mark.parametrize(
    ("between", "dropped"),
    [
        ("y_bar[j] += d * g", True),  # another array: x[j] unchanged
        ("x[j] = 0.5", False),  # the array read
        ("v[0] = 0.5", False),  # a view of it
        ("add_into(x, y_bar)", False),  # a call that may write it
        ("j = j - 1", False),  # its index
    ],
)
def test_a_repeated_element_read_goes_only_while_its_memory_is_unchanged(between, dropped):
    source = f"""
        def f(x, y_bar, g, j):
            v = x[1:]
            d = x[j] - x[j - 1]
            y_bar[j] += d * g
            {between}
            d = x[j] - x[j - 1]
            y_bar[j - 1] += d
            return y_bar, d
        """
    fn = _function(source)
    ranks = {"x": 1, "y_bar": 1, "v": 1}
    assert drop_repeated_reads(fn, ranks) == dropped
    assert ast.unparse(fn).count("d = x[j] - x[j - 1]") == (1 if dropped else 2)
    plain = _run(_function(source), np.linspace(0.1, 0.9, 5), np.zeros(5), 0.3, 3)
    again = _run(fn, np.linspace(0.1, 0.9, 5), np.zeros(5), 0.3, 3)
    assert repr(plain) == repr(again)


_EDGES = np.array([0, 2, 2, 1])


def _gathers_and_masks(x):
    return np.sum(x[x > 0.1] ** 2) + np.sum(np.sin(x[_EDGES]) * 2.0)


@pytest.mark.parametrize("policy", ["store", "recompute", "auto"])
def test_a_gather_is_read_in_the_reverse_loop_not_gathered_again_per_element(policy):
    """``t = x[mask]`` is a new array: the reverse sweep reads ``t[j]``; ``x[mask][j]`` in a
    loop would gather the whole array once per element."""
    x = np.array([0.5, -0.2, 0.3, 0.9])
    source = sd.adjoint_source(_gathers_and_masks, policy=policy, args=(x,))
    assert "][" not in source.split("def _gathers_and_masks_vjp")[1]
    sd.check_grad(_gathers_and_masks, x, policy=policy, jit=False)


def _sources(func, args, argnums, policy, tmp_path, monkeypatch, label):
    """The derivative's source built afresh: its own cache directory, no primal cached."""
    monkeypatch.setenv("SOURCEDIFF_CACHE_DIR", str(tmp_path / label))
    monkeypatch.setattr(pipeline, "_OPTIMIZED_PRIMALS", {})
    return sd.adjoint_source(func, argnums=argnums, args=args, policy=policy)


NESTED = [
    (lorenz_rk4, (1.0, 1.0, 20.0, 10.0, 28.0, 8.0 / 3.0, 3, 0.01), (0, 3)),
    (kernel_module("kernels_arrays").nbody, kernel_module("kernels_arrays").nbody_args(4, 3), (0,)),
    (
        kernel_module("kernels_more").gray_scott,
        kernel_module("kernels_more").gray_scott_args(8, 2),
        (0,),
    ),
]


@pytest.mark.parametrize("policy", ["store", sd.Checkpoint(snapshots=2)], ids=str)
@pytest.mark.parametrize(("func", "args", "argnums"), NESTED, ids=["lorenz", "nbody", "gray_scott"])
def test_inner_loops_warm_started_settle_to_the_same_facts(
    func, args, argnums, policy, tmp_path, monkeypatch
):
    """The dataflow solver starts an inner loop from its last head while an outer loop
    settles; started cold every time, every analysis reaches the same facts, so the
    generated derivative is the same text."""
    warm = _sources(func, args, argnums, policy, tmp_path, monkeypatch, "warm")
    monkeypatch.setattr(Dataflow, "warm_start", False)
    cold = _sources(func, args, argnums, policy, tmp_path, monkeypatch, "cold")
    assert warm == cold


def test_the_primal_is_optimized_once_for_every_policy_and_follows_the_switch(
    tmp_path, monkeypatch
):
    calls = []
    original = pipeline.optimized

    def counted(function, parsed, *rest):
        calls.append(function.name)
        return original(function, parsed, *rest)

    monkeypatch.setattr(pipeline, "optimized", counted)
    monkeypatch.setattr(pipeline, "_OPTIMIZED_PRIMALS", {})
    monkeypatch.setenv("SOURCEDIFF_CACHE_DIR", str(tmp_path))
    args = (1.0, 1.0, 20.0, 10.0, 28.0, 8.0 / 3.0, 3, 0.01)
    for policy in ("store", "recompute", sd.Checkpoint(snapshots=2)):
        optimized = sd.adjoint_source(lorenz_rk4, args=args, policy=policy)
    assert calls.count("lorenz") == 1  # the primal; the derivatives: once per policy
    assert calls.count("lorenz_vjp") == 3
    monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", "0")
    plain = sd.adjoint_source(lorenz_rk4, args=args, policy=sd.Checkpoint(snapshots=2))
    assert plain.split("def lorenz_vjp")[0] != optimized.split("def lorenz_vjp")[0]
