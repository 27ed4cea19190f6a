"""Host-side tile layout: torch tensors <-> DRAM tile pages in the hardware byte layout.

A page is one 32x32 tile stored as four 16x16 faces (top-left, top-right, bottom-left,
bottom-right), each row-major; pages are the tensor's tiles in row-major tile order
(batch dimensions outermost), as `ttlang.runtime.program.DramBuffer` describes. A bfp8_b
page holds the same elements as shared exponents and sign-magnitude bytes
(`block_float`); its tensor goes through float32 on the host.
"""

from __future__ import annotations

import numpy as np
import torch

from ttlang.runtime import block_float
from ttlang.runtime.program import TILE_COLS, TILE_ROWS, DramBuffer

FACE = 16
# The host dtype a buffer's tensor is converted through, per data format.
TORCH_DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32, "bfp8_b": torch.float32}


def tilize(tensor: torch.Tensor) -> torch.Tensor:
    """(..., rows, cols) -> (pages, 1024) elements in face layout."""
    *_, rows, cols = tensor.shape
    faces = tensor.reshape(-1, rows // TILE_ROWS, 2, FACE, cols // TILE_COLS, 2, FACE)
    # batch, tile row, tile col, face row, face col, row in face, col in face
    return faces.permute(0, 1, 4, 2, 5, 3, 6).reshape(-1, TILE_ROWS * TILE_COLS)


def untilize(pages: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """(pages, 1024) elements in face layout -> a tensor of `shape`."""
    *_, rows, cols = shape
    faces = pages.reshape(-1, rows // TILE_ROWS, cols // TILE_COLS, 2, 2, FACE, FACE)
    return faces.permute(0, 1, 3, 5, 2, 4, 6).reshape(shape)


def to_page_bytes(tensor: torch.Tensor, buffer: DramBuffer) -> bytes:
    """The bytes of `buffer`'s pages holding `tensor` (rounded to the buffer's format)."""
    pages = tilize(tensor.detach().to("cpu", TORCH_DTYPES[buffer.data_format])).contiguous()
    if buffer.data_format == "bfp8_b":
        return block_float.pack_bfp8_b(pages.numpy())
    if buffer.data_format == "bf16":
        return pages.view(torch.int16).numpy().tobytes()
    return pages.numpy().tobytes()


def from_page_bytes(data: bytes, buffer: DramBuffer) -> torch.Tensor:
    """A tensor of `buffer`'s shape and format from the bytes of its pages."""
    if buffer.data_format == "bfp8_b":
        raw = torch.from_numpy(block_float.unpack_bfp8_b(data))
    elif buffer.data_format == "bf16":
        raw = torch.from_numpy(np.frombuffer(data, dtype=np.int16).copy()).view(torch.bfloat16)
    else:
        raw = torch.from_numpy(np.frombuffer(data, dtype=np.float32).copy())
    return untilize(raw, tuple(buffer.shape))


def as_stored(tensor: torch.Tensor, data_format: str) -> torch.Tensor:
    """The values `tensor` holds once written to a DRAM buffer of `data_format` (for
    bfp8_b: quantized by the host packer), as a tensor of the format's host dtype."""
    buffer = DramBuffer("tensor", tuple(tensor.shape), data_format)
    return from_page_bytes(to_page_bytes(tensor, buffer), buffer)
