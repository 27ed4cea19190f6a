"""ttlang-conformance: compile generated kernels against the real tt-metal headers of the
release the compiler follows (`TT_METAL_RELEASE`), the way tt-metal's JIT would.

    ttlang-conformance            # every kernel of every example and of FlashAttention

The headers come from the ttnn wheel on PyPI (`pip download --no-deps`, cached under
the ttlang cache dir, `$TTLANG_CACHE_DIR/tt-metal/<release>`); only its `tt_metal/`
headers are unpacked. Each kernel is compiled with the host g++ in `-fsyntax-only`
mode through the release's own firmware wrapper (tt_metal/hw/firmware/src/tt-1xx/
brisck.cc, ncrisck.cc, trisck.cc), once per processor that runs it, with the defines
and include paths tt-metal's JIT gives that processor on a Wormhole:

- reader and writer: BRISC (NoC 0) and NCRISC (NoC 1);
- compute: TRISC0 (unpack), TRISC1 (math), TRISC2 (pack).

What the JIT generates and what the RISC-V SFPI toolchain provides is not in the wheel;
the check writes the smallest stand-ins (docs/hardware.md lists each and what it costs
the check): the JIT's `defines_generated.h`, `chlkc_descriptors.h` (formats from the
program's CBs, math fidelity, approximation and DST mode from its compute config),
`chlkc_{unpack,math,pack}.cpp` and `kernel_includes.hpp`; the toolchain's `sfpi.h` and
`lltt.h` (tt_metal_standins/), and its `__riscv_xtttensixwh` macro. The host is 64-bit
where the RISC-V cores are 32-bit: `-fpermissive` lets the headers cast L1 pointers to
`uint32_t`. GCC before 13 rejects `static_assert(false, ...)` in a discarded
`if constexpr` branch (C++23 allows it; the JIT's compiler does): such an error inside
the release's headers is not counted.

A kernel passes when no processor's compile reports an error; passes are cached (keyed
by everything the compile reads), so a rerun only compiles what changed. When the
registry cannot be reached, `ConformanceUnavailable` says so in one line.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ttlang.conversion.ttkernel_to_emitc import TT_METAL_RELEASE
from ttlang.runtime import toolchain
from ttlang.runtime.program import Kernel, Program

STANDINS = Path(__file__).resolve().parent / "tt_metal_standins"
WHEEL_PYTHON = "3.12"
WHEEL_PLATFORM = "manylinux_2_34_x86_64"
# The parts of the wheel's tt_metal/ that kernel compiles read.
HEADER_TREES = ("hw/", "tt-llk/", "hostdevcommon/", "api/")

# tt-metal's JIT include paths for a Wormhole Tensix core (jit_build/build.cpp and
# llrt/hal/tt-1xx/wormhole/wh_hal.cpp), relative to the wheel's ttnn/ directory.
_COMMON_INCLUDES = (
    "",
    "tt_metal",
    "tt_metal/hw/inc",
    "tt_metal/hostdevcommon/api",
    "tt_metal/api",
    "tt_metal/hw/ckernels/wormhole_b0/metal/common",
    "tt_metal/hw/ckernels/wormhole_b0/metal/llk_io",
    "tt_metal/hw/inc/internal/tt-1xx",
    "tt_metal/hw/inc/internal/tt-1xx/wormhole",
    "tt_metal/hw/inc/internal/tt-1xx/wormhole/wormhole_b0_defines",
    "tt_metal/hw/inc/internal/tt-1xx/wormhole/noc",
    "tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc",
    "tt_metal/tt-llk/tt_llk_wormhole_b0/llk_lib",
    "tt_metal/tt-llk/common",
    "tt_metal/tt-llk/tools/include",
    "tt_metal/hw/firmware/src/tt-1xx",
)
_COMPUTE_INCLUDES = (
    "tt_metal/hw/ckernels/wormhole_b0/metal/llk_api",
    "tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu",
)
# Defines the JIT gives every Wormhole kernel. The bank counts and the PCIe tile's NoC
# position size arrays and address tables; a syntax check needs them defined, not
# exact (n150: 12 DRAM banks, 64 worker L1 banks, PCIe at NoC (0, 3)).
_COMMON_DEFINES = (
    "ARCH_WORMHOLE",
    "TENSIX_FIRMWARE",
    "LOCAL_MEM_EN=0",
    "KERNEL_BUILD",
    "NUM_DRAM_BANKS=12",
    "IS_NOT_POW2_NUM_DRAM_BANKS=1",
    "NUM_L1_BANKS=64",
    "LOG_BASE_2_OF_NUM_L1_BANKS=6",
    "PCIE_NOC_X=0",
    "PCIE_NOC_Y=3",
    "PROGRAMMABLE_CORE_TYPE=0",
    "DISPATCH_MESSAGE_ADDR=0",
)


@dataclass(frozen=True)
class Processor:
    """One RISC-V processor of a Tensix core and how the JIT builds a kernel for it."""

    name: str
    firmware: str  # the wrapper in tt_metal/hw/firmware/src/tt-1xx/
    defines: tuple[str, ...]
    compute: bool


PROCESSORS = (
    Processor("BRISC", "brisck.cc", ("COMPILE_FOR_BRISC", "PROCESSOR_INDEX=0", "NOC_INDEX=0", "NOC_MODE=0"), False),
    Processor("NCRISC", "ncrisck.cc", ("COMPILE_FOR_NCRISC", "PROCESSOR_INDEX=1", "NOC_INDEX=1", "NOC_MODE=0"), False),
    Processor("TRISC0", "trisck.cc", ("UCK_CHLKC_UNPACK", "NAMESPACE=chlkc_unpack", "COMPILE_FOR_TRISC=0", "PROCESSOR_INDEX=2"), True),
    Processor("TRISC1", "trisck.cc", ("UCK_CHLKC_MATH", "NAMESPACE=chlkc_math", "COMPILE_FOR_TRISC=1", "PROCESSOR_INDEX=3"), True),
    Processor("TRISC2", "trisck.cc", ("UCK_CHLKC_PACK", "NAMESPACE=chlkc_pack", "COMPILE_FOR_TRISC=2", "PROCESSOR_INDEX=4"), True),
)
_TRISC_STAGES = {"TRISC0": "UNPACK", "TRISC1": "MATH", "TRISC2": "PACK"}

# tt-metal's DataFormat codes and MathFidelity values.
_DATA_FORMAT_CODE = {"fp32": 0, "bf16": 5, "bfp8_b": 6}
_INVALID_FORMAT = 255
_MATH_FIDELITY = {"LoFi": 0, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}


class ConformanceUnavailable(Exception):
    """The release's headers cannot be had here (no registry, no pip, no g++)."""


@dataclass(frozen=True)
class Failure:
    """A kernel that does not compile for `processor`: g++'s errors."""

    program: str
    kernel: str
    processor: str
    errors: str

    def __str__(self) -> str:
        return f"{self.program}: kernel '{self.kernel}' on {self.processor}:\n{self.errors}"


# ------------------------------------------------------------------------------ headers


def release_dir(release: str = TT_METAL_RELEASE) -> Path:
    return toolchain.cache_dir() / "tt-metal" / release


def tt_metal_root(release: str = TT_METAL_RELEASE) -> Path:
    """The unpacked wheel's ttnn/ directory (holding tt_metal/), fetched on first use.
    Each fetch downloads and unpacks in a directory of its own and renames the result
    into place, so concurrent test runs sharing the cache never see half a tree."""
    root = release_dir(release) / "ttnn"
    if root.is_dir():
        return root
    release_dir(release).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=release_dir(release), prefix="fetch-") as fetch_dir:
        fetch = Path(fetch_dir)
        wheel = _download_wheel(release, fetch)
        with zipfile.ZipFile(wheel) as archive:
            members = [
                m for m in archive.namelist()
                if any(m.startswith(f"ttnn/tt_metal/{tree}") for tree in HEADER_TREES)
            ]
            archive.extractall(fetch, members)
        try:
            (fetch / "ttnn").rename(root)
        except OSError:  # another run put its tree in place first
            if not root.is_dir():
                raise
    return root


def _download_wheel(release: str, directory: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
        f"ttnn=={release}", "--python-version", WHEEL_PYTHON, "--platform", WHEEL_PLATFORM,
        "--only-binary=:all:", "-d", str(directory),
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConformanceUnavailable(f"pip download of ttnn=={release} did not finish: {error}") from None
    wheels = sorted(directory.glob(f"ttnn-{release}-*.whl"))
    if result.returncode != 0 or not wheels:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"pip exited with {result.returncode}"
        raise ConformanceUnavailable(f"could not download ttnn=={release} with pip ({reason})")
    return wheels[0]


# ------------------------------------------------------------------------------ compiles


def chlkc_descriptors(program: Program) -> str:
    """The JIT's per-program compute descriptor: CB formats and the compute config."""
    formats = [_INVALID_FORMAT] * 32
    for cb in program.cbs:
        formats[cb.index] = _DATA_FORMAT_CODE[cb.data_format]
    config = program.compute_config

    def array(type_: str, name: str, values: Iterable[int]) -> str:
        return f"constexpr {type_} {name}[32] = {{{', '.join(map(str, values))}}};"

    format_list = ", ".join(map(str, formats))
    lines = [
        "// Stand-in for the JIT's chlkc_descriptors.h (generated per program).",
        "#pragma once",
        "#include <cstdint>",
        "#include \"llk_defs.h\"",
        f"constexpr ckernel::MathFidelity MATH_FIDELITY = static_cast<ckernel::MathFidelity>({_MATH_FIDELITY[config.math_fidelity]});",
        f"constexpr bool APPROX = {str(config.math_approx_mode).lower()};",
        f"constexpr bool DST_ACCUM_MODE = {str(config.fp32_dest_acc_en).lower()};",
        f"#define DST_SYNC_MODE DstSync::Sync{'Full' if config.dst_full_sync_en else 'Half'}",
        "constexpr bool UnpackToDestEn = false;",
    ]
    for side in ("unpack", "pack"):
        for kind in ("src", "dst"):
            lines.append(f"constexpr std::int32_t {side}_{kind}_format[32] = {{{format_list}}};")
        for name, value in (
            ("tile_num_faces", 4), ("partial_face", 0), ("tile_face_r_dim", 16), ("narrow_tile", 0),
            ("tile_r_dim", 32), ("tile_c_dim", 32), ("num_faces_r_dim", 2), ("num_faces_c_dim", 2),
        ):
            lines.append(array("std::uint8_t", f"{side}_{name}", [value] * 32))
        sizes = [0] * 32
        for cb in program.cbs:
            sizes[cb.index] = cb.page_size
        lines.append(array("std::uint32_t", f"{side}_tile_size", sizes))
    return "\n".join(lines) + "\n"


def _generated_headers(kernel: Kernel, program: Program, work: Path) -> None:
    """The files the JIT writes next to a kernel, as stand-ins."""
    (work / "kernel.cpp").write_text(kernel.source)
    (work / "kernel_includes.hpp").write_text('#include "kernel.cpp"\n')
    (work / "defines_generated.h").write_text("// Stand-in: the JIT's kernel defines (ttlang passes none).\n")
    if kernel.kind == "compute":
        (work / "chlkc_descriptors.h").write_text(chlkc_descriptors(program))
        for stage in _TRISC_STAGES.values():
            (work / f"chlkc_{stage.lower()}.cpp").write_text(
                f'#define TRISC_{stage}\n#include "defines_generated.h"\n#include "kernel_includes.hpp"\n'
            )


def compile_command(root: Path, processor: Processor, kernel: Kernel, work: Path) -> list[str]:
    args = ",".join(str(int(a) & 0xFFFFFFFF) for a in kernel.compile_time_args)
    includes = [work, STANDINS, *(root / p for p in _COMMON_INCLUDES)]
    if processor.compute:
        includes += [root / p for p in _COMPUTE_INCLUDES]
    defines = [*_COMMON_DEFINES, *processor.defines, f"KERNEL_COMPILE_TIME_ARGS={args}"]
    if processor.compute:
        defines.append("__riscv_xtttensixwh=1")  # the SFPI compiler's Tensix target macro
    return [
        toolchain.compiler(), "-std=c++17", "-fsyntax-only", "-fpermissive", "-w",
        *(f"-D{d}" for d in defines), *(f"-I{p}" for p in includes),
        str(root / "tt_metal/hw/firmware/src/tt-1xx" / processor.firmware),
    ]


_ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<message>.*)$", re.M)


def _counted_errors(output: str, root: Path) -> list[str]:
    """g++'s error lines, less GCC<13's rejection of `static_assert(false, ...)` in the
    release's own headers (see the module docstring)."""
    errors = []
    for match in _ERROR.finditer(output):
        path = Path(match["path"])
        if root in path.parents and "static assertion failed" in match["message"]:
            lines = path.read_text(errors="replace").splitlines()
            if "static_assert(false" in lines[int(match["line"]) - 1]:
                continue
        errors.append(match.group(0))
    return errors


def processors_for(kernel: Kernel) -> tuple[Processor, ...]:
    return tuple(p for p in PROCESSORS if p.compute == (kernel.kind == "compute"))


def check_kernel(root: Path, program_name: str, program: Program, kernel: Kernel) -> list[Failure]:
    """Compiles `kernel` once per processor that runs it; the failures."""
    failures = []
    for processor in processors_for(kernel):
        with tempfile.TemporaryDirectory(prefix="ttlang-conformance-") as work_dir:
            work = Path(work_dir)
            _generated_headers(kernel, program, work)
            command = compile_command(root, processor, kernel, work)
            key = _cache_key(command, work)
            passed = release_dir() / "passed" / key
            if passed.exists():
                continue
            result = subprocess.run(command, capture_output=True, text=True, timeout=600)
            errors = _counted_errors(result.stdout + result.stderr, root)
            if errors or (result.returncode != 0 and not _ERROR.search(result.stderr)):
                shown = "\n".join(errors) or result.stderr.strip()
                failures.append(Failure(program_name, kernel.name, processor.name, shown.replace(work_dir, "<kernel>")))
            else:
                passed.parent.mkdir(parents=True, exist_ok=True)
                passed.touch()
    return failures


def _cache_key(command: list[str], work: Path) -> str:
    digest = hashlib.sha256()
    for part in command:
        digest.update(part.replace(str(work), "<work>").encode() + b"\0")
    for path in sorted(work.iterdir()) + sorted(STANDINS.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(_compiler_version().encode())
    return digest.hexdigest()


@cache
def _compiler_version() -> str:
    return subprocess.run([toolchain.compiler(), "--version"], capture_output=True, text=True).stdout


def check_programs(programs: dict[str, Program], jobs: int = 2) -> list[Failure]:
    """Every kernel of every program against the release's headers; the failures."""
    root = tt_metal_root()
    work = [(name, program, kernel) for name, program in programs.items() for kernel in program.kernels]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda item: check_kernel(root, *item), work)
        return [failure for failures in results for failure in failures]


# ------------------------------------------------------------------------------ kernels


def example_programs() -> dict[str, Program]:
    """The programs of every example and of FlashAttention (causal or not, its implicit
    and explicit kernels, K/V read per core or shared by a grid row through multicast),
    compiled; needs the repository root on the import path (examples/)."""
    import torch

    from examples import (
        causal_mask,
        eltwise_add,
        fused_chain,
        matmul,
        matmul_implicit,
        multicast,
        softmax,
    )
    from examples import flash_attention as fa

    def bf16(*shape: int) -> torch.Tensor:
        return torch.zeros(*shape, dtype=torch.bfloat16)

    programs = {
        "causal_mask": causal_mask.masked_scores.compile(*(bf16(*causal_mask.SHAPE) for _ in range(2))).program,
        "eltwise_add": eltwise_add.add.compile(bf16(32, 32), bf16(32, 32), bf16(32, 32)).program,
        "fused_chain": fused_chain.fused_chain.compile(*(bf16(64, 64) for _ in range(4))).program,
        "matmul": matmul.matmul.compile(bf16(256, 512), bf16(512, 256), bf16(256, 256)).program,
        "matmul_implicit": matmul_implicit.matmul_kernel((4, 4), 2, 4, 1)
        .compile(bf16(256, 256), bf16(256, 256), bf16(256, 256))
        .program,
        "multicast": multicast.broadcast_exp.compile(bf16(32, 192), bf16(32, 192)).program,
        "softmax": softmax.softmax.compile(bf16(64, 128), bf16(64, 128)).program,
    }
    variants = [("full", False, "implicit"), ("full", False, "explicit"), ("causal", True, "explicit")]
    for mask, causal, kernel in variants:
        for reads, grid in (("per_core", (1, 1)), ("shared", (2, 2))):
            attention = fa.compile_flash_attention(
                (1, 2, 256, 64), causal=causal, grid=grid, q_chunk=128, k_chunk=64, kernel=kernel
            )
            programs[f"flash_attention_{mask}_{kernel}_{reads}"] = attention.artifact.program
    # bfp8_b K and V: the compute kernel reconfigures the unpackers' data formats
    attention = fa.compile_flash_attention(
        (1, 2, 256, 64), causal=False, grid=(1, 1), q_chunk=128, k_chunk=64, kv_dtype="bfloat8_b"
    )
    programs["flash_attention_full_bfp8_kv"] = attention.artifact.program
    return programs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ttlang-conformance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="compiles at a time (default 2)")
    options = parser.parse_args(argv)
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        print("ttlang-conformance: skipped: no C++ compiler (g++)")
        return 0
    sys.path.insert(0, str(Path.cwd()))
    programs = example_programs()
    try:
        failures = check_programs(programs, options.jobs)
    except ConformanceUnavailable as error:
        print(f"ttlang-conformance: skipped: {error}")
        return 0
    kernels = sum(len(p.kernels) for p in programs.values())
    for failure in failures:
        print(failure, file=sys.stderr)
    verdict = "FAILED" if failures else "ok"
    print(f"ttlang-conformance: {verdict}: {kernels} kernels of {len(programs)} programs against "
          f"tt-metal {TT_METAL_RELEASE} headers, {len(failures)} compile(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
