"""The persistent (on-disk) compilation cache: serialized XLA executables.

A fresh process that jit-compiles a program it compiled before loads the executable instead of
compiling again. Entries are keyed by a SHA-256 of the module text, the compile options, the
device kind, the platform version and the jaxlib version. Only compiles that took at least
``jax_persistent_cache_min_compile_time_secs`` are stored. ``jax_enable_compilation_cache=False``
turns the cache off.

The directory (``jax_compilation_cache_dir``, default ``$XDG_CACHE_HOME/axle/xla`` or
``~/.cache/axle/xla``) is created with permissions 0700 when it does not exist; an existing
directory's permissions are never changed. A directory that another user can write to (group-
or world-writable, or owned by someone else) is refused with a warning and the cache is off:
anyone who can write an entry can make this process run their code.

Trust model: an entry is machine code that is loaded and run. Its checksum catches torn or
corrupt files, not a wrong payload written by a buggy writer. So before an entry's first use in
a process a ``<entry>.loading`` mark (holding the process id) is written next to it and removed
after the first run finishes; a process that finds an entry still marked by a process that is
gone deletes the entry and recompiles, so an entry that crashes a process crashes it once.

Size: the total of entries and of temporary files left by interrupted writes is kept under
``jax_compilation_cache_max_size`` bytes by deleting the least recently used entries; temporary
files older than a few minutes (a writer that was killed) are deleted when the cache is first used.
"""
from __future__ import annotations

import hashlib
import logging
import os
import stat
import tempfile
import threading
import time
import weakref

from axle._src.config import config
from axle._src.xla import client

logger = logging.getLogger("axle")

_MAGIC = b"AXLE-XLA-EXECUTABLE-1\n"
_SUFFIX = ".axlexc"
_MARK_SUFFIX = ".loading"
_TMP_PREFIX, _TMP_SUFFIX = "tmp", ".tmp"
# A temporary file older than this is a leftover of a killed writer, not a write in progress.
_STALE_TMP_SECONDS = 600.0

_lock = threading.Lock()
# directory -> whether it may be used (checked, created and cleaned once per process)
_prepared: dict = {}
# Executables loaded from disk whose first run has not finished yet -> their mark file.
_unconfirmed: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def cache_dir() -> str | None:
  """The cache directory in use, or None when the cache is off."""
  if not config.jax_enable_compilation_cache:
    return None
  directory = config.jax_compilation_cache_dir
  if not directory:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "axle", "xla")
  return directory


def _usable_dir(directory: str, create: bool) -> bool:
  """Whether ``directory`` may hold the cache: created 0700 if missing (when ``create``),
  refused with a warning if others can write to it; stale temporary files are removed on
  first use. The answer is remembered for the process."""
  known = _prepared.get(directory)
  if known is not None:
    return known
  with _lock:
    known = _prepared.get(directory)
    if known is not None:
      return known
    try:
      info = os.stat(directory)
    except FileNotFoundError:
      if not create:
        return False  # nothing to load; decided when something is stored
      try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.stat(directory)
      except OSError as exc:
        logger.warning("axle: could not create the compilation cache directory %s (%s); the "
                       "persistent compilation cache is off", directory, exc)
        _prepared[directory] = False
        return False
    except OSError as exc:
      logger.warning("axle: cannot use the compilation cache directory %s (%s)", directory, exc)
      _prepared[directory] = False
      return False
    usable = _check_ownership(directory, info)
    if usable:
      _remove_stale_tmp_files(directory)
    _prepared[directory] = usable
    return usable


def _check_ownership(directory: str, info) -> bool:
  if not stat.S_ISDIR(info.st_mode):
    logger.warning("axle: the compilation cache path %s is not a directory; the persistent "
                   "compilation cache is off", directory)
    return False
  others_write = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
  foreign = hasattr(os, "geteuid") and info.st_uid != os.geteuid()
  if others_write or foreign:
    why = ("is writable by other users (mode %o)" % (info.st_mode & 0o7777) if others_write
           else "is owned by another user")
    logger.warning("axle: the compilation cache directory %s %s; its entries would be run as "
                   "code, so the persistent compilation cache is off. Point "
                   "jax_compilation_cache_dir at a directory only you can write to.",
                   directory, why)
    return False
  return True


def _is_tmp_file(name: str) -> bool:
  return name.startswith(_TMP_PREFIX) and name.endswith(_TMP_SUFFIX)


def _remove_stale_tmp_files(directory: str) -> int:
  """Deletes temporary files left by writers that died; returns how many."""
  removed = 0
  now = time.time()
  try:
    names = os.listdir(directory)
  except OSError:
    return 0
  for name in names:
    if _is_tmp_file(name):
      path = os.path.join(directory, name)
      try:
        if now - os.stat(path).st_mtime > _STALE_TMP_SECONDS:
          os.remove(path)
          removed += 1
      except OSError:
        pass
  return removed


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
  if directory is None or not _usable_dir(directory, create=False):
    return None
  path = _path(directory, _key(text, options))
  if not _take_mark(path):
    return None
  try:
    with open(path, "rb") as f:
      blob = f.read()
  except OSError:
    _remove(path + _MARK_SUFFIX)
    return None
  header = len(_MAGIC) + 32
  payload = blob[header:]
  if (len(blob) <= header or not blob.startswith(_MAGIC)
      or hashlib.sha256(payload).digest() != blob[len(_MAGIC):header]):
    logger.warning("axle: ignoring a corrupt compilation cache entry %s", path)
    _remove(path)
    _remove(path + _MARK_SUFFIX)
    return None
  try:
    executable = client.deserialize(payload, out_avals, options)
  except Exception as exc:  # an entry XLA cannot load is as good as missing
    logger.warning("axle: could not load compilation cache entry %s (%s)", path, exc)
    _remove(path)
    _remove(path + _MARK_SUFFIX)
    return None
  try:
    os.utime(path)  # least-recently-used order for eviction
  except OSError:
    pass
  _unconfirmed[executable] = path + _MARK_SUFFIX
  return executable


def _pid_alive(pid: int) -> bool:
  if pid == os.getpid():
    return True
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except OSError:  # exists, owned by someone else
    return True
  return True


def _take_mark(path: str) -> bool:
  """Marks the entry at ``path`` as being loaded by this process. False (do not load it) when
  another live process is loading it; an entry left marked by a process that is gone crashed
  that process: it is deleted."""
  mark = path + _MARK_SUFFIX
  try:
    with open(mark, "r") as f:
      owner = f.read().strip()
  except FileNotFoundError:
    owner = None
  except OSError:
    return False
  if owner is not None:
    pid = int(owner) if owner.isdigit() else -1
    if pid > 0 and pid != os.getpid() and _pid_alive(pid):
      return False  # another process is trying it right now: compile instead
    if pid != os.getpid():
      logger.info("axle: deleting compilation cache entry %s: a process that loaded it did not "
                  "finish its first run (it crashed or was killed)", path)
      _remove(path)
      _remove(mark)
      return False
  try:
    with open(mark, "w") as f:
      f.write(str(os.getpid()))
  except OSError:
    # A read-only cache: no mark can be kept (nor a bad entry deleted); load without one.
    pass
  return True


def is_unconfirmed(executable) -> bool:
  """Whether ``executable`` was loaded from disk and has not finished a run yet."""
  return executable in _unconfirmed


def confirm(executable) -> None:
  """Called after the first run of a loaded executable finished: clears its loading mark."""
  mark = _unconfirmed.pop(executable, None)
  if mark is not None:
    _remove(mark)


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
  if not _usable_dir(directory, create=True):
    return
  temporary = None
  try:
    blob = _MAGIC + hashlib.sha256(payload).digest() + payload
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=_TMP_PREFIX, suffix=_TMP_SUFFIX)
    with os.fdopen(fd, "wb") as f:
      f.write(blob)
    os.replace(temporary, _path(directory, _key(text, options)))  # atomic: no torn entries
    temporary = None
    _evict(directory, int(config.jax_compilation_cache_max_size))
  except OSError as exc:
    logger.warning("axle: could not write to the compilation cache %s (%s)", directory, exc)
  finally:
    if temporary is not None:
      _remove(temporary)


def _evict(directory: str, max_size: int) -> None:
  """Keeps the entries and temporary files under ``max_size`` bytes: old leftover temporary
  files first, then the least recently used entries."""
  if max_size < 0:
    return
  now = time.time()
  entries, in_progress = [], 0
  for name in os.listdir(directory):
    is_tmp = _is_tmp_file(name)
    if not (is_tmp or name.endswith(_SUFFIX)):
      continue
    path = os.path.join(directory, name)
    try:
      info = os.stat(path)
    except OSError:
      continue
    if is_tmp and now - info.st_mtime <= _STALE_TMP_SECONDS:
      in_progress += info.st_size  # counted, but another process may be writing it
      continue
    entries.append((not is_tmp, info.st_mtime, info.st_size, path))
  total = in_progress + sum(size for _, _, size, _ in entries)
  for _, _, size, path in sorted(entries):
    if total <= max_size:
      break
    _remove(path)
    _remove(path + _MARK_SUFFIX)
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
      if name.endswith((_SUFFIX, _SUFFIX + _MARK_SUFFIX)) or _is_tmp_file(name):
        _remove(os.path.join(directory, name))
