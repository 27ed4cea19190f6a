"""Multicast and semaphores end to end (examples/multicast.py): core (0, 0) reads a block
once and multicasts it to the other cores of its row, which compute with it."""

from __future__ import annotations

import torch
from e2e_kernels import TILE, assert_close, random_bf16

from examples.multicast import BLOCK, COLS, broadcast_exp


def test_multicast_with_semaphores():
    x = random_bf16((TILE, COLS * BLOCK[1] * TILE), -2.0, 2.0, seed=20)
    out = torch.zeros_like(x)
    broadcast_exp(x, out)
    first_block = x[:, : BLOCK[1] * TILE].float().exp()
    # exp of values in [-2, 2]: at most ~7.4, where a bf16 ulp is 0.03
    assert_close(out, first_block.repeat(1, COLS), max_abs=0.06)
