"""``python -m sourcediff show FILE:FUNC`` prints the generated derivative."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _show(*arguments):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "sourcediff", "show", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_show_prints_the_adjoint_of_an_example():
    result = _show("examples/heat.py:simulate", "--wrt", "u0,alpha")
    assert result.returncode == 0, result.stderr
    assert "def simulate_vjp(u0, alpha, steps, simulate_bar):" in result.stdout
    # u = u0.copy(): u0's adjoint is the buffer u_bar itself, returned as it is
    assert "return (t2_sum, (u_bar, alpha_bar))" in result.stdout
    assert "# heat.py:" in result.stdout


def test_show_with_explicit_example_arguments():
    result = _show("examples/quickstart.py:f", "--wrt", "y", "--args", "1.5, 0.3, 10")
    assert result.returncode == 0, result.stderr
    assert "return (s, (y_bar,))" in result.stdout  # the value is f's own s


def test_show_reports_a_missing_function():
    result = _show("examples/heat.py:nope")
    assert result.returncode != 0
    assert "nope" in result.stderr


def test_show_forward_mode():
    result = _show(
        "examples/quickstart.py:f", "--mode", "forward", "--wrt", "x", "--args", "1.5, 0.3, 10"
    )
    assert result.returncode == 0, result.stderr
    assert "def f_jvp(x, y, n, x_dot):" in result.stdout


def test_show_takes_a_checkpoint_policy_and_reports_bad_arguments_in_one_line():
    result = _show("examples/heat.py:simulate", "--policy", "Checkpoint(snapshots=2)")
    assert result.returncode == 0, result.stderr
    assert "revolve_next" in result.stdout
    result = _show("examples/quickstart.py:f", "--args", "1.5, (")
    assert result.returncode != 0
    assert "is not a Python expression" in result.stderr and "Traceback" not in result.stderr
