"""The FlashAttention tests load examples/flash_attention.py (the kernel under test) and
run it on the emulator whatever TTLANG_TARGET says."""

from __future__ import annotations

import pytest

from examples import flash_attention


@pytest.fixture(scope="session")
def fa():
    """The example module: its kernels and compilations are cached in it."""
    return flash_attention


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
