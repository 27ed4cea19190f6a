// RUN: %ttlang-opt %s --split-input-file -p ttkernel-share-cb-l1 | FileCheck %s

// Every CB holds two blocks of bf16 tiles (2 KiB each): an 8-tile block's CB takes
// 32 KiB, a 2-tile block's 8 KiB.
!blk8 = memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
!blk2 = memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>

// A full block %s and a diagonal block %sd in sibling loops of one body, and %t in a
// branch of an scf.if after them: none of their spans overlap, so %sd and %t take %s's L1
// (the largest, and the first listed of equal sizes).
// CHECK-LABEL: builtin.module
// CHECK-SAME:  cb_shares_l1_with = [-1 : i64, 0 : i64, 0 : i64]
builtin.module attributes {ttcore.device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 24576, max_cbs = 32, dst_tiles = 16x8>,
                           ttlang.program = {cbs = [!d2m.cb<!blk8>, !d2m.cb<!blk8>, !d2m.cb<!blk2>]}} {
  func.func @siblings(%n: i32, %go: i1) attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %s = ttkernel.get_compile_time_arg_val(0)
    %sd = ttkernel.get_compile_time_arg_val(1)
    %t = ttkernel.get_compile_time_arg_val(2)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c8 = arith.constant 8 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        ttkernel.cb_reserve_back(%s, %c8)
        ttkernel.pack_tile(%c0, %s, %c0)
        ttkernel.cb_push_back(%s, %c8)
        ttkernel.cb_wait_front(%s, %c8)
        ttkernel.copy_tile(%s, %c0, %c0)
        ttkernel.cb_pop_front(%s, %c8)
      }
      scf.for %j = %c0 to %n step %c1 : i32 {
        ttkernel.cb_reserve_back(%sd, %c8)
        ttkernel.pack_tile(%c0, %sd, %c0)
        ttkernel.cb_push_back(%sd, %c8)
        ttkernel.cb_wait_front(%sd, %c8)
        ttkernel.copy_tile(%sd, %c0, %c0)
        ttkernel.cb_pop_front(%sd, %c8)
      }
      scf.if %go {
        ttkernel.cb_reserve_back(%t, %c2)
        ttkernel.pack_tile(%c0, %t, %c0)
        ttkernel.cb_push_back(%t, %c2)
        ttkernel.cb_wait_front(%t, %c2)
        ttkernel.copy_tile(%t, %c0, %c0)
        ttkernel.cb_pop_front(%t, %c2)
      }
    }
    func.return
  }
}

// -----

// %t's group sits inside %s's span (between its push and its pop): they overlap, and
// nothing fits into another's L1; the two branches of one scf.if never overlap, so %u
// (then) shares %t's (else) L1. The init naming %s after its pop touches no page.
// CHECK-LABEL: builtin.module
// CHECK-SAME:  cb_shares_l1_with = [-1 : i64, -1 : i64, 1 : i64]
!blk8 = memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
!blk2 = memref<1x2x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttcore.device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 16384, max_cbs = 32, dst_tiles = 16x8>,
                           ttlang.program = {cbs = [!d2m.cb<!blk8>, !d2m.cb<!blk2>, !d2m.cb<!blk2>]}} {
  func.func @nested(%go: i1) attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %s = ttkernel.get_compile_time_arg_val(0)
    %t = ttkernel.get_compile_time_arg_val(1)
    %u = ttkernel.get_compile_time_arg_val(2)
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%s, %c8)
    ttkernel.pack_tile(%c0, %s, %c0)
    ttkernel.cb_push_back(%s, %c8)
    scf.if %go {
      ttkernel.cb_reserve_back(%u, %c2)
      ttkernel.cb_push_back(%u, %c2)
      ttkernel.cb_wait_front(%u, %c2)
      ttkernel.cb_pop_front(%u, %c2)
    } else {
      ttkernel.cb_reserve_back(%t, %c2)
      ttkernel.cb_push_back(%t, %c2)
      ttkernel.cb_wait_front(%t, %c2)
      ttkernel.cb_pop_front(%t, %c2)
    }
    ttkernel.cb_wait_front(%s, %c8)
    ttkernel.cb_pop_front(%s, %c8)
    ttkernel.copy_tile_init(%s)
    func.return
  }
}

// -----

// Not shareable: %acc is carried from one iteration to the next (the body waits for
// pages it did not push), %in is named by the reader, %rest leaves pages behind, %far
// is packed into outside any group of its counts. Nothing is recorded.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   cb_shares_l1_with
!blk8 = memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttcore.device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 16384, max_cbs = 32, dst_tiles = 16x8>,
                           ttlang.program = {cbs = [!d2m.cb<!blk8>, !d2m.cb<!blk8>, !d2m.cb<!blk8>, !d2m.cb<!blk8>]}} {
  func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
    %in = ttkernel.get_compile_time_arg_val(1)
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%in, %c8)
    ttkernel.cb_push_back(%in, %c8)
    func.return
  }
  func.func @unshareable(%n: i32) attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %acc = ttkernel.get_compile_time_arg_val(0)
    %in = ttkernel.get_compile_time_arg_val(1)
    %rest = ttkernel.get_compile_time_arg_val(2)
    %far = ttkernel.get_compile_time_arg_val(3)
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%acc, %c8)
    ttkernel.cb_push_back(%acc, %c8)
    scf.for %i = %c0 to %n step %c1 : i32 {
      ttkernel.cb_wait_front(%acc, %c8)
      ttkernel.cb_reserve_back(%acc, %c8)
      ttkernel.cb_pop_front(%acc, %c8)
      ttkernel.cb_push_back(%acc, %c8)
      ttkernel.cb_wait_front(%in, %c8)
      ttkernel.cb_pop_front(%in, %c8)
      ttkernel.cb_reserve_back(%rest, %c8)
      ttkernel.cb_push_back(%rest, %c8)
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      ttkernel.pack_tile(%c0, %far, %c0)
    }
    ttkernel.cb_reserve_back(%far, %c8)
    ttkernel.cb_push_back(%far, %c8)
    ttkernel.cb_wait_front(%far, %c8)
    ttkernel.cb_pop_front(%far, %c8)
    func.return
  }
}

// -----

// CBs that fit the device as they are (64 KiB): nothing is recorded.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   cb_shares_l1_with
!blk8 = memref<2x4x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>
builtin.module attributes {ttcore.device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 65536, max_cbs = 32, dst_tiles = 16x8>,
                           ttlang.program = {cbs = [!d2m.cb<!blk8>, !d2m.cb<!blk8>]}} {
  func.func @fits() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
    %s = ttkernel.get_compile_time_arg_val(0)
    %t = ttkernel.get_compile_time_arg_val(1)
    %c8 = arith.constant 8 : i32
    ttkernel.cb_reserve_back(%s, %c8)
    ttkernel.cb_push_back(%s, %c8)
    ttkernel.cb_wait_front(%s, %c8)
    ttkernel.cb_pop_front(%s, %c8)
    ttkernel.cb_reserve_back(%t, %c8)
    ttkernel.cb_push_back(%t, %c8)
    ttkernel.cb_wait_front(%t, %c8)
    ttkernel.cb_pop_front(%t, %c8)
    func.return
  }
}
