"""A deterministic sample of the program fuzzer (tests/fuzzing), run in the suite.

Each generated program is differentiated as plain Python with the verifier on, under
one of the four policies (rotating with its place in the sample; all four with
``SOURCEDIFF_FULL_SUITE=1``: tests/scope.py), and a few compiled; every outcome must be ok, a clear
refusal, or a skipped unstable reference. A long campaign is one command:
``python -m tests.fuzzing.campaign --programs 10000`` (README, Development).
"""

import os

import pytest
from fuzz_support import EXTRA_SAMPLE, SAMPLE, folder, run_program
from fuzzing.campaign import _copied, arguments, layout_of, policies
from scope import FULL, policy_share

COMPILED = range(300_000, 300_006) if FULL else [300_003]  # one of six by default
FIRST_HALF = SAMPLE[: len(SAMPLE) // 2]  # the rest: tests/test_fuzz_second_half.py


@pytest.mark.parametrize("seed", FIRST_HALF)
def test_generated_program_verified(seed, folder, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    run_program(seed, folder, False, policy_share(policies(), SAMPLE.index(seed), share=1))


@pytest.mark.parametrize("seed", COMPILED)
def test_generated_program_compiled(seed, folder):
    assert os.environ.get("SOURCEDIFF_VERIFY", "") != "1"
    run_program(seed, folder, True, policies()[3:])


# 20 and 33 only with SOURCEDIFF_FULL_SUITE=1 (both run as Python in test_fuzz_second_half.py).
@pytest.mark.parametrize("seed", [258, 98066, 20, 33] if FULL else [258, 98066])
def test_generated_own_stream_constructs_compiled(seed, folder):
    """Programs with np.roll stencils rebound in a loop and reads repeated around a writing
    helper (258; 29 has them too, runs as Python, and took 20-45 s to compile), options,
    input checks and NumPy functions written in the subset (98066), a scalar time loop
    "auto" re-runs in the reverse sweep (20), helpers called from two places (33:
    outlined), all ``gaps=True``, compiled (rows of an invariant array in a per-sample loop
    run as Python in test_fuzz_second_half.py)."""
    run_program(seed, folder, True, policies()[3:], gaps=True)


# 1176 (eigvalsh, matrix_power: about 30 s of Numba's linear algebra), 1245 and 428 only
# with SOURCEDIFF_FULL_SUITE=1; all run as Python with the verifier in
# test_fuzz_second_half.py.
@pytest.mark.parametrize("seed", EXTRA_SAMPLE if FULL else EXTRA_SAMPLE[3:])
def test_generated_extras_compiled(seed, folder):
    """Programs with the constructs of tests/fuzzing/extras.py, compiled, under "auto"."""
    run_program(seed, folder, True, policies()[3:], extras=True)


def test_arguments_come_in_every_layout_and_copies_keep_theirs():
    """Callers pass Fortran-ordered arrays and strided views as well as C-ordered ones."""
    layouts = set()
    for seed in range(30):
        args = arguments(seed)
        copies = _copied(args)
        for given, copied in zip(args, copies):
            if hasattr(given, "shape"):
                layouts.add(layout_of(given[..., :]))
                assert layout_of(copied) == layout_of(given) and copied is not given
                assert (copied == given).all()
        assert args[2].shape == (4,) and args[3].shape == (4, 4)
    assert layouts == {"C", "F", "strided"}


# Programs of compiled campaigns that once failed, with the policy they failed under.
COMPILED_REGRESSIONS = [
    # a[EDGE] by a module-level index array: Numba folded EDGE into a static_getitem whose
    # array its phi-node pass compared with == ("truth value ... ambiguous")
    (1_600_075, "store"),
]


@pytest.mark.parametrize(("seed", "policy"), COMPILED_REGRESSIONS)
def test_compiled_campaign_regression(seed, policy, folder):
    run_program(seed, folder, True, [p for p in policies() if str(p) == policy])


# ``--gaps --jit`` programs that once failed to compile, with the policy.
COMPILED_GAP_REGRESSIONS = [
    # an early return, then an elif looping over a small list: the loop's bound, assigned in
    # that branch alone, had no type on the paths that skipped it ("Type of variable 'k.1'")
    (17_501, "store"),
]


@pytest.mark.parametrize(("seed", "policy"), COMPILED_GAP_REGRESSIONS)
def test_compiled_gap_campaign_regression(seed, policy, folder):
    run_program(seed, folder, True, [p for p in policies() if str(p) == policy], gaps=True)


# Programs of plain (verified) campaigns that once failed, with the policy they failed under.
PLAIN_REGRESSIONS = [
    # dtype=np.float64 in a loop became a temporary "store" pushed onto the float tape
    (7148, "store"),
]


@pytest.mark.parametrize(("seed", "policy"), PLAIN_REGRESSIONS)
def test_plain_campaign_regression(seed, policy, folder, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    run_program(seed, folder, False, [p for p in policies() if str(p) == policy])


__all__ = ["folder"]  # the fixture, imported
