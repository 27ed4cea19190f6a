// convert-ttkernel-to-emitc: calls with template and literal arguments, the address
// generator struct, semaphore pointers, and one module of includes per kernel.
// RUN: %ttlang-opt %s -p convert-ttkernel-to-emitc | FileCheck %s
// Running it twice changes nothing (ttlang-translate runs it on any input).
// RUN: %ttlang-opt %s -p convert-ttkernel-to-emitc,convert-ttkernel-to-emitc | FileCheck %s

// CHECK-LABEL: builtin.module @compute {
// CHECK-NEXT: emitc.include <"cstdint">
// CHECK-NEXT: emitc.include "api/compute/bcast.h"
// CHECK-NEXT: emitc.include "api/compute/cb_api.h"
// CHECK-NEXT: emitc.include "api/compute/common.h"
// CHECK-NEXT: emitc.include "api/compute/eltwise_unary/exp.h"
// CHECK-NEXT: emitc.include "api/compute/pack.h"
// CHECK-NEXT: emitc.include "api/compute/reduce.h"
// CHECK-NEXT: emitc.include "api/compute/reg_api.h"
// CHECK-NEXT: func.func @compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
func.func @compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  // CHECK-NEXT: %[[IN:.*]] = emitc.call_opaque "get_compile_time_arg_val"() {args = [0 : i32]} : () -> i32
  // CHECK-NEXT: %[[OUT:.*]] = emitc.call_opaque "get_compile_time_arg_val"() {args = [1 : i32]} : () -> i32
  %in = ttkernel.get_compile_time_arg_val(0)
  %out = ttkernel.get_compile_time_arg_val(1)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: emitc.call_opaque "cb_wait_front"(%[[IN]], %[[C1:.*]]) : (i32, i32) -> ()
  // CHECK-NEXT: emitc.call_opaque "tile_regs_acquire"() : () -> ()
  // CHECK-NEXT: emitc.call_opaque "reduce_init"(%[[IN]], %[[IN]], %[[OUT]]) {template_args = [#emitc.opaque<"PoolType::MAX">, #emitc.opaque<"ReduceDim::REDUCE_ROW">]} : (i32, i32, i32) -> ()
  // CHECK-NEXT: emitc.call_opaque "reduce_tile"(%[[IN]], %[[IN]], %[[C0:.*]], %[[C0]], %[[C0]]) {template_args = [#emitc.opaque<"PoolType::MAX">, #emitc.opaque<"ReduceDim::REDUCE_ROW">]}
  // CHECK-NEXT: emitc.call_opaque "sub_tiles_bcast"(%[[IN]], %[[IN]], %[[C0]], %[[C0]], %[[C0]]) {template_args = [#emitc.opaque<"BroadcastType::COL">]}
  // CHECK-NEXT: emitc.call_opaque "exp_tile"(%[[C0]]) {template_args = [#emitc.opaque<"APPROX">]} : (i32) -> ()
  // CHECK-NEXT: emitc.call_opaque "pack_tile"(%[[C0]], %[[OUT]], %[[C0]]) {template_args = [#emitc.opaque<"true">]} : (i32, i32, i32) -> ()
  // CHECK-NEXT: func.return
  ttkernel.cb_wait_front(%in, %c1)
  ttkernel.tile_regs_acquire()
  ttkernel.reduce_init<max, row>(%in, %in, %out)
  ttkernel.reduce_tile<max, row>(%in, %in, %c0, %c0, %c0)
  ttkernel.sub_tiles_bcast<col>(%in, %in, %c0, %c0, %c0)
  ttkernel.exp_tile(%c0)
  ttkernel.pack_tile(%c0, %out, %c0)
  func.return
}

// CHECK-LABEL: builtin.module @writer {
// CHECK-NEXT: emitc.include <"cstdint">
// CHECK-NEXT: emitc.include "api/dataflow/dataflow_api.h"
// CHECK-NEXT: func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
func.func @writer() attributes {ttkernel.thread = #ttkernel.thread<writer>} {
  // CHECK-NEXT: %[[ADDR:.*]] = emitc.call_opaque "get_arg_val"() {args = [0 : i32], template_args = [#emitc.opaque<"uint32_t">]} : () -> i32
  %addr = ttkernel.get_arg_val(0)
  %size = arith.constant 2048 : i32
  %c0 = arith.constant 0 : i32
  // The address generator is a struct variable with its members assigned.
  // CHECK: %[[GEN:.*]] = emitc.variable #emitc.opaque<""> : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">>
  // CHECK-NEXT: %[[FORMAT:.*]] = emitc.literal "DataFormat::Float32" : !emitc.opaque<"DataFormat">
  // CHECK-NEXT: %[[BASE:.*]] = emitc.member %[[GEN]], "bank_base_address"
  // CHECK-NEXT: emitc.assign %[[ADDR]] : i32 to %[[BASE]] : !emitc.lvalue<i32>
  // CHECK-NEXT: %[[PAGE:.*]] = emitc.member %[[GEN]], "page_size"
  // CHECK-NEXT: emitc.assign %[[SIZE:.*]] : i32 to %[[PAGE]] : !emitc.lvalue<i32>
  // CHECK-NEXT: %[[FIELD:.*]] = emitc.member %[[GEN]], "data_format"
  // CHECK-NEXT: emitc.assign %[[FORMAT]] : !emitc.opaque<"DataFormat"> to %[[FIELD]]
  %gen = ttkernel.get_interleaved_addr_gen_fast(%addr, %size) format <f32> : !ttkernel.interleaved_addr_gen_fast<dram>
  // CHECK-NEXT: emitc.call_opaque "noc_async_write_tile"(%[[C0:.*]], %[[GEN]], %[[ADDR]]) : (i32, !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">>, i32) -> ()
  ttkernel.noc_async_write_tile(%c0, %gen, %addr) : !ttkernel.interleaved_addr_gen_fast<dram>
  // Local semaphores are reached through a pointer.
  // CHECK-NEXT: %[[SEM:.*]] = emitc.call_opaque "get_semaphore"(%[[C0]]) : (i32) -> i32
  // CHECK-NEXT: %[[PTR:.*]] = emitc.call_opaque "reinterpret_cast"(%[[SEM]]) {template_args = [#emitc.opaque<"volatile tt_l1_ptr uint32_t*">]} : (i32) -> !emitc.ptr<!emitc.opaque<"volatile tt_l1_ptr uint32_t">>
  // CHECK-NEXT: emitc.call_opaque "noc_semaphore_wait"(%[[PTR]], %[[C0]])
  %sem = ttkernel.get_semaphore(%c0)
  ttkernel.noc_semaphore_wait(%sem, %c0)
  // A linked multicast passes `linked = true` after its operands; an unlinked one the
  // four operands alone.
  // CHECK: %[[MC:.*]] = emitc.call_opaque "get_noc_multicast_addr"
  // CHECK-NEXT: emitc.call_opaque "noc_async_write_multicast"(%[[ADDR]], %[[MC]], %[[SIZE]], %[[DESTS:.*]]) {args = [0 : index, 1 : index, 2 : index, 3 : index, #emitc.opaque<"true">]} : (i32, i64, i32, i32) -> ()
  // CHECK-NEXT: emitc.call_opaque "noc_async_write_multicast"(%[[ADDR]], %[[MC]], %[[SIZE]], %[[DESTS]]) : (i32, i64, i32, i32) -> ()
  %dests = arith.constant 3 : i32
  %mc = ttkernel.get_noc_multicast_addr(%c0, %c0, %c0, %c0, %addr)
  ttkernel.noc_async_write_multicast(%addr, %mc, %size, %dests) linked
  ttkernel.noc_async_write_multicast(%addr, %mc, %size, %dests)
  // An address generator without a name is called addr_gen.
  // CHECK-NEXT: %addr_gen = emitc.variable #emitc.opaque<""> : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<false>">>
  %0 = ttkernel.get_interleaved_addr_gen_fast(%addr, %size) format <bf16> : !ttkernel.interleaved_addr_gen_fast<l1>
  func.return
}

// Functions without a thread are not kernels and stay where they are.
// CHECK-LABEL: func.func private @helper()
func.func private @helper()
