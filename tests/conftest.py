"""Fixtures shared by the test modules."""
import os
import tempfile

# The persistent compilation cache of the test session lives in a temporary directory, never in
# the user's cache directory.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", tempfile.mkdtemp(prefix="axle-test-cache-"))

import pytest  # noqa: E402

from axle._src.config import config  # noqa: E402


@pytest.fixture
def x64():
  """Runs the test with 64-bit types enabled (``jax_enable_x64``), restoring the flag after."""
  previous = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  yield
  config.update("jax_enable_x64", previous)
