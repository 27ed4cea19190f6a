"""Kernels translated by ttlang.target.cpp compile against the emulator's kernel API
headers (include/), the contract of docs/kernel_api.md.

Compiled with `g++ -std=c++17 -fsyntax-only -Werror`: a hand-written tile-add compute
kernel and its reader, and kernels using every ttkernel op (the lit round-trip inputs
of test/dialects/ttkernel), so that every call the compiler can emit is one the
emulator declares, with the same argument list.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from ttlang.conversion.ttkernel_to_emitc import ConvertTTKernelToEmitCPass
from ttlang.dialects import register_dialects
from ttlang.target.cpp import translate_kernels

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "include"
TTKERNEL_TESTS = REPO / "test" / "dialects" / "ttkernel"

ADD_KERNELS = """
func.func @add_compute() attributes {ttkernel.thread = #ttkernel.thread<compute>} {
  %lhs_cb = ttkernel.get_compile_time_arg_val(0)
  %rhs_cb = ttkernel.get_compile_time_arg_val(1)
  %out_cb = ttkernel.get_compile_time_arg_val(2)
  %num_tiles = ttkernel.get_arg_val(0)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  ttkernel.binary_op_init_common(%lhs_cb, %rhs_cb, %out_cb)
  ttkernel.add_tiles_init(%lhs_cb, %rhs_cb)
  scf.for %i = %c0 to %num_tiles step %c1 : i32 {
    ttkernel.cb_wait_front(%lhs_cb, %c1)
    ttkernel.cb_wait_front(%rhs_cb, %c1)
    ttkernel.tile_regs_acquire()
    ttkernel.add_tiles(%lhs_cb, %rhs_cb, %c0, %c0, %c0)
    ttkernel.tile_regs_commit()
    ttkernel.cb_pop_front(%lhs_cb, %c1)
    ttkernel.cb_pop_front(%rhs_cb, %c1)
    ttkernel.cb_reserve_back(%out_cb, %c1)
    ttkernel.tile_regs_wait()
    ttkernel.pack_tile(%c0, %out_cb, %c0)
    ttkernel.tile_regs_release()
    ttkernel.cb_push_back(%out_cb, %c1)
  }
  func.return
}

func.func @add_reader() attributes {ttkernel.thread = #ttkernel.thread<reader>} {
  %lhs_addr = ttkernel.get_arg_val(0)
  %rhs_addr = ttkernel.get_arg_val(1)
  %num_tiles = ttkernel.get_arg_val(2)
  %lhs_cb = ttkernel.get_compile_time_arg_val(0)
  %rhs_cb = ttkernel.get_compile_time_arg_val(1)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tile_bytes = ttkernel.get_tile_size(%lhs_cb)
  %lhs = ttkernel.get_interleaved_addr_gen_fast(%lhs_addr, %tile_bytes) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
  %rhs = ttkernel.get_interleaved_addr_gen_fast(%rhs_addr, %tile_bytes) format <bf16> : !ttkernel.interleaved_addr_gen_fast<dram>
  scf.for %tile = %c0 to %num_tiles step %c1 : i32 {
    ttkernel.cb_reserve_back(%lhs_cb, %c1)
    ttkernel.cb_reserve_back(%rhs_cb, %c1)
    %lhs_l1 = ttkernel.get_write_ptr(%lhs_cb)
    %rhs_l1 = ttkernel.get_write_ptr(%rhs_cb)
    ttkernel.noc_async_read_tile(%tile, %lhs, %lhs_l1) : !ttkernel.interleaved_addr_gen_fast<dram>
    ttkernel.noc_async_read_tile(%tile, %rhs, %rhs_l1) : !ttkernel.interleaved_addr_gen_fast<dram>
    ttkernel.noc_async_read_barrier()
    ttkernel.cb_push_back(%lhs_cb, %c1)
    ttkernel.cb_push_back(%rhs_cb, %c1)
  }
  func.return
}
"""


def translate(text: str) -> dict[str, str]:
    """C++ sources, by kernel name, of a ttkernel-stage module."""
    ctx = Context()
    register_dialects(ctx)
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertTTKernelToEmitCPass().apply(ctx, module)
    assert isinstance(module, ModuleOp)
    return translate_kernels(module)


def compile_errors(source: str, path: Path) -> str:
    """g++'s diagnostics for `source` against the emulator headers ('' if it compiles)."""
    path.write_text(source)
    result = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-Werror", f"-I{INCLUDE}", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return "" if result.returncode == 0 else result.stderr


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@needs_gxx
def test_add_kernels_compile(tmp_path: Path) -> None:
    sources = translate(ADD_KERNELS)
    assert sorted(sources) == ["add_compute", "add_reader"]
    assert "void kernel_main() {" in sources["add_compute"]
    assert "void kernel_main() {" in sources["add_reader"]
    for name, source in sources.items():
        assert compile_errors(source, tmp_path / f"{name}.cpp") == "", source


@needs_gxx
@pytest.mark.parametrize("ops_file", ["compute_ops.mlir", "dataflow_ops.mlir"])
def test_every_op_compiles(ops_file: str, tmp_path: Path) -> None:
    sources = translate((TTKERNEL_TESTS / ops_file).read_text())
    assert sources
    for name, source in sources.items():
        assert compile_errors(source, tmp_path / f"{name}.cpp") == "", source


@needs_gxx
def test_compile_errors_are_reported(tmp_path: Path) -> None:
    """The check above can fail: a call the headers do not declare is an error."""
    source = translate(ADD_KERNELS)["add_compute"].replace("add_tiles(", "add_tile(")
    assert "add_tile" in compile_errors(source, tmp_path / "broken.cpp")


@needs_gxx
def test_where_tile_names_its_dst_format(tmp_path: Path) -> None:
    """where_tile's format becomes tt-metal's template argument; the header takes
    Float16_b and Float32 and rejects at compile time the formats it cannot emulate."""
    source = translate((TTKERNEL_TESTS / "compute_ops.mlir").read_text())["compute"]
    assert '#include "api/compute/eltwise_unary/where.h"' in source
    assert "where_tile<DataFormat::Float16_b>(1, 0, 1, 0);" in source
    assert "where_tile<DataFormat::Float32>(0, 1, 0, 0);" in source
    broken = source.replace("where_tile<DataFormat::Float32>", "where_tile<DataFormat::Int32>")
    assert "where_tile: the emulator supports" in compile_errors(broken, tmp_path / "broken.cpp")


@needs_gxx
def test_copy_dest_values_takes_the_source_first(tmp_path: Path) -> None:
    """copy_dest_values<format>(idst_in, idst_out) is DST[idst_out] = DST[idst_in], as in
    tt-metal 0.81.1: the C++ call keeps the op's operand order, from its own header, and
    the headers declare the formatted two-index form and no other."""
    source = translate((TTKERNEL_TESTS / "compute_ops.mlir").read_text())["compute"]
    assert '#include "api/compute/copy_dest_values.h"' in source
    assert "copy_dest_values_init();\n" in source
    assert "copy_dest_values<DataFormat::Float16_b>(0, 1);" in source
    assert compile_errors(source, tmp_path / "ok.cpp") == ""
    for broken_call in ("copy_dest_values<DataFormat::Float16_b>(0, 1, 1);", "copy_dest_values(0, 1);"):
        broken = source.replace("copy_dest_values<DataFormat::Float16_b>(0, 1);", broken_call)
        assert "copy_dest_values" in compile_errors(broken, tmp_path / "broken.cpp")
