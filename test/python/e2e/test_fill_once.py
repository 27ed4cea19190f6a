"""End-to-end tests of d2m-lower-to-loops' single fill on the emulator against torch: a
fill makes the same tile for every tile of its block, so a DST section fills one tile
(`fill_tile(0, ...)`, not one per tile in a loop) and packs it to every tile of the
block, or reads it for every tile of the op using it.

Each test also checks the lowering (the compute kernel fills DST tile 0, with a literal
index) so it cannot pass by the per-tile fill. Filling and max are exact in bf16:
asserted max-abs 0 (PCC 1).
"""

from __future__ import annotations

import re

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16, tensor_shape, unary_kernel

from ttlang import full, maximum

BLOCK = (2, 3)  # six tiles: one fill for all of them
FILLED = tensor_shape(block=BLOCK)


def _compute_source(artifact) -> str:
    return next(k.source for k in artifact.program.kernels if k.kind == "compute")


def _fills_tile_zero_once(source: str, value: str) -> bool:
    return re.findall(r"fill_tile\((\w+), ([^)]*)\)", source) == [("0", value)]


FILL = (BLOCK[0] * TILE, BLOCK[1] * TILE)


@pytest.mark.parametrize(
    "expr, value, expected",
    [
        (lambda a: full(FILL, -1.75), "-1.75f", lambda x: torch.full(FILLED, -1.75)),
        (lambda a: maximum(a, full(FILL, -0.5)), "-0.5f", lambda x: torch.clamp_min(x, -0.5)),
    ],
    ids=["packed", "read-by-max"],
)
def test_fill_is_one_tile(expr, value: str, expected):
    """A stored fill packed from one DST tile; a fill read by maximum from one tile."""
    x = random_bf16(FILLED, -1.0, 1.0, seed=3)
    out = torch.zeros_like(x)
    artifact = unary_kernel(expr, block=BLOCK).compile(x, out)
    assert _fills_tile_zero_once(_compute_source(artifact), value), _compute_source(artifact)
    artifact.run([x, out])
    assert_close(out, expected(x), max_abs=0.0, min_pcc=1.0)


def test_fill_used_in_place_is_filled_per_tile():
    """exp of a fill, computed in the fill's DST slot: each tile is filled, as before
    (one tile would be overwritten by the first exp and read by the next). exp(0.5) in
    bf16: asserted max-abs one ulp at 1.65 (2^-7) against float32 torch (a constant has
    no PCC: the tiles are checked to be all equal)."""
    kernel = unary_kernel(lambda a: full(FILL, 0.5).exp(), block=BLOCK)
    x = random_bf16(FILLED, -1.0, 1.0, seed=5)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, out)
    source = _compute_source(artifact)
    assert "fill_tile(" in source and not _fills_tile_zero_once(source, "0.5f"), source
    artifact.run([x, out])
    assert torch.equal(out, out[0, 0].expand(FILLED))
    error = (out.float() - torch.tensor(0.5).exp()).abs().max().item()
    assert error <= 2**-7, error
