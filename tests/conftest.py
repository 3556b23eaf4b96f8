"""Fixtures shared by the test modules."""
import pytest

from axle._src.config import config


@pytest.fixture
def x64():
  """Runs the test with 64-bit types enabled (``jax_enable_x64``), restoring the flag after."""
  previous = config.jax_enable_x64
  config.update("jax_enable_x64", True)
  yield
  config.update("jax_enable_x64", previous)
