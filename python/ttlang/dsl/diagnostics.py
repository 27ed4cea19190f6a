"""Errors the DSL reports against the kernel author's source, in the style of Triton's
CompilationError: `file:line:col: message`, the offending source line with a caret under
the expression, and a hint saying what to do.

    examples/eltwise_add.py:14:16: error: shape mismatch: + needs operands of the same
    shape or shapes that broadcast, but got (64, 64) and (32, 64)
        o.store(l + r)
                ^~~~~

Two kinds of failure:
- `KernelError`: the kernel is wrong (bad shape, unknown method, ...). Raised by the
  frontend with the location of the expression at fault.
- `CompilerBug`: the compiler itself failed (an internal exception or an IR verifier
  error on IR the frontend built). Reported as a bug, still naming the kernel location
  being compiled so the author can find a workaround.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from types import FunctionType


@dataclass(frozen=True)
class SourceLocation:
    """A position in a Python source file (1-based line, 0-based column, as `ast`)."""

    filename: str
    line: int
    column: int = 0
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column + 1}"

    def snippet(self) -> str:
        """The source line and a caret marker under the located expression."""
        text = linecache.getline(self.filename, self.line).rstrip("\n")
        if not text:
            return ""
        width = 1
        if self.end_column is not None and self.end_column > self.column:
            width = self.end_column - self.column
        marker = " " * self.column + "^" + "~" * (width - 1)
        return f"    {text}\n    {marker}"


class DSLError(Exception):
    """A user error raised where no source location is known yet; the frontend attaches
    the location of the innermost expression or statement being compiled."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class KernelError(Exception):
    """The kernel is wrong: a located, user-facing error."""

    def __init__(self, message: str, location: SourceLocation, hint: str | None = None):
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(self._format())

    @property
    def filename(self) -> str:
        return self.location.filename

    @property
    def line(self) -> int:
        return self.location.line

    def _format(self) -> str:
        parts = [f"{self.location}: error: {self.message}"]
        snippet = self.location.snippet()
        if snippet:
            parts.append(snippet)
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)


class L1BudgetError(KernelError):
    """The kernel's CBs do not fit a core: `bytes_needed` and `bytes_available` (L1 for
    CBs; None when the number of CBs is the problem) and `cbs` (the program's
    CBConfigs: index, pages, page size)."""

    def __init__(self, message: str, location: SourceLocation, cbs, bytes_needed, bytes_available):
        self.cbs = cbs
        self.bytes_needed = bytes_needed
        self.bytes_available = bytes_available
        super().__init__(message, location)


class CompilerBug(Exception):
    """The compiler failed on a kernel it should have compiled (or rejected clearly)."""

    def __init__(self, what: str, location: SourceLocation):
        self.location = location
        message = (
            f"{location}: internal compiler error: {what}\n"
            "  This is a bug in ttlang, not in your kernel; please report it with the kernel "
            "source. Rewriting the statement at this location may work around it."
        )
        snippet = location.snippet()
        if snippet:
            message += "\n" + snippet
        super().__init__(message)


@dataclass(frozen=True)
class ParsedFunction:
    """A Python function's AST, with the offsets that map AST positions back to its file."""

    function: FunctionType
    tree: ast.FunctionDef
    filename: str
    line_offset: int  # added to AST line numbers
    column_offset: int  # added to AST column numbers (the indentation dedent removed)

    def location(self, node: ast.AST | None = None) -> SourceLocation:
        """Where `node` (or the function's `def` line) is in the source file."""
        if node is None or not hasattr(node, "lineno"):
            node = self.tree
        end_column = getattr(node, "end_col_offset", None)
        if getattr(node, "end_lineno", node.lineno) != node.lineno:
            end_column = None
        return SourceLocation(
            self.filename,
            node.lineno + self.line_offset,
            node.col_offset + self.column_offset,
            None if end_column is None else end_column + self.column_offset,
        )

    def error(self, node: ast.AST | None, message: str, hint: str | None = None) -> KernelError:
        return KernelError(message, self.location(node), hint)


def parse_function(function: FunctionType) -> ParsedFunction:
    """Parses the source of `function` (a top-level or nested `def`, or a lambda)."""
    if function.__name__ == "<lambda>":
        return _parse_lambda(function)
    try:
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError) as err:
        raise DSLError(
            f"cannot read the source of {function.__qualname__}: {err}",
            "kernels, threads and helpers must be defined in a .py file, not typed at a REPL",
        ) from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != source else 0
    module = ast.parse(dedented)
    tree = module.body[0]
    if isinstance(tree, ast.AsyncFunctionDef):
        # tt-lang wrote threads as `async def`; nothing in a thread awaits, so the body
        # compiles as a plain function's.
        tree = ast.copy_location(ast.FunctionDef(**{f: getattr(tree, f) for f in tree._fields}), tree)
    assert isinstance(tree, ast.FunctionDef), "getsourcelines returns the def statement"
    return ParsedFunction(
        function=function,
        tree=tree,
        filename=function.__code__.co_filename,
        line_offset=first_line - 1,
        column_offset=indent,
    )


def _parse_lambda(function: FunctionType) -> ParsedFunction:
    """A lambda as a one-statement function `def <lambda>(args): return body`, found in
    its file by its first line and parameter names."""
    code = function.__code__
    source = "".join(linecache.getlines(code.co_filename))
    parameters = list(code.co_varnames[: code.co_argcount])
    candidates = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Lambda)
        and node.lineno == code.co_firstlineno
        and [a.arg for a in node.args.args] == parameters
    ]
    if len(candidates) != 1:
        raise DSLError(
            f"cannot find the source of the lambda at {code.co_filename}:{code.co_firstlineno}",
            "give each lambda its own line, or use a def",
        )
    (node,) = candidates
    body = ast.Return(node.body)
    ast.copy_location(body, node.body)
    tree = ast.FunctionDef(
        name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None, type_params=[]
    )
    ast.copy_location(tree, node)
    return ParsedFunction(function, tree, code.co_filename, line_offset=0, column_offset=0)


def definition_location(function: FunctionType) -> SourceLocation:
    """The `def` line of `function` (or of its first decorator)."""
    return SourceLocation(function.__code__.co_filename, function.__code__.co_firstlineno)
