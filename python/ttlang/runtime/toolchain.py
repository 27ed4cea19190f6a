"""Building the emulator with the host g++, cached by content hash.

Two kinds of artifact live under $TTLANG_CACHE_DIR (default ~/.cache/ttlang):
- the runtime executable `ttemu-run`, built from lib/*.cpp against include/, keyed by
  the hash of every emulator source, the flags and the compiler;
- one shared object per kernel: the kernel source (plus compile-time args and kind)
  compiled against include/ and loaded by the runtime with dlopen(RTLD_LOCAL), so every
  kernel keeps its own symbols as a separate tt-metal kernel binary does.
Builds write to a temporary name and rename, so concurrent launches never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

from ttlang.runtime.errors import KernelCompileError, ToolchainError
from ttlang.runtime.program import Kernel

REPO_ROOT = Path(__file__).resolve().parents[3]
INCLUDE_DIR = REPO_ROOT / "include"
LIB_DIR = REPO_ROOT / "lib"
RUNTIME_FLAGS = ("-std=c++17", "-O3", "-march=native", "-fno-plt")
# A kernel links against nothing but libgcc: the C and C++ libraries its calls need are
# the runtime's, already loaded when it is dlopen'ed (linking them again was a third
# of a small kernel's build time).
KERNEL_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-nodefaultlibs")
KERNEL_LIBRARIES = ("-lgcc",)
BUILD_JOBS = max(1, min(4, os.cpu_count() or 1))
MISSING_COMPILER = (
    "g++ not found: the emulator compiles kernels with the host C++ compiler; "
    "install it (Debian/Ubuntu: apt-get install g++) or set CXX"
)


def cache_dir() -> Path:
    return Path(os.environ.get("TTLANG_CACHE_DIR", "~/.cache/ttlang")).expanduser()


@cache
def compiler() -> str:
    """The C++ compiler's path ($CXX or g++), or ToolchainError."""
    path = shutil.which(os.environ.get("CXX", "g++"))
    if path is None:
        raise ToolchainError(MISSING_COMPILER)
    return path


@cache
def _toolchain_identity() -> str:
    """Compiler version and host CPU flags: -march=native objects are not portable."""
    version = subprocess.run([compiler(), "--version"], capture_output=True, text=True).stdout
    cpu_flags = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        cpu_flags = next((l for l in cpuinfo.read_text().splitlines() if l.startswith("flags")), "")
    return version + cpu_flags


def _hash(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:24]


@cache
def headers_hash() -> str:
    headers = sorted(INCLUDE_DIR.rglob("*.h"))
    return _hash(*(p.relative_to(INCLUDE_DIR).as_posix() + p.read_text() for p in headers))


def _run_compiler(args: list[str], what: str, error: type[Exception]) -> None:
    result = subprocess.run([compiler(), *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise error(f"{what} failed to compile:\n{result.stderr.strip()}")


def _write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so a concurrent reader sees the old or the new file, whole."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as temporary:
        temporary.write(text)
    os.replace(temporary.name, path)


def _publish(built: Path, final: Path) -> Path:
    os.replace(built, final)
    return final


def runtime_executable() -> Path:
    """The emulator runtime `ttemu-run`, built on first use."""
    sources = sorted(LIB_DIR.glob("*.cpp"))
    lib_headers = sorted(LIB_DIR.glob("*.h"))
    key = _hash(
        headers_hash(),
        *(p.name + p.read_text() for p in sources + lib_headers),
        " ".join(RUNTIME_FLAGS),
        _toolchain_identity(),
    )
    final = cache_dir() / "runtime" / key / "ttemu-run"
    if final.exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent) as build:
        objects = [Path(build) / (s.stem + ".o") for s in sources]

        def compile_one(source: Path, obj: Path) -> None:
            _run_compiler(
                [*RUNTIME_FLAGS, f"-I{INCLUDE_DIR}", f"-I{LIB_DIR}", "-c", str(source), "-o", str(obj)],
                f"emulator runtime source {source.name}",
                ToolchainError,
            )

        with ThreadPoolExecutor(BUILD_JOBS) as pool:
            list(pool.map(compile_one, sources, objects))
        executable = Path(build) / "ttemu-run"
        _run_compiler(
            ["-rdynamic", *map(str, objects), "-o", str(executable), "-ldl", "-lpthread"],
            "linking the emulator runtime",
            ToolchainError,
        )
        return _publish(executable, final)


def kernel_library(kernel: Kernel, math_approx_mode: bool) -> Path:
    """The kernel compiled to a shared object exporting `ttemu_kernel_entry`."""
    args = ",".join(str(int(a) & 0xFFFFFFFF) for a in kernel.compile_time_args)  # uint32_t, as on hardware
    defines = [f"-DKERNEL_COMPILE_TIME_ARGS={args}"]
    if kernel.kind == "compute":
        defines.append(f"-DTTEMU_MATH_APPROX_MODE={int(math_approx_mode)}")
    key = _hash(
        headers_hash(), kernel.kind, kernel.source, *defines, " ".join(KERNEL_FLAGS + KERNEL_LIBRARIES),
        _toolchain_identity(),
    )
    directory = cache_dir() / "kernels"
    final = directory / f"{key}.so"
    if final.exists():
        return final
    directory.mkdir(parents=True, exist_ok=True)
    # The source keeps the kernel's name so compiler messages point at it.
    source = directory / f"{key}-{_safe(kernel.name)}.cpp"
    _write_atomically(source, kernel.source)
    wrapper = directory / f"{key}-entry.cpp"
    _write_atomically(
        wrapper,
        f'#include "{source.name}"\n'
        'extern "C" void ttemu_kernel_entry() { kernel_main(); }\n',
    )
    with tempfile.NamedTemporaryFile(dir=directory, suffix=".so", delete=False) as built:
        built_path = Path(built.name)
    try:
        _run_compiler(
            [*KERNEL_FLAGS, f"-I{INCLUDE_DIR}", *defines, str(wrapper), *KERNEL_LIBRARIES, "-o", str(built_path)],
            f"{kernel.kind} kernel '{kernel.name}'",
            KernelCompileError,
        )
    except BaseException:
        built_path.unlink(missing_ok=True)
        raise
    return _publish(built_path, final)


def kernel_libraries(kernels: list[Kernel], math_approx_mode: bool) -> list[Path]:
    """kernel_library for each kernel, compiled in parallel."""
    with ThreadPoolExecutor(BUILD_JOBS) as pool:
        return list(pool.map(lambda k: kernel_library(k, math_approx_mode), kernels))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
