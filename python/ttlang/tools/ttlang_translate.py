"""ttlang-translate: translate IR out of MLIR (mlir-translate's conventions).

    ttlang-translate --ttkernel-to-cpp kernels.mlir              # every kernel, to stdout
    ttlang-translate --ttkernel-to-cpp kernels.mlir --kernel reader -o reader.cpp
    ttlang-translate --ttkernel-to-cpp kernels.mlir --output-dir build/kernels

`--ttkernel-to-cpp` takes a module at the ttkernel or the emitc stage (a ttkernel
module is first run through convert-ttkernel-to-emitc) and prints one C++ source per
kernel function. On stdout, sources follow each other, each after a
`// ----- kernel @name -----` line; `--output-dir` writes `<name>.cpp` per kernel.
Errors print one line, `file:line:col: error: message` where the place is known, and
exit with status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError

from ttlang.conversion.ttkernel_to_emitc import ConvertTTKernelToEmitCPass
from ttlang.dialects import register_dialects
from ttlang.target.cpp import TranslationError, translate_kernels
from ttlang.transforms.diagnostics import PassError
from ttlang.tools.ttlang_opt import (
    LocatingParser,
    SourceError,
    op_error,
    parse_error,
    verify_module,
)

TOOL = "ttlang-translate"


class ToolError(Exception):
    """User errors, printed one per line."""

    def __init__(self, errors: list[SourceError | str]):
        super().__init__("\n".join(str(e) for e in errors))


def _parse(text: str, file: str) -> ModuleOp:
    ctx = Context()
    register_dialects(ctx)
    try:
        module = LocatingParser(ctx, text, file).parse_module()
    except ParseError as error:
        raise ToolError([parse_error(error.span, error.msg)]) from None
    if errors := verify_module(module, file):
        raise ToolError(errors)
    return module


def ttkernel_to_cpp(module: ModuleOp) -> dict[str, str]:
    """C++ sources, by kernel name, of a module at the ttkernel or emitc stage."""
    ConvertTTKernelToEmitCPass().apply(Context(), module)
    return translate_kernels(module)


def _write(sources: dict[str, str], args: argparse.Namespace) -> None:
    if args.output_dir is not None:
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name, source in sources.items():
            (out / f"{name}.cpp").write_text(source)
        return
    if args.kernel is not None:
        text = sources[args.kernel]
    else:
        text = "".join(
            f"// ----- kernel @{name} -----\n{source}" for name, source in sources.items()
        )
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
    parser.add_argument(
        "--ttkernel-to-cpp",
        action="store_true",
        required=True,
        help="print the C++ kernel sources of a ttkernel- or emitc-stage module",
    )
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    parser.add_argument("--kernel", help="print only the kernel function with this name")
    parser.add_argument("--output-dir", help="write <kernel>.cpp for every kernel into this directory")
    args = parser.parse_args(argv)

    try:
        if args.input == "-":
            text, file = sys.stdin.read(), "<stdin>"
        else:
            try:
                text, file = Path(args.input).read_text(), args.input
            except OSError as error:
                raise ToolError([f"{TOOL}: error: cannot read {args.input}: {error.strerror}"]) from None
        module = _parse(text, file)
        try:
            sources = ttkernel_to_cpp(module)
        except (TranslationError, PassError) as error:
            if error.op is None:
                raise ToolError([SourceError(file, None, None, error.message)]) from None
            raise ToolError([op_error(error.op, error.message, file)]) from None
        if args.kernel is not None and args.kernel not in sources:
            raise ToolError(
                [f"{TOOL}: error: no kernel @{args.kernel}; kernels: {', '.join(sorted(sources))}"]
            )
        _write(sources, args)
    except ToolError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
