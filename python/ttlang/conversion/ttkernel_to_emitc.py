"""convert-ttkernel-to-emitc: kernel-API ops become C++ calls; each kernel becomes a
translation unit with the includes it needs.

Every ttkernel op becomes `emitc.call_opaque` of the function it names in tt-metal
0.81.1's kernel API (`TTKernelOp.callee`; the release renamed some), with the operands
that call takes (`cpp_operands`), its template arguments (`reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>`,
`get_arg_val<uint32_t>`) and literal arguments (`get_compile_time_arg_val(0)`). Two
ops are not plain calls: an address generator is a struct variable whose members are
assigned, and the local semaphore ops take a `volatile uint32_t*`, reached with a
`reinterpret_cast`. Each kernel function (`ttkernel.thread`) at the top of the module
moves into a nested module named after it, holding the `emitc.include`s its ops need
(and, as `emitc.verbatim`, the definitions of calls tt-metal lacks, `CPP_DEFINITION`):
`api/dataflow/dataflow_api.h` for data-movement kernels, the compute API headers
(`api/compute/...`) its ops name for compute kernels. `arith` and `scf` ops stay; the C++ emitter prints them.

Before:

    func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
      %src_addr = ttkernel.get_arg_val(0)
      %cb = ttkernel.get_compile_time_arg_val(0)
      %c1 = arith.constant 1 : i32
      ttkernel.cb_reserve_back(%cb, %c1)
      func.return
    }

After:

    builtin.module @reader {
      emitc.include <"cstdint">
      emitc.include "api/dataflow/dataflow_api.h"
      func.func @reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
        %src_addr = emitc.call_opaque "get_arg_val"() {args = [0 : i32],
            template_args = [#emitc.opaque<"uint32_t">]} : () -> i32
        %cb = emitc.call_opaque "get_compile_time_arg_val"() {args = [0 : i32]} : () -> i32
        %c1 = arith.constant 1 : i32
        emitc.call_opaque "cb_reserve_back"(%cb, %c1) : (i32, i32) -> ()
        func.return
      }
    }

Fails (with the function's name) on a kernel function that takes arguments or
returns values: kernels get everything through kernel arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.dialects.emitc import (
    EmitC_CallOpaqueOp,
    EmitC_OpaqueAttr,
    EmitC_OpaqueType,
    EmitC_PointerType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ttlang.dialects import emitc_ext, ttkernel
from ttlang.transforms.diagnostics import PassError

TT_METAL_RELEASE = "0.81.1"
"""The tt-metal release (as its ttnn wheel on PyPI is versioned) whose kernel API the
emitted calls, headers and entry points follow; docs/hardware.md says how to move on."""
COMPUTE_BASE_HEADER = "api/compute/common.h"
DATAFLOW_HEADER = "api/dataflow/dataflow_api.h"
_L1_WORD_POINTER = "volatile tt_l1_ptr uint32_t"


def _opaque(text: str) -> EmitC_OpaqueAttr:
    return EmitC_OpaqueAttr(StringAttr(text))


def _call(
    callee: str,
    operands: list[SSAValue],
    result_types: list[Attribute],
    template_args: tuple[str, ...] = (),
    literal_args: tuple[Attribute, ...] = (),
    trailing_args: tuple[Attribute, ...] = (),
) -> EmitC_CallOpaqueOp:
    """`callee<template_args>(literal_args..., operands..., trailing_args...)`."""
    args = None
    if literal_args or trailing_args:
        operand_refs = [IntegerAttr(i, IndexType()) for i in range(len(operands))]
        args = ArrayAttr([*literal_args, *operand_refs, *trailing_args])
    return EmitC_CallOpaqueOp(
        callee,
        operands,
        result_types,
        args=args,
        template_args=ArrayAttr([_opaque(t) for t in template_args]) if template_args else None,
    )


class LowerAddrGen(RewritePattern):
    """An address generator -> a struct variable with its three members assigned."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ttkernel.GetInterleavedAddrGenFastOp, rewriter: PatternRewriter
    ) -> None:
        is_dram = "true" if op.result.type.is_dram else "false"
        struct_type = EmitC_OpaqueType(StringAttr(f"InterleavedAddrGenFast<{is_dram}>"))
        data_format_type = EmitC_OpaqueType(StringAttr("DataFormat"))
        variable = emitc_ext.VariableOp(_opaque(""), struct_type)
        variable.result.name_hint = op.result.name_hint or "addr_gen"
        data_format = emitc_ext.LiteralOp(
            ttkernel.CPP_DATA_FORMAT[op.data_format.data], data_format_type
        )
        new_ops: list[Operation] = [variable, data_format]
        for member, value, member_type in (
            ("bank_base_address", op.bank_base_address, i32),
            ("page_size", op.page_size, i32),
            ("data_format", data_format.result, data_format_type),
        ):
            field = emitc_ext.MemberOp(variable.result, member, member_type)
            new_ops += [field, emitc_ext.AssignOp(field.result, value)]
        rewriter.replace(op, new_ops, [variable.result])


class LowerLocalSemaphoreOp(RewritePattern):
    """noc_semaphore_set/wait: the L1 address becomes the pointer the C++ call takes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ttkernel.NocSemaphoreSetOp | ttkernel.NocSemaphoreWaitOp):
            return
        pointer_type = EmitC_PointerType(EmitC_OpaqueType(StringAttr(_L1_WORD_POINTER)))
        cast = _call("reinterpret_cast", [op.sem_addr], [pointer_type], (f"{_L1_WORD_POINTER}*",))
        cast.res[0].name_hint = f"{op.sem_addr.name_hint or 'sem'}_ptr"
        rewriter.replace(op, [cast, _call(op.callee, [cast.res[0], op.value], [])])


class LowerKernelCall(RewritePattern):
    """Any other ttkernel op -> `emitc.call_opaque` of the kernel-API function it names."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ttkernel.TTKernelOp):
            return
        rewriter.replace(
            op,
            _call(
                op.callee,
                list(op.cpp_operands()),
                [r.type for r in op.results],
                op.cpp_template_args(),
                op.cpp_literal_args(),
                op.cpp_trailing_literal_args(),
            )
        )


def kernel_headers(kernel: func.FuncOp, thread: ttkernel.Thread) -> list[str]:
    """The kernel-API headers `kernel`'s ttkernel ops need, sorted."""
    if not thread.is_compute:
        return [DATAFLOW_HEADER]
    headers = {COMPUTE_BASE_HEADER}
    for op in kernel.walk():
        if isinstance(op, ttkernel.TTKernelOp) and op.COMPUTE_HEADER is not None:
            headers.add(op.COMPUTE_HEADER)
    return sorted(headers)


def kernel_helper_definitions(kernel: func.FuncOp) -> list[emitc_ext.VerbatimOp]:
    """The C++ functions `kernel`'s ttkernel ops call that tt-metal does not declare
    (`CPP_DEFINITION`), once each, to define in its source before kernel_main."""
    definitions: dict[str, None] = {}
    for op in kernel.walk():
        if isinstance(op, ttkernel.TTKernelOp) and op.CPP_DEFINITION is not None:
            definitions[op.CPP_DEFINITION] = None
    return [emitc_ext.VerbatimOp(definition) for definition in definitions]


def check_kernel_signature(kernel: func.FuncOp) -> None:
    """Kernels take nothing and return nothing: they read kernel arguments instead."""
    function_type = kernel.function_type
    if function_type.inputs.data or function_type.outputs.data:
        raise PassError(
            kernel,
            f"kernel function @{kernel.sym_name.data} must take no arguments and return "
            f"nothing (it has type {function_type}); pass values as kernel arguments "
            "(ttkernel.get_arg_val / get_compile_time_arg_val)",
        )


@dataclass(frozen=True)
class ConvertTTKernelToEmitCPass(ModulePass):
    """Lowers ttkernel ops to emitc and gives every kernel its own module of includes."""

    name = "convert-ttkernel-to-emitc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels: list[tuple[func.FuncOp, list[str]]] = []
        for kernel in op.body.block.ops:
            if not isinstance(kernel, func.FuncOp):
                continue
            thread = ttkernel.kernel_thread(kernel)
            if thread is None:
                continue
            check_kernel_signature(kernel)
            kernels.append((kernel, kernel_headers(kernel, thread)))
        helpers = {kernel: kernel_helper_definitions(kernel) for kernel, _ in kernels}

        # The special forms come first: LowerKernelCall would take any ttkernel op.
        # No dead-code elimination: a conversion leaves the rest of the IR as it is.
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [LowerAddrGen(), LowerLocalSemaphoreOp(), LowerKernelCall()],
                dce_enabled=False,
            ),
            apply_recursively=False,
        ).rewrite_module(op)

        for kernel, headers in kernels:
            includes = [emitc_ext.IncludeOp("cstdint", is_standard_include=True)]
            includes += [emitc_ext.IncludeOp(header) for header in headers]
            unit = ModuleOp([], sym_name=StringAttr(kernel.sym_name.data))
            op.body.block.insert_op_before(unit, kernel)
            kernel.detach()
            unit.body.block.add_ops([*includes, *helpers[kernel], kernel])
