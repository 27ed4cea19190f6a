"""The error a pass raises when the IR it is given is outside what it handles.

It names the op at fault, so tools can point at the op's source location
(`ttlang-opt --verify-diagnostics`, the DSL's kernel line) instead of printing a
traceback from inside the compiler. `PassInvariantError` is the case where the IR
lacks what an earlier pass of the pipeline always establishes: bad input to
`ttlang-opt`, but a compiler bug when the DSL's pipeline produced the IR.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


def source_location(op: Operation | None) -> FileLineColLoc | None:
    """The source location of `op` or of its closest located ancestor."""
    while op is not None:
        if isinstance(op.location, FileLineColLoc):
            return op.location
        op = op.parent_op()
    return None


class PassError(DiagnosticException):
    """A pass cannot transform `op`: `message` says why, in a sentence."""

    def __init__(self, op: Operation, message: str):
        super().__init__(f"'{op.name}' op {message}")
        self.op = op
        self.message = message


class PassInvariantError(PassError):
    """`op` breaks an invariant an earlier pass of the pipeline establishes (e.g. a tile
    op's operand where d2m-dst-allocate put it); the DSL reports it as a compiler bug."""
