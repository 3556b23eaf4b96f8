"""Fixtures shared by the test modules."""
import atexit
import os
import shutil
import tempfile

# The persistent compilation cache of the test session lives in a temporary directory, never in
# the user's cache directory. The process that makes it (pytest's controller; xdist workers and
# subprocesses inherit the variable) removes it at exit.
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
  os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="axle-test-cache-")
  atexit.register(shutil.rmtree, os.environ["JAX_COMPILATION_CACHE_DIR"], True)

import pytest  # noqa: E402

from axle._src.config import config  # noqa: E402


@pytest.fixture
def x64():
  """Runs the test with 64-bit types enabled (``jax_enable_x64``), restoring the flag after."""
  previous = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  yield
  config.update("jax_enable_x64", previous)
