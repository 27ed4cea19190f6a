// Every ttkernel verifier and parser error.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics

func.func @compute_op_in_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  // expected-error @+1 {{'ttkernel.tile_regs_acquire' op a compute op cannot run in a reader kernel}}
  ttkernel.tile_regs_acquire()
  func.return
}

// -----

func.func @dataflow_op_in_compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  // expected-error @+1 {{'ttkernel.noc_async_read_barrier' op a data-movement op cannot run in a compute kernel}}
  ttkernel.noc_async_read_barrier()
  func.return
}

// -----

func.func @cb_id_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = arith.constant 32 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{CB id 32 of 'cb' is out of range [0, 32)}}
  ttkernel.cb_wait_front(%cb, %c1)
  func.return
}

// -----

func.func @negative_cb_id() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = arith.constant -1 : i32
  %out = arith.constant 16 : i32
  // expected-error @+1 {{CB id -1 of 'in0_cb' is out of range [0, 32)}}
  ttkernel.binary_op_init_common(%cb, %out, %out)
  func.return
}

// -----

func.func @zero_tiles() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  %cb = arith.constant 16 : i32
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{num_tiles must be positive, got 0}}
  ttkernel.cb_reserve_back(%cb, %c0)
  func.return
}

// -----

func.func @dst_index_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = arith.constant 0 : i32
  %c0 = arith.constant 0 : i32
  %dst = arith.constant 16 : i32
  // expected-error @+1 {{DST index 16 of 'dst' is out of range [0, 16)}}
  ttkernel.copy_tile(%cb, %c0, %dst)
  func.return
}

// -----

func.func @sfpu_output_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %odst = arith.constant 20 : i32
  // expected-error @+1 {{DST index 20 of 'odst' is out of range [0, 16)}}
  ttkernel.binary_max_tile(%c0, %c0, %odst)
  func.return
}

// -----

func.func @copy_dest_destination_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %to = arith.constant 16 : i32
  // expected-error @+1 {{DST index 16 of 'dst_out' is out of range [0, 16)}}
  ttkernel.copy_dest_values <bf16>(%c0, %to)
  func.return
}

// -----

func.func @copy_dest_source_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %from = arith.constant -1 : i32
  // expected-error @+1 {{DST index -1 of 'dst_in' is out of range [0, 16)}}
  ttkernel.copy_dest_values <bf16>(%from, %c0)
  func.return
}

// -----

func.func @copy_dest_in_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'ttkernel.copy_dest_values' op a compute op cannot run in a reader kernel}}
  ttkernel.copy_dest_values <bf16>(%c0, %c1)
  func.return
}

// -----

func.func @copy_dest_format() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{copy_dest_values reads DST as bf16 or f32, not bfp8_b}}
  ttkernel.copy_dest_values <bfp8_b>(%c0, %c1)
  func.return
}

// -----

func.func @where_false_value_out_of_range() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  %dst2 = arith.constant 16 : i32
  // expected-error @+1 {{DST index 16 of 'dst2' is out of range [0, 16)}}
  ttkernel.where_tile <bf16>(%c0, %c0, %dst2, %c0)
  func.return
}

// -----

func.func @where_block_float_format() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{where_tile reads DST as bf16 or f32, not bfp8_b}}
  ttkernel.where_tile <bfp8_b>(%c0, %c0, %c0, %c0)
  func.return
}

// -----

func.func @where_in_writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'ttkernel.where_tile' op a compute op cannot run in a writer kernel}}
  ttkernel.where_tile <f32>(%c0, %c0, %c0, %c0)
  func.return
}

// -----

func.func @multicast_to_nobody() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  %addr = arith.constant 4096 : i32
  %mcast = arith.constant 0 : i64
  %size = arith.constant 2048 : i32
  %none = arith.constant 0 : i32
  // expected-error @+1 {{num_dests must be positive, got 0}}
  ttkernel.noc_async_write_multicast(%addr, %mcast, %size, %none)
  func.return
}

// -----

func.func @negative_arg_index() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  // expected-error @+1 {{argument index must be non-negative, got -1}}
  %arg = ttkernel.get_arg_val(-1)
  func.return
}

// -----

func.func @addr_gen_in_dst() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %addr = arith.constant 0 : i32
  %size = arith.constant 2048 : i32
  // expected-error @+1 {{an interleaved buffer lives in dram or l1, not 'dst'}}
  %gen = ttkernel.get_interleaved_addr_gen_fast(%addr, %size) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dst>
  func.return
}

// -----

// expected-error @+1 {{Expected `compute`, `reader`, or `writer`}}
func.func @unknown_thread() attributes {ttkernel.thread = #ttkernel.thread<math>} {
  func.return
}

// -----

func.func @cb_id_of_wrong_type() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %cb = arith.constant 0 : i64
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{operand 'cb' at position 0 does not verify: Expected attribute i32 but got i64}}
  "ttkernel.cb_wait_front"(%cb, %c1) : (i64, i32) -> ()
  func.return
}

// -----

func.func @tile_block_check_of_the_wrong_rank() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{1 indices for a block of rank 2 in a tensor of rank 2}}
  ttkernel.check_tile_block(%c0) tensor "x" block [1, 2] of [2, 3] at "k.py:7"
  func.return
}
