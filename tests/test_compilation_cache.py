"""The persistent compilation cache: directory permissions, leftover temporary files, and the
loading mark that deletes an entry which crashed a process."""
import logging
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle._src.xla import cache


def _entries(directory):
  return sorted(p for p in os.listdir(directory) if p.endswith(".axlexc"))


@pytest.fixture
def use_cache_dir():
  """Points the cache at a directory for the test (in this process) and restores it."""
  old = (axle.config.jax_compilation_cache_dir, axle.config.jax_persistent_cache_min_compile_time_secs,
         axle.config.jax_compilation_cache_max_size)

  def use(directory, max_size=None):
    cache._prepared.clear()
    axle.clear_caches()
    axle.config.update("jax_compilation_cache_dir", str(directory))
    axle.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if max_size is not None:
      axle.config.update("jax_compilation_cache_max_size", max_size)

  yield use
  axle.config.update("jax_compilation_cache_dir", old[0])
  axle.config.update("jax_persistent_cache_min_compile_time_secs", old[1])
  axle.config.update("jax_compilation_cache_max_size", old[2])
  cache._prepared.clear()
  axle.clear_caches()


_counter = [0]


def _compile_something():
  """Compiles a program not compiled before in this process; returns its result."""
  _counter[0] += 1
  shift = float(_counter[0]) + 0.125
  out = axle.jit(lambda x: x * 2.0 + shift)(jnp.ones(3))
  return np.asarray(out)


def test_new_directory_is_created_private(tmp_path, use_cache_dir):
  directory = tmp_path / "new" / "cache"
  use_cache_dir(directory)
  _compile_something()
  assert (directory.stat().st_mode & 0o777) == 0o700
  assert len(_entries(directory)) == 1


def test_existing_directory_mode_is_left_alone(tmp_path, use_cache_dir):
  directory = tmp_path / "shared"
  directory.mkdir()
  directory.chmod(0o755)
  use_cache_dir(directory)
  _compile_something()
  assert (directory.stat().st_mode & 0o7777) == 0o755
  assert len(_entries(directory)) == 1


def test_read_only_directory_is_not_chmodded(tmp_path, use_cache_dir, caplog):
  if hasattr(os, "geteuid") and os.geteuid() == 0:
    pytest.skip("root can write to a read-only directory")
  directory = tmp_path / "readonly"
  directory.mkdir()
  directory.chmod(0o555)
  try:
    use_cache_dir(directory)
    with caplog.at_level(logging.WARNING, logger="axle"):
      out = _compile_something()
    assert np.isfinite(out).all()
    assert (directory.stat().st_mode & 0o7777) == 0o555
    assert _entries(directory) == []
    assert not [p for p in os.listdir(directory) if p.endswith(".tmp")]
  finally:
    directory.chmod(0o755)


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_directory_others_can_write_is_refused(tmp_path, use_cache_dir, caplog, mode):
  directory = tmp_path / "open"
  directory.mkdir()
  directory.chmod(mode)
  use_cache_dir(directory)
  with caplog.at_level(logging.WARNING, logger="axle"):
    out = _compile_something()
  np.testing.assert_allclose(out, 2.0 + _counter[0] + 0.125)
  assert _entries(directory) == []
  assert (directory.stat().st_mode & 0o7777) == mode
  assert any("writable by other users" in r.getMessage() for r in caplog.records)


def test_stale_temporary_files_are_removed_and_counted(tmp_path, use_cache_dir):
  directory = tmp_path / "cache"
  directory.mkdir(mode=0o700)
  stale = directory / "tmpleftover.tmp"
  stale.write_bytes(b"x" * 1000)
  old = time.time() - 3600
  os.utime(stale, (old, old))
  use_cache_dir(directory)
  _compile_something()
  assert not stale.exists(), "a temporary file left by a killed writer was not removed"
  (entry,) = _entries(directory)
  size = os.path.getsize(directory / entry)
  # A temporary file being written right now counts toward the limit: with it, the cache is
  # over the limit, so the least recently used entry goes.
  fresh = directory / "tmpwriting.tmp"
  fresh.write_bytes(b"x" * (size + 10))
  use_cache_dir(directory, max_size=2 * size + 10 + size // 2)
  _compile_something()
  assert fresh.exists()
  assert len(_entries(directory)) == 1


def test_failed_write_leaves_no_temporary_file(tmp_path, use_cache_dir, monkeypatch):
  directory = tmp_path / "cache"
  directory.mkdir(mode=0o700)
  use_cache_dir(directory)

  def fail(*args):
    raise OSError("disk full")

  monkeypatch.setattr(cache.os, "replace", fail)
  out = _compile_something()
  assert np.isfinite(out).all()
  assert os.listdir(directory) == []


_SCRIPT = textwrap.dedent("""
    import logging, os, sys, axle, axle.numpy as jnp
    from axle._src.xla import execution
    if sys.argv[1] == "verbose":
      logging.basicConfig(level=logging.INFO)
    if sys.argv[1] == "crash":
      def crash(self, outs):
        os._exit(3)  # dies during the first run of the loaded entry, as a bad payload would
      execution.CompiledCall._confirm = crash
    def f(x):
      for i in range(40):
        x = x * 1.25 + i
      return x
    print(float(axle.jit(f)(jnp.ones(3))[0]))
""")


def _run(directory, mode="plain"):
  env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(directory),
         "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
  return subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True, text=True,
                        env=env)


def test_entry_that_crashed_a_process_is_deleted_at_the_next_start(tmp_path):
  directory = tmp_path / "cache"
  first = _run(directory)
  assert first.returncode == 0, first.stderr
  (entry,) = _entries(directory)
  # a normal load clears its mark
  again = _run(directory)
  assert again.returncode == 0 and again.stdout == first.stdout
  assert not [p for p in os.listdir(directory) if p.endswith(".loading")]
  # a process that loads the entry and dies before its first run finishes leaves the mark
  crashed = _run(directory, "crash")
  assert crashed.returncode == 3
  assert [p for p in os.listdir(directory) if p.endswith(".loading")] == [entry + ".loading"]
  # the next process deletes the entry instead of crashing again, recompiles and stores it
  # anew, saying so at the INFO level of the `axle` logger only (stderr stays as JAX's)
  after = _run(directory, "verbose")
  assert after.returncode == 0 and after.stdout == first.stdout
  assert "deleting compilation cache entry" in after.stderr
  assert _entries(directory) == [entry]
  assert not [p for p in os.listdir(directory) if p.endswith(".loading")]
