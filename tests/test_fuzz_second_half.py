"""The second half of the in-suite fuzz sample (see tests/test_fuzz.py): each program
differentiated as plain Python with the verifier on, under one of the policies (rotating
with its place in the sample) or all four with ``SOURCEDIFF_FULL_SUITE=1`` (tests/scope.py)."""

import pytest
from fuzz_support import EXTRA_SAMPLE, GAP_SAMPLE, OUTLINE_SAMPLE, SAMPLE, folder, run_program
from fuzzing.campaign import policies
from scope import policy_share

SECOND_HALF = SAMPLE[len(SAMPLE) // 2 :]


@pytest.mark.parametrize("seed", SECOND_HALF)
def test_generated_program_verified(seed, folder, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    run_program(seed, folder, False, policy_share(policies(), SAMPLE.index(seed), share=1))


@pytest.mark.parametrize("seed", GAP_SAMPLE)
def test_generated_program_with_its_own_stream_constructs(seed, folder, monkeypatch):
    """Programs with the constructs of the generator's own stream (``gaps=True``)."""
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    chosen = policy_share(policies(), GAP_SAMPLE.index(seed), share=1)
    run_program(seed, folder, False, chosen, gaps=True)


@pytest.mark.parametrize("seed", OUTLINE_SAMPLE)
def test_generated_program_calling_outlined_helpers(seed, folder, monkeypatch):
    """Programs calling helpers from several places (outlined: their own vjps are called),
    under one policy, rotating (three programs; every policy in the full suite)."""
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    chosen = policy_share(policies(), OUTLINE_SAMPLE.index(seed), share=1)
    run_program(seed, folder, False, chosen, gaps=True)


@pytest.mark.parametrize("seed", EXTRA_SAMPLE)
def test_generated_program_with_the_extras_stream(seed, folder, monkeypatch):
    """Programs with the constructs of tests/fuzzing/extras.py (``extras=True``)."""
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    chosen = policy_share(policies(), EXTRA_SAMPLE.index(seed), share=1)
    run_program(seed, folder, False, chosen, extras=True)


__all__ = ["folder"]  # the fixture, imported
