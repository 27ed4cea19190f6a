"""ttlang-opt: parse, verify, transform and print ttlang IR, with mlir-opt's conventions.

    ttlang-opt input.mlir -p 'builtin.module(canonicalize,cse)' -o out.mlir
    ttlang-opt --split-input-file --verify-diagnostics errors.mlir
    cat input.mlir | ttlang-opt --print-ir-after-all -p cse

Every ttlang dialect (ttlang.dialects) and xDSL's upstream dialects are available;
passes come from the registry in ttlang.pipeline. User errors (a parse error, an op
that does not verify, an unknown pass) print `file:line:col: error: message` and exit
with status 1. Each operation's location is where the parser found it, so verifier
errors point at the failing op.

`--verify-diagnostics` follows MLIR: the input announces the errors it expects with
`// expected-error {{substring}}` (same line), `@+N` / `@-N` (N lines below/above) or
`@below` / `@above`; the run succeeds when exactly the expected errors occur.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

from ttlang.dialects import register_dialects
from ttlang.pipeline import PipelineError, build_pipeline, pass_factories, pass_names
from ttlang.transforms.diagnostics import PassError

TOOL = "ttlang-opt"
STDIN_NAME = "<stdin>"
SPLIT_MARKER = "// -----"

_T = TypeVar("_T")

# xdsl-opt options whose behaviour ttlang-opt replaces (the pipeline callback, the
# error reporting): hidden from --help and refused.
_UNSUPPORTED_XDSL_OPTIONS = {
    "print_between_passes": "--print-between-passes",
    "time_passes": "--time-passes",
    "parsing_diagnostics": "--parsing-diagnostics",
    "shrink": "--shrink",
}
_UNSUPPORTED_XDSL_OPTIONS_HINT = " (see --print-ir-after-all and --verify-diagnostics)"


@dataclass(frozen=True)
class SourceError:
    """An error at a place in the input (line and column are None when unknown)."""

    file: str
    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        place = self.file
        if self.line is not None:
            place += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{place}: error: {self.message}"


class LocatingParser(Parser):
    """The xDSL parser, giving each operation its source position as location.

    xDSL keeps an op's location only when the text spells `loc(...)`; recording where
    the op starts lets verifier errors name the line of the failing op.
    """

    def __init__(self, ctx, text: str, file: str, line_offset: int = 0):
        super().__init__(ctx, text, file)
        self.line_offset = line_offset
        # Where the name of each op being parsed starts (ops nest, hence a stack).
        self._op_name_spans: list[Span] = []

    def _parse_op_result_list(self) -> list[tuple[Span, int]]:
        # Every op starts with its (possibly empty) result list; the op name follows, and
        # MLIR places an op's location at its name.
        results = super()._parse_op_result_list()
        self._op_name_spans.append(self._current_token.span)
        return results

    def parse_operation(self) -> Operation:
        op = super().parse_operation()
        name_span = dataclasses.replace(self._op_name_spans.pop(), line_offset=self.line_offset)
        if not isinstance(op.location, FileLineColLoc):
            where = name_span.get_location()
            op.location = FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))
        return op

    # An attribute or type that does not verify (a 16x32 tile, say) raises a
    # VerifyException from deep inside the parser; report it as a parse error spanning
    # the attribute, so that it gets a location like any other.
    def parse_optional_type(self) -> TypeAttribute | None:
        return self._verifying(super().parse_optional_type)

    def parse_optional_attribute(self) -> Attribute | None:
        return self._verifying(super().parse_optional_attribute)

    def _verifying(self, parse: Callable[[], _T]) -> _T:
        start = self._current_token.span.start
        try:
            return parse()
        except VerifyException as error:
            self.raise_error(_one_line(str(error)), start, self._current_token.span.start)


def _one_line(message: str) -> str:
    return " ".join(line.strip() for line in message.strip().splitlines() if line.strip())


def parse_error(span: Span, message: str) -> SourceError:
    where = span.get_location()
    return SourceError(where.file, where.line, where.col, _one_line(message))


def op_error(op: Operation, message: str, file: str) -> SourceError:
    """An error about `op`, placed at its location or its closest located ancestor."""
    located: Operation | None = op
    while located is not None and not isinstance(located.location, FileLineColLoc):
        located = located.parent_op()
    if located is None:
        return SourceError(file, None, None, f"'{op.name}' op {message}")
    location = located.location
    assert isinstance(location, FileLineColLoc)
    return SourceError(
        location.filename.data, location.line.data, location.column.data, f"'{op.name}' op {message}"
    )


def verify_module(module: ModuleOp, file: str) -> list[SourceError]:
    """Verifies every op of `module` on its own, returning one error per failing op."""
    errors: list[SourceError] = []
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:
            errors.append(op_error(op, _one_line(str(error)), file))
    return errors


# --------------------------------------------------------------- verify-diagnostics

_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass(frozen=True)
class ExpectedDiagnostic:
    """One `expected-<kind> {{substring}}` annotation, at the line it refers to."""

    kind: str
    line: int
    substring: str


def expected_diagnostics(text: str, first_line: int) -> list[ExpectedDiagnostic]:
    """The `expected-*` annotations of `text`, whose first line is `first_line`.
    ttlang-opt only reports errors, so warnings, notes and remarks never match."""
    expected: list[ExpectedDiagnostic] = []
    for index, line in enumerate(text.splitlines()):
        for match in _EXPECTED.finditer(line):
            kind, offset, substring = match.groups()
            delta = {None: 0, "above": -1, "below": 1}.get(offset)
            if delta is None:
                delta = int(offset)
            expected.append(ExpectedDiagnostic(kind, first_line + index + delta, substring))
    return expected


def unmatched_diagnostics(
    produced: Sequence[SourceError], expected: Sequence[ExpectedDiagnostic], file: str
) -> list[str]:
    """What differs between the produced errors and the expected ones: each produced
    error must match one expected error on its line, containing its substring."""
    remaining = list(expected)
    problems: list[str] = []
    for error in produced:
        match = next(
            (
                e
                for e in remaining
                if e.kind == "error" and e.line == error.line and e.substring in error.message
            ),
            None,
        )
        if match is None:
            problems.append(f"{error} (unexpected error)")
        else:
            remaining.remove(match)
    problems += [
        f'{file}:{e.line}: error: expected {e.kind} "{e.substring}" was not produced'
        for e in remaining
    ]
    return problems


# ------------------------------------------------------------------------- the tool


class TTLangOptMain(xDSLOptMain):
    """xdsl-opt with ttlang's dialects and passes, locations and mlir-opt's options."""

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="ttlang modular optimizer driver (mlir-opt conventions)", args=args)

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_passes(self) -> None:
        for name, factory in pass_factories().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = "registered passes:\n" + "\n".join(f"  {name}" for name in pass_names())
        arg_parser.add_argument(
            "--pass-pipeline",
            dest="passes",
            help="same as -p: 'a,b' or 'builtin.module(a,b)'",
        )
        arg_parser.add_argument(
            "--mlir-print-op-generic",
            dest="print_op_generic",
            action="store_true",
            help="same as --print-op-generic",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after every pass",
        )
        for action in arg_parser._actions:
            if action.dest in _UNSUPPORTED_XDSL_OPTIONS:
                action.help = argparse.SUPPRESS
            if action.dest == "verify_diagnostics":
                action.help = (
                    "check that exactly the errors announced by `// expected-error "
                    "{{...}}` comments occur (exit 0), or report the difference (exit 1)"
                )

    def setup_pipeline(self) -> None:
        for dest, option in _UNSUPPORTED_XDSL_OPTIONS.items():
            if getattr(self.args, dest):
                print(f"{TOOL}: error: {option} is not supported{_UNSUPPORTED_XDSL_OPTIONS_HINT}", file=sys.stderr)
                sys.exit(1)
        try:
            self.pipeline = build_pipeline(self.args.passes, self._after_pass)
        except PipelineError as error:
            print(f"{TOOL}: error: {error}", file=sys.stderr)
            sys.exit(1)

    @property
    def input_name(self) -> str:
        return self.args.input_file or STDIN_NAME

    def _after_pass(
        self, previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
    ) -> None:
        """Verifies the module after each pass and dumps it on request."""
        if previous is None:
            return
        if not self.args.disable_verify:
            errors = verify_module(module, self.input_name)
            if errors:
                raise _ChunkFailed(
                    [dataclasses.replace(e, message=f"{e.message} (after pass '{previous.name}')") for e in errors]
                )
        if self.args.print_ir_after_all:
            print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
            Printer(stream=sys.stderr, print_generic_format=self.args.print_op_generic).print_op(module)
            print("\n", file=sys.stderr)

    def input_chunks(self) -> list[tuple[str, int]]:
        """The input's text, or with --split-input-file its chunks: each with the number
        of lines before it. As in MLIR, chunks are separated by lines that are exactly
        `// -----` (xDSL's own split would also cut at `// CHECK: // -----`)."""
        stream, _ = self.get_input_stream()
        with stream:
            text = stream.read().decode()
        if not self.args.split_input_file:
            return [(text, 0)]
        chunks: list[tuple[str, int]] = []
        lines: list[str] = []
        first_line = 0
        for number, line in enumerate(text.splitlines(keepends=True)):
            if line.rstrip() == SPLIT_MARKER:
                chunks.append(("".join(lines), first_line))
                lines, first_line = [], number + 1
            else:
                lines.append(line)
        chunks.append(("".join(lines), first_line))
        return chunks

    def run(self) -> int:
        """Processes every input chunk; returns the exit status."""
        chunks = self.input_chunks()
        output = self.prepare_output()
        status = 0
        printed_chunks = 0
        try:
            for text, first_line_offset in chunks:
                result, errors = self._process(text, first_line_offset)
                if self.args.verify_diagnostics:
                    expected = expected_diagnostics(text, first_line_offset + 1)
                    problems = unmatched_diagnostics(errors, expected, self.input_name)
                    for problem in problems:
                        print(problem, file=sys.stderr)
                    status = status or (1 if problems else 0)
                elif errors:
                    for error in errors:
                        print(error, file=sys.stderr)
                    status = 1
                if result is not None:
                    if printed_chunks:
                        output.write(SPLIT_MARKER + "\n")
                    output.write(result)
                    printed_chunks += 1
        finally:
            if output is not sys.stdout:
                output.close()
        return status

    def _process(self, text: str, line_offset: int) -> tuple[str | None, list[SourceError]]:
        """Parses, verifies, transforms and prints one chunk: its output, or its errors."""
        try:
            # The parser lexes its first token on construction: that may fail too.
            parser = LocatingParser(self.ctx, text, self.input_name, line_offset)
            module = parser.parse_module(not self.args.no_implicit_module)
        except ParseError as error:
            return None, [parse_error(dataclasses.replace(error.span, line_offset=line_offset), error.msg)]
        if not self.args.disable_verify and (errors := verify_module(module, self.input_name)):
            return None, errors
        try:
            self.apply_passes(module)
        except _ChunkFailed as failure:
            return None, failure.errors
        except PassError as error:
            return None, [op_error(error.op, error.message, self.input_name)]
        except DiagnosticException as error:
            return None, [SourceError(self.input_name, None, None, _one_line(str(error)))]
        return self.output_resulting_program(module), []


class _ChunkFailed(Exception):
    """Stops the pass pipeline of one chunk, carrying the errors found."""

    def __init__(self, errors: list[SourceError]):
        super().__init__(errors)
        self.errors = errors


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(TTLangOptMain(argv).run())


if __name__ == "__main__":
    main()
