"""Every generated kernel compiles against the real headers of the tt-metal release the
compiler follows (ttlang.tools.tt_metal_conformance), and the check catches calls that
release does not have.

The first run downloads the ttnn wheel (about 100 MB) into the ttlang cache; without
a registry the tests skip with the reason in one line.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil

import pytest

from ttlang.conversion.ttkernel_to_emitc import TT_METAL_RELEASE
from ttlang.runtime.program import Program
from ttlang.tools import tt_metal_conformance as conformance

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@functools.cache
def programs() -> dict[str, Program]:
    return conformance.example_programs()


@functools.cache
def headers_or_skip_reason() -> str | None:
    try:
        conformance.tt_metal_root()
    except conformance.ConformanceUnavailable as error:
        return f"tt-metal {TT_METAL_RELEASE} conformance skipped: {error}"
    return None


def check(named: dict[str, Program]) -> list[conformance.Failure]:
    reason = headers_or_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    return conformance.check_programs(named)


def with_source_edit(program: Program, kind: str, old: str, new: str) -> Program:
    """`program` with the first `old` in its `kind` kernel's source replaced by `new`."""
    kernels = []
    for kernel in program.kernels:
        if kernel.kind == kind:
            assert old in kernel.source, f"{old!r} is not in the {kind} kernel"
            kernel = dataclasses.replace(kernel, source=kernel.source.replace(old, new, 1))
        kernels.append(kernel)
    return dataclasses.replace(program, kernels=kernels)


def test_the_programs_cover_flash_attention_with_and_without_multicast():
    names = set(programs())
    for kind in ("full_implicit", "full_explicit", "causal_explicit"):
        shared = programs()[f"flash_attention_{kind}_shared"]
        per_core = programs()[f"flash_attention_{kind}_per_core"]
        assert any("noc_async_write_multicast(" in k.source for k in shared.kernels)
        assert not any("noc_async_write_multicast(" in k.source for k in per_core.kernels)
    assert {"eltwise_add", "fused_chain", "matmul", "matmul_implicit", "multicast", "softmax"} <= names


def test_every_generated_kernel_compiles_against_the_release_headers():
    failures = check(programs())
    assert not failures, "\n\n".join(map(str, failures))


@pytest.mark.parametrize(
    ("kind", "old", "new", "message"),
    [
        # tt-metal 0.81.1 renamed mm_init (matmul_init) and removed the old name
        ("compute", "matmul_init(", "mm_init(", ("mm_init", "was not declared")),
        # 0.81.1's matmul_tiles lost its transpose argument (matmul_init has it)
        ("compute", "matmul_tiles(", "matmul_tiles(0, ", ("matmul_tiles", "too many arguments")),
        # a data-movement call the release does not declare
        ("reader", "noc_async_write_multicast(", "noc_async_write_multicast_mcast(", ("was not declared",)),
    ],
    ids=["removed-name", "compute-arg-count", "dataflow-name"],
)
def test_a_wrong_call_fails_the_check(kind, old, new, message):
    broken = with_source_edit(programs()["flash_attention_full_explicit_shared"], kind, old, new)
    failures = check({"broken": broken})
    processors = {"compute": {"TRISC0", "TRISC1", "TRISC2"}, "reader": {"BRISC", "NCRISC"}}[kind]
    assert {f.processor for f in failures} == processors
    assert all(part in f.errors for f in failures for part in message)


def test_a_dataflow_call_with_too_few_arguments_fails_the_check():
    program = programs()["multicast"]
    reader = next(k for k in program.kernels if k.kind == "reader")
    call = next(line.strip() for line in reader.source.splitlines() if "noc_async_write_multicast(" in line)
    fewer = call[: call.rindex(",")] + ");"
    failures = check({"broken": with_source_edit(program, "reader", call, fewer)})
    assert {f.processor for f in failures} == {"BRISC", "NCRISC"}
    assert all("noc_async_write_multicast" in f.errors for f in failures)


def test_the_descriptor_follows_the_program():
    program = programs()["flash_attention_causal_explicit_shared"]
    text = conformance.chlkc_descriptors(program)
    assert "constexpr bool APPROX = true;" in text  # FlashAttention approximates exp
    assert "#define DST_SYNC_MODE DstSync::SyncHalf" in text
    formats = text.split("unpack_src_format[32] = {")[1].split("}")[0].split(", ")
    assert [int(formats[cb.index]) for cb in program.cbs] == [5] * len(program.cbs)  # Float16_b
    assert formats.count("255") == 32 - len(program.cbs)
