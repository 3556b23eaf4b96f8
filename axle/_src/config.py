"""Global configuration flags, read with ``config.<name>`` and set with ``config.update``.

Mirrors ``jax.config``: ``axle.config.update("jax_enable_x64", True)``. Flags
whose value changes what tracing produces are listed in ``TRACE_FLAGS`` so the
jit cache can key on them.
"""
from __future__ import annotations

import functools
import os


def _env_bool(name: str, default: bool) -> bool:
  value = os.environ.get(name)
  if value is None:
    return default
  return value.strip().lower() in ("1", "true", "yes", "on", "y", "t")


# Flags that change the result of tracing a function; the jit cache keys on them.
# jax_disable_jit is here so that jit's call-path cache never hits while jit is disabled, and the
# debug_nans/infs flags so that it never hits while outputs must be checked.
TRACE_FLAGS = ("jax_enable_x64", "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion",
               "jax_default_matmul_precision", "jax_threefry_partitionable", "jax_disable_jit",
               "jax_debug_nans", "jax_debug_infs")


class Config:
  """Holds axle's flags as attributes; change them with ``update``."""

  _defaults = {
      "jax_enable_x64": (bool, "JAX_ENABLE_X64", False),
      "jax_explain_cache_misses": (bool, "JAX_EXPLAIN_CACHE_MISSES", False),
      "jax_debug_nans": (bool, "JAX_DEBUG_NANS", False),
      "jax_debug_infs": (bool, "JAX_DEBUG_INFS", False),
      "jax_disable_jit": (bool, "JAX_DISABLE_JIT", False),
      "jax_threefry_partitionable": (bool, "JAX_THREEFRY_PARTITIONABLE", True),
      "jax_numpy_rank_promotion": (str, "JAX_NUMPY_RANK_PROMOTION", "allow"),
      "jax_numpy_dtype_promotion": (str, "JAX_NUMPY_DTYPE_PROMOTION", "standard"),
      "jax_default_matmul_precision": (str, "JAX_DEFAULT_MATMUL_PRECISION", None),
      "jax_platforms": (str, "JAX_PLATFORMS", None),
      "jax_platform_name": (str, "JAX_PLATFORM_NAME", None),
      "jax_default_prng_impl": (str, "JAX_DEFAULT_PRNG_IMPL", "threefry2x32"),
      "jax_enable_checks": (bool, "JAX_ENABLE_CHECKS", False),
      "jax_traceback_filtering": (str, "JAX_TRACEBACK_FILTERING", "auto"),
      "jax_log_compiles": (bool, "JAX_LOG_COMPILES", False),
      "jax_check_tracer_leaks": (bool, "JAX_CHECK_TRACER_LEAKS", False),
      "jax_enable_compilation_cache": (bool, "JAX_ENABLE_COMPILATION_CACHE", True),
      "jax_compilation_cache_dir": (str, "JAX_COMPILATION_CACHE_DIR", None),
      "jax_persistent_cache_min_compile_time_secs": (float, "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", 0.5),
      "jax_compilation_cache_max_size": (int, "JAX_COMPILATION_CACHE_MAX_SIZE", 1 << 30),
      "jax_num_cpu_devices": (int, "JAX_NUM_CPU_DEVICES", -1),
      # Read when the CPU client is created. True (JAX's default) hands expensive programs to
      # XLA's dispatch threads and returns at once; False (axle's default) runs single-device
      # programs in the calling thread (multi-device ones stay asynchronous). The results are
      # the same; on a 2-core machine the handoff to a spinning dispatch thread costs more
      # than it hides (eager split + uniform: 188 -> 105 us; an MLP loop of 50 jitted steps:
      # 185-211 -> 173-180 ms).
      "jax_cpu_enable_async_dispatch": (bool, "JAX_CPU_ENABLE_ASYNC_DISPATCH", False),
      "jax_use_shardy_partitioner": (bool, "JAX_USE_SHARDY_PARTITIONER", True),
      "jax_cuda_visible_devices": (str, "JAX_CUDA_VISIBLE_DEVICES", "all"),
      "jax_rocm_visible_devices": (str, "JAX_ROCM_VISIBLE_DEVICES", "all"),
      "axle_retrace_warning_threshold": (int, "AXLE_RETRACE_WARNING_THRESHOLD", 8),
      # False (default): eager results are XLA's bits, as JAX's are (exact NumPy kernels, the
      # rest as single-primitive XLA programs). True: NumPy kernels everywhere (faster on
      # small arrays, float64-rounded transcendentals; may differ from JAX in the last bits).
      "axle_fast_eager": (bool, "AXLE_FAST_EAGER", False),
      # True (default): an eager op on values already on the device returns a pending array
      # and runs when its value is needed, with the ops it depends on (a chain that a tight
      # loop recomputes runs as one compiled program, with the same bits). False: every op at
      # once.
      "axle_deferred_eager": (bool, "AXLE_DEFERRED_EAGER", True),
  }

  def __init__(self):
    values = {}
    for name, (kind, env, default) in self._defaults.items():
      if kind is bool:
        values[name] = _env_bool(env, default)
      elif kind in (int, float) and env in os.environ:
        values[name] = kind(os.environ[env])
      else:
        values[name] = os.environ.get(env, default)
    object.__setattr__(self, "_values", values)
    object.__setattr__(self, "_listeners", [])
    object.__setattr__(self, "_guards", {})
    self._refresh_trace_state()

  def _refresh_trace_state(self) -> None:
    object.__setattr__(self, "trace_state", tuple(self._values[f] for f in TRACE_FLAGS))
    # whether library functions JAX jits run op by op eagerly (read on every eager call)
    object.__setattr__(self, "eager_op_by_op", bool(self._values["axle_fast_eager"]
                                                    or self._values["jax_disable_jit"]))

  def update(self, name: str, value) -> None:
    """Sets flag ``name`` to ``value`` (``config.update("jax_enable_x64", True)``)."""
    if name not in self._values:
      raise AttributeError(f"Unrecognized config option: {name}")
    kind = self._defaults[name][0]
    if kind is bool:
      value = bool(value)
    elif kind in (int, float):
      value = kind(value)
    guard = self._guards.get(name)
    if guard is not None:
      guard(value)
    self._values[name] = value
    self._refresh_trace_state()
    for listener in self._listeners:
      listener(name, value)

  def read(self, name: str):
    """Returns the current value of flag ``name``."""
    return self._values[name]

  def add_guard(self, name: str, check) -> None:
    """Registers ``check(value)``, called before flag ``name`` changes; it raises to refuse."""
    self._guards[name] = check

  def add_listener(self, callback) -> None:
    """Registers ``callback(name, value)``, called after every ``update``."""
    self._listeners.append(callback)

  # trace_state: the values of TRACE_FLAGS, kept up to date by update (the jit cache keys on it).

  def __getattr__(self, name):
    values = object.__getattribute__(self, "_values")
    if name in values:
      return values[name]
    raise AttributeError(f"Unrecognized config option: {name}")

  def __setattr__(self, name, value):
    raise AttributeError("Use config.update(name, value) to change a flag.")

  def values(self) -> dict:
    """A snapshot of every flag."""
    return dict(self._values)


config = Config()

def x64_enabled() -> bool:
  """Whether 64-bit types are enabled (``jax_enable_x64``)."""
  return config._values["jax_enable_x64"]


class _FlagContext:
  """Sets a flag for the duration of a ``with`` block (or of calls to a decorated function)
  and restores its previous value afterwards, as JAX's flag context managers do."""

  def __init__(self, name: str, value):
    self.name = name
    self.value = value
    self.saved: list = []

  def __enter__(self):
    self.saved.append(config.read(self.name))
    config.update(self.name, self.value)
    return self

  def __exit__(self, *exc_info):
    config.update(self.name, self.saved.pop())
    return False

  def __call__(self, fun):

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
      with _FlagContext(self.name, self.value):
        return fun(*args, **kwargs)
    return wrapped


def numpy_dtype_promotion(value: str) -> _FlagContext:
  """Type promotion mode within the block: ``'standard'`` or ``'strict'``."""
  return _FlagContext("jax_numpy_dtype_promotion", value)


def numpy_rank_promotion(value: str) -> _FlagContext:
  """Rank promotion mode within the block: ``'allow'``, ``'warn'`` or ``'raise'``."""
  return _FlagContext("jax_numpy_rank_promotion", value)


def default_matmul_precision(value) -> _FlagContext:
  """The default precision of matrix multiplications within the block."""
  return _FlagContext("jax_default_matmul_precision", value)


def enable_x64(value: bool = True) -> _FlagContext:
  """64-bit types enabled (or not) within the block."""
  return _FlagContext("jax_enable_x64", value)


def log_compiles(value: bool = True) -> _FlagContext:
  return _FlagContext("jax_log_compiles", value)


def debug_nans(value: bool = True) -> _FlagContext:
  return _FlagContext("jax_debug_nans", value)


def debug_infs(value: bool = True) -> _FlagContext:
  return _FlagContext("jax_debug_infs", value)


def enable_checks(value: bool = True) -> _FlagContext:
  return _FlagContext("jax_enable_checks", value)


def checking_leaks() -> _FlagContext:
  """Tracer-leak checking within the block (recorded; axle reports leaks when a leaked
  tracer is used)."""
  return _FlagContext("jax_check_tracer_leaks", True)


def check_tracer_leaks(value: bool = True) -> _FlagContext:
  return _FlagContext("jax_check_tracer_leaks", value)
