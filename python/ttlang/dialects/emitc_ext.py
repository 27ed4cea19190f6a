"""The emitc dialect: xDSL 0.74's emitc plus the ops it lacks (`EmitCExt`).

xDSL's `emitc` dialect has `emitc.call_opaque`, `emitc.add`, `emitc.apply` and the
emitc types (`!emitc.opaque<"...">`, `!emitc.lvalue<T>`, `!emitc.ptr<T>`) and the
`#emitc.opaque<"...">` attribute. ttlang's kernel stage also needs, with upstream
MLIR's syntax:

    emitc.include <"cstdint">                     // #include <cstdint>
    emitc.include "api/dataflow/dataflow_api.h"    // #include "api/dataflow/dataflow_api.h"
    emitc.verbatim "// a line of C++"             // the text, as is
    %v = emitc.variable #emitc.opaque<""> : !emitc.lvalue<!emitc.opaque<"T">>   // T v;
    %m = emitc.member %v, "field" : !emitc.lvalue<...> -> !emitc.lvalue<i32>    // v.field
    emitc.assign %x : i32 to %m : !emitc.lvalue<i32>                         // v.field = x;
    %l = emitc.literal "DataFormat::Float16_b" : !emitc.opaque<"DataFormat">

Structured control flow stays `scf.for` / `scf.if` (and integer arithmetic stays
`arith`): the C++ emitter (`ttlang.target.cpp`) prints them as `for`/`if` statements
and expressions, which reads better than emitc's own lowered forms.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.dialects.emitc import EmitC, EmitC_LValueType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class IncludeOp(IRDLOperation):
    """`#include "path"`, or `#include <path>` when `is_standard_include` is set."""

    name = "emitc.include"

    include = prop_def(StringAttr)
    is_standard_include = opt_prop_def(UnitAttr)

    def __init__(self, include: str, is_standard_include: bool = False):
        super().__init__(
            properties={
                "include": StringAttr(include),
                "is_standard_include": UnitAttr() if is_standard_include else None,
            }
        )

    @classmethod
    def parse(cls, parser: Parser) -> IncludeOp:
        if parser.parse_optional_punctuation("<") is not None:
            path = parser.parse_str_literal()
            parser.parse_punctuation(">")
            return cls(path, is_standard_include=True)
        return cls(parser.parse_str_literal())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.is_standard_include is not None:
            printer.print_string("<")
            printer.print_string_literal(self.include.data)
            printer.print_string(">")
        else:
            printer.print_string_literal(self.include.data)

    def verify_(self) -> None:
        if not self.include.data:
            raise VerifyException("include path must not be empty")


@irdl_op_definition
class VerbatimOp(IRDLOperation):
    """A line of C++ emitted as is."""

    name = "emitc.verbatim"

    value = prop_def(StringAttr)
    assembly_format = "$value attr-dict"

    def __init__(self, value: str):
        super().__init__(properties={"value": StringAttr(value)})


@irdl_op_definition
class VariableOp(IRDLOperation):
    """Declares a C++ variable, initialized with `value` unless it is the empty
    `#emitc.opaque<"">`."""

    name = "emitc.variable"

    value = prop_def(AnyAttr())
    result = result_def(EmitC_LValueType)
    assembly_format = "$value attr-dict `:` type($result)"

    def __init__(self, value: Attribute, value_type: Attribute):
        super().__init__(
            properties={"value": value}, result_types=[EmitC_LValueType(value_type)]
        )


@irdl_op_definition
class MemberOp(IRDLOperation):
    """The member `member` of the struct variable `operand` (`operand.member`), as an
    lvalue."""

    name = "emitc.member"

    member = prop_def(StringAttr)
    operand = operand_def(EmitC_LValueType)
    result = result_def(EmitC_LValueType)
    assembly_format = "$operand `,` $member attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, member: str, member_type: Attribute):
        super().__init__(
            operands=[operand],
            properties={"member": StringAttr(member)},
            result_types=[EmitC_LValueType(member_type)],
        )


@irdl_op_definition
class AssignOp(IRDLOperation):
    """`var = value;`."""

    name = "emitc.assign"

    var = operand_def(EmitC_LValueType)
    value = operand_def(AnyAttr())
    assembly_format = "$value `:` type($value) `to` $var `:` type($var) attr-dict"

    def __init__(self, var: SSAValue, value: SSAValue):
        super().__init__(operands=[var, value])

    def verify_(self) -> None:
        var_type = self.var.type
        assert isinstance(var_type, EmitC_LValueType)
        if var_type.value_type != self.value.type:
            raise VerifyException(
                f"cannot assign a value of type {self.value.type} "
                f"to a variable of type {var_type.value_type}"
            )


@irdl_op_definition
class LiteralOp(IRDLOperation):
    """A C++ expression emitted as is wherever the result is used."""

    name = "emitc.literal"

    value = prop_def(StringAttr)
    result = result_def(base(Attribute))
    assembly_format = "$value attr-dict `:` type($result)"

    def __init__(self, value: str, result_type: Attribute):
        super().__init__(properties={"value": StringAttr(value)}, result_types=[result_type])

    def verify_(self) -> None:
        if not self.value.data:
            raise VerifyException("literal must not be empty")


# xDSL's emitc ops and attributes plus ours: the tools register this dialect in place
# of xDSL's, so that every `emitc.*` name resolves.
EmitCExt = Dialect(
    "emitc",
    [*EmitC.operations, IncludeOp, VerbatimOp, VariableOp, MemberOp, AssignOp, LiteralOp],
    [*EmitC.attributes],
)
