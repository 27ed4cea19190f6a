"""The device descriptions: they load, hold the published facts, reject typos, and the
compiler and the emulator both use the one the kernel names."""

from __future__ import annotations

import pytest
import torch

from ttlang import CircularBuffer, Program, TensorAccessor, compute, core_index, datamovement, dma
from ttlang import pykernel_gen
from ttlang.device import DeviceDescriptionError, available_devices, load_description, load_device
from ttlang.dialects.ttcore import DeviceAttr, device_of
from ttlang.dsl.diagnostics import KernelError

TILE = 32


def test_every_description_loads():
    assert {"n150", "p150"} <= set(available_devices())
    for name in available_devices():
        device = load_device(name)
        assert device.name == name
        rows, cols = device.grid.compute_grid
        # every logical core has a distinct NoC position on a Tensix row and column
        positions = {device.grid.noc_coordinates(r, c) for r in range(rows) for c in range(cols)}
        assert len(positions) == rows * cols
        assert all(x in device.grid.tensix_x and y in device.grid.tensix_y for x, y in positions)


def test_n150_matches_the_wormhole_soc_descriptor():
    n150 = load_device("n150")
    assert n150.grid.compute_grid == (8, 8)
    # tt-metal wormhole_b0_80_arch.yaml: Tensix x 1-4, 6-9; y 1-5, 7-11
    assert n150.grid.noc_coordinates(0, 0) == (1, 1)
    assert n150.grid.noc_coordinates(0, 4) == (6, 1)
    assert n150.grid.noc_coordinates(5, 0) == (1, 7)
    assert n150.grid.noc_coordinates(7, 7) == (9, 9)
    assert n150.dram.banks == 12 and n150.dram.bank_noc[0] == (0, 11)
    assert n150.l1.size_bytes == 1464 * 1024
    assert n150.dst.capacity_tiles(fp32_dest_acc_en=False, dst_full_sync_en=False) == 8
    assert n150.dst.capacity_tiles(fp32_dest_acc_en=True, dst_full_sync_en=True) == 8
    assert n150.peak_flops_per_cycle("HiFi2") == 2048


def test_unknown_device_names_the_known_ones():
    with pytest.raises(DeviceDescriptionError, match="no description of device 'n151'.*n150"):
        load_device("n151")


def test_a_misspelled_key_is_an_error(tmp_path):
    text = load_device("n150").path.read_text().replace("max_cbs = 32", "max_cb = 32")
    (tmp_path / "typo.toml").write_text(text)
    with pytest.raises(DeviceDescriptionError, match="missing key 'max_cbs'"):
        load_description(tmp_path / "typo.toml")


def copy_kernel(grid, device):
    @pykernel_gen(grid=grid, block_factors=[(1, 1), (1, 1)], device=device)
    def copy(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[core_index(0), core_index(1)], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[core_index(0), core_index(1)]).wait()

        return Program(apply, reader, writer)(x, out)

    return copy


def test_the_compiler_and_the_emulator_use_the_named_device(monkeypatch):
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
    p150 = load_device("p150")
    grid = p150.grid.compute_grid  # 9x14: more cores than an n150 has
    x = torch.randn(grid[0] * TILE, grid[1] * TILE).to(torch.bfloat16)
    out = torch.zeros_like(x)
    artifact = copy_kernel(grid, "p150").compile(x, out)
    assert artifact.program.device == "p150"
    assert "#ttcore.device<p150, grid = 9x14" in artifact.stages["frontend"]
    artifact.run([x, out])
    assert torch.equal(out, x)
    report = artifact.perf()
    assert report.clock_hz == p150.clock_hz  # the emulator read the same file
    assert report.grid == grid


def test_a_grid_beyond_the_device_is_rejected():
    x = torch.zeros(9 * TILE, 14 * TILE, dtype=torch.bfloat16)
    with pytest.raises(KernelError, match="larger than the device's 8x8 cores"):
        copy_kernel((9, 14), "n150").compile(x, torch.zeros_like(x))


def test_device_of_defaults_to_n150():
    from xdsl.dialects.builtin import ModuleOp

    module = ModuleOp([])
    assert device_of(module) == DeviceAttr.from_description(load_device("n150"))
