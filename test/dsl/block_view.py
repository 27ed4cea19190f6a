# RUN: %python %s | FileCheck %s
# `blk[:, a:b]` on a block from cb.wait() is a d2m.block_view of tile rows a..b-1 (the
# second-to-last dim, in tiles); a view of a view is one view of the block; the whole
# range is the block itself.

from ttlang import Program, TensorSpec, compute, pykernel_gen


def by_query(i, h, j):
    return (h, i, 0)


def by_key(i, h, j):
    return (h, j, 0)


@pykernel_gen(
    grid=(1, 1),
    block_factors=[(1, 2, 2), (1, 8, 2), (1, 2, 2)],
    indexing_maps=[by_query, by_key, by_query],
    iterator_types=["parallel", "parallel", "reduction"],
)
def views(q, k, out):
    @compute()
    def body(q_cb, k_cb, out_cb):
        with q_cb.wait() as qb, k_cb.wait() as kb, out_cb.reserve() as o:
            first = kb[:, 0:4]
            o.store(qb @ first[:, 1:3].transpose() + kb[:, 6:] @ kb[:, :, :][0:1, 0:2])

    return Program(body)(q, k, out)


print(views.frontend_module(TensorSpec((1, 64, 64)), TensorSpec((1, 256, 64)), TensorSpec((1, 64, 64))))
# CHECK-LABEL: func.func @views(
# CHECK:      %kb = d2m.wait %k_cb : {{.*}} -> tensor<1x8x2x!ttcore.tile<32x32, bf16>>
# CHECK:      %first = d2m.block_view %kb rows(0, 4) : tensor<1x8x2x!ttcore.tile<32x32, bf16>> -> tensor<1x4x2x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %[[MID:.*]] = d2m.block_view %kb rows(1, 3) : tensor<1x8x2x!ttcore.tile<32x32, bf16>> -> tensor<1x2x2x!ttcore.tile<32x32, bf16>>
# CHECK:      linalg.generic {{.*}} ins(%[[MID]] : {{.*}})
# CHECK:        d2m.tile_transpose
# CHECK:      %[[LAST:.*]] = d2m.block_view %kb rows(6, 8) : {{.*}} -> tensor<1x2x2x!ttcore.tile<32x32, bf16>>
# CHECK-NEXT: %[[TOP:.*]] = d2m.block_view %kb rows(0, 2) : {{.*}} -> tensor<1x2x2x!ttcore.tile<32x32, bf16>>
# CHECK:      linalg.generic {{.*}} ins(%[[LAST]], %[[TOP]] : {{.*}})
# CHECK:        d2m.tile_matmul
# CHECK-NOT:  d2m.block_view
