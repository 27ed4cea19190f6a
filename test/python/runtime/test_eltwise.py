"""Eltwise add through the launcher on a 2x2 grid, against torch."""

import torch
from conftest import assert_close, kernel

from ttlang.runtime import run_program
from ttlang.target.program import BufferAddress, CBConfig, DramBuffer, Program, tile_size_bytes

CB_A, CB_B, CB_OUT = 0, 1, 16


def eltwise_add_program(shape: tuple[int, int], grid: tuple[int, int]) -> Program:
    rows, cols = grid
    tiles = (shape[0] // 32) * (shape[1] // 32)
    cores = [(r, c) for r in range(rows) for c in range(cols)]
    per_core = tiles // len(cores)
    page = tile_size_bytes("bf16")
    starts = {core: i * per_core for i, core in enumerate(cores)}
    return Program(
        grid=grid,
        kernels=[
            kernel("reader_binary.cpp", "reader", CB_A, CB_B),
            kernel("compute_eltwise_add.cpp", "compute", CB_A, CB_B, CB_OUT),
            kernel("writer_unary.cpp", "writer", CB_OUT, 2),
        ],
        cbs=[CBConfig(CB_A, 2, page), CBConfig(CB_B, 2, page), CBConfig(CB_OUT, 2, page)],
        buffers=[
            DramBuffer("a", shape),
            DramBuffer("b", shape),
            DramBuffer("out", shape, is_input=False, is_output=True),
        ],
        runtime_args={
            "reader_binary": {
                core: [BufferAddress("a"), BufferAddress("b"), starts[core], per_core] for core in cores
            },
            "compute_eltwise_add": {core: [per_core] for core in cores},
            "writer_unary": {core: [BufferAddress("out"), starts[core], per_core] for core in cores},
        },
    )


def test_eltwise_add_matches_torch():
    torch.manual_seed(0)
    a = torch.randn(64, 128, dtype=torch.bfloat16)
    b = torch.randn(64, 128, dtype=torch.bfloat16)
    out = torch.zeros(64, 128, dtype=torch.bfloat16)

    result = run_program(eltwise_add_program((64, 128), (2, 2)), {"a": a, "b": b, "out": out})

    expected = (a.float() + b.float()).to(torch.bfloat16)
    # One bf16 rounding of an exact fp32 sum: identical to torch's bf16 add.
    assert torch.equal(result.outputs["out"], expected)
    assert torch.equal(out, expected), "output not written in place"
    assert_close(result.outputs["out"], a.float() + b.float(), min_pcc=0.9999, max_abs=0.07)


def test_eltwise_add_report_accounts_every_thread():
    a = torch.ones(64, 128)
    program = eltwise_add_program((64, 128), (2, 2))
    report = run_program(program, {"a": a, "b": a, "out": torch.zeros(64, 128)}).report

    assert report.grid == (2, 2) and len(report.cores) == 4
    for core in report.cores:
        assert {t.thread for t in core.threads} == {"reader", "compute", "writer"}
        for thread in core.threads:
            assert thread.cycles == thread.busy + thread.waiting
        assert core.cycles == max(t.cycles for t in core.threads)
    assert report.cycles == max(c.cycles for c in report.cores)
    assert report.flops == 0
    # Reads and writes of 8 bf16 tiles per tensor.
    assert report.dram_bytes_read == 2 * 8 * 2048
    assert report.dram_bytes_written == 8 * 2048
    assert "critical core" in str(report)


def test_run_is_deterministic():
    torch.manual_seed(1)
    tensors = {"a": torch.randn(64, 128), "b": torch.randn(64, 128), "out": torch.zeros(64, 128)}
    program = eltwise_add_program((64, 128), (2, 2))
    first = run_program(program, tensors)
    second = run_program(program, tensors)
    assert torch.equal(first.outputs["out"], second.outputs["out"])
    assert [c.cycles for c in first.report.cores] == [c.cycles for c in second.report.cores]
