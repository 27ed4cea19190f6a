"""The launcher's contract: target selection, the hardware target without ttnn, a
missing g++, tensors by name or position, and the report's table."""

import emulator_programs as programs
import pytest
import torch

from ttlang.runtime import (
    HardwareUnavailableError,
    RuntimeLaunchError,
    ToolchainError,
    run_program,
    selected_target,
)
from ttlang.runtime import hardware, toolchain

SHAPE = (32, 64)


def add_tensors():
    return [torch.ones(SHAPE), torch.full(SHAPE, 2.0), torch.zeros(SHAPE)]


def test_target_defaults_to_the_emulator_and_follows_the_environment(monkeypatch):
    monkeypatch.delenv("TTLANG_TARGET")
    assert selected_target() == "emulator"
    monkeypatch.setenv("TTLANG_TARGET", "hardware")
    assert selected_target() == "hardware"
    assert selected_target("emulator") == "emulator"
    with pytest.raises(RuntimeLaunchError, match="unknown target 'gpu'; choose one of: emulator, hardware"):
        selected_target("gpu")


@pytest.mark.skipif(hardware.is_available(), reason="ttnn is installed: the no-ttnn message does not apply")
def test_hardware_target_without_ttnn_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "hardware")
    with pytest.raises(HardwareUnavailableError, match="needs ttnn and a Tenstorrent device, and ttnn is not installed"):
        run_program(programs.eltwise_add(SHAPE, (1, 1)), add_tensors())


@pytest.mark.skipif(not hardware.is_available(), reason="no ttnn / Tenstorrent device on this machine")
def test_eltwise_add_on_hardware():
    result = run_program(programs.eltwise_add(SHAPE, (1, 1)), add_tensors(), target="hardware")
    assert torch.equal(result.outputs["out"].float(), torch.full(SHAPE, 3.0))


def test_missing_compiler_names_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", "no-such-g++")
    monkeypatch.setenv("TTLANG_CACHE_DIR", str(tmp_path))  # nothing cached: a build is needed
    toolchain.compiler.cache_clear()
    try:
        with pytest.raises(ToolchainError) as caught:
            run_program(programs.eltwise_add(SHAPE, (1, 1)), add_tensors())
    finally:
        toolchain.compiler.cache_clear()
    message = str(caught.value)
    assert "\n" not in message and "install it (Debian/Ubuntu: apt-get install g++)" in message


def test_tensors_by_position_and_shape_check():
    program = programs.eltwise_add(SHAPE, (1, 1))
    result = run_program(program, add_tensors())
    assert torch.equal(result.outputs["out"].float(), torch.full(SHAPE, 3.0))
    with pytest.raises(RuntimeLaunchError, match=r"2 tensors given for 3 buffers \(a, b, out\)"):
        run_program(program, add_tensors()[:2])
    with pytest.raises(RuntimeLaunchError, match=r"tensor for buffer 'a' has shape \(32, 32\), the program expects \(32, 64\)"):
        run_program(program, [torch.ones(32, 32), *add_tensors()[1:]])


def test_report_table_lists_every_core_and_thread():
    report = run_program(programs.eltwise_add((64, 64), (2, 2)), [torch.ones(64, 64)] * 2 + [torch.zeros(64, 64)]).report
    table = str(report)
    assert table.startswith(f"grid 2x2, HiFi2: {report.cycles} cycles")
    assert "reader busy/wait" in table and "compute busy/wait" in table and "writer busy/wait" in table
    for row in range(2):
        for col in range(2):
            assert f"({row},{col})" in table
    assert report.host_seconds > 0
