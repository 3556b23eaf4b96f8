"""Builds axle's optional C module (``axle._src._host_kernels``: float32 reductions in XLA's
order, XLA's float32 tanh and the C library's sin, cos and tan, which XLA calls, for the
eager shortcuts). Where no C compiler is at hand the build skips it and axle uses
its pure-Python fallback; the rest of the configuration is in pyproject.toml."""
import os

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "axle._src._host_kernels", ["axle/_src/_host_kernels.c"], optional=True,
    # a multiply and an add must round separately, as XLA's loops round them
    extra_compile_args=[] if os.name == "nt" else ["-O3", "-ffp-contract=off"],
    libraries=[] if os.name == "nt" else ["m"])])  # (sinf, cosf, ... as XLA calls them)
