// Round trip of the emitc ops ttlang adds to xDSL's, beside xDSL's call_opaque, in
// custom and generic form.
// RUN: %ttlang-opt %s | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | %ttlang-opt | FileCheck %s
// RUN: %ttlang-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK: emitc.include <"cstdint">
// CHECK-NEXT: emitc.include "api/dataflow/dataflow_api.h"
// GENERIC: "emitc.include"() <{include = "cstdint", is_standard_include}> : () -> ()
// GENERIC-NEXT: "emitc.include"() <{include = "api/dataflow/dataflow_api.h"}> : () -> ()
emitc.include <"cstdint">
emitc.include "api/dataflow/dataflow_api.h"

// CHECK-LABEL: func.func @kernel
func.func @kernel() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  // CHECK-NEXT: emitc.verbatim "// read one tile"
  // CHECK-NEXT: %[[GEN:.*]] = emitc.variable #emitc.opaque<""> : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">>
  // CHECK-NEXT: %[[COUNT:.*]] = emitc.variable 0 : i32 : !emitc.lvalue<i32>
  // CHECK-NEXT: %[[FIELD:.*]] = emitc.member %[[GEN]], "page_size" : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">> -> !emitc.lvalue<i32>
  // CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
  // CHECK-NEXT: %[[SIZE:.*]] = emitc.call_opaque "get_tile_size"(%{{.*}}) : (i32) -> i32
  // CHECK-NEXT: emitc.assign %[[SIZE]] : i32 to %[[FIELD]] : !emitc.lvalue<i32>
  // CHECK-NEXT: %{{.*}} = emitc.literal "DataFormat::Float16_b" : !emitc.opaque<"DataFormat">
  // GENERIC: "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">>
  // GENERIC: "emitc.member"(%{{.*}}) <{member = "page_size"}>
  // GENERIC: "emitc.assign"(%{{.*}}, %{{.*}}) : (!emitc.lvalue<i32>, i32) -> ()
  // GENERIC: "emitc.literal"() <{value = "DataFormat::Float16_b"}> : () -> !emitc.opaque<"DataFormat">
  emitc.verbatim "// read one tile"
  %gen = emitc.variable #emitc.opaque<""> : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">>
  %count = emitc.variable 0 : i32 : !emitc.lvalue<i32>
  %page_size = emitc.member %gen, "page_size" : !emitc.lvalue<!emitc.opaque<"InterleavedAddrGenFast<true>">> -> !emitc.lvalue<i32>
  %c0 = arith.constant 0 : i32
  %size = emitc.call_opaque "get_tile_size"(%c0) : (i32) -> i32
  emitc.assign %size : i32 to %page_size : !emitc.lvalue<i32>
  %format = emitc.literal "DataFormat::Float16_b" : !emitc.opaque<"DataFormat">
  func.return
}
