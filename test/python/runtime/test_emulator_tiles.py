"""Host tile layout: tilize/untilize and the page bytes match the hardware face layout."""

import numpy as np
import torch

from ttlang.runtime import tiles
from ttlang.runtime.program import DramBuffer


def face_layout_index(row: int, col: int) -> int:
    """Element (row, col) of a 32x32 tile: four 16x16 faces, each row-major."""
    face = (row // 16) * 2 + col // 16
    return face * 256 + (row % 16) * 16 + col % 16


def test_tilize_places_elements_in_faces_and_tiles_in_row_major_order():
    x = torch.arange(2 * 64 * 96, dtype=torch.float32).reshape(2, 64, 96)
    pages = tiles.tilize(x)
    assert pages.shape == (2 * 2 * 3, 1024)
    # Page 4 is batch 0, tile row 1, tile col 1; element (17, 20) of that tile.
    assert pages[4, face_layout_index(17, 20)] == x[0, 32 + 17, 32 + 20]
    assert pages[6 + 5, face_layout_index(31, 31)] == x[1, 63, 95]
    assert torch.equal(tiles.untilize(pages, tuple(x.shape)), x)


def test_page_bytes_round_trip_in_both_formats():
    torch.manual_seed(0)
    x = torch.randn(64, 32)
    for data_format, dtype in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        buffer = DramBuffer("x", (64, 32), data_format=data_format)
        data = tiles.to_page_bytes(x, buffer)
        assert len(data) == buffer.num_pages * buffer.page_size
        assert torch.equal(tiles.from_page_bytes(data, buffer), x.to(dtype))
    bf16 = np.frombuffer(tiles.to_page_bytes(x, DramBuffer("x", (64, 32))), dtype=np.uint16)
    expected = x.to(torch.bfloat16)[0, 17].view(torch.int16).item() & 0xFFFF
    assert bf16[face_layout_index(0, 17)] == expected
