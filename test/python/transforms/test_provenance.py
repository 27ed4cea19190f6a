"""The memref provenance analysis (ttlang.transforms.analysis.provenance): the origin of
every kind of memref and tile operand in a compute region."""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.parser import Parser

from ttlang.dialects import d2m
from ttlang.driver import make_context
from ttlang.transforms.analysis.provenance import (
    CBBlock,
    DstRegister,
    IntermediateBuffer,
    intermediate_buffers,
    memref_origin,
    operand_origins,
    tile_origin,
)

IR = """
!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %x = d2m.wait %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %t = memref.alloc() : memref<2x2x!tile>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %t : !l1, memref<2x2x!tile>) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile, %c: !tile):
      %s = d2m.tile_add %a, %b : !tile
      linalg.yield %s : !tile
    }
    %dst = d2m.acquire_dst : memref<8x!tile, #ttcore.memory_space<dst>>
    %from_cb = memref.load %x[%c0, %c0] : !l1
    %from_dst = memref.load %dst[%c0] : memref<8x!tile, #ttcore.memory_space<dst>>
    %e = d2m.tile_exp %from_dst : !tile
    %m = d2m.tile_mul %from_cb, %from_dst : !tile
    %rows = d2m.block_view %x rows(1, 2) : !l1 -> memref<1x2x!tile, #ttcore.memory_space<l1>>
    %from_view = memref.load %rows[%c0, %c0] : memref<1x2x!tile, #ttcore.memory_space<l1>>
  }
  return
}
"""


def _ops():
    module = Parser(make_context(), IR).parse_module()
    ops = {}
    for op in module.walk():
        ops.setdefault(type(op), []).append(op)
    return module, ops


def test_memref_origins():
    _, ops = _ops()
    (wait,), (reserve,), (alloc,) = ops[d2m.WaitOp], ops[d2m.ReserveOp], ops[memref.AllocOp]
    (acquire,) = ops[d2m.AcquireDstOp]
    assert memref_origin(wait.result) == CBBlock(wait) and CBBlock(wait).is_front
    assert memref_origin(reserve.result) == CBBlock(reserve) and not CBBlock(reserve).is_front
    assert CBBlock(wait).cb is wait.cb
    assert memref_origin(alloc.memref) == IntermediateBuffer(alloc)
    assert IntermediateBuffer(alloc).memory_space is None  # no space yet: bound to L1 later
    assert memref_origin(acquire.result) == DstRegister(acquire)
    (generic,) = ops[d2m.GenericOp]
    kernel_arg = generic.inputs[0]  # a DRAM tensor: no origin here
    assert memref_origin(kernel_arg) is None
    assert intermediate_buffers(generic.thread_regions[0].block) == [alloc]


def test_tile_origins_through_loads_and_generic_arguments():
    _, ops = _ops()
    (wait,), (reserve,), (alloc,) = ops[d2m.WaitOp], ops[d2m.ReserveOp], ops[memref.AllocOp]
    (acquire,) = ops[d2m.AcquireDstOp]
    (linalg_generic,) = ops[GenericOp]
    (add,) = ops[d2m.TileAddOp]
    assert operand_origins(add) == [CBBlock(wait), IntermediateBuffer(alloc)]
    assert tile_origin(linalg_generic.body.block.args[2]) == CBBlock(reserve)
    (mul,) = ops[d2m.TileMulOp]
    assert operand_origins(mul) == [CBBlock(wait), DstRegister(acquire)]
    (exp,) = ops[d2m.TileExpOp]
    assert tile_origin(exp.result) is None  # computed: it lives where it is stored


def test_a_view_lives_in_the_block_it_views():
    _, ops = _ops()
    (wait,), (view,) = ops[d2m.WaitOp], ops[d2m.BlockViewOp]
    assert memref_origin(view.result) == CBBlock(wait)
    (_, _, view_load) = ops[memref.LoadOp]
    assert tile_origin(view_load.res) == CBBlock(wait)
