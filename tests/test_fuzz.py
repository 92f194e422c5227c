"""A deterministic sample of the program fuzzer (tests/fuzzing), run in the suite.

Each generated program is differentiated under every policy as plain Python
with the verifier on, and a few compiled; every outcome must be ok, a clear
refusal, or a skipped unstable reference. A long campaign is one command:
``python -m tests.fuzzing.campaign --programs 10000`` (README, Development).
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest
from fuzzing.campaign import ARGNUMS, arguments, check, load, policies
from fuzzing.generator import generate
from fuzzing.reference import reference_gradient

SAMPLE = range(200_000, 200_075)  # the suite stays under 10 minutes; campaigns run more
COMPILED = range(300_000, 300_006)


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        yield Path(tmp)
        sys.path.remove(tmp)


def _run(seed: int, folder: Path, jit: bool, selected) -> None:
    program = generate(seed)
    f = load(program.source, folder, seed)
    args = arguments(seed)
    reference, stable = reference_gradient(f, args, ARGNUMS)
    if not stable:
        pytest.skip("the finite-difference reference is unstable at this point")
    for policy in selected:
        outcome, detail = check(f, args, policy, jit, reference)
        assert outcome in ("ok", "refused"), f"{policy}: {outcome}: {detail}\n{program.source}"


@pytest.mark.parametrize("seed", SAMPLE)
def test_generated_program_verified_under_every_policy(seed, folder, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    _run(seed, folder, False, policies())


@pytest.mark.parametrize("seed", COMPILED)
def test_generated_program_compiled(seed, folder):
    assert os.environ.get("SOURCEDIFF_VERIFY", "") != "1"
    _run(seed, folder, True, policies()[3:])


# Programs of compiled campaigns that once failed, with the policy they failed under.
COMPILED_REGRESSIONS = [
    # a[EDGE] by a module-level index array: Numba folded EDGE into a static_getitem whose
    # array its phi-node pass compared with == ("truth value ... ambiguous")
    (1_600_075, "store"),
]


@pytest.mark.parametrize(("seed", "policy"), COMPILED_REGRESSIONS)
def test_compiled_campaign_regression(seed, policy, folder):
    _run(seed, folder, True, [p for p in policies() if str(p) == policy])
