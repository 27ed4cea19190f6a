"""The error a pass raises when the IR it is given is outside what it handles.

It names the op at fault, so tools can point at the op's source location
(`ttlang-opt --verify-diagnostics`, the DSL's kernel line) instead of printing a
traceback from inside the compiler. `PassInvariantError` is the case where the IR
lacks what an earlier pass of the pipeline always establishes: bad input to
`ttlang-opt`, but a compiler bug when the DSL's pipeline produced the IR.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class PassError(DiagnosticException):
    """A pass cannot transform `op`: `message` says why, in a sentence."""

    def __init__(self, op: Operation, message: str):
        super().__init__(f"'{op.name}' op {message}")
        self.op = op
        self.message = message


class PassInvariantError(PassError):
    """`op` breaks an invariant an earlier pass of the pipeline establishes (e.g. a tile
    op's operand where d2m-dst-allocate put it); the DSL reports it as a compiler bug."""
