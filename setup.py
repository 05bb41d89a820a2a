"""Builds the optional native engine, `spiel_bounded.native._engine` (C++17, pybind11).

Everything else is declared in pyproject.toml. The extension compiles against the C++ headers that
the installed `open_spiel` wheel ships and resolves OpenSpiel's symbols from the already loaded
`pyspiel.so` at import time (see `spiel_bounded/native/__init__.py`), so it never links a second
copy of OpenSpiel. It is optional: where it cannot be built (no C++ compiler), installation goes on
without it and the package runs on its Python engines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

SOURCE_DIR = Path("spiel_bounded/native/src")
SOURCES = sorted(str(path) for path in SOURCE_DIR.glob("*.cc"))
PRECOMPILED = "precompiled.h"


def _open_spiel_root() -> Path:
    """The directory holding the `open_spiel` package (the headers' include root)."""
    spec = find_spec("open_spiel")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("building the native engine needs open_spiel installed")
    return Path(next(iter(spec.submodule_search_locations))).parent


def _flags() -> list[str]:
    root = _open_spiel_root()
    # Third-party headers as system headers: our own code is held warning-clean, theirs is not.
    system = [root, root / "open_spiel" / "abseil-cpp", root / "open_spiel" / "json" / "include"]
    flags = [arg for path in system for arg in ("-isystem", str(path))]
    flags += ["-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    flags += os.environ.get("SPIEL_BOUNDED_NATIVE_FLAGS", "").split()
    return flags


class BuildWithPrecompiledHeader(build_ext):
    """Compiles `precompiled.h` once with the sources' own command and flags, then puts it in
    front of every source (`-include`): GCC reads the `.gch` beside it instead of parsing the
    headers again. Where that cannot be built, the sources compile as they are."""

    def build_extension(self, ext: Any) -> None:
        directory = Path(self.build_temp) / "precompiled"
        directory.mkdir(parents=True, exist_ok=True)
        header = directory / PRECOMPILED
        compiler = getattr(self.compiler, "compiler_so_cxx", None) or self.compiler.compiler_so
        includes = [f"-I{path}" for path in [*ext.include_dirs, *self.compiler.include_dirs]]
        macros = [
            f"-D{name}" if value is None else f"-D{name}={value}"
            for name, value in ext.define_macros
        ]
        command = [*compiler, *includes, *macros, *ext.extra_compile_args]
        try:
            shutil.copyfile(SOURCE_DIR / PRECOMPILED, header)
            subprocess.run(
                [*command, "-x", "c++-header", str(header), "-o", f"{header}.gch"], check=True
            )
        except (subprocess.CalledProcessError, OSError):
            pass  # the sources then parse the header as text
        else:
            # -Winvalid-pch: a precompiled header the compiler does not use is a warning.
            extra = ["-include", str(header), "-Winvalid-pch"]
            ext.extra_compile_args = [*ext.extra_compile_args, *extra]
        super().build_extension(ext)


ParallelCompile("SPIEL_BOUNDED_BUILD_JOBS", default=0).install()

setup(
    ext_modules=[
        Pybind11Extension(
            "spiel_bounded.native._engine",
            SOURCES,
            cxx_std=17,
            extra_compile_args=_flags(),
            extra_link_args=os.environ.get("SPIEL_BOUNDED_NATIVE_FLAGS", "").split(),
            optional=os.environ.get("SPIEL_BOUNDED_REQUIRE_NATIVE", "") == "",
        )
    ],
    cmdclass={"build_ext": BuildWithPrecompiledHeader},
)
