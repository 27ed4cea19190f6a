// Every error d2m-memref-provenance raises.
// RUN: %ttlang-opt %s -p d2m-memref-provenance --split-input-file --verify-diagnostics

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @used_by_load(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %c0 = arith.constant 0 : index
    %t = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%t : !l1) {
    ^bb0(%a: !tile):
      %r = d2m.tile_fill 1.0 : !tile
      linalg.yield %r : !tile
    }
    // expected-error @+1 {{uses an intermediate buffer; only linalg.generic may read or write one}}
    %v = memref.load %t[%c0, %c0] : !l1
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @never_written(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    // expected-error @+1 {{is written by 0 generics; an intermediate buffer is bound to a CB block that exactly one generic produces.}}
    %t = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : !l1) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @written_twice(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    // expected-error @+1 {{is written by 2 generics}}
    %t = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_before_written(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %t = memref.alloc() : !l1
    // expected-error @+1 {{reads an intermediate buffer before (or outside the block where) it is written}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : !l1) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @in_dram(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    // expected-error @+1 {{is an intermediate buffer in dram; a compute temporary lives in a CB in L1.}}
    %t = memref.alloc() : !dram
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t : !dram) {
    ^bb0(%a: !tile, %b: !tile):
      linalg.yield %a : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @writes_front(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    %y = d2m.wait %out_cb : !cb -> !l1
    // expected-error @+1 {{writes a block taken with d2m.wait; the packer writes only a CB's back}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%y : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reads_back(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.reserve %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    // expected-error @+1 {{reads a block taken with d2m.reserve before it is pushed; the unpacker reads only a CB's front}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @unknown_origin(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %o = d2m.reserve %out_cb : !cb -> !l1
    // expected-error @+1 {{touches a memref that is neither a CB block nor an intermediate buffer}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%din : !dram) outs(%o : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @data_movement_buffer(%din: !dram, %dout: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<datamovement>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    // expected-error @+1 {{is an intermediate buffer in a data-movement thread; only compute threads hold temporaries.}}
    %t = memref.alloc() : !l1
  }
  return
}

// -----

!tile = !ttcore.tile<32x32, bf16>
!dram = memref<2x2x!tile, #ttcore.memory_space<dram>>
!l1 = memref<2x2x!tile, #ttcore.memory_space<l1>>
!cb = !d2m.cb<!l1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @too_many_cbs(%din: !dram, %dout: !dram) {
  // expected-error @+1 {{needs 33 circular buffers (2 of operands and kernel-local, 31 compute temporaries), more than the 32 a core has.}}
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins(%din : !dram) outs(%dout : !dram) {
  ^bb0(%in_cb: !cb, %out_cb: !cb):
    %x = d2m.wait %in_cb : !cb -> !l1
    %o = d2m.reserve %out_cb : !cb -> !l1
    %t0 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t0 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t1 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t1 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t2 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t2 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t3 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t3 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t4 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t4 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t5 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t5 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t6 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t6 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t7 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t7 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t8 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t8 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t9 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t9 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t10 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t10 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t11 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t11 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t12 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t12 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t13 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t13 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t14 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t14 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t15 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t15 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t16 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t16 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t17 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t17 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t18 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t18 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t19 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t19 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t20 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t20 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t21 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t21 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t22 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t22 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t23 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t23 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t24 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t24 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t25 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t25 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t26 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t26 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t27 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t27 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t28 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t28 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t29 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t29 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    %t30 = memref.alloc() : !l1
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : !l1) outs(%t30 : !l1) {
    ^bb0(%a: !tile, %b: !tile):
      %r = d2m.tile_exp %a : !tile
      linalg.yield %r : !tile
    }
    linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t0, %t1, %t2, %t3, %t4, %t5, %t6, %t7, %t8, %t9, %t10, %t11, %t12, %t13, %t14, %t15, %t16, %t17, %t18, %t19, %t20, %t21, %t22, %t23, %t24, %t25, %t26, %t27, %t28, %t29, %t30 : !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1, !l1) outs(%o : !l1) {
    ^bb0(%a0: !tile, %a1: !tile, %a2: !tile, %a3: !tile, %a4: !tile, %a5: !tile, %a6: !tile, %a7: !tile, %a8: !tile, %a9: !tile, %a10: !tile, %a11: !tile, %a12: !tile, %a13: !tile, %a14: !tile, %a15: !tile, %a16: !tile, %a17: !tile, %a18: !tile, %a19: !tile, %a20: !tile, %a21: !tile, %a22: !tile, %a23: !tile, %a24: !tile, %a25: !tile, %a26: !tile, %a27: !tile, %a28: !tile, %a29: !tile, %a30: !tile, %a31: !tile):
      linalg.yield %a0 : !tile
    }
  }
  return
}
