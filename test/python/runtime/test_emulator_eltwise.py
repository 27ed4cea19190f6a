"""Eltwise add through the launcher on a 2x2 grid, against torch."""

import emulator_programs as programs
import torch
from emulator_checks import assert_close

from ttlang.runtime import run_program

def test_eltwise_add_matches_torch():
    torch.manual_seed(0)
    a = torch.randn(64, 128, dtype=torch.bfloat16)
    b = torch.randn(64, 128, dtype=torch.bfloat16)
    out = torch.zeros(64, 128, dtype=torch.bfloat16)

    result = run_program(programs.eltwise_add((64, 128), (2, 2)), {"a": a, "b": b, "out": out})

    expected = (a.float() + b.float()).to(torch.bfloat16)
    # One bf16 rounding of an exact fp32 sum: identical to torch's bf16 add.
    assert torch.equal(result.outputs["out"], expected)
    assert torch.equal(out, expected), "output not written in place"
    assert_close(result.outputs["out"], a.float() + b.float(), min_pcc=0.9999, max_abs=0.07)


def test_eltwise_add_report_accounts_every_thread():
    a = torch.ones(64, 128)
    program = programs.eltwise_add((64, 128), (2, 2))
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
    program = programs.eltwise_add((64, 128), (2, 2))
    first = run_program(program, tensors)
    second = run_program(program, tensors)
    assert torch.equal(first.outputs["out"], second.outputs["out"])
    assert [c.cycles for c in first.report.cores] == [c.cycles for c in second.report.cores]
