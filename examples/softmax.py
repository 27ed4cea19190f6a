"""Row softmax: out[i, :] = exp(x[i, :] - max(x[i, :])) / sum(exp(x[i, :] - max(x[i, :]))).

Each core of a 2x1 grid owns one 32-row strip of x (four tiles wide) and computes its
softmax in one block: the row max and row sum are (32, 1) columns that broadcast
against the block.

    python examples/softmax.py
"""

import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)

ROWS_OF_TILES = 2
COLS_OF_TILES = 4


@pykernel_gen(grid=(ROWS_OF_TILES, 1), block_factors=[(1, COLS_OF_TILES)] * 2)
def softmax(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def row_softmax(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as s, out_cb.reserve() as o:
            e = (s - s.rowmax()).exp()
            o.store(e / e.rowsum())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.reserve() as blk:
            dma(x_acc[core_index(0), 0], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[core_index(0), 0]).wait()

    return Program(row_softmax, reader, writer)(x, out)


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(ROWS_OF_TILES * 32, COLS_OF_TILES * 32, dtype=torch.bfloat16)
    out = torch.zeros_like(x)
    softmax(x, out)
    torch.testing.assert_close(out.float(), torch.softmax(x.float(), dim=-1), rtol=2e-2, atol=2e-3)
    print("row softmax: matches torch")


if __name__ == "__main__":
    main()
