"""The persistent (on-disk) compilation cache: serialized XLA executables.

A fresh process that jit-compiles a program it compiled before loads the executable instead of
compiling again. Entries are keyed by a SHA-256 of the module text, the compile options, the
device kind, the platform version and the jaxlib version. Only compiles that took at least
``jax_persistent_cache_min_compile_time_secs`` are stored. The directory
(``jax_compilation_cache_dir``, default ``$XDG_CACHE_HOME/axle/xla`` or ``~/.cache/axle/xla``)
is created with permissions 0700; its total size is kept under
``jax_compilation_cache_max_size`` bytes by deleting the least recently used entries. Every
entry carries a checksum of its payload: a corrupt or truncated entry is deleted and the program
recompiled, never loaded. ``jax_enable_compilation_cache=False`` turns the cache off.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile

from axle._src.config import config
from axle._src.xla import client

logger = logging.getLogger("axle")

_MAGIC = b"AXLE-XLA-EXECUTABLE-1\n"
_SUFFIX = ".axlexc"


def cache_dir() -> str | None:
  """The cache directory in use, or None when the cache is off."""
  if not config.jax_enable_compilation_cache:
    return None
  directory = config.jax_compilation_cache_dir
  if not directory:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "axle", "xla")
  return directory


def _key(text: str, options: client.CompileOptions) -> str:
  device = client.default_device()
  digest = hashlib.sha256()
  for part in (text, options.key(), device.platform, device.device_kind,
               client.platform_version(), client.JAXLIB_VERSION):
    digest.update(part.encode())
    digest.update(b"\0")
  return digest.hexdigest()


def _path(directory: str, key: str) -> str:
  return os.path.join(directory, key + _SUFFIX)


def load(text: str, options: client.CompileOptions, out_avals):
  """The cached executable for ``text``, or None (missing, unreadable or corrupt)."""
  directory = cache_dir()
  if directory is None:
    return None
  path = _path(directory, _key(text, options))
  try:
    with open(path, "rb") as f:
      blob = f.read()
  except OSError:
    return None
  header = len(_MAGIC) + 32
  payload = blob[header:]
  if (len(blob) <= header or not blob.startswith(_MAGIC)
      or hashlib.sha256(payload).digest() != blob[len(_MAGIC):header]):
    logger.warning("axle: ignoring a corrupt compilation cache entry %s", path)
    _remove(path)
    return None
  try:
    executable = client.deserialize(payload, out_avals, options)
  except Exception as exc:  # an entry XLA cannot load is as good as missing
    logger.warning("axle: could not load compilation cache entry %s (%s)", path, exc)
    _remove(path)
    return None
  try:
    os.utime(path)  # least-recently-used order for eviction
  except OSError:
    pass
  return executable


def store(text: str, options: client.CompileOptions, executable, compile_seconds: float) -> None:
  """Writes ``executable`` to the cache if the compile was slow enough to be worth it."""
  directory = cache_dir()
  if directory is None or compile_seconds < config.jax_persistent_cache_min_compile_time_secs:
    return
  try:
    payload = client.serialize(executable)
  except Exception as exc:
    logger.warning("axle: could not serialize an executable for the cache (%s)", exc)
    return
  try:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)
    blob = _MAGIC + hashlib.sha256(payload).digest() + payload
    fd, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
      f.write(blob)
    os.replace(temporary, _path(directory, _key(text, options)))  # atomic: no torn entries
    _evict(directory, int(config.jax_compilation_cache_max_size))
  except OSError as exc:
    logger.warning("axle: could not write to the compilation cache %s (%s)", directory, exc)


def _evict(directory: str, max_size: int) -> None:
  if max_size < 0:
    return
  entries = []
  for name in os.listdir(directory):
    if name.endswith(_SUFFIX):
      path = os.path.join(directory, name)
      try:
        stat = os.stat(path)
      except OSError:
        continue
      entries.append((stat.st_mtime, stat.st_size, path))
  total = sum(size for _, size, _ in entries)
  for _, size, path in sorted(entries):
    if total <= max_size:
      break
    _remove(path)
    total -= size


def _remove(path: str) -> None:
  try:
    os.remove(path)
  except OSError:
    pass


def clear() -> None:
  """Deletes every entry of the cache directory in use."""
  directory = cache_dir()
  if directory and os.path.isdir(directory):
    for name in os.listdir(directory):
      if name.endswith(_SUFFIX):
        _remove(os.path.join(directory, name))
