"""C++ emission: kernel functions at the emitc stage -> tt-metal kernel sources.

`translate_kernels(module)` returns one source per kernel function
(`ttkernel.thread`), keyed by the function's name. A source is the `emitc.include`s
beside the function, then its entry point `void kernel_main() { ... }`, for compute and
data-movement kernels alike (tt-metal 0.81.1's convention, kept by the emulator).

The body prints one statement per line:
- `emitc.call_opaque` -> `callee<template args>(args);`, declaring a variable for a
  result; `emitc.variable` / `member` / `assign` / `literal` / `verbatim` as in MLIR's
  C++ emitter;
- `arith` integer and float ops -> expressions assigned to a new variable; constants
  are inlined where used;
- `scf.for` -> `for (int32_t i = lb; i < ub; i += step) { ... }` (a signed counter:
  bounds may be negative), loop-carried values
  become variables declared before the loop and assigned at its end; `scf.if` ->
  `if (...) { ... } else { ... }`.
Variables take the IR's names (`%lhs_cb` -> `lhs_cb`) when it has them.

Types: signless `i32`/`i64` are tt-metal's `uint32_t`/`uint64_t` (the ttkernel
convention); signed comparisons, divisions and shifts cast their operands to the signed
type. `index` is `size_t`, `i1` is `bool`, `f32` is `float`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.dialects.emitc import (
    EmitC_CallOpaqueOp,
    EmitC_LValueType,
    EmitC_OpaqueAttr,
    EmitC_OpaqueType,
    EmitC_PointerType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from ttlang.dialects import emitc_ext, ttkernel

INDENT = "  "


class TranslationError(Exception):
    """IR that cannot be printed as C++: `op` (when known) and why."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


# The C++ keywords and kernel-API names a variable must not shadow.
_RESERVED = frozenset(
    """auto bool break case char const constexpr continue default do double else enum
    extern false float for goto if inline int long namespace register return short signed
    sizeof static struct switch template this true typedef union unsigned void volatile
    while uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t size_t
    kernel_main""".split()
)

_BINARY_OPERATORS: dict[type[Operation], str] = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivUIOp: "/",
    arith.RemUIOp: "%",
    arith.AndIOp: "&",
    arith.OrIOp: "|",
    arith.XOrIOp: "^",
    arith.ShLIOp: "<<",
    arith.ShRUIOp: ">>",
    arith.AddfOp: "+",
    arith.SubfOp: "-",
    arith.MulfOp: "*",
    arith.DivfOp: "/",
}
# Ops whose operands are read as signed integers.
_SIGNED_BINARY_OPERATORS: dict[type[Operation], str] = {
    arith.DivSIOp: "/",
    arith.RemSIOp: "%",
    arith.ShRSIOp: ">>",
}
_CMPI = {
    "eq": ("==", False),
    "ne": ("!=", False),
    "slt": ("<", True),
    "sle": ("<=", True),
    "sgt": (">", True),
    "sge": (">=", True),
    "ult": ("<", False),
    "ule": ("<=", False),
    "ugt": (">", False),
    "uge": (">=", False),
}
_CASTS = (arith.IndexCastOp, arith.ExtUIOp, arith.TruncIOp, arith.SIToFPOp, arith.UIToFPOp)


def cpp_type(type_: Attribute) -> str:
    """The C++ spelling of an IR type."""
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width == 1:
            return "bool"
        prefix = "int" if type_.signedness.data == Signedness.SIGNED else "uint"
        return f"{prefix}{width}_t"
    if isinstance(type_, IndexType):
        return "size_t"
    if isinstance(type_, Float32Type):
        return "float"
    if isinstance(type_, EmitC_OpaqueType):
        return type_.value.data
    if isinstance(type_, EmitC_LValueType):
        return cpp_type(type_.value_type)
    if isinstance(type_, EmitC_PointerType):
        return f"{cpp_type(type_.pointee_type)}*"
    raise TranslationError(f"type {type_} has no C++ spelling")


def _signed_type(type_: Attribute) -> str:
    if isinstance(type_, IntegerType):
        return f"int{type_.width.data}_t"
    return "ptrdiff_t"  # index


def cpp_literal(attr: Attribute) -> str:
    """The C++ spelling of a constant attribute."""
    if isinstance(attr, EmitC_OpaqueAttr):
        return attr.value.data
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
        return "true" if attr.value.data else "false"
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        type_ = attr.type
        if isinstance(type_, IntegerType) and type_.signedness.data != Signedness.SIGNED:
            value %= 1 << type_.width.data  # signless integers print as unsigned
        return f"{value}u" if value >= 1 << 31 else str(value)
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        if math.isnan(value):
            return "__builtin_nanf(\"\")"
        if math.isinf(value):
            return "__builtin_inff()" if value > 0 else "-__builtin_inff()"
        return f"{value!r}f"
    if isinstance(attr, EmitC_OpaqueType | IntegerType | IndexType | Float32Type):
        return cpp_type(attr)
    raise TranslationError(f"attribute {attr} has no C++ spelling")


class _KernelPrinter:
    """Prints the body of one kernel function."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.expressions: dict[SSAValue, str] = {}
        self.taken: set[str] = set(_RESERVED)
        self.anonymous = 0

    # ---------------------------------------------------------------- naming

    def fresh_name(self, value: SSAValue, fallback: str | None = None) -> str:
        """A new variable name for `value`: its name hint, else `fallback`, else `v<n>`."""
        if value.name_hint:
            base = re.sub(r"\W", "_", value.name_hint)
            if base[0].isdigit():
                base = f"v_{base}"
        elif fallback is not None:
            base = fallback
        else:
            base = f"v{self.anonymous}"
            self.anonymous += 1
        name, suffix = base, 1
        while name in self.taken:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.taken.add(name)
        self.expressions[value] = name
        return name

    def expr(self, value: SSAValue) -> str:
        if value not in self.expressions:
            raise TranslationError(f"value {value} is used before it is defined")
        return self.expressions[value]

    # ---------------------------------------------------------------- output

    def line(self, text: str) -> None:
        self.lines.append(INDENT * self.depth + text)

    def declare(self, value: SSAValue, init: str, fallback: str | None = None) -> None:
        """`T name = init;` for a new variable holding `value`."""
        type_ = cpp_type(value.type)
        self.line(f"{type_} {self.fresh_name(value, fallback)} = {init};")

    # ---------------------------------------------------------------- ops

    def op(self, op: Operation) -> None:
        try:
            self.print_op(op)
        except TranslationError as error:
            error.op = error.op or op
            raise

    def print_op(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp):
            self.expressions[op.result] = cpp_literal(op.value)
        elif isinstance(op, emitc_ext.LiteralOp):
            self.expressions[op.result] = op.value.data
        elif isinstance(op, EmitC_CallOpaqueOp):
            self.call(op)
        elif isinstance(op, emitc_ext.VariableOp):
            initial = cpp_literal(op.value)
            type_ = cpp_type(op.result.type)
            name = self.fresh_name(op.result)
            self.line(f"{type_} {name} = {initial};" if initial else f"{type_} {name};")
        elif isinstance(op, emitc_ext.MemberOp):
            self.expressions[op.result] = f"{self.expr(op.operand)}.{op.member.data}"
        elif isinstance(op, emitc_ext.AssignOp):
            self.line(f"{self.expr(op.var)} = {self.expr(op.value)};")
        elif isinstance(op, emitc_ext.VerbatimOp):
            self.line(op.value.data)
        elif isinstance(op, scf.ForOp):
            self.for_loop(op)
        elif isinstance(op, scf.IfOp):
            self.if_else(op)
        elif isinstance(op, func.ReturnOp):
            if op.arguments:
                raise TranslationError("a kernel returns nothing, but this return has operands", op)
        else:
            self.arith(op)

    def call(self, op: EmitC_CallOpaqueOp) -> None:
        template = ""
        if op.template_args is not None:
            template = "<" + ", ".join(cpp_literal(a) for a in op.template_args.data) + ">"
        literals: list[str] = []
        if op.args is None:
            args = [self.expr(v) for v in op.call_args]
        else:
            args = []
            for arg in op.args.data:
                if isinstance(arg, IntegerAttr) and isinstance(arg.type, IndexType):
                    args.append(self.expr(op.call_args[arg.value.data]))
                else:
                    literals.append(cpp_literal(arg))
                    args.append(literals[-1])
        callee = op.callee.data
        call = f"{callee}{template}({', '.join(args)})"
        if len(op.res) > 1:
            raise TranslationError("a C++ call has at most one result", op)
        if op.res:
            # Unnamed results are named after the call: get_write_ptr -> write_ptr,
            # get_arg_val(2) -> arg2.
            fallback = callee.removeprefix("get_").removesuffix("_val")
            if len(literals) == 1 and literals[0].isdigit():
                fallback += literals[0]
            self.declare(op.res[0], call, fallback)
        else:
            self.line(f"{call};")

    def arith(self, op: Operation) -> None:
        if type(op) in _BINARY_OPERATORS:
            lhs, rhs = (self.expr(v) for v in op.operands)
            self.declare(op.results[0], f"{lhs} {_BINARY_OPERATORS[type(op)]} {rhs}")
        elif type(op) in _SIGNED_BINARY_OPERATORS:
            signed = _signed_type(op.operands[0].type)
            lhs, rhs = (f"static_cast<{signed}>({self.expr(v)})" for v in op.operands)
            self.declare(op.results[0], f"{lhs} {_SIGNED_BINARY_OPERATORS[type(op)]} {rhs}")
        elif isinstance(op, arith.FloorDivSIOp):
            # C++ `/` truncates toward zero; floordivsi (Python's `//`) rounds down.
            signed = _signed_type(op.operands[0].type)
            lhs, rhs = (f"static_cast<{signed}>({self.expr(v)})" for v in op.operands)
            rounds_down = f"({lhs} % {rhs} != 0 && ({lhs} < 0) != ({rhs} < 0))"
            self.declare(op.results[0], f"{lhs} / {rhs} - {rounds_down}")
        elif isinstance(op, arith.CmpiOp):
            operator, is_signed = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
            lhs, rhs = (self.expr(v) for v in op.operands)
            if is_signed:
                signed = _signed_type(op.lhs.type)
                lhs, rhs = f"static_cast<{signed}>({lhs})", f"static_cast<{signed}>({rhs})"
            self.declare(op.result, f"{lhs} {operator} {rhs}")
        elif isinstance(op, arith.SelectOp):
            cond, if_true, if_false = (self.expr(v) for v in op.operands)
            self.declare(op.result, f"{cond} ? {if_true} : {if_false}")
        elif isinstance(op, _CASTS):
            target = cpp_type(op.results[0].type)
            self.declare(op.results[0], f"static_cast<{target}>({self.expr(op.operands[0])})")
        elif isinstance(op, ttkernel.TTKernelOp):
            raise TranslationError("is still a ttkernel op; run convert-ttkernel-to-emitc first", op)
        else:
            raise TranslationError("has no C++ form in the kernel emitter", op)

    def carried_variables(self, results: Iterable[SSAValue], initial: Iterable[str]) -> list[str]:
        """Declares one variable per loop-carried / branch result value."""
        names = []
        for result, init in zip(results, initial):
            type_ = cpp_type(result.type)
            name = self.fresh_name(result)
            self.line(f"{type_} {name} = {init};" if init else f"{type_} {name};")
            names.append(name)
        return names

    def assign_yield(self, block: Block, names: list[str]) -> None:
        """The values a region yields, assigned to the variables carrying them (through
        temporaries when one assignment would clobber a value read by a later one)."""
        yield_op = block.last_op
        assert isinstance(yield_op, scf.YieldOp)
        values = [self.expr(v) for v in yield_op.arguments]
        pending = [(n, v) for n, v in zip(names, values) if n != v]
        if any(v in names for _, v in pending) and len(pending) > 1:
            temporaries = []
            for (name, value), result in zip(pending, yield_op.arguments):
                temporary = f"{name}_next"
                self.line(f"{cpp_type(result.type)} {temporary} = {value};")
                temporaries.append((name, temporary))
            pending = temporaries
        for name, value in pending:
            self.line(f"{name} = {value};")

    def for_loop(self, op: scf.ForOp) -> None:
        body = op.body.block
        carried = self.carried_variables(op.results, [self.expr(v) for v in op.iter_args])
        for arg, name in zip(body.args[1:], carried):
            self.expressions[arg] = name
        # The loop variable is scoped to the loop, as everything its body declares.
        outer_names = set(self.taken)
        induction = body.args[0]
        # The counter is signed so that `range(-1, 1)` runs twice: a signless i32 is
        # uint32_t, and an unsigned `i < ub` with a negative lb would run zero times.
        type_ = _signed_type(induction.type)
        i = self.fresh_name(induction, "i")
        lb, ub, step = (self.signed_expr(v, type_) for v in (op.lb, op.ub, op.step))
        increment = f"++{i}" if step == "1" else f"{i} += {step}"
        self.line(f"for ({type_} {i} = {lb}; {i} < {ub}; {increment}) {{")
        self.scoped_block(body, carried)
        self.line("}")
        self.taken = outer_names

    def signed_expr(self, value: SSAValue, signed_type: str) -> str:
        """`value` read as the signed integer type `signed_type`: constants print signed,
        anything else is cast."""
        owner = value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            width = value.type.width.data if isinstance(value.type, IntegerType) else 64
            number = owner.value.value.data % (1 << width)
            return str(number - (1 << width) if number >= 1 << (width - 1) else number)
        return f"static_cast<{signed_type}>({self.expr(value)})"

    def if_else(self, op: scf.IfOp) -> None:
        results = self.carried_variables(op.results, ["" for _ in op.results])
        self.line(f"if ({self.expr(op.cond)}) {{")
        self.scoped_block(op.true_region.block, results)
        if op.false_region.blocks and (
            results or len(op.false_region.block.ops) > 1
        ):
            self.line("} else {")
            self.scoped_block(op.false_region.block, results)
        self.line("}")

    def scoped_block(self, block: Block, carried: list[str]) -> None:
        """The body of a loop or branch, one level deeper; what it yields is assigned to
        the `carried` variables; the names it declares are free again after it."""
        outer_names = set(self.taken)
        self.depth += 1
        for inner in block.ops:
            if not isinstance(inner, scf.YieldOp):
                self.op(inner)
        if carried:
            self.assign_yield(block, carried)
        self.depth -= 1
        self.taken = outer_names


def translate_kernel(kernel: func.FuncOp) -> str:
    """The C++ source of one kernel function at the emitc stage."""
    thread = ttkernel.kernel_thread(kernel)
    name = kernel.sym_name.data
    if thread is None:
        raise TranslationError(
            f"function @{name} has no {ttkernel.THREAD_ATTR} attribute; only kernel "
            "functions translate to C++",
            kernel,
        )
    if kernel.function_type.inputs.data or kernel.function_type.outputs.data:
        raise TranslationError(
            f"kernel function @{name} must take no arguments and return nothing", kernel
        )
    includes, helpers = [], []
    parent = kernel.parent_block()
    if parent is not None:
        for op in parent.ops:
            if isinstance(op, emitc_ext.IncludeOp):
                path = op.include.data
                includes.append(
                    f"#include <{path}>" if op.is_standard_include else f'#include "{path}"'
                )
            elif isinstance(op, emitc_ext.VerbatimOp):  # a helper function the kernel calls
                helpers += [op.value.data, ""]

    printer = _KernelPrinter()
    printer.scoped_block(kernel.body.block, [])
    source = ["void kernel_main() {", *printer.lines, "}"]
    header = [f"// {name}: {thread.value} kernel, generated by ttlang", *includes, "", *helpers]
    return "\n".join(header + source) + "\n"


def translate_kernels(module: ModuleOp) -> dict[str, str]:
    """C++ source per kernel function in `module` (at any nesting), by function name.
    Functions without `ttkernel.thread` are not kernels and are left out."""
    sources: dict[str, str] = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and ttkernel.kernel_thread(op) is not None:
            sources[op.sym_name.data] = translate_kernel(op)
    if not sources:
        raise TranslationError("the module holds no kernel function (func.func with ttkernel.thread)")
    return sources
