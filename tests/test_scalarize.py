"""Scalarization (sourcediff/normalize/scalarize.py): runs of elementwise statements
fused into loops where shapes are provably equal, left alone where they are not, and
derivatives checked against central differences with Richardson extrapolation, under
every policy, compiled and as Python."""

import ast

import numpy as np
import pytest
import scalarize_cases as cases
from fuzzing.reference import richardson_gradient

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(2), "auto"]
RNG = np.random.default_rng(11)


def _args():
    x = RNG.normal(size=(5, 3))
    return {
        cases.mixture_terms: (RNG.normal(size=(2, 3)), 0.2 * RNG.normal(size=(2, 3)), x),
        cases.stencil_steps: (RNG.uniform(-1.0, 1.0, 7), 3),
        cases.overlapping_update: (RNG.normal(size=5), RNG.normal(size=5)),
        cases.aliased_update: (RNG.normal(size=6),),
        cases.same_elements_update: (RNG.normal(size=5), RNG.normal(size=5)),
        cases.kept_value: (RNG.normal(size=5), 0.7),
        cases.broadcast_rows: (x, RNG.normal(size=(1, 3))),
        cases.matrix_views: (RNG.normal(size=(4, 4)), RNG.normal(size=4)),
        cases.neighbour_products: (RNG.normal(size=6),),
        cases.empty_slice_kept: (RNG.normal(size=3),),
        cases.reversed_view_rebound: (RNG.normal(size=5), 3),
        cases.shrinking_view_rebound: (RNG.normal(size=6), 3),
    }


ARGS = _args()
ARGS_BROADCAST_MATCHING = (ARGS[cases.broadcast_rows][0], RNG.normal(size=(5, 3)))


def _argnums(args):
    return tuple(k for k, a in enumerate(args) if not isinstance(a, int))


# Every policy as Python, "auto" compiled (the fuzzer's campaigns compile every policy).
MODES = [(policy, False) for policy in POLICIES] + [("auto", True)]


@pytest.mark.parametrize(("policy", "jit"), MODES, ids=lambda m: str(m))
@pytest.mark.parametrize("f", list(ARGS), ids=lambda f: f.__name__)
def test_gradient_matches_central_differences(f, policy, jit):
    args = ARGS[f]
    argnums = _argnums(args)
    value, grads = sd.value_and_grad(f, argnums=argnums, policy=policy, jit=jit)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    reference, stable = richardson_gradient(f, args, argnums)
    assert stable
    for got, want in zip(grads, reference):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_broadcasting_and_matching_shapes_each_get_their_own_derivative():
    f = sd.value_and_grad(cases.broadcast_rows, argnums=(0, 1))
    for args in (ARGS[cases.broadcast_rows], ARGS_BROADCAST_MATCHING):
        value, grads = f(*args)
        assert value == pytest.approx(cases.broadcast_rows(*args), rel=1e-12)
        reference, _ = richardson_gradient(cases.broadcast_rows, args, (0, 1))
        for got, want in zip(grads, reference):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    fused = _code(sd.adjoint_source(cases.broadcast_rows, args=ARGS_BROADCAST_MATCHING))
    unfused = _code(sd.adjoint_source(cases.broadcast_rows, args=ARGS[cases.broadcast_rows]))
    assert "x - mu" not in fused  # (5, 3) - (5, 3): one loop
    assert "x - mu" in unfused  # (5, 3) - (1, 3): NumPy broadcasts


def _vjp_source(f):
    source = sd.adjoint_source(f, argnums=_argnums(ARGS[f]), args=ARGS[f], policy="store")
    return _code(source.split("_vjp(")[1].split("_record_bytes(")[0])


def _code(source: str) -> str:
    """``source`` without its comment lines (which quote the user's statements)."""
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def test_the_mixture_terms_fuse_into_one_loop_without_array_temporaries():
    vjp = _vjp_source(cases.mixture_terms)
    assert "for j in range" in vjp
    assert "_refs" not in vjp  # no array value per iteration recorded
    assert "np.zeros_like(z)" not in vjp and "sum_to" not in vjp


def test_a_stencil_stores_element_by_element():
    vjp = _vjp_source(cases.stencil_steps)
    assert "v[1:-1] =" not in vjp and "u[1:-1] =" not in vjp
    assert "for j in range" in vjp


@pytest.mark.parametrize("f", [cases.overlapping_update, cases.aliased_update])
def test_a_store_the_loop_order_would_change_is_not_fused(f):
    vjp = _vjp_source(f)
    assert "[1:] =" in vjp or "[1:-1] =" in vjp


def test_compiled_values_are_bit_for_bit_those_of_the_array_code(monkeypatch):
    f = cases.mixture_terms
    args = ARGS[f]
    fused = sd.value_and_grad(f, argnums=(0, 1))(*args)
    assert "for j in range" in _vjp_source(f)
    monkeypatch.setenv("SOURCEDIFF_SCALARIZE", "0")
    plain = sd.value_and_grad(f, argnums=(0, 1))(*args)
    assert "for j in range" not in _vjp_source(f)  # the same function, not fused
    assert fused[0] == plain[0]


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_elements_of_an_array_nothing_changes_are_read_not_recorded(policy):
    """The fused loops are spatial: never checkpointed, and ``x[j]`` is read again."""
    args = ARGS[cases.neighbour_products]
    assert sd.tape_size(cases.neighbour_products, *args, policy=policy) == 0


def test_a_normalized_statement_reading_its_own_target_is_an_error_not_a_wrong_number(
    monkeypatch,
):
    """The reverse builder assumes ``s = s + x`` never reaches it (normalize versions names);
    a rewrite that broke the rule must fail loudly."""
    from sourcediff import pipeline

    def reads_its_target(nf, types, dims, known=None):
        # The result's last statement t10 = t8 + t9 becomes t10 = t10 + t9: still active.
        for stmt in reversed(nf.node.body):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.BinOp):
                stmt.value.left = ast.Name(stmt.targets[0].id, ast.Load())
                return

    monkeypatch.setattr(pipeline, "scalarize", reads_its_target)
    monkeypatch.setenv("SOURCEDIFF_CACHE_DIR", str(pytest.importorskip("tempfile").mkdtemp()))
    with pytest.raises(sd.SourceDiffError, match="reads its target"):
        sd.grad(cases.kept_value, jit=False)(*ARGS[cases.kept_value])
