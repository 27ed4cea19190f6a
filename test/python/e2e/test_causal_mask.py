"""`fill_causal_mask(blk, row, col)` end to end (examples/causal_mask.py): DSL ->
d2m.fill_causal_mask -> ttkernel.fill_causal_mask_tile -> C++ defined in the reader ->
emulator, against torch.triu.

Each core's reader fills its 2x2-tile block of a 128x128 mask, in a kernel-local CB
(no tensor behind it), from its global row and column offsets, the diagonal shifted
by `key_shift` so that tiles above, on and below it occur (the helper's uniform and
compared paths); the compute thread adds it to scores. A mask adds 0 or -inf, so the sum must equal torch's exactly.
"""

from __future__ import annotations

import pytest
import torch

from examples.causal_mask import SHAPE, masked_scores


@pytest.mark.parametrize("key_shift", [0, 32, -64, 96])
def test_fill_causal_mask_matches_triu(key_shift):
    scores = torch.randn(SHAPE, generator=torch.Generator().manual_seed(21)).to(torch.bfloat16)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    masked_scores(scores, out, key_shift=key_shift)
    expected = scores.float() + torch.triu(torch.full(SHAPE, float("-inf")), 1 - key_shift)
    assert torch.isinf(expected).any() and torch.isfinite(expected).any()
    assert torch.equal(out.float(), expected)
