"""The reliability tests run on the emulator whatever TTLANG_TARGET says."""

import sys
from pathlib import Path

import pytest

# emulator_programs.py: the descriptors of the hand-written emulator kernels.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "emulator"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
