// Round trip of every data-movement ttkernel op (and the CB and argument ops both
// thread kinds share), in custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>}
// GENERIC-LABEL: "func.func"() <{sym_name = "reader"
func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  // CHECK-NEXT: %[[ADDR:.*]] = ttkernel.get_arg_val(0)
  // CHECK-NEXT: %[[CB:.*]] = ttkernel.get_compile_time_arg_val(0)
  %addr = ttkernel.get_arg_val(0)
  %cb = ttkernel.get_compile_time_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: ttkernel.cb_reserve_back(%[[CB]], %[[C1:.*]])
  // CHECK-NEXT: %[[WRITE:.*]] = ttkernel.get_write_ptr(%[[CB]])
  // CHECK-NEXT: %[[READ:.*]] = ttkernel.get_read_ptr(%[[CB]])
  // CHECK-NEXT: %[[SIZE:.*]] = ttkernel.get_tile_size(%[[CB]])
  // GENERIC: "ttkernel.get_write_ptr"(%{{.*}}) : (i32) -> i32
  ttkernel.cb_reserve_back(%cb, %c1)
  %write = ttkernel.get_write_ptr(%cb)
  %read = ttkernel.get_read_ptr(%cb)
  %size = ttkernel.get_tile_size(%cb)
  // CHECK-NEXT: %[[GEN:.*]] = ttkernel.get_interleaved_addr_gen_fast(%[[ADDR]], %[[SIZE]]) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
  // CHECK-NEXT: %{{.*}} = ttkernel.get_interleaved_addr_gen_fast(%[[ADDR]], %[[SIZE]]) format <f32> : !ttkernel.interleaved_addr_gen_fast<l1>
  // GENERIC: "ttkernel.get_interleaved_addr_gen_fast"(%{{.*}}, %{{.*}}) <{data_format = #ttcore.data_format<bf16>}> : (i32, i32) -> !ttkernel.interleaved_addr_gen_fast<dram>
  %gen = ttkernel.get_interleaved_addr_gen_fast(%addr, %size) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
  %l1_gen = ttkernel.get_interleaved_addr_gen_fast(%addr, %size) format <f32> : !ttkernel.interleaved_addr_gen_fast<l1>
  // CHECK-NEXT: ttkernel.noc_async_read_tile(%[[C0:.*]], %[[GEN]], %[[WRITE]]) : !ttkernel.interleaved_addr_gen_fast<dram>
  // CHECK-NEXT: ttkernel.noc_async_write_tile(%[[C0]], %[[GEN]], %[[READ]]) : !ttkernel.interleaved_addr_gen_fast<dram>
  ttkernel.noc_async_read_tile(%c0, %gen, %write) : !ttkernel.interleaved_addr_gen_fast<dram>
  ttkernel.noc_async_write_tile(%c0, %gen, %read) : !ttkernel.interleaved_addr_gen_fast<dram>
  // CHECK-NEXT: ttkernel.check_tile_block(%[[C0]], %[[C1]]) tensor "x" block [1 : i64, 2 : i64] of [2 : i64, 3 : i64] at "k.py:7"
  // GENERIC: "ttkernel.check_tile_block"(%{{.*}}, %{{.*}}) <{tensor = "x", block = [1 : i64, 2 : i64], shape = [2 : i64, 3 : i64], source = "k.py:7"}> : (i32, i32) -> ()
  ttkernel.check_tile_block(%c0, %c1) tensor "x" block [1, 2] of [2, 3] at "k.py:7"
  // CHECK-NEXT: %[[NOC:.*]] = ttkernel.get_noc_addr(%[[C1]], %[[C0]], %[[READ]])
  // CHECK-NEXT: ttkernel.noc_async_read_set_trid(%[[C1]])
  // CHECK-NEXT: ttkernel.noc_async_read(%[[NOC]], %[[WRITE]], %[[SIZE]])
  // CHECK-NEXT: ttkernel.noc_async_write(%[[READ]], %[[NOC]], %[[SIZE]])
  // CHECK-NEXT: ttkernel.noc_async_read_barrier_with_trid(%[[C1]])
  // CHECK-NEXT: ttkernel.noc_async_read_barrier()
  // CHECK-NEXT: ttkernel.noc_async_write_barrier()
  // GENERIC: "ttkernel.get_noc_addr"(%{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32) -> i64
  // GENERIC: "ttkernel.noc_async_read_set_trid"(%{{.*}}) : (i32) -> ()
  // GENERIC: "ttkernel.noc_async_read_barrier_with_trid"(%{{.*}}) : (i32) -> ()
  %noc = ttkernel.get_noc_addr(%c1, %c0, %read)
  ttkernel.noc_async_read_set_trid(%c1)
  ttkernel.noc_async_read(%noc, %write, %size)
  ttkernel.noc_async_write(%read, %noc, %size)
  ttkernel.noc_async_read_barrier_with_trid(%c1)
  ttkernel.noc_async_read_barrier()
  ttkernel.noc_async_write_barrier()
  // CHECK-NEXT: %[[SEM:.*]] = ttkernel.get_semaphore(%[[C0]])
  // CHECK-NEXT: ttkernel.noc_semaphore_set(%[[SEM]], %[[C1]])
  // CHECK-NEXT: ttkernel.noc_semaphore_wait(%[[SEM]], %[[C1]])
  // CHECK-NEXT: ttkernel.noc_semaphore_inc(%[[NOC]], %[[C1]])
  %sem = ttkernel.get_semaphore(%c0)
  ttkernel.noc_semaphore_set(%sem, %c1)
  ttkernel.noc_semaphore_wait(%sem, %c1)
  ttkernel.noc_semaphore_inc(%noc, %c1)
  // CHECK-NEXT: %[[MCAST:.*]] = ttkernel.get_noc_multicast_addr(%[[C0]], %[[C0]], %[[C1]], %[[C1]], %[[SEM]])
  // CHECK-NEXT: ttkernel.noc_async_write_multicast(%[[READ]], %[[MCAST]], %[[SIZE]], %[[C1]]){{$}}
  // CHECK-NEXT: ttkernel.noc_async_write_multicast(%[[READ]], %[[MCAST]], %[[SIZE]], %[[C1]]) linked
  // CHECK-NEXT: ttkernel.noc_semaphore_set_multicast(%[[SEM]], %[[MCAST]], %[[C1]])
  // CHECK-NEXT: ttkernel.cb_push_back(%[[CB]], %[[C1]])
  // CHECK-NEXT: ttkernel.cb_wait_front(%[[CB]], %[[C1]])
  // CHECK-NEXT: ttkernel.cb_pop_front(%[[CB]], %[[C1]])
  // CHECK-NEXT: func.return
  %mcast = ttkernel.get_noc_multicast_addr(%c0, %c0, %c1, %c1, %sem)
  ttkernel.noc_async_write_multicast(%read, %mcast, %size, %c1)
  ttkernel.noc_async_write_multicast(%read, %mcast, %size, %c1) linked
  ttkernel.noc_semaphore_set_multicast(%sem, %mcast, %c1)
  ttkernel.cb_push_back(%cb, %c1)
  ttkernel.cb_wait_front(%cb, %c1)
  ttkernel.cb_pop_front(%cb, %c1)
  func.return
}

// CHECK-LABEL: func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>}
func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  func.return
}
