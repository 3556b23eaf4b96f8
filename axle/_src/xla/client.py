"""The XLA backend: the only module in axle that imports jaxlib.

jaxlib is used as XLA's runtime and compiler only, through the calls listed in
``shared/XLA_NOTES.md`` that do not make jaxlib's C++ side import ``jax``:
``make_cpu_client``, ``batched_device_put``, ``compile_and_load``,
``execute_sharded`` + ``consume_with_handlers``, ``np.asarray(memoryview(a))``,
``block_until_ready``, ``serialize_executable``/``deserialize_executable``.
Everything else in axle talks to the small API below: ``devices()``,
``put``, ``to_host``, ``compile``, ``Executable``, ``serialize``/``deserialize``.
The client is created lazily, on first use, so eager NumPy work never pays for
importing jaxlib.
"""
from __future__ import annotations

import abc
import os
import threading
from typing import Sequence

import numpy as np

_lock = threading.Lock()
_state: dict = {}

JAXLIB_VERSION = "0.10.2"


class Device(abc.ABC):
  """A device (``jax.Device``): ``isinstance(d, jax.Device)`` holds for the devices of
  ``jax.devices()`` (XLA's device objects, registered when XLA is first loaded)."""
  __slots__ = ()


Device.__module__ = "axle"


def _xc():
  """jaxlib.xla_client, imported and checked on first use."""
  xc = _state.get("xc")
  if xc is None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    from jaxlib import utils as jaxlib_utils
    jaxlib_utils.absl_set_min_log_level(1)  # silence the "PjRt-IFRT device count" INFO lines
    import jaxlib.version
    import jaxlib.xla_client as xc
    if jaxlib.version.__version__ != JAXLIB_VERSION or xc._version != 467:
      raise ImportError(f"axle needs jaxlib=={JAXLIB_VERSION} (found {jaxlib.version.__version__}); "
                        f"reinstall with `pip install jaxlib=={JAXLIB_VERSION}`")
    # jaxlib records a Python traceback for every execution (for its own runtime error messages,
    # which axle does not use); keeping them leaks a block per jitted call with device arguments.
    xc._xla.set_tracebacks_enabled(False)
    Device.register(xc.Device)
    _state["xc"] = xc
  return xc


def get_client():
  """The PJRT CPU client (created once; its device count follows
  ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` as in JAX)."""
  client = _state.get("client")
  if client is None:
    with _lock:
      client = _state.get("client")
      if client is None:
        xc = _xc()
        client = xc.make_cpu_client()
        _state["client"] = client
        _state["devices"] = tuple(client.local_devices())
  return client


def devices() -> tuple:
  """The CPU devices, printed as ``CpuDevice(id=0)``."""
  if "devices" not in _state:
    get_client()
  return _state["devices"]


def default_device():
  return devices()[0]


def platform_version() -> str:
  return get_client().platform_version


def register_lapack_targets() -> None:
  """Registers the LAPACK kernels shipped in jaxlib (custom-call targets such as
  ``lapack_sgetrf_ffi``) with XLA's CPU backend, once; the linalg lowerings call this before
  emitting such a custom call. The kernels bind to SciPy's LAPACK on first use."""
  if _state.get("lapack"):
    return
  xc = _xc()
  get_client()  # installs jaxlib's CPU custom-call handler
  with _lock:
    if _state.get("lapack"):
      return
    from jaxlib.cpu import _lapack
    _lapack.initialize()
    for name, fn in _lapack.registrations().items():
      xc.register_custom_call_target(name, fn, platform="cpu", api_version=int(name.endswith("_ffi")))
    _state["lapack"] = True


# ---------------------------------------------------------------------------
# Shardings: the small shim jaxlib's C++ expects (see XLA_NOTES)

_shardings: dict = {}


def sharding_for(device):
  """The single-device sharding object for ``device`` (cached)."""
  sharding = _shardings.get(device)
  if sharding is None:
    xc = _xc()

    class _SingleDeviceSharding(xc.SingleDeviceSharding):
      def _to_xla_hlo_sharding(self, ndim):
        return _xc().HloSharding.replicate()

      @property
      def _device_assignment(self):
        return (device,)

      @property
      def is_fully_replicated(self):
        return True

      @property
      def num_devices(self):
        return 1

      @property
      def memory_kind(self):
        return None

    sharding = _shardings[device] = _SingleDeviceSharding(device)
  return sharding


# ---------------------------------------------------------------------------
# Transfers

# dtypes the buffer protocol cannot export: read as a same-width unsigned integer, then view.
_BITCAST_FOR_READ = {"bfloat16": np.uint16}


def _needs_bitcast_read(dtype: np.dtype):
  if dtype.name in _BITCAST_FOR_READ:
    return _BITCAST_FOR_READ[dtype.name]
  if dtype.name.startswith("float8") or dtype.name in ("int4", "uint4", "float4_e2m1fn"):
    return np.uint8
  return None


def put(value: np.ndarray, aval, device=None, owned: bool = True):
  """A device buffer holding ``value`` (whose dtype is already canonical: jaxlib is told
  ``enable_x64=True`` so it never narrows; axle canonicalises before it gets here).

  ``owned`` says the value is axle's own immutable array, which the buffer may alias (zero
  copy); a caller's NumPy array (which they may mutate later) is copied during the call."""
  xc = _xc()
  if device is None:
    device = default_device()
  semantics = (xc.HostBufferSemantics.ZERO_COPY if owned
               else xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL)
  return xc.batched_device_put(aval, sharding_for(device), [value], [device], True, False,
                               semantics, enable_x64=True)


def deleted_error(aval) -> RuntimeError:
  """JAX's error for reading an array whose buffer was deleted or donated."""
  return RuntimeError(f"Array has been deleted with shape={aval.str_short(False)}.")


def to_host(buffer, aval) -> np.ndarray:
  """The buffer's value as a read-only NumPy array (zero-copy on the CPU where possible);
  waits for the computation producing it."""
  try:
    view = np.asarray(memoryview(buffer))
  except (BufferError, TypeError, ValueError):
    if buffer.is_deleted():
      raise deleted_error(aval) from None
    if _needs_bitcast_read(aval.dtype) is None:
      raise
    return _read_by_bitcast(buffer, aval)
  except Exception as exc:  # XLA runtime errors surface here for asynchronous computations
    if "deleted" in str(exc) or "donated" in str(exc):
      raise deleted_error(aval) from None
    raise
  if view.dtype != aval.dtype:
    view = view.view(aval.dtype) if view.dtype.itemsize == aval.dtype.itemsize else view.astype(aval.dtype)
  return view.reshape(aval.shape)


# ``bitcast_reader(aval, target_dtype)``: a compiled bitcast program, registered by the lowering
# module (which builds StableHLO text; this module only talks to jaxlib).
bitcast_reader = None


def _read_by_bitcast(buffer, aval) -> np.ndarray:
  """Reads a dtype the buffer protocol refuses (bf16, fp8) by running a cached bitcast to an
  unsigned integer of the same width on the device."""
  target = np.dtype(_needs_bitcast_read(aval.dtype))
  executable = bitcast_reader(aval, target)
  (out,) = executable.execute([buffer])
  return np.asarray(memoryview(out)).reshape(aval.shape).view(aval.dtype)


def block_until_ready(buffers: Sequence) -> None:
  if buffers:
    _xc().batched_block_until_ready(list(buffers))


# ---------------------------------------------------------------------------
# Compilation and execution


class CompileOptions:
  """What axle passes to XLA besides the module (part of the compile cache key)."""
  __slots__ = ("num_replicas", "num_partitions", "fast_math")

  def __init__(self, num_replicas: int = 1, num_partitions: int = 1):
    self.num_replicas = num_replicas
    self.num_partitions = num_partitions

  def key(self) -> str:
    return f"replicas={self.num_replicas};partitions={self.num_partitions}"

  def to_xla(self, device_list):
    xc = _xc()
    options = xc.CompileOptions()
    options.num_replicas = self.num_replicas
    options.num_partitions = self.num_partitions
    if self.num_replicas * self.num_partitions > 1:
      assignment = np.array([d.id for d in device_list], dtype=np.int64).reshape(
          self.num_replicas, self.num_partitions)
      options.device_assignment = xc.DeviceAssignment.create(assignment)
    return options


class XlaError(RuntimeError):
  """An error reported by XLA while compiling or running a program."""


class Executable:
  """A loaded XLA executable with its output handlers; ``execute`` takes and returns device
  buffers (asynchronously: results may not be ready yet)."""
  __slots__ = ("loaded", "out_avals", "devices", "_handlers", "__weakref__")

  def __init__(self, loaded, out_avals, devices_):
    self.loaded = loaded
    self.out_avals = tuple(out_avals)
    self.devices = tuple(devices_)
    sharding = sharding_for(self.devices[0])
    xc = _xc()
    self._handlers = [xc.array_result_handler(a, sharding, True, _skip_checks=True)
                      for a in self.out_avals]

  def execute(self, buffers: list) -> list:
    return self.loaded.execute_sharded(buffers).consume_with_handlers(self._handlers)

  def execute_and_wait(self, buffers: list) -> list:
    """Executes and waits until the program has finished (its host callbacks have all run),
    even when it has no outputs. Raises XLA's runtime error if the run failed."""
    results = self.loaded.execute_sharded(buffers, with_tokens=True)
    token = results.consume_token()
    outs = results.consume_with_handlers(self._handlers)
    token.block_until_ready()
    return outs

  def hlo_text(self) -> str:
    return self.loaded.get_hlo_text()

  def cost_analysis(self) -> dict:
    return dict(self.loaded.cost_analysis())

  def memory_analysis(self):
    return self.loaded.get_compiled_memory_stats()


def compile(mlir_text: str, out_avals, options: CompileOptions | None = None,
            devices_: Sequence | None = None, host_callbacks: Sequence | None = None) -> Executable:
  """Compiles a StableHLO module (MLIR text with a public ``@main``).

  ``host_callbacks`` are the Python functions its ``xla_ffi_python_cpu_callback`` custom calls
  name by index (each gets read-only NumPy arrays and returns a tuple of arrays)."""
  xc = _xc()
  options = options or CompileOptions()
  devices_ = tuple(devices_) if devices_ else (default_device(),)
  device_list = xc.DeviceList(devices_)
  try:
    if host_callbacks:
      # This overload needs a parsed module (the text one takes no callbacks).
      with _mlir_context():
        from jaxlib.mlir import ir
        module = ir.Module.parse(mlir_text)
        loaded = get_client().compile_and_load(module, device_list, options.to_xla(devices_),
                                               list(host_callbacks))
    else:
      loaded = get_client().compile_and_load(mlir_text, device_list, options.to_xla(devices_))
  except xc.XlaRuntimeError as exc:
    raise XlaError(f"XLA could not compile the lowered program: {exc}") from None
  return Executable(loaded, out_avals, devices_)


def serialize(executable: Executable) -> bytes:
  return get_client().serialize_executable(executable.loaded)


def deserialize(blob: bytes, out_avals, options: CompileOptions | None = None,
                devices_: Sequence | None = None) -> Executable:
  xc = _xc()
  options = options or CompileOptions()
  devices_ = tuple(devices_) if devices_ else (default_device(),)
  loaded = get_client().deserialize_executable(blob, xc.DeviceList(devices_), options.to_xla(devices_))
  return Executable(loaded, out_avals, devices_)


def is_runtime_error(exc: BaseException) -> bool:
  """Whether ``exc`` was raised by XLA's runtime."""
  return "xc" in _state and isinstance(exc, _state["xc"].XlaRuntimeError)


def pretty_mlir(text: str, debug_info: bool = False) -> str:
  """``text`` parsed and printed back in MLIR's pretty (custom) syntax, as ``Lowered.as_text``
  shows it; the text itself if the MLIR bindings cannot parse it."""
  try:
    from jaxlib.mlir import ir
    with _mlir_context():
      module = ir.Module.parse(text)
      return module.operation.get_asm(enable_debug_info=debug_info)
  except Exception:
    return text


def _mlir_context():
  """An MLIR context with the StableHLO and CHLO dialects registered."""
  from jaxlib.mlir import ir
  from jaxlib.mlir._mlir_libs import _jax_mlir_ext
  from jaxlib.mlir.dialects import chlo, stablehlo
  registry = ir.DialectRegistry()
  _jax_mlir_ext.register_dialects(registry)
  context = ir.Context()
  context.append_dialect_registry(registry)
  context.load_all_available_dialects()
  stablehlo.register_dialect(context)
  chlo.register_dialect(context)
  return context
