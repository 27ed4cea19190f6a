"""Matmul on implicit operands: the kernel is its compute thread and its iteration
space; the compiler generates the data movement.

The indexing maps (m, k), (k, n), (m, n) with k a reduction put m on grid rows and n
on grid columns: core (y, x) computes its blocks of out, streaming the K blocks of its
row of a and column of b. Every core of a grid row needs the same blocks of a (a has
no n), so the row's first core reads them from DRAM and multicasts them along the row;
b likewise down each grid column (tt-metal's 2D multicast matmul).

    python examples/matmul_implicit.py
"""

import torch

from ttlang import Program, compute, pykernel_gen, zeros

TILE = 32


def matmul_kernel(grid, block: int | tuple[int, int, int], k_blocks: int, out_blocks: int):
    """out = a @ b in `block` x `block`-tile blocks (or, `block` = (bm, bk, bn), blocks of
    a of bm x bk tiles and of b of bk x bn): K in `k_blocks` blocks, `out_blocks` output
    blocks per core."""
    bm, bk, bn = (block,) * 3 if isinstance(block, int) else block

    @pykernel_gen(
        grid=grid,
        block_factors=[(bm, bk), (bk, bn), (bm, bn)],
        indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (k, n), lambda m, n, k: (m, n)],
        iterator_types=["parallel", "parallel", "reduction"],
    )
    def matmul(a, b, out):
        @compute()
        def mm(a_cb, b_cb, out_cb):
            for _ in range(out_blocks):
                acc = zeros((bm * TILE, bn * TILE))
                for _ in range(k_blocks):
                    with a_cb.wait() as a_blk, b_cb.wait() as b_blk:
                        acc = acc + a_blk @ b_blk
                with out_cb.reserve() as o:
                    o.store(acc)

        return Program(mm)(a, b, out)

    return matmul


def main() -> None:
    torch.manual_seed(0)
    grid, block, k_blocks = (4, 4), 2, 4
    m, n, k = grid[0] * block * TILE, grid[1] * block * TILE, k_blocks * block * TILE
    a = torch.randn(m, k, dtype=torch.bfloat16)
    b = torch.randn(k, n, dtype=torch.bfloat16)
    out = torch.zeros(m, n, dtype=torch.bfloat16)
    matmul_kernel(grid, block, k_blocks, 1)(a, b, out)
    # bf16 inputs, products accumulated in DST and rounded to bf16 per K block
    torch.testing.assert_close(out.float(), a.float() @ b.float(), rtol=2e-2, atol=0.5)
    print("matmul on implicit operands: matches torch")


if __name__ == "__main__":
    main()
