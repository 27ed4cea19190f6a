// RUN: %ttlang-opt %s --split-input-file -p ttkernel-place-inits | FileCheck %s
// RUN: %ttlang-opt %s --split-input-file -p 'ttkernel-place-inits{init_groups=false}' | FileCheck %s --check-prefix=ONE

// An init alone in its loop is hoisted out (innermost loop first); a loop with one
// unpacker/FPU init and one SFPU init gets both hoisted; an init equal to the one in
// force for its group is dropped. Every CB is bf16 and the kernel starts with the
// hardware startup: no data format is reconfigured.
// CHECK-LABEL: func.func @hoist_and_dedupe()
// CHECK:      %[[IN:.*]] = ttkernel.get_compile_time_arg_val(0)
// CHECK-NOT:  reconfig
// CHECK:      ttkernel.copy_tile_init(%[[IN]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     ttkernel.copy_tile(%[[IN]]
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.copy_tile(%[[IN]]
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// With init_groups=false every init reconfigures the whole core: the loop with two
// inits keeps both.
// ONE-LABEL: func.func @hoist_and_dedupe()
// ONE:      ttkernel.copy_tile(%in, %j, %j)
// ONE:      scf.for
// ONE-NEXT:   ttkernel.copy_tile_init
// ONE-NEXT:   ttkernel.copy_tile(
// ONE-NEXT:   ttkernel.exp_tile_init()
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @hoist_and_dedupe() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %in = ttkernel.get_compile_time_arg_val(0)
    ttkernel.binary_op_init_common(%in, %in, %in)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    scf.for %i = %c0 to %c2 step %c1 : i32 {
      scf.for %j = %c0 to %c2 step %c1 : i32 {
        ttkernel.copy_tile_init(%in)
        ttkernel.copy_tile(%in, %j, %j)
      }
    }
    scf.for %i = %c0 to %c2 step %c1 : i32 {
      ttkernel.copy_tile_init(%in)
      ttkernel.copy_tile(%in, %i, %c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
    }
    func.return
  }
}

// -----

// A reduction's packs keep its packer configuration; the next DST section packing
// something else gets reduce_uninit at its start. A reduce_init alone in its loop is hoisted. The
// reduction changes only the unpacker/FPU/packer group: the exp_tile_init in force
// before it still holds after it (the second goes).
// CHECK-LABEL: func.func @reduce_uninit()
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: ttkernel.reduce_init<sum, row>
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.reduce_tile<sum, row>
// CHECK-NEXT:   ttkernel.tile_regs_commit()
// CHECK-NEXT:   ttkernel.tile_regs_wait()
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.tile_regs_acquire()
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NEXT: ttkernel.copy_tile_init(
// CHECK-NEXT: ttkernel.copy_tile(
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: ttkernel.tile_regs_commit()
// CHECK-NEXT: ttkernel.tile_regs_wait()
// CHECK-NEXT: ttkernel.pack_tile(
// CHECK-NEXT: ttkernel.tile_regs_release()
// CHECK-NEXT: func.return
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @reduce_uninit() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %a = ttkernel.get_compile_time_arg_val(0)
    %s = ttkernel.get_compile_time_arg_val(1)
    %o = ttkernel.get_compile_time_arg_val(2)
    ttkernel.binary_op_init_common(%a, %s, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.reduce_init<sum, row>(%a, %s, %o)
      ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
      ttkernel.tile_regs_commit()
      ttkernel.tile_regs_wait()
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
    }
    ttkernel.tile_regs_acquire()
    ttkernel.copy_tile_init(%a)
    ttkernel.copy_tile(%a, %c0, %c0)
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    ttkernel.tile_regs_commit()
    ttkernel.tile_regs_wait()
    ttkernel.pack_tile(%c0, %o, %c0)
    ttkernel.tile_regs_release()
    func.return
  }
}

// -----

// The next pack after a reduction sits in a loop that holds no reduction:
// reduce_uninit goes before that loop, once, not into every iteration (after the
// copy_tile_init hoisted out of it). In a loop
// holding a reduction, a section packing something else after it gets its
// reduce_uninit in the body (the next iteration reduces again); the loop's pack before the reduction meets
// the previous iteration's uninit and needs none.
// CHECK-LABEL: func.func @reduce_uninit_before_loop()
// CHECK:      ttkernel.reduce_tile<max, row>
// CHECK-NEXT: ttkernel.pack_tile(
// CHECK-NEXT: ttkernel.tile_regs_release()
// CHECK-NEXT: ttkernel.copy_tile_init(
// CHECK-NEXT: ttkernel.reduce_uninit()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.copy_tile(
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.copy_tile_init(
// CHECK-NEXT:   ttkernel.copy_tile(
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.reduce_init<max, row>
// CHECK-NEXT:   ttkernel.reduce_tile<max, row>
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.reduce_uninit()
// CHECK-NEXT:   ttkernel.copy_tile_init(
// CHECK-NEXT:   ttkernel.copy_tile(
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT: }
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @reduce_uninit_before_loop() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %a = ttkernel.get_compile_time_arg_val(0)
    %s = ttkernel.get_compile_time_arg_val(1)
    %o = ttkernel.get_compile_time_arg_val(2)
    ttkernel.binary_op_init_common(%a, %s, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    ttkernel.tile_regs_acquire()
    ttkernel.reduce_init<max, row>(%a, %s, %o)
    ttkernel.reduce_tile<max, row>(%a, %s, %c0, %c0, %c0)
    ttkernel.pack_tile(%c0, %o, %c0)
    ttkernel.tile_regs_release()
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.copy_tile_init(%a)
      ttkernel.copy_tile(%a, %j, %c0)
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
    }
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.copy_tile_init(%a)
      ttkernel.copy_tile(%a, %j, %c0)
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
      ttkernel.tile_regs_acquire()
      ttkernel.reduce_init<max, row>(%a, %s, %o)
      ttkernel.reduce_tile<max, row>(%a, %s, %j, %c0, %c0)
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
      ttkernel.tile_regs_acquire()
      ttkernel.copy_tile_init(%a)
      ttkernel.copy_tile(%a, %j, %c0)
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
    }
    func.return
  }
}

// -----

// Two inits of one group in a loop (here both unpacker/FPU) stay in it: each undoes
// the other every iteration. The SFPU init in force before the loop still holds
// after it (the loop changes only the FPU group), so the second exp_tile_init goes.
// CHECK-LABEL: func.func @same_group_stays()
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.init_bcast
// CHECK-NEXT:   ttkernel.mul_tiles_bcast
// CHECK-NEXT:   ttkernel.mm_init
// CHECK-NEXT:   ttkernel.matmul_tiles
// CHECK-NEXT: }
// CHECK-NEXT: ttkernel.exp_tile(
// CHECK-NEXT: func.return
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @same_group_stays() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %a = ttkernel.get_compile_time_arg_val(0)
    %b = ttkernel.get_compile_time_arg_val(1)
    %o = ttkernel.get_compile_time_arg_val(2)
    ttkernel.binary_op_init_common(%a, %b, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.init_bcast<mul, col>(%a, %b, %o)
      ttkernel.mul_tiles_bcast<col>(%a, %b, %j, %j, %c0)
      ttkernel.mm_init(%a, %b, %o, %c0)
      ttkernel.matmul_tiles(%a, %b, %j, %j, %c0, %c0)
    }
    ttkernel.exp_tile_init()
    ttkernel.exp_tile(%c0)
    func.return
  }
}

// -----

// A loop holding a reduce_init and an SFPU init: the SFPU init is hoisted (a reduction
// leaves the SFPU alone), the reduce_init stays (the loop had another init). Its
// section packs the reduction's results (exp applied in DST): no reduce_uninit.
// CHECK-LABEL: func.func @reduce_with_sfpu_init()
// CHECK:      ttkernel.exp_tile_init()
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.tile_regs_acquire()
// CHECK-NEXT:   ttkernel.reduce_init<sum, row>
// CHECK-NEXT:   ttkernel.reduce_tile<sum, row>
// CHECK-NEXT:   ttkernel.exp_tile(
// CHECK-NEXT:   ttkernel.pack_tile(
// CHECK-NEXT:   ttkernel.tile_regs_release()
// CHECK-NEXT: }
// CHECK-NEXT: func.return
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @reduce_with_sfpu_init() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %a = ttkernel.get_compile_time_arg_val(0)
    %s = ttkernel.get_compile_time_arg_val(1)
    %o = ttkernel.get_compile_time_arg_val(2)
    ttkernel.binary_op_init_common(%a, %s, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    scf.for %j = %c0 to %c2 step %c1 : i32 {
      ttkernel.tile_regs_acquire()
      ttkernel.reduce_init<sum, row>(%a, %s, %o)
      ttkernel.reduce_tile<sum, row>(%a, %s, %j, %c0, %c0)
      ttkernel.exp_tile_init()
      ttkernel.exp_tile(%c0)
      ttkernel.pack_tile(%c0, %o, %j)
      ttkernel.tile_regs_release()
    }
    func.return
  }
}

// -----

// An init reads its CBs' tile types only: the second broadcast init, on CB 2 (bf16 like
// CB 0) instead of CB 0, configures the same and goes; the third, on bfp8_b CB 3,
// stays (with the reconfiguration of srcA it needs).
// CHECK-LABEL: func.func @same_tile_types()
// CHECK:      ttkernel.init_bcast<mul, col> (%[[L:.*]], %[[A:.*]], %{{.*}})
// CHECK-NEXT: ttkernel.mul_tiles_bcast<col> (%[[L]], %[[A]]
// CHECK-NEXT: ttkernel.mul_tiles_bcast<col> (%[[ACC:.*]], %[[A]]
// CHECK-NEXT: ttkernel.reconfig_data_format_srca(%[[K:.*]])
// CHECK-NEXT: ttkernel.init_bcast<mul, col> (%[[K]], %[[A]], %{{.*}})
// CHECK-NEXT: ttkernel.mul_tiles_bcast<col> (%[[K]], %[[A]]
!bf16 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
!bfp8 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!bf16, !bf16, !bf16, !bfp8]}} {
  func.func @same_tile_types() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %l = ttkernel.get_compile_time_arg_val(0)
    %a = ttkernel.get_compile_time_arg_val(1)
    %acc = ttkernel.get_compile_time_arg_val(2)
    %k = ttkernel.get_compile_time_arg_val(3)
    ttkernel.binary_op_init_common(%l, %a, %l)
    %c0 = arith.constant 0 : i32
    ttkernel.init_bcast<mul, col>(%l, %a, %l)
    ttkernel.mul_tiles_bcast<col>(%l, %a, %c0, %c0, %c0)
    ttkernel.init_bcast<mul, col>(%acc, %a, %l)
    ttkernel.mul_tiles_bcast<col>(%acc, %a, %c0, %c0, %c0)
    ttkernel.init_bcast<mul, col>(%k, %a, %l)
    ttkernel.mul_tiles_bcast<col>(%k, %a, %c0, %c0, %c0)
    func.return
  }
}

// -----

// Data-movement kernels are left alone.
// CHECK-LABEL: func.func @reader()
// CHECK-NEXT: ttkernel.get_compile_time_arg_val(0)
// CHECK-NEXT: func.return
!cb = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!cb, !cb, !cb]}} {
  func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
    %in = ttkernel.get_compile_time_arg_val(0)
    func.return
  }
}

// -----

// bfp8_b K (CB 1) between bf16 CBs: matmul reads K into srcA (in1), the copy and the
// add read bf16 CBs; each change of srcA's format gets a reconfiguration, and none is
// repeated while the format holds. The add reads K on both unpackers: both change.
// CHECK-LABEL: func.func @reconfig_unpackers()
// CHECK:      ttkernel.binary_op_init_common(%[[Q:.*]], %[[Q]], %[[O:.*]])
// CHECK-NEXT: arith.constant
// CHECK-NEXT: ttkernel.reconfig_data_format_srca(%[[K:.*]])
// CHECK-NEXT: ttkernel.mm_init(%[[Q]], %[[K]], %[[O]]
// CHECK-NEXT: ttkernel.matmul_tiles
// CHECK-NEXT: ttkernel.matmul_tiles
// CHECK-NEXT: ttkernel.reconfig_data_format_srca(%[[S:.*]])
// CHECK-NEXT: ttkernel.copy_tile_init(%[[S]])
// CHECK-NEXT: ttkernel.copy_tile
// CHECK-NEXT: ttkernel.reconfig_data_format(%[[K]], %[[K]])
// CHECK-NEXT: ttkernel.add_tiles_init(%[[K]], %[[K]])
!bf16 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
!bfp8 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!bf16, !bfp8, !bf16, !bf16]}} {
  func.func @reconfig_unpackers() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %q = ttkernel.get_compile_time_arg_val(0)
    %k = ttkernel.get_compile_time_arg_val(1)
    %s = ttkernel.get_compile_time_arg_val(2)
    %o = ttkernel.get_compile_time_arg_val(3)
    ttkernel.binary_op_init_common(%q, %q, %o)
    %c0 = arith.constant 0 : i32
    ttkernel.mm_init(%q, %k, %o, %c0)
    ttkernel.matmul_tiles(%q, %k, %c0, %c0, %c0, %c0)
    ttkernel.mm_init(%q, %k, %o, %c0)
    ttkernel.matmul_tiles(%q, %k, %c0, %c0, %c0, %c0)
    ttkernel.copy_tile_init(%s)
    ttkernel.copy_tile(%s, %c0, %c0)
    ttkernel.add_tiles_init(%k, %k)
    ttkernel.add_tiles(%k, %k, %c0, %c0, %c0)
    func.return
  }
}

// -----

// In a loop whose srcA alternates (matmul on bfp8_b K, copy of bf16 S) both
// reconfigurations stay in the body: srcA's format at the top of the body is bf16 from
// the startup and from the end of the previous iteration alike.
// CHECK-LABEL: func.func @reconfig_in_loop()
// CHECK:      scf.for
// CHECK-NEXT:   ttkernel.reconfig_data_format_srca(%[[K:.*]])
// CHECK-NEXT:   ttkernel.mm_init(%{{.*}}, %[[K]]
// CHECK-NEXT:   ttkernel.matmul_tiles
// CHECK-NEXT:   ttkernel.reconfig_data_format_srca(%[[S:.*]])
// CHECK-NEXT:   ttkernel.copy_tile_init(%[[S]])
// CHECK-NEXT:   ttkernel.copy_tile
// CHECK-NEXT: }
!bf16 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
!bfp8 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!bf16, !bfp8, !bf16, !bf16]}} {
  func.func @reconfig_in_loop() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %q = ttkernel.get_compile_time_arg_val(0)
    %k = ttkernel.get_compile_time_arg_val(1)
    %s = ttkernel.get_compile_time_arg_val(2)
    %o = ttkernel.get_compile_time_arg_val(3)
    ttkernel.binary_op_init_common(%q, %q, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.mm_init(%q, %k, %o, %c0)
      ttkernel.matmul_tiles(%q, %k, %i, %i, %c0, %c0)
      ttkernel.copy_tile_init(%s)
      ttkernel.copy_tile(%s, %i, %c1)
    }
    func.return
  }
}

// -----

// A loop whose every use of srcA (and of the packer) wants one format gets the
// reconfiguration before it, not on every iteration: the matmul's init is hoisted, and
// so is the reconfiguration for K; the packs into the f32 CB 2 reconfigure the packer
// once, before the loop.
// CHECK-LABEL: func.func @reconfig_before_loop()
// CHECK:      ttkernel.reconfig_data_format_srca(%[[K:.*]])
// CHECK-NEXT: ttkernel.mm_init(%{{.*}}, %[[K]]
// CHECK-NEXT: ttkernel.pack_reconfig_data_format(%[[F:.*]])
// CHECK-NEXT: scf.for
// CHECK-NEXT:   ttkernel.matmul_tiles
// CHECK-NEXT:   ttkernel.pack_tile(%{{.*}}, %[[F]]
// CHECK-NEXT: }
// CHECK-NOT:  reconfig
!bf16 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
!bfp8 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
!f32 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!bf16, !bfp8, !f32, !bf16]}} {
  func.func @reconfig_before_loop() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %q = ttkernel.get_compile_time_arg_val(0)
    %k = ttkernel.get_compile_time_arg_val(1)
    %f = ttkernel.get_compile_time_arg_val(2)
    %o = ttkernel.get_compile_time_arg_val(3)
    ttkernel.binary_op_init_common(%q, %q, %o)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.mm_init(%q, %k, %o, %c0)
      ttkernel.matmul_tiles(%q, %k, %i, %i, %c0, %c0)
      ttkernel.pack_tile(%c0, %f, %i)
    }
    func.return
  }
}

// -----

// tt-metal's row sum reads the scaler into srcA and the data into srcB (the other
// reductions the other way round): with bfp8_b data and a bf16 scaler, the startup's
// (data, scaler) order suits the row max, and the row sum needs both unpackers swapped.
// CHECK-LABEL: func.func @reconfig_row_reduce()
// CHECK:      ttkernel.binary_op_init_common(%[[A:.*]], %[[S:.*]], %[[O:.*]])
// CHECK-NEXT: arith.constant
// CHECK-NEXT: ttkernel.reduce_init<max, row> (%[[A]], %[[S]], %[[O]])
// CHECK-NEXT: ttkernel.reduce_tile<max, row>
// CHECK-NEXT: ttkernel.reconfig_data_format(%[[S]], %[[A]])
// CHECK-NEXT: ttkernel.reduce_init<sum, row> (%[[A]], %[[S]], %[[O]])
!bf16 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>
!bfp8 = !d2m.cb<memref<1x1x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>>
builtin.module attributes {ttlang.program = {cbs = [!bfp8, !bf16, !bf16]}} {
  func.func @reconfig_row_reduce() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %a = ttkernel.get_compile_time_arg_val(0)
    %s = ttkernel.get_compile_time_arg_val(1)
    %o = ttkernel.get_compile_time_arg_val(2)
    ttkernel.binary_op_init_common(%a, %s, %o)
    %c0 = arith.constant 0 : i32
    ttkernel.reduce_init<max, row>(%a, %s, %o)
    ttkernel.reduce_tile<max, row>(%a, %s, %c0, %c0, %c0)
    ttkernel.reduce_init<sum, row>(%a, %s, %o)
    ttkernel.reduce_tile<sum, row>(%a, %s, %c0, %c0, %c0)
    func.return
  }
}
