"""A one-line progress report for loops over many inputs (``check_grad``, Jacobians
swept one direction at a time).

The line appears on standard error only once the loop has run for ``after`` seconds
(``QUIET_SECONDS``), and only when standard error is a terminal or the environment sets
``SOURCEDIFF_PROGRESS=1``; a short loop, a pipe or a log file sees nothing. It is
rewritten in place at most ten times a second and cleared when the loop ends.

>>> import io
>>> out = io.StringIO()
>>> with Progress("finite differences", 3, after=0.0, stream=out, force=True) as progress:
...     for done in range(1, 4):
...         progress.update(done)
>>> "finite differences: 3/3" in out.getvalue()
True
"""

from __future__ import annotations

import os
import sys
import time

REFRESH_SECONDS = 0.1
#: A loop shorter than this shows no progress line.
QUIET_SECONDS = 2.0


class Progress:
    """Reports ``done`` out of ``total`` with the time left, once the loop is slow."""

    def __init__(self, label: str, total: int, after=None, stream=None, force=None):
        self.label = label
        self.total = total
        self.after = QUIET_SECONDS if after is None else after
        self.stream = sys.stderr if stream is None else stream
        if force is None:
            force = os.environ.get("SOURCEDIFF_PROGRESS") == "1" or _is_terminal(self.stream)
        self.enabled = force
        self.start = time.perf_counter()
        self.last_shown = None
        self.width = 0

    def __enter__(self) -> Progress:
        return self

    def update(self, done: int) -> None:
        """Record that ``done`` of ``total`` are finished; redraw the line if it is due."""
        if not self.enabled:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.after:
            return
        recently = self.last_shown is not None and now - self.last_shown < REFRESH_SECONDS
        if recently and done < self.total:
            return
        self.last_shown = now
        left = elapsed / max(done, 1) * (self.total - done)
        line = f"{self.label}: {done}/{self.total} ({100 * done // max(self.total, 1)}%), "
        line += f"{left:.0f} s left"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def __exit__(self, *exc) -> None:
        if self.last_shown is not None:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _is_terminal(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
