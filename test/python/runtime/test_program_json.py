"""The one serialization of a Program (`Program.to_json`/`from_json`), the schema the
emulator's loader (lib/program_loader.cpp) reads: round trips, and refusals of files it
cannot read, with the file and field named."""

from __future__ import annotations

import json
import subprocess

import pytest
import torch
from ttlang.device import load_device
from ttlang.runtime import toolchain
from ttlang.runtime.program import (
    PROGRAM_FORMAT,
    BufferAddress,
    CBConfig,
    ComputeConfig,
    DramBuffer,
    Kernel,
    NocCoordinate,
    Program,
)

from examples import eltwise_add, multicast


def bf16(*shape):
    return torch.zeros(*shape, dtype=torch.bfloat16)


def every_field_off_its_default() -> Program:
    """A program with every field set, each kind of runtime arg, a batch shape, a bfp8_b
    buffer and a negative int arg (two's complement on the device)."""
    return Program(
        grid=(2, 3),
        kernels=[
            Kernel("r", "reader", "void kernel_main() {}", (2, 7), noc=1),
            Kernel("c", "compute", "void kernel_main() { /* \"quoted\" \\ é */ }"),
            Kernel("w", "writer", "void kernel_main() {}", ()),
        ],
        cbs=[CBConfig(0, 2, 2048, "bf16", "a_cb"), CBConfig(16, 4, 1088, "bfp8_b", "out_cb")],
        buffers=[
            DramBuffer("a", (3, 64, 32), "fp32"),
            DramBuffer("out", (64, 64), "bfp8_b", is_input=False, is_output=True),
        ],
        runtime_args={
            "r": {(1, 2): [BufferAddress("a"), 5, -1], (0, 0): [NocCoordinate("x", 2), NocCoordinate("y", 1)]},
            "w": {(0, 1): [BufferAddress("out"), 0xFFFF_FFFF]},
        },
        compute_config=ComputeConfig("HiFi4", True, True, True),
        semaphores=[0, 3],
        device="p150",
    )


@pytest.mark.parametrize("which", ["every field", "eltwise_add", "multicast"])
def test_program_round_trips_through_json(which):
    if which == "every field":
        program = every_field_off_its_default()
    elif which == "eltwise_add":  # buffer-address args
        program = eltwise_add.add.compile(bf16(32, 32), bf16(32, 32), bf16(32, 32)).program
    else:  # NoC-coordinate args and semaphores
        program = multicast.broadcast_exp.compile(bf16(32, 192), bf16(32, 192)).program
    text = program.to_json()
    assert Program.from_json(text) == program
    assert Program.from_json(text).to_json() == text
    assert json.loads(text)["format"] == PROGRAM_FORMAT


def test_a_kernel_noc_is_0_or_1():
    with pytest.raises(ValueError, match="noc=2; a Tensix has NoC 0 and NoC 1"):
        Kernel("r", "reader", "void kernel_main() {}", noc=2)


def test_json_is_plain_data_with_the_documented_arg_forms():
    doc = json.loads(every_field_off_its_default().to_json())
    assert doc["runtime_args"]["r"] == [
        {"core": [0, 0], "args": [{"noc": "x", "index": 2}, {"noc": "y", "index": 1}]},
        {"core": [1, 2], "args": [{"buffer": "a"}, 5, -1]},
    ]
    assert doc["buffers"][0] == {
        "name": "a", "shape": [3, 64, 32], "data_format": "fp32", "is_input": True, "is_output": False
    }


def test_another_format_version_is_refused():
    doc = json.loads(every_field_off_its_default().to_json())
    doc["format"] = PROGRAM_FORMAT + 1
    with pytest.raises(ValueError, match=f"format {PROGRAM_FORMAT + 1}; this ttlang reads format {PROGRAM_FORMAT}"):
        Program.from_json(json.dumps(doc))


def run_emulator_on(tmp_path, program_doc: dict, launch_doc: dict) -> subprocess.CompletedProcess:
    (tmp_path / "program.json").write_text(json.dumps(program_doc))
    (tmp_path / "launch.json").write_text(json.dumps(launch_doc))
    return subprocess.run(
        [str(toolchain.runtime_executable()), str(tmp_path)], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "break_it, message",
    [
        (lambda p, l: p["cbs"][1].update(page_size="1088"),
         "program.json: cbs[1].page_size: expected an integer, found a string"),
        (lambda p, l: p["compute_config"].pop("math_fidelity"),
         "program.json: missing field 'compute_config.math_fidelity'"),
        (lambda p, l: p["buffers"][1].update(data_format="bf8"),
         "program.json: buffers[1].data_format: unknown data format 'bf8'"),
        # (no kernels to load: the args are resolved before they are handed to a kernel)
        (lambda p, l: p.update(kernels=[]) or p["runtime_args"]["r"][0]["args"].__setitem__(0, {"buffer": "b"}),
         "program.json: runtime_args.r[0].args[0].buffer: names unknown buffer 'b'"),
        (lambda p, l: p.update(format=PROGRAM_FORMAT + 1),
         f"program.json: format {PROGRAM_FORMAT + 1} is not the format this emulator reads"),
        (lambda p, l: l.pop("kernel_libraries"), "launch.json: missing field 'kernel_libraries'"),
    ],
)
def test_emulator_names_the_malformed_field(tmp_path, break_it, message):
    program_doc = json.loads(every_field_off_its_default().to_json())
    launch_doc = {
        "format": PROGRAM_FORMAT,
        "device_description": str(load_device("p150").path),
        "kernel_libraries": {},
        "stored_in": {},
        "initial_data": [],
        "read_back": [],
    }
    break_it(program_doc, launch_doc)
    result = run_emulator_on(tmp_path, program_doc, launch_doc)
    assert result.returncode != 0
    assert message in result.stderr


def test_emulator_reports_json_syntax_errors_with_line_and_column(tmp_path):
    (tmp_path / "program.json").write_text('{"format": 1,\n "grid": [1 1]}')
    result = subprocess.run(
        [str(toolchain.runtime_executable()), str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "program.json:2:13: expected ',' or ']' in an array" in result.stderr
