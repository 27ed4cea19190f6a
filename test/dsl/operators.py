# RUN: %python %s | FileCheck %s
# Every block operator becomes one linalg.generic whose body is d2m.tile_* ops
# (indexing maps and iterator types as tt-lang's), on 2x2-tile (64x64) blocks.

from ttlang import (
    CircularBuffer,
    Program,
    TensorSpec,
    compute,
    fill,
    full,
    maximum,
    pykernel_gen,
    where,
    zeros,
)

BLOCK = TensorSpec((64, 64))


def binary_kernel(name, expression):
    """A compute-only kernel storing expression(x, y) for two 2x2-tile blocks."""

    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2)] * 3)
    def kernel(a, b, out):
        @compute()
        def body(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
                o.store(expression(x, y))

        return Program(body)(a, b, out)

    kernel.function.__name__ = name
    print(kernel.frontend_module(BLOCK, BLOCK, BLOCK))


binary_kernel("sub", lambda x, y: x - y)
# CHECK-LABEL: func.func @sub(
# CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x2x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x2x!ttcore.tile<32x32, bf16>>) outs(%[[INIT]] : tensor<2x2x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[R:.*]] = d2m.tile_sub %[[A]], %[[B]] : !ttcore.tile<32x32, bf16>
# CHECK-NEXT: linalg.yield %[[R]] : !ttcore.tile<32x32, bf16>
# CHECK-NEXT: } -> tensor<2x2x!ttcore.tile<32x32, bf16>>

binary_kernel("mul_div_max", lambda x, y: maximum(x * y / y, x))
# CHECK-LABEL: func.func @mul_div_max(
# CHECK: d2m.tile_mul
# CHECK: linalg.generic
# CHECK: d2m.tile_div
# CHECK: linalg.generic
# CHECK: d2m.tile_maximum

# The unary table: one generic per method, the tile op alone in the body.
binary_kernel("unary", lambda x, y: abs(-(x.exp().sqrt().rsqrt().recip().neg())))
# CHECK-LABEL: func.func @unary(
# CHECK: ins(%x : tensor<2x2x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[T:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %{{.*}} = d2m.tile_exp %[[T]]
# CHECK: d2m.tile_sqrt
# CHECK: d2m.tile_rsqrt
# CHECK: d2m.tile_recip
# CHECK: d2m.tile_neg
# CHECK: d2m.tile_neg
# CHECK: d2m.tile_abs

# Python numbers: scalar tile ops (scalar - block is rsub); no scalar form -> a filled tile.
binary_kernel("scalars", lambda x, y: maximum(2.0 / (1.0 - (x + 2) * 3.0 / 4), 0.5))
# CHECK-LABEL: func.func @scalars(
# CHECK: d2m.tile_add_scalar %{{.*}}, 2.000000e+00
# CHECK: d2m.tile_mul_scalar %{{.*}}, 3.000000e+00
# CHECK: d2m.tile_div_scalar %{{.*}}, 4.000000e+00
# CHECK: d2m.tile_rsub_scalar %{{.*}}, 1.000000e+00
# CHECK: ^bb0(%[[D:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[TWO:.*]] = d2m.tile_fill 2.000000e+00
# CHECK-NEXT: d2m.tile_div %[[TWO]], %[[D]]
# CHECK: ^bb0(%[[M:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[HALF:.*]] = d2m.tile_fill 5.000000e-01
# CHECK-NEXT: d2m.tile_maximum %[[M]], %[[HALF]]

# Matmul: (d0, d2), (d2, d1) -> (d0, d1) with d2 a reduction; tile_matmul accumulates
# into the output tile. Transpose swaps the tile indices and transposes each tile.
binary_kernel("transpose_matmul", lambda x, y: x.transpose() @ y)
# CHECK-LABEL: func.func @transpose_matmul(
# CHECK: %[[XT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x
# CHECK-NEXT: ^bb0(%[[T:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: d2m.tile_transpose %[[T]]
# CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XT]], %y
# CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[P:.*]] = d2m.tile_matmul %[[A]], %[[B]], %[[ACC]]
# CHECK-NEXT: linalg.yield %[[P]]

# Row reductions: (R, C) -> (R, 1) tiles, a ones scaler read at tile (0, 0), the
# output map drops the reduced dim; the (R, 1) result broadcasts back through its map
# (d0, 0) and a column tile_bcast.
binary_kernel("row_reduce_broadcast", lambda x, y: x - x.rowmax() + y.rowsum())
# CHECK-LABEL: func.func @row_reduce_broadcast(
# CHECK: %[[ONES:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<1x1x!ttcore.tile<32x32, bf16>>)
# CHECK: d2m.tile_fill 1.000000e+00
# CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x1x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %[[ONES]] : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<1x1x!ttcore.tile<32x32, bf16>>) outs(%[[INIT]] : tensor<2x1x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[IN:.*]]: !ttcore.tile<32x32, bf16>, %[[S:.*]]: !ttcore.tile<32x32, bf16>, %[[ACC:.*]]: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: d2m.tile_reduce_max <row> %[[IN]], %[[S]], %[[ACC]]
# CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %[[MAX]] : tensor<2x2x!ttcore.tile<32x32, bf16>>, tensor<2x1x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[A:.*]]: !ttcore.tile<32x32, bf16>, %[[B:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %[[BB:.*]] = d2m.tile_bcast <col> %[[B]]
# CHECK-NEXT: d2m.tile_sub %[[A]], %[[BB]]
# CHECK: d2m.tile_reduce_sum <row>
# CHECK: d2m.tile_bcast <col>
# CHECK-NEXT: d2m.tile_add

# Column reductions: (R, C) -> (1, C); the result broadcasts along rows.
binary_kernel("col_reduce_broadcast", lambda x, y: x * x.colsum() / y.colmax())
# CHECK-LABEL: func.func @col_reduce_broadcast(
# CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]}
# CHECK-SAME: outs(%{{.*}} : tensor<1x2x!ttcore.tile<32x32, bf16>>)
# CHECK: d2m.tile_reduce_sum <col>
# CHECK: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
# CHECK: d2m.tile_bcast <row>
# CHECK-NEXT: d2m.tile_mul
# CHECK: d2m.tile_reduce_max <col>

# A reduction of a reduction is a (1, 1) scalar; it broadcasts with a scalar tile_bcast.
binary_kernel("scalar_broadcast", lambda x, y: x - x.rowsum().colsum())
# CHECK-LABEL: func.func @scalar_broadcast(
# CHECK: affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
# CHECK: d2m.tile_bcast <scalar>

# fill / zeros / full: a generic without inputs; where selects elementwise.
binary_kernel("fills_where", lambda x, y: where(x, fill(1.5, (64, 64)) + zeros((64, 64)), full((64, 64), -2.0)))
# CHECK-LABEL: func.func @fills_where(
# CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(
# CHECK-NEXT: ^bb0(%{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: d2m.tile_fill 1.500000e+00
# CHECK: d2m.tile_fill 0.000000e+00
# CHECK: d2m.tile_add
# CHECK: d2m.tile_fill -2.000000e+00
# CHECK: ^bb0(%[[C:.*]]: !ttcore.tile<32x32, bf16>, %[[T:.*]]: !ttcore.tile<32x32, bf16>, %[[F:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: d2m.tile_where %[[C]], %[[T]], %[[F]]

# tt-lang's free functions: exp(x) is x.exp(); reduce_sum(x, scaler, dim=1) reduces
# x * scaler[0, 0] into column 0 of one tile per row of tiles (the scaler's tile (0, 0)
# for every iteration), then copies that tile to every tile column (the block keeps its
# shape); bcast(r, dim=1) spreads column 0 over each tile.
from ttlang.operators import bcast, exp, reduce_max, reduce_sum, transpose  # noqa: E402

binary_kernel("tt_lang_reduce_bcast", lambda x, y: bcast(reduce_sum(exp(x), y, dim=1), dim=1))
# CHECK-LABEL: func.func @tt_lang_reduce_bcast(
# CHECK: d2m.tile_exp
# CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
# CHECK: d2m.tile_reduce_sum <row>
# CHECK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<2x1x!ttcore.tile<32x32, bf16>>) outs(%{{.*}} : tensor<2x2x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[T:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: linalg.yield %[[T]] : !ttcore.tile<32x32, bf16>
# CHECK: ins(%[[SUMS]] : tensor<2x2x!ttcore.tile<32x32, bf16>>)
# CHECK-NEXT: ^bb0(%[[S:.*]]: !ttcore.tile<32x32, bf16>, %{{.*}}: !ttcore.tile<32x32, bf16>):
# CHECK-NEXT: %{{.*}} = d2m.tile_bcast <col> %[[S]] : !ttcore.tile<32x32, bf16>

binary_kernel("tt_lang_column_max", lambda x, y: bcast(reduce_max(transpose(x), y, dim=0), dim=0))
# CHECK-LABEL: func.func @tt_lang_column_max(
# CHECK: d2m.tile_transpose
# CHECK: affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]}
# CHECK: d2m.tile_reduce_max <col>
# CHECK: affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
# CHECK: d2m.tile_bcast <row>
