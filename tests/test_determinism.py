"""The derivative source of a program is the same in every process (fuzzing/determinism.py)."""

import subprocess
import sys
from pathlib import Path


def test_generated_sources_do_not_depend_on_the_process():
    # The two children differ in hash seed, environment size and earlier allocations, so
    # code generation that iterates a set of strings or keeps facts by id() shows here
    # (a campaign over more programs: python -m tests.fuzzing.determinism --programs 200).
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "tests.fuzzing.determinism", "--programs", "3", "--seed", "0"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "12 sources, 0 differ" in run.stdout
