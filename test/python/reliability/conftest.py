"""The reliability tests run on the emulator whatever TTLANG_TARGET says."""

import pytest


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
