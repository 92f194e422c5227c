"""``sd.tape_size``: the record a policy needs, known before running the derivative."""

import math
import tracemalloc

import golden_functions as g
import numpy as np
import pytest
from benchmark_kernels import kernel_module
from reference import array_central_difference, central_difference

import sourcediff as sd
from sourcediff.runtime import (
    ADVANCE,
    RESTORE,
    REVERSE,
    TAKESHOT,
    revolve_next,
    revolve_schedule,
    summed_lengths,
)

U0 = np.sin(np.linspace(0.0, 3.0, 200))


def test_policies_order_the_record_as_expected():
    sizes = {
        str(p): sd.tape_size(g.heat, U0, 0.2, 300, argnums=(0, 1), policy=p, jit=False)
        for p in ["store", "auto", "recompute", sd.Checkpoint(snapshots=4)]
    }
    # recompute snapshots both 200-cell buffers every step; store keeps only the
    # Laplacian (8 bytes) per interior cell and step (index arithmetic is recomputed)
    assert sizes["Checkpoint(snapshots=4)"] < sizes["store"] < sizes["recompute"]
    # the inner trip count (n - 2 every step) is not recorded
    assert sizes["store"] == 8 * 198 * 300
    assert sizes["auto"] <= sizes["store"]


def test_store_grows_with_the_steps_and_checkpointing_does_not():
    def size(steps, policy):
        return sd.tape_size(g.heat, U0, 0.2, steps, argnums=(0, 1), policy=policy, jit=False)

    assert size(400, "store") == pytest.approx(2 * size(200, "store"), rel=0.01)
    checkpoint = sd.Checkpoint(snapshots=4)
    # 4 states of two 200-cell buffers plus one step's record; the revolve schedule is
    # made one action at a time, so nothing grows with the number of steps.
    assert size(4000, checkpoint) < size(4000, "recompute") / 20
    assert size(40_000, checkpoint) == size(4000, checkpoint) == size(200, checkpoint)


def _decay(y, k, n):
    for _ in range(n):
        y = y - 0.01 * k * y * y
    return y


@pytest.mark.parametrize("jit", [False, True])
def test_a_million_step_scalar_loop_is_checkpointed_in_bounded_memory(jit):
    """Three snapshots of one float and the schedule's frames, whatever the length; the
    gradient is store's (the closed form is out of reach, store is not)."""
    policy = sd.Checkpoint(snapshots=3)
    sizes = [sd.tape_size(_decay, 0.5, 2.0, n, policy=policy, jit=jit) for n in (10, 10**6)]
    assert sizes[0] == sizes[1] <= 3 * 8 + 48 * (3 + 3) + 64  # snapshots, schedule, slack
    assert sd.tape_size(_decay, 0.5, 2.0, 10**6, policy="store", jit=jit) >= 8 * 10**6
    if jit:
        args = (0.5, 2.0, 10**4)  # three snapshots re-run a million steps too often for a test
        expected = sd.grad(_decay, argnums=(0, 1), policy="store")(*args)
        actual = sd.grad(_decay, argnums=(0, 1), policy=policy)(*args)
        np.testing.assert_allclose(actual, expected, rtol=1e-12)


@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(snapshots=3)], ids=str)
def test_tape_size_matches_the_memory_the_derivative_allocates(policy):
    """The peak of the compiled gradient's allocations (tracemalloc sees Numba's) is the
    record plus the adjoint arrays (a few arrays of the state's size)."""
    grad = sd.grad(g.heat, argnums=(0, 1), policy=policy)
    grad(U0.copy(), 0.2, 3)  # build and compile outside the measurement
    expected = sd.tape_size(g.heat, U0, 0.2, 300, argnums=(0, 1), policy=policy)
    tracemalloc.start()
    grad(U0.copy(), 0.2, 300)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert expected <= peak <= expected + 12 * U0.nbytes + 256 * 1024, (expected, peak)


def test_tape_size_does_not_touch_the_callers_arrays():
    x = np.linspace(0.1, 0.9, 5)
    before = x.copy()

    def scale_in_place(x, a):
        for i in range(x.shape[0]):
            x[i] = x[i] * a
        return np.sum(x * x)

    assert sd.tape_size(scale_in_place, x, 2.0, argnums=(0, 1), policy="store", jit=False) > 0
    np.testing.assert_array_equal(x, before)


def test_auto_plans_within_its_budget_and_checkpoints_only_when_needed(monkeypatch):
    """'auto' plans at the first call from the exact record: heat's store record for 300
    steps (about 480 kB) is over a 100 kB budget, so its time loop is checkpointed; the
    gradient is the store policy's to rounding."""
    monkeypatch.setenv("SOURCEDIFF_MEMORY_BUDGET", "100K")
    args = (U0, 0.2, 300)
    auto = sd.tape_size(g.heat, *args, argnums=(0, 1), policy="auto", jit=False)
    assert auto <= 100 * 2**10
    assert sd.tape_size(g.heat, *args, argnums=(0, 1), policy="store", jit=False) > 100 * 2**10
    source = sd.adjoint_source(g.heat, argnums=(0, 1), args=args)
    assert "time loops are checkpointed" in source
    expected = sd.grad(g.heat, argnums=(0, 1), policy="store", jit=False)(*args)
    actual = sd.grad(g.heat, argnums=(0, 1), jit=False)(*args)
    for a, e in zip(actual, expected):
        assert np.allclose(a, e, rtol=1e-12, atol=0.0)
    few_steps = sd.adjoint_source(g.heat, argnums=(0, 1), args=(U0, 0.2, 10))
    assert "fits the memory budget" in few_steps


def _loop_in_a_branch(x, n):
    s = 0.0
    if x > 10.0:
        for i in range(n):
            s = s + math.sin(x * i)
    return s + x * x


@pytest.mark.parametrize("jit", [False, True])
def test_a_checkpointed_loop_in_a_branch_not_taken_counts_no_schedule(jit):
    """Its trip count is never set; the schedule counted at the end was read unbound."""
    policy = sd.Checkpoint(snapshots=2)
    untaken = sd.tape_size(_loop_in_a_branch, 1.0, 50, policy=policy, jit=jit)
    taken = sd.tape_size(_loop_in_a_branch, 11.0, 50, policy=policy, jit=jit)
    none_run = sd.tape_size(_loop_in_a_branch, 11.0, 0, policy=policy, jit=jit)
    assert untaken == 0  # nothing recorded: the branch runs once, outside any loop
    assert untaken <= none_run < taken


def test_auto_keeps_an_nbody_record_within_a_budget_that_store_exceeds(monkeypatch):
    """Issue 8's case: N-body's store record (about 50 kB here) is over a 16 kB budget;
    'auto' checkpoints its time loop, records at most the budget, and its gradient is the
    store policy's to rounding."""
    kernels = kernel_module("kernels_arrays")
    nbody, args = kernels.nbody, kernels.nbody_args(6, 40)
    monkeypatch.setenv("SOURCEDIFF_MEMORY_BUDGET", "16K")
    # Inlined, the force helper's pair loops are the caller's to record (outlined, its vjp
    # recomputes them and the caller's record is 8 kB).
    monkeypatch.setenv("SOURCEDIFF_OUTLINE", "0")
    store = sd.tape_size(nbody, *args, argnums=(0, 1), policy="store", jit=False)
    auto = sd.tape_size(nbody, *args, argnums=(0, 1), policy="auto", jit=False)
    assert auto <= 16 * 2**10 < store
    expected = sd.grad(nbody, argnums=(0, 1), policy="store", jit=False)(*args)
    actual = sd.grad(nbody, argnums=(0, 1), jit=False)(*args)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("jit", [False, True])
def test_triangular_loop_bounds_are_recomputed_not_recorded(jit):
    """``for j in range(i + 1, n)``: only ``d`` and ``k * d`` are recorded per pair (two
    floats); the start ``i + 1`` and the trip count are recomputed in the reverse sweep."""
    x = np.linspace(0.0, 1.0, 7)
    size = sd.tape_size(g.pair_energy, x, 0.5, argnums=(0, 1), policy="store", jit=jit)
    assert size == 2 * 8 * (7 * 6 // 2)
    grad = sd.grad(g.pair_energy, argnums=(0, 1), policy="store", jit=jit)(x, 0.5)
    d = x[None, :] - x[:, None]
    assert np.allclose(grad[0], -2.0 * 0.5 * np.sum(d, axis=1))  # closed form
    assert math.isclose(grad[1], np.sum(np.triu(d, 1) ** 2))


def test_a_roll_stencil_keeps_each_state_by_reference_and_nothing_else():
    """Gray-Scott written with np.roll: each step is one fused loop over the grid, whose
    reverse reads the step's two states (restored by reference), and its indices wrap
    around by lengths that are the same every step, so none of them is recorded."""
    rng = np.random.default_rng(0)
    u, v = 1.0 - 0.2 * rng.random((5, 4)), 0.2 * rng.random((5, 4))
    args = (u, v, 0.03, 0.06, 7)
    du, dv = rng.random(u.shape) - 0.5, rng.random(v.shape) - 0.5

    def along(t):  # the function along a direction, for a directional derivative
        return g.gray_scott(u + t * du, v + t * dv, 0.03 + 0.3 * t, 0.06 - 0.2 * t, 7)

    for jit in (False, True):
        size = sd.tape_size(g.gray_scott, *args, argnums=(0, 1, 2, 3), policy="auto", jit=jit)
        assert size == 7 * (u.nbytes + v.nbytes)
        grads = sd.grad(g.gray_scott, argnums=(0, 1, 2, 3), jit=jit)(*args)
        directional = np.sum(grads[0] * du) + np.sum(grads[1] * dv)
        directional += 0.3 * grads[2] - 0.2 * grads[3]
        assert directional == pytest.approx(central_difference(along, (0.0,), 0), rel=1e-7)


def _rk4_decay(x, y, k, steps, dt):
    for _ in range(steps):
        a1, b1 = -k * x + y, -x * y
        a2, b2 = -k * (x + 0.5 * dt * a1) + y, -(x + 0.5 * dt * a1) * (y + 0.5 * dt * b1)
        a3, b3 = -k * (x + 0.5 * dt * a2) + y, -(x + 0.5 * dt * a2) * (y + 0.5 * dt * b2)
        a4, b4 = -k * (x + dt * a3) + y, -(x + dt * a3) * (y + dt * b3)
        x = x + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        y = y + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
    return x * x + y


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_auto_stores_values_whose_recomputation_would_rerun_long_chains(jit):
    # Every stage value of an RK4 step could be recomputed from x and y (16 bytes a step),
    # through chains of up to 30 definitions: reading the later stages back is cheaper.
    args = (0.7, 0.4, 0.3, 50, 0.01)
    size = {
        p: sd.tape_size(_rk4_decay, *args, argnums=(0, 1, 2), policy=p) for p in ("auto", "store")
    }
    assert 16 * 50 < size["auto"] < size["store"]
    grads = sd.grad(_rk4_decay, argnums=(0, 1, 2), jit=jit)(*args)
    expected = central_difference(_rk4_decay, args, (0, 1, 2))
    np.testing.assert_allclose(grads, expected, rtol=1e-7)


@pytest.mark.parametrize("snapshots", [1, 2, 3, 5])
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 40, 333])
def test_the_revolve_schedule_reverses_every_step_once_from_its_snapshots(steps, snapshots):
    """Run the schedule on a counter for the loop's state: each action finds the state it
    expects, iterations are reversed last to first, and no more slots are used than given."""
    schedule, saved, state = revolve_schedule(steps, snapshots), {0: 0}, steps
    reversed_steps = []
    while revolve_next(schedule):
        action, first, last = schedule[0, :3]
        if action == RESTORE:
            state = saved[first]
        elif action == TAKESHOT:
            assert state == last and 0 < first < snapshots
            saved[first] = state
        elif action == ADVANCE:
            assert state == first < last
            state = last
        else:
            assert action == REVERSE and state == first
            reversed_steps.append(first)
            state = first + 1
    assert reversed_steps == list(range(steps - 1, -1, -1))


@pytest.mark.parametrize(
    ("func", "args", "policy"),
    [
        (g.heat, (U0, 0.2, 37), "store"),
        (g.heat, (U0, 0.2, 37), sd.Checkpoint(snapshots=3)),
        (g.logistic, (3.1, 0.2, 25), "store"),
        (g.pair_energy, (np.linspace(0.0, 1.0, 9), 0.5), "store"),
    ],
    ids=["heat", "heat-checkpoint", "logistic", "pair_energy"],
)
def test_loops_of_constant_records_are_counted_by_multiplying(func, args, policy, monkeypatch):
    """A loop that records the same bytes every iteration is counted as trips x bytes, a
    triangular nest (pair_energy's) by ``summed_lengths`` (the counting functions keep no
    loop, so "auto" need not compile them); the count is the loops' count, which the
    optimizer turned off keeps."""
    argnums = (0, 1)
    folded = sd.tape_size(func, *args, argnums=argnums, policy=policy)
    source = sd.adjoint_source(func, argnums=argnums, args=args, policy=policy)
    counting = source[source.index("_record_bytes(") :]
    assert "len(range(" in counting or "summed_lengths(" in counting
    if not isinstance(policy, sd.Checkpoint):
        assert "for " not in counting
    monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", "0")
    looped = sd.adjoint_source(func, argnums=argnums, args=args, policy=policy)
    assert "for " in looped[looped.index("_record_bytes(") :]
    assert sd.tape_size(func, *args, argnums=argnums, policy=policy) == folded > 0


@pytest.mark.parametrize("slope", [1, -1])
def test_summed_lengths_is_the_sum_of_the_clipped_lengths(slope):
    """Against the loop it replaces, for every small start, stop and offset (empty outer
    ranges, lengths clipped at zero, negative offsets)."""
    for start in range(-3, 5):
        for stop in range(-3, 7):
            for offset in range(-6, 8):
                expected = sum(max(0, offset + slope * i) for i in range(start, stop))
                assert summed_lengths(start, stop, offset, slope) == expected


def _pair_forces(x, out):
    n = x.shape[0]
    for i in range(n):
        out[i] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            f = (x[j] - x[i]) ** 3
            out[i] += f
            out[j] -= f


def _pairs_in_time(x0, dt, steps):
    x = x0.copy()
    force = np.zeros_like(x)
    _pair_forces(x, force)
    for _ in range(steps):
        for i in range(x.shape[0]):
            x[i] += dt * force[i]
        _pair_forces(x, force)
        for i in range(1, x.shape[0]):
            for j in range(i - 1):  # the lower triangle, its first row empty
                x[i] -= dt * x[j] * x[i]
    return np.sum(x * force)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("n", [1, 2, 6])
def test_triangular_nests_in_a_time_loop_are_counted_without_loops(n, jit, monkeypatch):
    """A helper's pair loop inlined into a time loop (its ``n = x.shape[0]`` bound there) and
    a lower-triangular nest: the count has no loop, equals the loops' count (optimizer
    off), and the gradient is checked against central differences."""
    monkeypatch.setenv("SOURCEDIFF_OUTLINE", "0")  # called twice: it would be outlined
    args = (np.linspace(0.1, 0.9, n), 0.05, 5)
    folded = sd.tape_size(_pairs_in_time, *args, policy="store", jit=jit)
    source = sd.adjoint_source(_pairs_in_time, args=args, policy="store")
    assert "for " not in source[source.index("_record_bytes(") :]
    grad = sd.grad(_pairs_in_time, policy="store", jit=jit)(*args)
    expected = array_central_difference(_pairs_in_time, args, 0)
    np.testing.assert_allclose(grad, expected, rtol=1e-7, atol=1e-10)
    monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", "0")
    assert sd.tape_size(_pairs_in_time, *args, policy="store", jit=jit) == folded


def _jacobi_2d(A0, steps):
    A = A0.copy()
    B = A0.copy()
    for _ in range(steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[:-2, 1:-1])
    return np.sum(A * A)


@pytest.mark.parametrize("jit", [False, True])
def test_inner_trip_counts_of_an_unchanged_shape_are_not_recorded(jit):
    """The slices' loops run ``A0.shape[0] - 2`` times in every step (a bound set once per
    step from a shape nothing changes): a linear stencil records nothing at all, and the
    gradient is checked against central differences (Richardson-extrapolated)."""
    A0 = np.random.default_rng(3).uniform(size=(7, 6))
    assert sd.tape_size(_jacobi_2d, A0, 4, policy="store", jit=jit) == 0
    grad = sd.grad(_jacobi_2d, policy="store", jit=jit)(A0, 4)
    expected = array_central_difference(_jacobi_2d, (A0, 4), 0)
    np.testing.assert_allclose(grad, expected, rtol=1e-7, atol=1e-9)


def _index_read_after_its_loop(x, n):
    s = 0.0
    for i in range(n):  # noqa: B007 - its last value is read after the loop
        s = s * x[0] + x[1]
    m = i + 1
    for _ in range(m):
        s = s * x[1]
    return s


@pytest.mark.parametrize("jit", [False, True])
def test_a_loop_whose_variable_is_read_after_it_is_counted_as_a_loop(jit):
    """Counting the first loop by multiplication would leave ``i`` unbound for ``m = i + 1``;
    the count is 8 bytes per step of both loops (``s`` before each update)."""
    x = np.array([0.5, 0.3])
    assert sd.tape_size(_index_read_after_its_loop, x, 4, policy="store", jit=jit) == 8 * (4 + 4)
    grad = sd.grad(_index_read_after_its_loop, policy="store", jit=jit)(x, 4)
    expected = array_central_difference(_index_read_after_its_loop, (x, 4), 0)
    np.testing.assert_allclose(grad, expected, rtol=1e-8)


def _periodic_smoothing(u0, c, steps):
    u = u0.copy()
    n = u.shape[0]
    for _ in range(steps):
        v = np.empty(n)
        for i in range(n):
            # A fixed left end and an insulated right end: branches (a periodic read of
            # one array at either index is one read, normalize/selects.py).
            left = u[i - 1] if i > 0 else 0.0
            right = u[i + 1] if i < n - 1 else 2.0 * u[i]
            v[i] = u[i] + c * (left - 2.0 * u[i] + right) * u[i]
        u = v
    return np.sum(u * u)


@pytest.mark.parametrize("jit", [False, True])
def test_branch_tests_from_loop_variables_are_recomputed_not_recorded(jit):
    """The boundary tests ``i > 0`` and ``i < n - 1`` are recomputed in the reverse sweep:
    no branch decision is recorded; the gradient is checked against central differences."""
    args = (np.linspace(0.2, 0.9, 6), 0.3, 3)
    source = sd.adjoint_source(_periodic_smoothing, argnums=(0, 1), args=args, policy="store")
    reverse = source[source.index("# reverse sweep") : source.index("_record_bytes(")]
    assert "flags_tape" not in source and " = i > 0" in reverse
    grads = sd.grad(_periodic_smoothing, argnums=(0, 1), policy="store", jit=jit)(*args)
    np.testing.assert_allclose(grads[0], array_central_difference(_periodic_smoothing, args, 0))
    expected = central_difference(_periodic_smoothing, args, 1)
    np.testing.assert_allclose(grads[1], expected, rtol=1e-8)


def _branch_records(x, y, n):
    s = 0.0
    for _ in range(n):
        if x > 0.0:
            a = math.sin(x * y)
            b = math.cos(a * x)
            c = math.exp(b * 0.1)
            x = x * 0.9 + a * b * c
        s += x * y
    return s


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_branch_that_records_several_numbers_counts_them_in_one_addition(jit, monkeypatch):
    """The counting function joins ``b += 8`` repeated into one ``b += k``
    (counting.merge_constant_counts); the count is the one the unoptimized counting
    function gives, and the gradient is right."""
    args = (0.7, 0.4, 5)
    text = sd.adjoint_source(_branch_records, argnums=(0, 1), args=args, policy="store")
    counting = text[text.index("def _branch_records_record_bytes") :]
    lines = [line.strip() for line in counting.splitlines() if "recorded_bytes +=" in line]
    assert len(lines) == len(set(lines)) and "recorded_bytes += 8" not in lines, counting
    size = sd.tape_size(_branch_records, *args, argnums=(0, 1), policy="store", jit=jit)
    monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", "0")
    plain = sd.tape_size(_branch_records, *args, argnums=(0, 1), policy="store", jit=jit)
    monkeypatch.delenv("SOURCEDIFF_OPTIMIZE")
    assert size == plain == 5 * (1 + 7 * 8)  # per step: the branch, seven numbers
    got = sd.grad(_branch_records, argnums=(0, 1), policy="store", jit=jit)(*args)
    want = [central_difference(_branch_records, args, k) for k in (0, 1)]
    np.testing.assert_allclose(got, want, rtol=1e-7)


def _kicked(x, v, m, dt, steps):
    """A kick-drift loop: ``0.5 * dt`` and ``0.5 * m[i]`` are the same every step."""
    for _ in range(steps):
        for i in range(x.shape[0]):
            v[i] = v[i] - 0.5 * dt * math.sin(x[i]) / m[i]
            x[i] = x[i] + dt * v[i]
    e = 0.0
    for i in range(x.shape[0]):
        e += 0.5 * m[i] * v[i] * v[i] + math.cos(x[i])
    return e


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_store_recomputes_values_of_one_value_instead_of_recording_them(jit):
    """Under "store" the record holds what the loop overwrites and the reverse needs (per
    element and step: x[i], its sine, v[i]; 704 bytes when 0.5 * dt and the products of it
    were recorded too), not values the same at every iteration."""
    rng = np.random.default_rng(3)
    x, v, m = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4), rng.uniform(1, 2, 4)
    args = (x, v, m, 0.1, 5)
    size = sd.tape_size(_kicked, *args, argnums=(0, 1, 3), policy="store", jit=jit)
    assert size == 5 * 4 * 3 * 8
    source = sd.adjoint_source(_kicked, argnums=(0, 1, 3), args=args, policy="store")
    vjp = source[source.index("def _kicked_vjp") : source.index("def _kicked_record_bytes")]
    loop = vjp.index("for _ in range(steps)")
    assert vjp.count("= 0.5 * dt\n") == 1 and vjp.index("= 0.5 * dt\n") < loop  # once, before
    grads = sd.grad(_kicked, argnums=(0, 1, 3), policy="store", jit=jit)(
        *(a.copy() for a in args[:3]), 0.1, 5
    )

    def plain(*a):
        return _kicked(a[0].copy(), a[1].copy(), a[2], a[3], 5)

    for k, arg in enumerate((0, 1)):
        expected = array_central_difference(plain, (x, v, m, 0.1), (arg,))[0]
        np.testing.assert_allclose(grads[k], expected, rtol=1e-7, atol=1e-9)
    assert grads[2] == pytest.approx(central_difference(plain, (x, v, m, 0.1), (3,))[0], rel=1e-7)


def _row_log_sum_exp(x, i):
    m = x.shape[1]
    total = 0.0
    for j in range(m):
        total += math.exp(x[i, j])
    return math.log(total)


def _rows_of_softmax(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += _row_log_sum_exp(x, i) * x[i, 0]
    return s


@pytest.mark.parametrize("jit", [False, True])
def test_a_helpers_shape_query_inlined_in_a_loop_sizes_the_tape_exactly(jit):
    """The helper's ``m = x.shape[1]``, inlined into the row loop, is the same every
    iteration (``x`` is not bound again): the tape is allocated once with its exact size,
    not grown by ``reserve``; the gradient is checked against central differences."""
    x = np.random.default_rng(5).uniform(-1.0, 1.0, size=(4, 3))
    source = sd.adjoint_source(_rows_of_softmax, policy="store", args=(x,))
    assert "reserve(" not in source
    exps = 8 * x.size  # one exp per element; the running totals are recomputed or kept
    assert exps <= sd.tape_size(_rows_of_softmax, x, policy="store", jit=jit) <= 3 * exps
    grad = sd.grad(_rows_of_softmax, policy="store", jit=jit)(x)
    expected = array_central_difference(_rows_of_softmax, (x,), 0)
    np.testing.assert_allclose(grad, expected, rtol=1e-7, atol=1e-9)
