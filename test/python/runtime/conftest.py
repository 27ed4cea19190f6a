"""Helpers for running the hand-written emulator kernels (test/emulator/kernels)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

# programs.py: the descriptors of the hand-written kernels, shared with bench/.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "emulator"))


def pcc(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """Pearson correlation of two tensors, flattened (1.0 when both are constant and equal)."""
    a = actual.double().flatten()
    b = expected.double().flatten()
    if torch.equal(a, b):
        return 1.0
    return torch.corrcoef(torch.stack([a, b]))[0, 1].item()


def assert_close(actual: torch.Tensor, expected: torch.Tensor, *, min_pcc: float, max_abs: float) -> None:
    """PCC at least `min_pcc` and max-abs error at most `max_abs`."""
    error = (actual.double() - expected.double()).abs().max().item()
    correlation = pcc(actual, expected)
    assert correlation >= min_pcc, f"PCC {correlation:.6f} < {min_pcc}"
    assert error <= max_abs, f"max abs error {error:.4g} > {max_abs}"


@pytest.fixture(autouse=True)
def _emulator_target(monkeypatch):
    """These tests exercise the emulator whatever TTLANG_TARGET the caller has set."""
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
