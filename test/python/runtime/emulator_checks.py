"""Numerical checks of emulator outputs against torch references."""

import torch


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
