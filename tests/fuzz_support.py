"""What the in-suite fuzz samples share (tests/test_fuzz.py, tests/test_fuzz_second_half.py)."""

import sys
import tempfile
from pathlib import Path

import pytest
from fuzzing.campaign import ARGNUMS, arguments, check, check_tangent, load
from fuzzing.generator import generate
from fuzzing.reference import reference_gradient

# The suite aims at 10 minutes; campaigns run more (README, Development): a random program
# found nothing new in the suite since the campaigns began, the seeds below are the ones that
# did. Two files, so that the sample is shared however pytest-xdist distributes the tests.
SAMPLE = range(200_000, 200_024)


@pytest.fixture(scope="module")
def folder():
    """A module-scoped directory on sys.path for the generated programs."""
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        yield Path(tmp)
        sys.path.remove(tmp)


# Seeds whose programs (with ``gaps=True``) hold each construct the generator draws from its
# own stream: repeated reads around a writing helper (29), equal array expressions one of
# which is written (29), int and float32 arrays in helpers (14), np.roll stencils rebound in a
# loop (29), rows of a loop-invariant array transformed in a per-sample loop (43),
# pairwise element increments (560, with rows of small vectors turned), a hidden layer
# written in a loop and read in a deeper nest (43: also written as deep as its reads; seed
# 81 holds these three and more, and took 25-30 s), straight-line scalar time loops (20, 43,
# 99: an if, min/max, an int counter, a tuple swap, a stage value read after the loop), a
# plane rotation by an angle turned in a loop and bound again between its cosine and sine (43),
# loop invariants (43; 3279: next to an array made every step and written, a product of an
# array the loop writes, and a value read after the loop: the primal check catches their
# hoisting, which gave sd.jit a wrong value); a vector's 1-D mask set to a differentiated
# number (25: its adjoint came back as an array of the selected ones) and scaled in place
# in a loop (48: the tape stored the selection into one float slot; both crashed then); a
# tanh or exp result written in place and its name rebound (88: a slice scaled, 110: every
# element in a loop; both silently wrong before the reverse sweep kept the array the name
# held at the write).
GAP_SAMPLE = (14, 20, 29, 43, 560, 99, 3279, 25, 48, 88, 110)

# Seeds (``gaps=True``) whose programs call helpers with loops from two places, which
# sourcediff outlines: an array-returning one as two stages of a step, in a loop, and a
# float-returning one on views (33); the array-returning one in a loop (9, with a rotation);
# a helper writing into a buffer the program owns, from three places, one in a loop (48:
# its calls write its new array back, outline_writes.py).
OUTLINE_SAMPLE = (33, 9, 48)

# Seeds whose programs (with ``extras=True``) hold each construct of tests/fuzzing/extras.py:
# masks with & | ^ ~, inverse hyperbolics, np.diff with n= and axis=, np.linalg.matrix_power,
# np.linalg.eigvalsh, views written by a helper, a loop with else (1176); order statistics
# (np.amax along an axis), rows of the matrix written in place, scipy.special of an array, a
# functools.wraps helper (1245); max/min of many, masks of the matrix's own shape,
# np.fmod/fmax/fmin (428); defaults left out, pass statements (301); from the later stream,
# a guard-clause helper called in a loop (1176, 1245) and constant columns of each row
# updated one after another (1176, 428, 301). The last also runs compiled (all of them with
# SOURCEDIFF_FULL_SUITE=1: tests/test_fuzz.py).
EXTRA_SAMPLE = (1176, 1245, 428, 301)


def run_program(seed: int, folder: Path, jit: bool, selected, gaps=False, extras=False) -> None:
    """Differentiate program ``seed`` under ``selected`` policies; every outcome must be ok
    or a clear refusal (an unstable reference skips). The dict-of-parameters variant, a
    front-end rewrite that no policy sees, is checked under one policy, a different one
    from seed to seed (campaigns check it under every policy)."""
    program = generate(seed, gaps, extras)
    f = load(program.source, folder, seed)
    args = arguments(seed)
    reference, stable = reference_gradient(f, args, ARGNUMS)
    if not stable:
        pytest.skip("the finite-difference reference is unstable at this point")
    dict_policy = selected[seed % len(selected)]
    for policy in selected:
        outcome, detail = check(f, args, policy, jit, reference, policy is dict_policy)
        assert outcome in ("ok", "refused"), f"{policy}: {outcome}: {detail}\n{program.source}"
    if not jit:  # forward mode too, as Python (compiled, campaigns check it)
        outcome, detail = check_tangent(f, args, jit, reference, seed)
        assert outcome in ("ok", "refused"), f"jvp: {outcome}: {detail}\n{program.source}"
