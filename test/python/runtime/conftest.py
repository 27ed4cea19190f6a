"""Setup for the emulator tests: the hand-written kernels' program descriptors and the target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# emulator_programs.py: the descriptors of the hand-written kernels, shared with bench/.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "emulator"))


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    """These tests exercise the emulator whatever TTLANG_TARGET the caller has set."""
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
