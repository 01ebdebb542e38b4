"""The ``plait`` command run as a user runs it: a fresh interpreter, its output captured."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def plait(
    *args: str, env: Mapping[str, str], cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``plait ARGS`` (``python -m search.frontends.cli``) with exactly ``env``; never raises on an exit code."""
    return subprocess.run(
        [sys.executable, "-m", "search.frontends.cli", *args],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
