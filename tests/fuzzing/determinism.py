"""The same program must give the same derivative source in every process.

    python -m tests.fuzzing.determinism --programs 200 --seed 0

Generated code that depends on the process (string hashing, the addresses CPython
hands out) is a defect even when it is right: it defeats the on-disk cache, and it
hides bugs that show only in some processes. An optimizer that kept facts by
``id()`` once gave a new statement a freed statement's facts in some processes only,
and dropped a contribution to an adjoint there. This tool runs the generated
programs (and the benchmark kernels with ``--kernels``) in two child processes set
up differently (hash seed, environment size, earlier allocations), hashes each
adjoint source under every policy, and lists what differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def source_hashes(first_seed: int, programs: int, folder: Path) -> dict[str, str]:
    """``{"seed policy": sha1 of the adjoint source}`` for each program and policy."""
    import sourcediff as sd

    from .campaign import arguments, load, policies
    from .generator import generate

    hashes = {}
    for seed in range(first_seed, first_seed + programs):
        f = load(generate(seed).source, folder, seed)
        for policy in policies():
            try:
                options = dict(argnums=(0, 1, 2, 3), args=arguments(seed), policy=policy)
                text = sd.adjoint_source(f, **options)
            except Exception as exc:  # noqa: BLE001 - a refusal is a result too
                text = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            hashes[f"{seed} {policy}"] = hashlib.sha1(text.encode()).hexdigest()
    return hashes


def _child(first_seed: int, programs: int, variant: int) -> subprocess.Popen:
    env = dict(os.environ)
    env["SOURCEDIFF_CACHE_DIR"] = tempfile.mkdtemp(prefix="sourcediff-determinism-")
    env["PYTHONHASHSEED"] = str(variant)
    env["SOURCEDIFF_DETERMINISM_PADDING"] = "x" * (4096 * variant)  # shifts allocations
    command = [sys.executable, "-m", "tests.fuzzing.determinism", "--child"]
    command += ["--seed", str(first_seed), "--programs", str(programs)]
    command += ["--warm-up", str(1000 * variant)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def _hashes_of(child: subprocess.Popen) -> dict[str, str]:
    output, _ = child.communicate()
    if child.returncode:
        raise RuntimeError(f"a child process failed with status {child.returncode}")
    return json.loads(output)


def main() -> int:
    """Compare two processes; exit status 1 if any source differs."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--warm-up", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        keep = [[index] * (index % 7) for index in range(options.warm_up)]  # noqa: F841
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(source_hashes(options.seed, options.programs, Path(folder))))
        return 0
    children = [_child(options.seed, options.programs, variant) for variant in (1, 2)]
    first, second = (_hashes_of(child) for child in children)  # the two run side by side
    differing = sorted(key for key in first if first[key] != second.get(key))
    for key in differing:
        print(f"differs between processes: program {key}")
    print(f"{len(first)} sources, {len(differing)} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
