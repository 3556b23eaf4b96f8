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

from axle._src.config import config
from axle._src.errors import JaxRuntimeError

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
        client = _make_client(xc)
        _state["client"] = client
        _state["devices"] = tuple(client.devices())
        _state["local_devices"] = tuple(client.local_devices())
  return client


def _requested_device_count() -> int | None:
  count = config.jax_num_cpu_devices
  if count is not None and int(count) > 0:
    return int(count)
  for flag in os.environ.get("XLA_FLAGS", "").split():
    if flag.startswith("--xla_force_host_platform_device_count="):
      return int(flag.split("=", 1)[1])
  return None


def _make_client(xc):
  count = _requested_device_count()
  asynchronous = bool(config.jax_cpu_enable_async_dispatch)
  distributed = _state.get("distributed")
  if distributed is not None:
    from jaxlib import _jax
    collectives = _jax.make_gloo_tcp_collectives(distributed_client=distributed.client,
                                                 hostname="127.0.0.1")
    return xc.make_cpu_client(asynchronous=asynchronous, distributed_client=distributed.client,
                              node_id=distributed.process_id,
                              num_nodes=distributed.num_processes, collectives=collectives,
                              num_devices=count or 1)
  if count and count > 1 and "PJRT_NPROC" not in os.environ:
    # XLA:CPU runs one helper per device on a dispatch pool of PJRT_NPROC threads; with fewer
    # than 2N threads, more than 32 launches in flight per device deadlock a collective
    # (XLA aborts after a minute). 2N threads make that impossible (shared/xla-multidevice).
    os.environ["PJRT_NPROC"] = str(max(2 * count, os.cpu_count() or 1))
  if count:
    return xc.make_cpu_client(asynchronous=asynchronous, num_devices=count)
  return xc.make_cpu_client(asynchronous=asynchronous)


def dispatch_threads_suffice() -> bool:
  """Whether XLA:CPU's dispatch pool has at least two threads per device, which makes the
  collective deadlock (more than 32 launches in flight per device) impossible."""
  cached = _state.get("threads_suffice")
  if cached is None:
    try:
      threads = int(os.environ.get("PJRT_NPROC", "") or (os.cpu_count() or 1))
    except ValueError:
      threads = os.cpu_count() or 1
    cached = _state["threads_suffice"] = threads >= 2 * len(devices())
  return cached


def backend_started() -> bool:
  """Whether the XLA client exists (device-count settings no longer apply)."""
  return "client" in _state


def _check_num_cpu_devices(value) -> None:
  if backend_started():
    raise RuntimeError(
        "jax_num_cpu_devices config should be updated before backends are initialized i.e. "
        "before any JAX operation is executed. You should initialize this config immediately "
        "after `import jax`.")


config.add_guard("jax_num_cpu_devices", _check_num_cpu_devices)


def devices() -> tuple:
  """The CPU devices, printed as ``CpuDevice(id=0)``."""
  if "devices" not in _state:
    get_client()
  return _state["devices"]


def local_devices() -> tuple:
  """This process's devices."""
  if "local_devices" not in _state:
    get_client()
  return _state["local_devices"]


def process_index() -> int:
  distributed = _state.get("distributed")
  return distributed.process_id if distributed else 0


def process_count() -> int:
  distributed = _state.get("distributed")
  return distributed.num_processes if distributed else 1


def default_device():
  return local_devices()[0]


# ---------------------------------------------------------------------------
# Several processes: XLA's distributed runtime (coordination service + gloo collectives)
#
# XLA's coordination runtime ends the whole process (LOG(FATAL) or std::terminate) when a peer
# or the coordinator goes away, when connect() times out, and segfaults when its service is
# started on a busy port (shared/xla-multidevice/NOTES.md). axle keeps XLA off those paths:
# - the coordination service runs in a small process of its own, started by process 0, in
#   "recoverable" mode (a dead task is not broadcast to the others as a fatal error), so
#   neither a dead peer nor a dead process 0 takes the survivors' coordinator away;
# - the port is bind-tested, and the coordinator reached with a bounded connect, before XLA
#   sees them;
# - the client gets a Python missed-heartbeat callback: when connect() fails, the callback
#   raises in the calling thread (XLA's default callback aborts the process);
# - a watchdog thread publishes this process's heartbeat in the coordinator's key-value store
#   and notices a peer whose heartbeat stops for heartbeat_timeout seconds; every wait on a
#   device buffer then raises instead of waiting forever for a collective that cannot end.

# The coordinator process (needs only jaxlib): serves until process 0 writes "stop"; when
# process 0 ends without it (it died, or its job failed), it serves on while other processes
# are still connected (Linux: their TCP connections to its port; a client still connected
# when the service goes away is ended by XLA), at most long enough for them to notice.
_COORDINATOR_PROGRAM = r"""
import os, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
from jaxlib import utils
utils.absl_set_min_log_level(2)
from jaxlib import _jax
address, processes, heartbeat, shutdown = sys.argv[1], *map(int, sys.argv[2:5])
service = _jax.get_distributed_runtime_service(address, processes, heartbeat_timeout=heartbeat,
                                               shutdown_timeout=shutdown, recoverable=True)
print("ready", flush=True)


def connected():
  port = "%04X" % int(address.rsplit(":", 1)[1])
  count = 0
  for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
      with open(table) as lines:
        next(lines)
        for line in lines:
          fields = line.split()
          count += fields[1].endswith(":" + port) and fields[3] == "01"
    except (OSError, StopIteration):
      return None
  return count


if sys.stdin.readline().strip() != "stop":
  deadline = time.monotonic() + 2 * heartbeat + 5
  quiet_since = None
  while time.monotonic() < deadline:
    count = connected()
    if count == 0:
      quiet_since = quiet_since or time.monotonic()
      if time.monotonic() - quiet_since > 1:
        break
    else:
      quiet_since = None
    time.sleep(0.2)
service.shutdown()
"""


def _split_address(address: str, argument: str) -> tuple[str, int]:
  host, _, port_text = str(address).rpartition(":")
  if not host or not port_text.isdigit():
    raise ValueError(f"{argument} must be 'host:port', got {address!r}")
  return host.strip("[]"), int(port_text)


def _wait_for_port(host: str, port: int, timeout: float) -> bool:
  import socket
  import time
  deadline = time.monotonic() + timeout
  while True:
    try:
      with socket.create_connection((host, port), timeout=1.0):
        return True
    except OSError:
      if time.monotonic() >= deadline:
        return False
      time.sleep(0.1)


def _check_port_free(host: str, port: int, bind_address: str) -> None:
  """Raises when something already listens on the coordinator's port (XLA's service would
  segfault there)."""
  import socket
  try:
    family, kind, proto, _, sockaddr = socket.getaddrinfo(host or None, port,
                                                          type=socket.SOCK_STREAM)[0]
  except OSError as exc:
    raise ValueError(f"distributed.initialize: cannot resolve the coordinator address "
                     f"{bind_address!r}: {exc}") from None
  probe = socket.socket(family, kind, proto)
  try:
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    probe.bind(sockaddr)
  except OSError as exc:
    raise JaxRuntimeError(
        f"distributed.initialize: process 0 cannot start the coordination service on "
        f"{bind_address}: {exc.strerror} (is the port in use, e.g. by another job or a "
        f"previous run still exiting?). Pick a free port for coordinator_address on every "
        f"process.") from None
  finally:
    probe.close()


def _start_coordinator(bind_address: str, num_processes: int, heartbeat_timeout: int,
                       shutdown_timeout: int, timeout: float):
  import select
  import subprocess
  import sys
  import jaxlib
  env = dict(os.environ)
  site = os.path.dirname(os.path.dirname(os.path.abspath(jaxlib.__file__)))
  env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
  process = subprocess.Popen(
      [sys.executable, "-c", _COORDINATOR_PROGRAM, bind_address, str(num_processes),
       str(heartbeat_timeout), str(shutdown_timeout)],
      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
      start_new_session=True)
  ready, _, _ = select.select([process.stdout], [], [], max(timeout, 10))
  if not ready or process.stdout.readline().strip() != b"ready":
    process.kill()
    process.wait()
    raise JaxRuntimeError(
        f"distributed.initialize: the coordination service could not start on {bind_address} "
        f"(its process ended with status {process.returncode}). Check that the port is free "
        f"and the address is one of this machine's.")
  return process


def _missed_heartbeat(*status) -> None:
  """Given to XLA's client instead of its default callback (which aborts the process): XLA
  cannot pass it the status, so calling it raises, which in connect() surfaces as a Python
  exception in the calling thread."""


class _Job:
  """This process's membership of a distributed job."""

  def __init__(self, client, coordinator, address: str, process_id: int, num_processes: int,
               heartbeat_timeout: int, shutdown_timeout: int):
    self.client = client
    self.coordinator = coordinator
    self.address = address
    self.process_id = process_id
    self.num_processes = num_processes
    self.heartbeat_timeout = heartbeat_timeout
    self.shutdown_timeout = shutdown_timeout
    self.failure: str | None = None
    self.broken = False  # a collective failed because a peer went away
    self.connected = True
    self.stopping = threading.Event()
    self.watchdog = threading.Thread(target=self._watch, name="axle-distributed-heartbeat",
                                     daemon=True)
    self.watchdog.start()

  def raise_if_failed(self) -> None:
    if self.failure is not None:
      raise JaxRuntimeError(self.failure)

  def _watch(self) -> None:
    import time
    me, client = self.process_id, self.client
    others = [p for p in range(self.num_processes) if p != me]
    now = time.monotonic()
    last_change = {p: (None, now) for p in others}
    interval = min(0.5, self.heartbeat_timeout / 4)
    beat = 0
    while not self.stopping.is_set():
      beat += 1
      try:
        client.key_value_set(f"axle/heartbeat/{me}", str(beat), allow_overwrite=True)
        beats = dict(client.key_value_dir_get("axle/heartbeat/"))
      except Exception as exc:  # noqa: BLE001 - any failure to reach the coordinator
        if not self.stopping.is_set():
          self._fail(f"process {me} lost the coordinator at {self.address} ({exc})")
        return
      now = time.monotonic()
      silent = []
      for p in others:
        value = beats.get(f"axle/heartbeat/{p}")
        if value != last_change[p][0]:
          last_change[p] = (value, now)
        elif now - last_change[p][1] > self.heartbeat_timeout:
          silent.append(p)
      if silent:
        try:
          left = {key.rsplit("/", 1)[1] for key, _ in client.key_value_dir_get("axle/left/")}
        except Exception:  # noqa: BLE001
          left = set()
        names = ", ".join(map(str, silent))
        self._fail(f"process{'es' if len(silent) > 1 else ''} {names} of this "
                   f"{self.num_processes}-process job (coordinator {self.address}) sent no "
                   f"heartbeat for heartbeat_timeout_seconds={self.heartbeat_timeout} s: "
                   + ("it shut down (or exited) while this process still needed it"
                      if len(silent) == 1 and str(silent[0]) in left else
                      f"{'they' if len(silent) > 1 else 'it'} died or hung"))
        return
      self.stopping.wait(interval)

  def _fail(self, what: str) -> None:
    self.failure = (
        f"distributed: {what}. Computations that need the missing process can never finish, "
        f"so process {self.process_id} cannot go on: end it and restart the whole job (the "
        f"missing process's own output says why it stopped).")
    # XLA's client and the buffers of hung collectives must never be destroyed: their
    # destructors would wait for those collectives. This process is done anyway.
    _leak(_state.get("client"))
    _leak(_in_flight)
    # Disconnect, so that the coordinator going away later cannot end this process; but only
    # once the coordinator itself has declared the peer dead (get_live_nodes returns then):
    # a shutdown barrier that a dead peer fails is broadcast to every process as fatal.
    try:
      self.client.get_live_nodes(list(range(self.num_processes)))
    except Exception:  # noqa: BLE001 - the coordinator is gone: nothing to disconnect from
      self.connected = False
      _leak(self.client)
    self._disconnect()

  def explain(self, exc: BaseException) -> JaxRuntimeError:
    """The error to raise for XLA's ``exc`` from a computation of this job: a collective
    fails at once when a peer's connection closes; the watchdog then names the peer."""
    import time
    lost_peer = "Gloo" in str(exc) or "onnection" in str(exc)
    # Wait for the watchdog to name the peer when that takes a few seconds at most.
    naming = 2 * self.heartbeat_timeout + 2
    deadline = time.monotonic() + (0 if not lost_peer else naming if naming <= 10 else 0.5)
    while self.failure is None and time.monotonic() < deadline:
      time.sleep(0.05)
    if self.failure is not None:
      return JaxRuntimeError(f"{self.failure}\nXLA reported: {exc}")
    if lost_peer:
      # XLA's shutdown barrier would now fail and end every process: leave without it.
      self.broken = True
      return JaxRuntimeError(
          f"distributed: a collective of process {self.process_id} with another process of "
          f"this {self.num_processes}-process job (coordinator {self.address}) failed: {exc}. "
          f"That process probably died (its heartbeat stops counting after "
          f"heartbeat_timeout_seconds={self.heartbeat_timeout} s). Computations that need it "
          f"can never finish: end this process and restart the whole job.")
    return JaxRuntimeError(f"distributed: a computation of process {self.process_id} failed: "
                           f"{exc}")

  def _disconnect(self) -> None:
    if self.connected:
      self.connected = False
      try:
        self.client.shutdown()
      except Exception:  # noqa: BLE001 - leaving a broken job: nothing more to do
        pass

  def leave(self) -> None:
    """JAX's shutdown: a barrier with the other processes, then disconnect; process 0 then
    stops the coordinator. XLA's own shutdown barrier ends every process when a peer has
    died, so a bounded barrier in the key-value store checks first that all are there."""
    import time
    clean = self.failure is None and not self.broken
    if clean:
      try:
        self.client.key_value_set(f"axle/left/{self.process_id}", "1", allow_overwrite=True)
        deadline = time.monotonic() + self.shutdown_timeout
        while self.failure is None and time.monotonic() < deadline:
          if len(self.client.key_value_dir_get("axle/left/")) >= self.num_processes:
            break
          time.sleep(0.02)
        else:
          clean = False
      except Exception:  # noqa: BLE001
        clean = False
    self.stopping.set()
    self.watchdog.join(timeout=3 * self.heartbeat_timeout + 10)
    if self.failure is not None:
      clean = False  # the watchdog has disconnected (or is disconnecting) this process
    elif not clean:  # a failed collective, or a peer that neither came nor died
      # A peer neither reached the barrier nor stopped: XLA's own shutdown barrier would fail
      # and end every process. Leave without it (the coordinator then drops this process).
      self.connected = False
      _leak(self.client)
      _leak(_state.get("client"))
      _leak(_in_flight)
    else:
      self._disconnect()  # XLA's shutdown barrier: every process is known to be there
    if self.coordinator is not None:
      try:
        if clean:
          self.coordinator.stdin.write(b"stop\n")
        self.coordinator.stdin.close()  # without "stop" it waits for the others to notice
        if clean:
          self.coordinator.wait(timeout=10)
      except Exception:  # noqa: BLE001
        pass


_leaked: list = []


def _leak(obj) -> None:
  """Keeps ``obj`` alive through interpreter shutdown (its destructor never runs)."""
  if obj is not None:
    import ctypes
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    _leaked.append(obj)


def initialize_distributed(coordinator_address: str, num_processes: int, process_id: int,
                           initialization_timeout: int = 300, heartbeat_timeout: int = 100,
                           shutdown_timeout: int = 300,
                           coordinator_bind_address: str | None = None) -> None:
  """Joins the distributed job (JAX's recipe: process 0 starts the coordination service;
  every process connects, then its CPU client sees every process's devices). What would end
  the process inside XLA raises JaxRuntimeError instead (see above)."""
  import atexit
  if "distributed" in _state:
    raise RuntimeError("distributed.initialize should only be called once.")
  if backend_started():
    raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                       "computations are executed.")
  host, port = _split_address(coordinator_address, "coordinator_address")
  bind_address = coordinator_bind_address or coordinator_address
  bind_host, bind_port = _split_address(bind_address, "coordinator_bind_address")
  for name, value in (("initialization_timeout", initialization_timeout),
                      ("heartbeat_timeout_seconds", heartbeat_timeout),
                      ("shutdown_timeout_seconds", shutdown_timeout)):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
      raise ValueError(f"distributed.initialize: {name} must be a positive whole number of "
                       f"seconds, got {value!r}")
  _xc()
  from jaxlib import _jax
  coordinator = None
  if process_id == 0:
    _check_port_free(bind_host, bind_port, bind_address)
    coordinator = _start_coordinator(bind_address, num_processes, heartbeat_timeout,
                                     shutdown_timeout, initialization_timeout)
  try:
    if not _wait_for_port(host, port, initialization_timeout):
      raise JaxRuntimeError(
          f"distributed.initialize: process {process_id} found no coordinator listening at "
          f"{coordinator_address} within initialization_timeout={initialization_timeout} s. "
          f"Start process 0 (it runs the coordinator) with the same coordinator_address, or "
          f"raise initialization_timeout.")
    client = _jax.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout, shutdown_timeout=shutdown_timeout,
        missed_heartbeat_callback=_missed_heartbeat, shutdown_on_destruction=False,
        use_compression=True)
    try:
      client.connect()
    except Exception:  # noqa: BLE001 - XLA's error is the callback's cast failure
      _leak(client)  # its destructor would log XLA's shutdown-in-error-state complaint
      raise JaxRuntimeError(
          f"distributed.initialize: process {process_id} could not join the "
          f"{num_processes}-process job at {coordinator_address} within "
          f"initialization_timeout={initialization_timeout} s: not every process connected "
          f"(one never started, crashed, or was given another coordinator_address, "
          f"num_processes or process_id). Start all {num_processes} processes with the same "
          f"coordinator_address and num_processes and distinct process_ids, or raise "
          f"initialization_timeout.") from None
  except BaseException:
    if coordinator is not None:
      coordinator.kill()
      coordinator.wait()
    raise
  _state["distributed"] = _Job(client, coordinator, coordinator_address, process_id,
                               num_processes, heartbeat_timeout, shutdown_timeout)
  atexit.register(shutdown_distributed)


def shutdown_distributed() -> None:
  """Leaves the distributed job (a barrier with the other processes); safe to call twice."""
  job = _state.pop("distributed", None)
  if job is not None:
    job.leave()


def raise_if_job_failed() -> None:
  """Raises the distributed job's failure (a peer that died), if any."""
  job = _state.get("distributed")
  if job is not None:
    job.raise_if_failed()


def _wait_ready(buffers: Sequence) -> None:
  """Waits for ``buffers``; in a distributed job, polls so that a dead peer (whose collectives
  never finish) raises instead of waiting forever."""
  job = _state.get("distributed")
  if job is not None:
    import time
    delay = 0.0002
    while True:
      job.raise_if_failed()
      if all(b.is_deleted() or b.is_ready() for b in buffers):
        break
      time.sleep(delay)
      delay = min(2 * delay, 0.02)
    try:
      _xc().batched_block_until_ready(list(buffers))
    except Exception as exc:  # noqa: BLE001
      if any(b.is_deleted() for b in buffers):
        raise
      raise job.explain(exc) from None
    return
  _xc().batched_block_until_ready(list(buffers))


def distributed_initialized() -> bool:
  return "distributed" in _state


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

    replicated = xc.HloSharding.replicate()

    class _SingleDeviceSharding(xc.SingleDeviceSharding):
      # Plain class attributes, not properties: jaxlib reads some of them on every transfer.
      _device_assignment = (device,)
      is_fully_replicated = True
      num_devices = 1
      memory_kind = None

      def _to_xla_hlo_sharding(self, ndim):
        return replicated

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
  putter = _putters.get((device, owned))
  if putter is None:
    putter = _putters[(device, owned)] = _make_putter(device, owned)
  return putter(value, aval)


# (device or None, owned) -> put(value, aval) with everything else bound (every eager op on a
# host value puts it: the lookups of the device and its sharding cost as much as the put).
_putters: dict = {}


def _make_putter(device, owned: bool):
  xc = _xc()
  device = default_device() if device is None else device
  sharding, devices_ = sharding_for(device), [device]
  semantics = (xc.HostBufferSemantics.ZERO_COPY if owned
               else xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL)
  device_put = xc.batched_device_put

  def put_value(value, aval):
    return device_put(aval, sharding, [value], devices_, True, False, semantics, enable_x64=True)
  return put_value


def host_putter(aval, device=None):
  """``value -> buffer`` for NumPy arrays of ``aval``'s shape and (canonical) dtype that the
  caller may mutate later (copied during the call), with everything but the value bound."""
  xc = _xc()
  if device is None:
    device = default_device()
  sharding, devices_ = sharding_for(device), [device]
  semantics = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
  device_put = xc.batched_device_put

  def put_host(value):
    return device_put(aval, sharding, [value], devices_, True, False, semantics, enable_x64=True)
  return put_host


def deleted_error(aval) -> RuntimeError:
  """JAX's error for reading an array whose buffer was deleted or donated."""
  return RuntimeError(f"Array has been deleted with shape={aval.str_short(False)}.")


def to_host(buffer, aval) -> np.ndarray:
  """The buffer's value as a read-only NumPy array (zero-copy on the CPU where possible);
  waits for the computation producing it."""
  if "distributed" in _state and not buffer.is_deleted():
    _wait_ready([buffer])
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


def wait_for(buffer) -> None:
  """``buffer.block_until_ready()``; in a distributed job a dead peer raises instead."""
  if "distributed" in _state and not buffer.is_deleted():
    _wait_ready([buffer])
  buffer.block_until_ready()


def block_until_ready(buffers: Sequence) -> None:
  """Waits for ``buffers`` (see ``wait_for``)."""
  if len(buffers) <= 4 and "distributed" not in _state:
    # (one buffer's wait is 0.13 us, jaxlib's batched wait 0.5 us: a jitted call's few outputs
    # are waited for one by one)
    for buffer in buffers:
      buffer.block_until_ready()
  elif buffers:
    _wait_ready(buffers)


# ---------------------------------------------------------------------------
# Compilation and execution


class CompileOptions:
  """What axle passes to XLA besides the module (part of the compile cache key)."""
  __slots__ = ("num_replicas", "num_partitions", "fast_math", "keep_barriers")

  def __init__(self, num_replicas: int = 1, num_partitions: int = 1,
               keep_barriers: bool = False):
    self.num_replicas = num_replicas
    self.num_partitions = num_partitions
    # Keep optimization barriers to the end: XLA otherwise turns them into ordering
    # constraints early, and then fuses and simplifies across them (mul then add -> fma).
    self.keep_barriers = keep_barriers

  def key(self) -> str:
    barriers = ";barriers" if self.keep_barriers else ""
    return f"replicas={self.num_replicas};partitions={self.num_partitions}{barriers}"

  def to_xla(self, device_list):
    xc = _xc()
    options = xc.CompileOptions()
    options.num_replicas = self.num_replicas
    options.num_partitions = self.num_partitions
    if self.keep_barriers:
      options.env_option_overrides = [("xla_disable_hlo_passes", "cse_barrier_expander")]
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


def _check_assignment(options: CompileOptions, devices_: tuple) -> None:
  """XLA aborts or crashes on a device assignment with repeated devices or of another size
  than replicas x partitions: refuse those first."""
  if (options.num_replicas * options.num_partitions != len(devices_)
      or len(set(devices_)) != len(devices_)):
    raise ValueError(f"compile: {options.num_replicas} replicas x {options.num_partitions} "
                     f"partitions need as many distinct devices, got {devices_}")


def compile(mlir_text: str, out_avals, options: CompileOptions | None = None,
            devices_: Sequence | None = None, host_callbacks: Sequence | None = None) -> Executable:
  """Compiles a StableHLO module (MLIR text with a public ``@main``).

  ``host_callbacks`` are the Python functions its ``xla_ffi_python_cpu_callback`` custom calls
  name by index (each gets read-only NumPy arrays and returns a tuple of arrays)."""
  xc = _xc()
  options = options or CompileOptions()
  devices_ = tuple(devices_) if devices_ else (default_device(),)
  _check_assignment(options, devices_)
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
  _check_assignment(options, devices_)
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


def _mlir_context(context_class=None):
  """An MLIR context (of ``context_class``, a subclass of jaxlib's ``ir.Context``, if given)
  with the StableHLO and CHLO dialects registered."""
  from jaxlib.mlir import ir
  from jaxlib.mlir._mlir_libs import _jax_mlir_ext
  from jaxlib.mlir.dialects import chlo, sdy, stablehlo
  registry = ir.DialectRegistry()
  _jax_mlir_ext.register_dialects(registry)
  context = (context_class or ir.Context)()
  context.append_dialect_registry(registry)
  context.load_all_available_dialects()
  stablehlo.register_dialect(context)
  chlo.register_dialect(context)
  sdy.register_dialect(context)  # Shardy attributes (the LAPACK calls' sharding rules)
  return context


def mlir_bindings():
  """jaxlib's MLIR Python bindings, for lowering rules written against JAX's
  (``jax._src.lib.mlir``): a namespace with ``ir``, ``func``, ``stablehlo`` (JAX's ``hlo``),
  ``chlo``, ``jax_mlir_ext`` and ``new_context(context_class=None)``. Imported on first use
  (about half a second), so programs without such rules never pay for it."""
  bindings = _state.get("mlir")
  if bindings is None:
    import types
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, func, stablehlo
    bindings = types.SimpleNamespace(ir=ir, func=func, stablehlo=stablehlo, chlo=chlo,
                                     jax_mlir_ext=_jax_mlir_ext, new_context=_mlir_context)
    _state["mlir"] = bindings
  return bindings
# ---------------------------------------------------------------------------
# Several devices: multi-device shardings, arrays and SPMD executables
# (shared/xla-multidevice/NOTES.md lists the calls, and the misuses that abort the process;
# everything here validates before XLA sees it).

class _Aval:
  """The (shape, dtype, weak_type) record jaxlib's C++ reads from an array's aval."""
  __slots__ = ("shape", "dtype", "weak_type")

  def __init__(self, shape, dtype, weak_type=False):
    self.shape = tuple(shape)
    self.dtype = np.dtype(dtype)
    self.weak_type = weak_type


def hlo_sharding(tile_dims: Sequence[int] | None, device_order: Sequence[int] | None = None,
                 subgroups: Sequence[str] = ()):
  """An XLA HloSharding: replicated when ``tile_dims`` is None, else tiled ``tile_dims`` over
  logical devices ``device_order``, the last ``len(subgroups)`` tile dims being subgroups of
  those kinds (``"unreduced"``, ``"replicated"``)."""
  xc = _xc()
  if tile_dims is None:
    return xc.HloSharding.replicate()
  proto = xc.OpSharding()
  proto.type = xc.OpSharding.Type.OTHER
  proto.tile_assignment_dimensions = [int(d) for d in tile_dims]
  count = int(np.prod(tile_dims))
  proto.tile_assignment_devices = list(device_order) if device_order is not None else list(range(count))
  if tuple(subgroups) == ("replicated",):
    proto.replicate_on_last_tile_dim = True
  elif subgroups:
    kinds = {"unreduced": xc.OpSharding.Type.UNREDUCED,
             "replicated": xc.OpSharding.Type.REPLICATED}
    proto.last_tile_dims = [kinds[k] for k in subgroups]
  return xc.HloSharding.from_proto(proto)


def hlo_sharding_from_proto(proto):
  return _xc().HloSharding.from_proto(proto)


def hlo_tiling(sharding) -> tuple | None:
  """(tile dims, logical device order, kinds of the trailing subgroup tile dims) of an
  HloSharding (as ``hlo_sharding`` takes them); None when replicated."""
  if sharding.is_replicated() or sharding.is_maximal():
    return None
  if sharding.replicate_on_last_tile_dim():
    subgroups = ("replicated",)
  else:
    names = {_xc().OpSharding.Type.UNREDUCED: "unreduced",
             _xc().OpSharding.Type.REPLICATED: "replicated"}
    subgroups = tuple(names.get(t, str(t)) for t in sharding.subgroup_types())
  return (tuple(sharding.tile_assignment_dimensions()), tuple(sharding.tile_assignment_devices()),
          subgroups)


_multi_shardings: dict = {}


def multi_device_sharding(devices_: Sequence, sharding):
  """The jaxlib sharding object for ``devices_`` laid out by HloSharding ``sharding``."""
  key = (tuple(devices_), repr(sharding))
  cached = _multi_shardings.get(key)
  if cached is not None:
    return cached
  xc = _xc()

  class _MultiSharding(xc.GSPMDSharding):
    def _to_xla_hlo_sharding(self, ndim):
      return sharding

    @property
    def _device_assignment(self):
      return tuple(devices_)

    @property
    def is_fully_replicated(self):
      return sharding.is_replicated()

    @property
    def num_devices(self):
      return len(devices_)

    @property
    def memory_kind(self):
      return None

  result = _multi_shardings[key] = _MultiSharding(list(devices_), sharding)
  return result


def shard_shape(global_shape: Sequence[int], sharding, num_devices: int) -> tuple | None:
  """The shape of each device's piece of an array of ``global_shape`` laid out by HloSharding
  ``sharding`` over ``num_devices`` devices (None for layouts with subgroups, not checked).
  Raises when the layout does not fit: XLA aborts or crashes on such inputs."""
  tiling = hlo_tiling(sharding)
  if tiling is None:
    return tuple(global_shape)
  dims, _, replicate_last = tiling
  if int(np.prod(dims)) != num_devices:
    raise ValueError(f"the sharding {sharding} lays an array out over {int(np.prod(dims))} "
                     f"devices, but {num_devices} devices were given")
  data_dims = dims[:-1] if replicate_last else dims
  if len(data_dims) != len(global_shape):
    return None
  for axis, (size, tiles) in enumerate(zip(global_shape, data_dims)):
    if size % tiles:
      raise ValueError(f"the sharding {sharding} splits dimension {axis} (of size {size}) of an "
                       f"array of shape {tuple(global_shape)} into {tiles} pieces, which does "
                       f"not divide it evenly")
  return tuple(size // tiles for size, tiles in zip(global_shape, data_dims))


def check_shards(pieces: Sequence, global_aval, devices_: Sequence, sharding, what: str,
                 local) -> None:
  """Checks the (shape, dtype) of each device's piece of a multi-device array before XLA sees
  it (XLA segfaults on a multi-device input whose per-device buffer has another shape or
  dtype); None marks a device of another process."""
  expected = shard_shape(global_aval.shape, sharding, len(devices_))
  dtype = np.dtype(global_aval.dtype)
  for k, (device, piece) in enumerate(zip(devices_, pieces)):
    if piece is None:
      if device in local:
        raise ValueError(f"{what}: no data for device {device!r} (piece {k}), a device of this "
                         f"process")
      continue
    shape, piece_dtype = piece
    if (expected is not None and tuple(shape) != expected) or np.dtype(piece_dtype) != dtype:
      raise ValueError(
          f"{what}: the piece for device {device!r} (piece {k}) has shape {tuple(shape)} and "
          f"dtype {np.dtype(piece_dtype)}; an array of shape {tuple(global_aval.shape)} and "
          f"dtype {dtype} laid out by {sharding} over {len(devices_)} devices needs pieces of "
          f"shape {expected} and dtype {dtype}")


def put_shards(pieces: Sequence[np.ndarray], global_aval, devices_: Sequence, sharding):
  """One multi-device buffer of ``global_aval`` from one host piece per device of ``devices_``
  (pieces copied during the call)."""
  xc = _xc()
  if len(pieces) != len(devices_) or len(set(devices_)) != len(devices_):
    raise ValueError(f"put_shards: {len(pieces)} pieces for {len(devices_)} distinct devices")
  local = set(local_devices())
  check_shards([None if p is None else (np.shape(p), np.asarray(p).dtype) for p in pieces],
               global_aval, devices_, sharding, "put_shards", local)
  # A broadcast view (zero strides) counts as contiguous to NumPy but not to XLA: copy it.
  pieces = [None if p is None else
            np.array(p, order="C") if 0 in np.asarray(p).strides else np.ascontiguousarray(p)
            for p in pieces]
  jaxlib_sharding = multi_device_sharding(devices_, sharding)
  if not all(d in local for d in devices_):  # several processes: this process's pieces only
    buffers = [xc.batched_device_put(_Aval(p.shape, p.dtype), sharding_for(d), [p], [d], True,
                                     False, xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
                                     enable_x64=True)
               for p, d in zip(pieces, devices_) if d in local]
    return xc.ArrayImpl(_Aval(global_aval.shape, global_aval.dtype), jaxlib_sharding, buffers,
                        committed=True, _skip_checks=True)
  if not sharding.replicate_on_last_tile_dim() and not sharding.is_replicated():
    return xc.batched_device_put(_Aval(global_aval.shape, global_aval.dtype), jaxlib_sharding,
                                 pieces, list(devices_), True, False,
                                 xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
                                 enable_x64=True)
  # Partly or fully replicated layouts: one put per device, then one array of the pieces.
  buffers = [xc.batched_device_put(_Aval(p.shape, p.dtype), sharding_for(d), [p], [d], True,
                                   False, xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
                                   enable_x64=True) for p, d in zip(pieces, devices_)]
  return xc.ArrayImpl(_Aval(global_aval.shape, global_aval.dtype), jaxlib_sharding, buffers,
                      committed=True, _skip_checks=True)


def assemble_buffers(buffers: Sequence, global_aval, devices_: Sequence, sharding):
  """One multi-device buffer from single-device buffers, one per device of ``devices_`` (in
  that order)."""
  xc = _xc()
  if len(buffers) != len(devices_) or [buffer_devices(b)[0] for b in buffers] != list(devices_):
    raise ValueError("assemble_buffers: the buffers must lie on the devices, in their order")
  check_shards([(tuple(b.aval.shape), np.dtype(b.aval.dtype)) for b in buffers], global_aval,
               devices_, sharding, "assemble_buffers", set(devices_))
  return xc.ArrayImpl(_Aval(global_aval.shape, global_aval.dtype),
                      multi_device_sharding(devices_, sharding), list(buffers), committed=True,
                      _skip_checks=True)


_shard_stand_ins: dict = {}


def _stand_in_modules() -> dict:
  """What jaxlib's C++ imports when it splits a multi-device array into single-device ones:
  ``jax.core.ShapedArray`` and ``jax._src.sharding_impls.make_single_device_sharding``. Without
  them each split retries the failing imports (~1 ms); these stand-ins live in ``sys.modules``
  only during the split (shared/xla-multidevice/NOTES.md)."""
  if not _shard_stand_ins:
    import types
    root = types.ModuleType("jax")
    root.__path__ = []
    core_module = types.ModuleType("jax.core")
    core_module.ShapedArray = lambda shape, dtype, weak_type=False: _Aval(shape, dtype, weak_type)
    src = types.ModuleType("jax._src")
    src.__path__ = []
    impls = types.ModuleType("jax._src.sharding_impls")
    impls.make_single_device_sharding = lambda device, memory_kind=None: sharding_for(device)
    _shard_stand_ins.update({"jax": root, "jax.core": core_module, "jax._src": src,
                             "jax._src.sharding_impls": impls})
  return _shard_stand_ins


def shard_buffers(buffer) -> list:
  """The single-device buffers of a multi-device buffer, in its devices' order."""
  import sys
  if "jax" in sys.modules and sys.modules["jax"] is not _shard_stand_ins.get("jax"):
    return list(buffer._arrays)
  stand_ins = _stand_in_modules()
  with _lock:
    sys.modules.update(stand_ins)
    try:
      return list(buffer._arrays)
    finally:
      for name in stand_ins:
        sys.modules.pop(name, None)


def buffer_devices(buffer) -> tuple:
  """The devices a (single- or multi-device) buffer lives on, in its sharding's order."""
  return tuple(buffer._sharding._device_assignment)


class SpmdExecutable:
  """A loaded SPMD executable over several devices. ``execute`` takes multi-device buffers laid
  out as ``in_shardings`` says (checked first: a mismatch crashes XLA) and returns
  multi-device buffers laid out as ``out_shardings``."""
  __slots__ = ("loaded", "in_avals", "out_avals", "devices", "in_shardings", "out_shardings",
               "_handlers", "_in_jaxlib_shardings", "__weakref__")

  def __init__(self, loaded, in_avals, out_avals, devices_):
    self.loaded = loaded
    self.in_avals = tuple(in_avals)
    self.out_avals = tuple(out_avals)
    self.devices = tuple(devices_)
    xc = _xc()
    # One partition: XLA reports no shardings (everything is whole on the one device).
    params = loaded.get_parameter_shardings() if len(self.devices) > 1 else None
    outputs = loaded.get_output_shardings() if len(self.devices) > 1 else None
    self.in_shardings = ([xc.HloSharding.from_proto(p) for p in params] if params is not None
                         else [xc.HloSharding.replicate()] * len(self.in_avals))
    self.out_shardings = ([xc.HloSharding.from_proto(p) for p in outputs] if outputs is not None
                          else [xc.HloSharding.replicate()] * len(self.out_avals))
    self._in_jaxlib_shardings = [multi_device_sharding(self.devices, s) for s in self.in_shardings]
    self._handlers = [
        xc.array_result_handler(_Aval(a.shape, a.dtype, a.weak_type),
                                multi_device_sharding(self.devices, s), True, _skip_checks=True)
        for a, s in zip(self.out_avals, self.out_shardings)]

  def execute(self, buffers: list) -> list:
    if "distributed" in _state:
      raise_if_job_failed()
    if len(buffers) != len(self.in_avals):
      raise ValueError(f"SPMD executable expects {len(self.in_avals)} arguments, got {len(buffers)}")
    for i, (buffer, aval, sharding) in enumerate(zip(buffers, self.in_avals,
                                                     self._in_jaxlib_shardings)):
      have_aval = buffer.aval
      if tuple(have_aval.shape) != tuple(aval.shape) or np.dtype(have_aval.dtype) != aval.dtype:
        raise ValueError(f"argument {i}: expected {aval.str_short()}, got a buffer of shape "
                         f"{tuple(have_aval.shape)} and dtype {have_aval.dtype}")
      have = buffer._sharding
      if have is not sharding and (tuple(have._device_assignment) != self.devices or
                                   have._to_xla_hlo_sharding(len(aval.shape))
                                   != self.in_shardings[i]):
        raise ValueError(f"argument {i}: its buffer is laid out over the wrong devices or with "
                         "the wrong sharding for this executable")
    try:
      outs = self.loaded.execute_sharded(buffers).consume_with_handlers(self._handlers)
    except _xc().XlaRuntimeError as exc:
      job = _state.get("distributed")
      if job is not None:  # with one device per process the launch runs (and fails) inline
        raise job.explain(exc) from None
      raise XlaError(str(exc)) from None
    _bound_in_flight(outs)
    return outs

  def hlo_text(self) -> str:
    return self.loaded.get_hlo_text()

  def cost_analysis(self) -> dict:
    return dict(self.loaded.cost_analysis())

  def memory_analysis(self):
    return self.loaded.get_compiled_memory_stats()


# Multi-device launches not yet known to be finished. XLA:CPU deadlocks when more than 32
# computations are in flight per device and a collective is launched (and, across processes,
# when the processes' queues grow unbounded); with several processes, or fewer than two
# dispatch threads per device, at most _MAX_IN_FLIGHT launches are left outstanding.
_in_flight: list = []
_MAX_IN_FLIGHT = 16


def _bound_in_flight(outs) -> None:
  if "distributed" not in _state and dispatch_threads_suffice():
    return
  _in_flight.append(outs)
  if len(_in_flight) > _MAX_IN_FLIGHT:
    oldest = _in_flight.pop(0)
    live = [o for o in oldest if not o.is_deleted()]
    if live:
      _wait_ready(live)


def compile_spmd(mlir_text: str, in_avals, out_avals, devices_: Sequence, *,
                 propagate_to_outputs: Sequence[bool] = (),
                 propagate_to_parameters: Sequence[bool] = (),
                 shardy: bool = True) -> SpmdExecutable:
  """Compiles an SPMD module (``num_partitions = len(devices_)``) as JAX does: logical device
  k is ``devices_[k]`` both in the device list and in the device assignment."""
  xc = _xc()
  devices_ = tuple(devices_)
  if len(set(devices_)) != len(devices_):
    raise ValueError(f"compile_spmd: duplicate devices in {devices_}")
  options = xc.CompileOptions()
  options.num_replicas = 1
  options.num_partitions = len(devices_)
  build = options.executable_build_options
  build.use_spmd_partitioning = True
  build.use_shardy_partitioner = shardy
  if propagate_to_outputs:
    build.allow_spmd_sharding_propagation_to_output = list(propagate_to_outputs)
  if propagate_to_parameters:
    build.allow_spmd_sharding_propagation_to_parameters = list(propagate_to_parameters)
  options.device_assignment = xc.DeviceAssignment.create(
      np.array([d.id for d in devices_], dtype=np.int64).reshape(1, len(devices_)))
  try:
    loaded = get_client().compile_and_load(mlir_text, xc.DeviceList(devices_), options)
  except xc.XlaRuntimeError as exc:
    raise XlaError(f"XLA could not compile the lowered program: {exc}") from None
  return SpmdExecutable(loaded, in_avals, out_avals, devices_)
