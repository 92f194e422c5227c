"""How much of each large test matrix the default suite runs.

The suite aims at ten minutes on two cores (README). Its largest matrices are cases
times policies, the fuzz sample and the compiled construct cases, and most of their time
is Numba compiling and sourcediff's passes, once per cell. By default each case runs under
one or two of the four policies (the test says which), the choice rotating with the case's
index (with two: case 0 under the first and second, case 1 under the second and third,
...), so that every policy runs on a share of the cases and each case is still compared
across plans; and a third of the fuzz-compiled seeds, of the compiled corpus cases and of the
second-order and forward-mode corpus cases run.
``SOURCEDIFF_FULL_SUITE=1`` runs every cell (before a release and after a change to a
pass: README, Development).
"""

import os

FULL = os.environ.get("SOURCEDIFF_FULL_SUITE", "") not in ("", "0")
SHARE = 2  # policies per case


def policy_share(policies: list, index: int, share: int = SHARE) -> list:
    """The policies case ``index`` runs under: ``share`` consecutive ones from ``index``
    (all of them in the full suite)."""
    if FULL or len(policies) <= share:
        return list(policies)
    return [policies[(index + k) % len(policies)] for k in range(share)]


def case_policy_pairs(cases: list, policies: list, share: int = SHARE) -> list[tuple]:
    """``(case, policy)`` pairs of :func:`policy_share`, in case order."""
    pairs = enumerate(cases)
    return [(case, policy) for k, case in pairs for policy in policy_share(policies, k, share)]


def every_third(items) -> list:
    """Every item in the full suite, else every third one (from the first)."""
    items = list(items)
    return items if FULL else items[::3]


def gradient_matrix(cases: list, policies: list):
    """Parametrize a test over ``(case, policy)`` pairs (:func:`case_policy_pairs`, a case
    being ``(func, make_args, argnums)``) and over compiled and plain-Python runs."""
    import pytest

    pairs = pytest.mark.parametrize(
        "case,policy",
        case_policy_pairs(cases, policies),
        ids=lambda v: v[0].__name__ if isinstance(v, tuple) else str(v),
    )
    runs = pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
    return lambda test: runs(pairs(test))
