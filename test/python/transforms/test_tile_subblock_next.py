"""d2m-tile-subblock's `hidden_by_next`: the last pack of a generic hides behind the
next generic's math unless that one reads a block of the CB being packed, also
through a `d2m.block_view` of it."""

from __future__ import annotations

from xdsl.dialects.linalg.ops import GenericOp
from xdsl.parser import Parser

from ttlang.driver import make_context
from ttlang.transforms.d2m_tile_subblock import hidden_by_next

IR = """
!tile = !ttcore.tile<32x32, bf16>
!dram = memref<4x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<4x2x!tile, #ttcore.memory_space<l1>>
!half = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%in: !dram, %out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%in : !dram) outs(%out : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %mid = d2m.local_cb : !cb
    %half_cb = d2m.local_cb : !d2m.cb<!half>
    %x = d2m.wait %in_cb : !cb -> !l1
    %m = d2m.reserve %mid : !cb -> !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%m : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_exp %a : !tile
      linalg.yield %e : !tile
    }
    d2m.push %mid : !cb
    %back = d2m.wait %mid : !cb -> !l1
    %rows = d2m.block_view %BLOCK rows(0, 2) : !l1 -> !half
    %h = d2m.reserve %half_cb : !d2m.cb<!half> -> !half
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%rows : !half) outs(%h : !half) {
    ^bb0(%a: !tile, %b: !tile):
      %e = d2m.tile_exp %a : !tile
      linalg.yield %e : !tile
    }
    d2m.push %half_cb : !d2m.cb<!half>
    d2m.pop %mid : !cb
    d2m.pop %in_cb : !cb
  }
  return
}
"""


def _first_generic_hidden(viewed: str) -> float:
    module = Parser(make_context(), IR.replace("%BLOCK", viewed)).parse_module()
    first = next(op for op in module.walk() if isinstance(op, GenericOp))
    return hidden_by_next(first)


def test_a_view_of_the_packed_cb_waits_for_the_pack():
    assert _first_generic_hidden("%back") == 0  # reads rows of the block being packed
    assert _first_generic_hidden("%x") > 0  # reads another CB: its math hides the pack
