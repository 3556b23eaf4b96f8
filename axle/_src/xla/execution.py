"""Running jaxprs on XLA: compiling (through the in-memory and on-disk executable caches),
turning arguments into device buffers, executing, and the eager fallback that runs one
primitive as a cached single-primitive executable."""
from __future__ import annotations

import collections
import logging
import time
import weakref

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src.array import Array, before_donation
from axle._src.config import config
from axle._src.core import ShapedArray
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering
from axle._src.ir import ClosedJaxpr
from axle._src.xla import cache as disk_cache
from axle._src.xla import client
from axle._src.xla import host_calls
from axle._src.xla import spmd_jit
from axle._src.sharded_array import ShardedArray

logger = logging.getLogger("axle")

# Module text -> Executable: identical programs (from any function) compile once while one of
# them lives. Weak values, so a dead jitted function's executable is freed; the most recently
# used few are also held strongly, so a ``jit(lambda ...)`` re-created in a loop does not
# recompile every time.
_executables: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()
_recent_executables: "collections.OrderedDict" = collections.OrderedDict()
_RECENT_EXECUTABLES = 32


def _remember(text: str, executable) -> None:
  _recent_executables[text] = executable
  _recent_executables.move_to_end(text)
  while len(_recent_executables) > _RECENT_EXECUTABLES:
    _recent_executables.popitem(last=False)


def clear_caches() -> None:
  """Forgets every compiled executable held in memory (the on-disk cache is kept)."""
  _executables.clear()
  _recent_executables.clear()
  _jaxpr_calls.clear()
  _scalar_buffers.clear()
  _primitive_executables.clear()
  lowering.clear_caches()

# Closed-over arrays bigger than this many elements are passed as arguments instead of being
# written into the module text as constants (large constants make compiles slow).
_MAX_INLINE_CONSTANT_SIZE = 4096


def compile_text(text: str, out_avals, name: str = "main",
                 host_callbacks: list | None = None, persistent: bool = True) -> client.Executable:
  """The executable for a StableHLO module: from memory, from the on-disk cache (unless not
  ``persistent``), or compiled.

  A module with ``host_callbacks`` is compiled afresh and never cached: its text names the
  callbacks only by index."""
  if host_callbacks:
    start = time.perf_counter()
    executable = client.compile(text, out_avals, client.CompileOptions(),
                                host_callbacks=[_capturing_errors(f) for f in host_callbacks])
    if config.jax_log_compiles:
      logger.warning("Finished XLA compilation of jit(%s) in %.3f seconds", name,
                     time.perf_counter() - start)
    return executable
  executable = _executables.get(text)
  if executable is not None:
    _remember(text, executable)
    return executable
  options = client.CompileOptions()
  executable = disk_cache.load(text, options, out_avals) if persistent else None
  if executable is None:
    start = time.perf_counter()
    executable = client.compile(text, out_avals, options)
    seconds = time.perf_counter() - start
    if config.jax_log_compiles:
      logger.warning("Finished XLA compilation of jit(%s) in %.9f sec", name, seconds)
    if persistent:
      disk_cache.store(text, options, executable, seconds)
  _executables[text] = executable
  _remember(text, executable)
  return executable


# ---------------------------------------------------------------------------
# Host callbacks: errors raised in Python while XLA runs a program


# Exceptions raised by host callbacks of the program being run, oldest first.
_callback_errors: list = []


def _capturing_errors(callback):
  """``callback``, recording any exception it raises so that the caller of the program sees
  the original exception (type and traceback) instead of XLA's runtime error."""
  def capturing(*args):
    try:
      return callback(*args)
    except BaseException as exc:
      _callback_errors.append(exc)
      raise
  return capturing


def execute_with_callbacks(executable: client.Executable, buffers: list) -> list:
  """Runs a program that calls back into Python and waits for it, so that its callbacks have
  run (in order with those of earlier calls) when this returns; an exception raised by a
  callback is re-raised here with its own type and traceback."""
  del _callback_errors[:]
  try:
    return executable.execute_and_wait(buffers)
  except Exception as exc:
    if not client.is_runtime_error(exc) or not _callback_errors:
      raise
    error = _callback_errors[0]
    del _callback_errors[:]
    raise error.with_traceback(error.__traceback__) from None


def effects_barrier() -> None:
  """Waits until every callback of the programs run so far has run. Programs that call back
  are waited for when they run, so there is nothing left pending when this is called."""


class CompiledCall:
  """One traced signature of a jitted function, compiled: runs on flat argument leaves."""
  __slots__ = ("executable", "out_avals", "const_buffers", "donated", "text", "closed_ref",
               "in_avals", "name", "has_callbacks", "unconfirmed", "_spmd_calls",
               "kept", "run_avals")

  def __new__(cls, closed: ClosedJaxpr, name: str = "main", donated_leaves=(),
              keep_unused: bool = False):
    mesh = spmd_jit.jaxpr_mesh(closed.jaxpr)
    if mesh is not None:  # shard_map or sharding constraints: one program over the mesh
      return spmd_jit.SpmdJitCall(closed, name, mesh, donated_leaves)
    return super().__new__(cls)

  # Holds no reference to the jaxpr: ``_jaxpr_calls`` maps a jaxpr weakly to its call.
  def __init__(self, closed: ClosedJaxpr, name: str, donated_leaves=(), keep_unused: bool = False):
    self.name = name
    self.in_avals = tuple(closed.in_avals)  # the signature callers pass, unused leaves included
    self.out_avals = tuple(closed.out_avals)
    program, self.kept, donated_leaves = prune_unused(closed, donated_leaves, keep_unused)
    self.run_avals = tuple(program.in_avals)
    host_callbacks: list = []
    self.text, big_consts, donated = lower_call(program, name, donated_leaves, host_callbacks)
    kept = self.kept
    self.donated = donated if kept is None else tuple(kept[p] for p in donated)
    self.has_callbacks = bool(host_callbacks)
    self.executable = compile_text(self.text, [core.physical_aval(a) for a in self.out_avals],
                                   name, host_callbacks)
    self.const_buffers = [_const_buffer(c) for c in big_consts]
    self._spmd_calls = {}
    # Weak: the jit cache entry holds the jaxpr; this call must not keep it alive.
    self.closed_ref = weakref.ref(closed)
    # Loaded from the on-disk cache and not yet run in this process: the first run waits for
    # its results, then clears the entry's loading mark (see cache.py).
    self.unconfirmed = disk_cache.is_unconfirmed(self.executable)

  def _confirm(self, outs) -> None:
    client.block_until_ready([getattr(o, "_base_array", o)._buffer for o in outs])  # (keys)
    disk_cache.confirm(self.executable)
    self.unconfirmed = False

  def run(self, leaves) -> list:
    """Executes on the flat argument leaves (Arrays, NumPy values or Python scalars); returns
    device-backed Arrays (possibly still being computed)."""
    for leaf in leaves:
      if type(leaf) is ShardedArray and leaf._sharding.mesh.size > 1:
        return self._spmd_call(leaf._sharding.mesh).run(leaves)
    return self._run(leaves)

  def _spmd_call(self, mesh):
    """Arguments laid out over a mesh: the program runs there, as JAX's jit does."""
    calls = self._spmd_calls
    call = calls.get(mesh)
    if call is None:
      call = calls[mesh] = spmd_jit.SpmdJitCall(self.closed_ref(), self.name, mesh, self.donated)
    return call

  def _run(self, leaves) -> list:
    buffers = list(self.const_buffers)
    append = buffers.append
    kept = self.kept
    donated = self.donated
    for position, aval in zip(range(len(leaves)) if kept is None else kept, self.run_avals):
      leaf = leaves[position]
      if donated and position in donated:  # (pending ops that read it run first)
        append(fresh_leaf_buffer(leaf, aval))
      elif type(leaf) is Array and leaf._buffer is not None:
        # (inline: the common case of leaf_buffer, an Array already on the device)
        append(leaf._buffer)
      else:
        append(leaf_buffer(leaf, aval))
    if self.has_callbacks:
      outs = execute_with_callbacks(self.executable, buffers)
    else:
      outs = self.executable.execute(buffers)
    if self.donated:
      for position in self.donated:
        leaf = leaves[position]
        if isinstance(leaf, Array):
          leaf._value = None
          leaf._buffer = None
    results = _device_arrays(outs, self.out_avals)
    if self.unconfirmed:
      self._confirm(results)
    return results


def _device_arrays(buffers, avals) -> list:
  """Device-backed Arrays (host value read lazily) for the output buffers of one call."""
  results = []
  new = object.__new__
  for buffer, aval in zip(buffers, avals):
    array = new(Array)
    array._value = None
    array._buffer = buffer
    if not isinstance(aval.dtype, dtypes.ExtendedDType):
      array._aval = aval
    else:  # key arrays: the buffer holds their data
      array._aval = core.physical_aval(aval)
      array = aval.dtype.wrap_physical(array)
    results.append(array)
  return results


def _host_function(call, leaves):
  """The host function of ``call``'s program (see ``host_calls``) for arguments of the types
  of ``leaves`` (Arrays, Python scalars, NumPy values) when it donates none, verified against
  the compiled program; else None."""
  if call.donated or call.has_callbacks or not leaves:
    return None
  kinds = []
  for leaf in leaves:
    kind = type(leaf)
    if kind is Array:
      kinds.append(host_calls.ARRAY)
    elif kind in (int, float, bool):
      kinds.append(host_calls.SCALAR)
    elif kind is np.ndarray or isinstance(leaf, np.generic):
      kinds.append(host_calls.NUMPY)
    else:
      return None
  closed = call.closed_ref()
  if closed is None or tuple(closed.in_avals) != call.in_avals:
    return None
  host = host_calls.host_function(closed, kinds)
  if host is None or not host_calls.agrees_with_xla(host, call.run, call.in_avals, kinds):
    return None
  return host


# Returned by a signature runner whose signature the leaves do not have.
MISMATCH = object()

# NumPy arguments of at most this many bytes are put once per distinct value: a put costs about
# as much as executing a small program, and reading the bytes far less.
_SMALL_HOST_BYTES = 64


def _small_host_putter(aval: ShapedArray):
  """``value -> buffer`` for small NumPy arrays of ``aval``: a buffer shared by every call given
  the same bytes (the caller may mutate the array later: the key is its contents, and a buffer
  is never written to; donated arguments get buffers of their own)."""
  put = client.host_putter(aval)
  buffers: dict = {}

  def put_small(value):
    key = value.tobytes()
    buffer = buffers.get(key)
    if buffer is None:
      if len(buffers) >= 256:
        buffers.clear()
      buffer = buffers[key] = put(value)
    return buffer
  return put_small


# Leaf types a signature runner accepts besides Array: transferred on each call.
_HOST_LEAF_TYPES = (np.ndarray,)


def signature_runner(call, leaves, build):
  """``leaves -> build(outputs)`` for calls of ``call`` (a CompiledCall) whose flat arguments
  have the types and avals of ``leaves`` (a call just made), as one generated function: it
  checks each leaf's type and aval against this one signature, hands XLA every buffer in one
  execute, wraps the outputs and builds the output tree. Returns ``MISMATCH`` (having done
  nothing) for leaves of another signature, and the runner is None where this signature
  has no such shortcut (sharded or unusual leaves, a program not yet confirmed)."""
  if type(call) is not CompiledCall or call.unconfirmed:
    return None
  namespace = {"Array": Array, "MISMATCH": MISMATCH, "leaf_buffer": leaf_buffer,
               "fresh_leaf_buffer": fresh_leaf_buffer,
               "new": object.__new__, "build": build, "executable": call.executable,
               "execute": call.executable.loaded.execute_sharded,
               "handlers": call.executable._handlers,
               "execute_with_callbacks": execute_with_callbacks}
  checks, array_avals, array_names, fetch = [], [], [], []
  kept = range(len(leaves)) if call.kept is None else call.kept
  kept_set = set(kept)
  for i, (leaf, aval) in enumerate(zip(leaves, call.in_avals)):
    t = type(leaf)
    name = f"l{i}"
    if t is Array:
      if leaf._aval != aval:
        return None
      checks.append(f"if type({name}) is not Array: return MISMATCH")
      array_avals.append(aval)
      array_names.append(name)
      if i in kept_set:
        if i in call.donated:
          fetch.append(f"b{i} = fresh_leaf_buffer({name}, None)")
        else:
          fetch.append(f"b{i} = {name}._buffer\n  if b{i} is None: b{i} = {name}._device_buffer()")
    elif isinstance(aval.dtype, dtypes.ExtendedDType):
      # a key array: the buffer of its data (an Array of the physical aval)
      data = getattr(leaf, "_base_array", None)
      if type(data) is not Array or data._aval != core.physical_aval(aval) or (
          i in call.donated):
        return None
      namespace[f"T{i}"] = t
      namespace[f"I{i}"] = leaf._impl
      namespace[f"A{i}"] = data._aval
      checks.append(f"if type({name}) is not T{i} or {name}._impl is not I{i}: return MISMATCH\n"
                    f"  d{i} = {name}._base_array\n"
                    f"  if type(d{i}) is not Array or d{i}._aval != A{i}: return MISMATCH")
      if i in kept_set:
        fetch.append(f"b{i} = d{i}._buffer\n  if b{i} is None: b{i} = d{i}._device_buffer()")
    elif t in core.python_scalar_types or isinstance(leaf, np.generic) or t in _HOST_LEAF_TYPES:
      namespace[f"T{i}"] = t
      namespace[f"A{i}"] = aval
      if t is np.ndarray:
        namespace[f"S{i}"] = leaf.shape
        namespace[f"D{i}"] = leaf.dtype
        checks.append(f"if type({name}) is not T{i} or {name}.shape != S{i} or "
                      f"{name}.dtype != D{i}: return MISMATCH")
      else:
        checks.append(f"if type({name}) is not T{i}: return MISMATCH")
      if i in kept_set:
        if i in call.donated:
          fetch.append(f"b{i} = fresh_leaf_buffer({name}, A{i})")
        elif t is np.ndarray and leaf.dtype == aval.dtype:
          namespace[f"P{i}"] = (_small_host_putter(aval) if leaf.nbytes <= _SMALL_HOST_BYTES
                                else client.host_putter(aval))
          fetch.append(f"b{i} = P{i}({name})")
        else:
          fetch.append(f"b{i} = leaf_buffer({name}, A{i})")
    else:
      return None
  namespace["AVALS"] = tuple(array_avals)
  lines = [f"({''.join(f'l{i}, ' for i in range(len(leaves)))}) = leaves"] if leaves else []
  lines += checks
  if array_names:
    lines.append(f"if ({''.join(n + '._aval, ' for n in array_names)}) != AVALS: return MISMATCH")
  host = _host_function(call, leaves)
  if host is not None:  # host-valued arguments: the program's exact kernels, on the host
    namespace["host"] = host
    lines.append(f"outs = host({''.join(f'l{i}, ' for i in range(len(leaves)))})\n"
                 "  if outs is not None: return build(outs)")
  lines += fetch
  namespace["CONSTS"] = list(call.const_buffers)
  buffers = "CONSTS + " if call.const_buffers else ""
  buffers += "[" + ", ".join(f"b{i}" for i in kept) + "]"
  if call.has_callbacks:
    lines.append(f"outs = execute_with_callbacks(executable, {buffers})")
  else:
    lines.append(f"outs = execute({buffers}).consume_with_handlers(handlers)")
  for position in call.donated:
    if type(leaves[position]) is Array:
      lines.append(f"l{position}._value = None\n  l{position}._buffer = None")
  results = []
  for j, aval in enumerate(call.out_avals):
    namespace[f"O{j}"] = core.physical_aval(aval)
    lines.append(f"r{j} = new(Array)\n  r{j}._value = None\n  r{j}._aval = O{j}\n"
                 f"  r{j}._buffer = outs[{j}]")
    if isinstance(aval.dtype, dtypes.ExtendedDType):  # key outputs: key arrays over the data
      namespace[f"W{j}"] = aval.dtype.wrap_physical
      lines.append(f"r{j} = W{j}(r{j})")
    results.append(f"r{j}")
  lines.append(f"return build([{', '.join(results)}])")
  source = "def run(leaves):\n" + "".join(f"  {line}\n" for line in lines)
  # named after this file, so that filtered tracebacks hide the generated frame as axle's own
  exec(compile(source, f"{__file__}:<jit {call.name} call>", "exec"), namespace)
  return namespace["run"]


def prune_unused(closed: ClosedJaxpr, donated_leaves=(), keep_unused: bool = False):
  """The program XLA is given for a jitted call, as JAX's ``keep_unused=False`` makes it:
  equations whose results are unused removed, then the arguments nothing uses. Returns that
  jaxpr, the positions of the arguments it keeps (None: all of them) and the donated leaves
  renumbered among those."""
  if keep_unused or spmd_jit.jaxpr_mesh(closed.jaxpr) is not None:  # JAX then prunes nothing
    return closed, None, tuple(donated_leaves)
  program, kept = lowering.dce_program(closed)
  if all(kept):
    return program, None, tuple(donated_leaves)
  positions = [i for i, k in enumerate(kept) if k]
  renumbered = {old: new for new, old in enumerate(positions)}
  return program, tuple(positions), tuple(renumbered[p] for p in donated_leaves if p in renumbered)


def lower_call(closed: ClosedJaxpr, name: str, donated_leaves=(), host_callbacks: list | None = None,
               debug_info: bool = False):
  """The module text of a jitted call, the large constants it takes as leading arguments, and the
  donated leaves an output actually reuses. The program's host callbacks are appended to
  ``host_callbacks``."""
  mesh = spmd_jit.jaxpr_mesh(closed.jaxpr)
  if mesh is not None:
    call = spmd_jit.SpmdJitCall(closed, name, mesh, donated_leaves)
    return call.lowered_text(), [], tuple(donated_leaves)
  aliases = lowering.donation_aliases(closed, donated_leaves)
  lowered, big_consts = _hoist_large_consts(closed)
  shift = len(big_consts)
  log = config.jax_log_compiles
  if log:
    start = time.perf_counter()
    avals = tuple(closed.in_avals)
    logger.warning("Compiling jit(%s) with global shapes and types %r. Argument mapping: %s.",
                   name, avals, "(" + ", ".join(["UnspecifiedValue"] * len(avals))
                   + ("," if len(avals) == 1 else "") + ")")
  text = lowering.lower_jaxpr_to_module(
      lowered, f"jit_{name}", {shift + position: index for position, index in aliases.items()},
      host_callbacks=[] if host_callbacks is None else host_callbacks,
      location_prefix=f"jit({name})" if debug_info else None)
  if log:
    logger.warning("Finished jaxpr to MLIR module conversion jit(%s) in %.9f sec", name,
                   time.perf_counter() - start)
  return text, big_consts, tuple(aliases)


def _hoist_large_consts(closed: ClosedJaxpr):
  jaxpr = closed.jaxpr
  keep_vars, keep_vals, big_vars, big_vals = [], [], [], []
  for var, val in zip(jaxpr.constvars, closed.consts):
    if var.aval.size > _MAX_INLINE_CONSTANT_SIZE:
      big_vars.append(var)
      big_vals.append(val)
    else:
      keep_vars.append(var)
      keep_vals.append(val)
  if not big_vars:
    return closed, []
  new = jaxpr.replace(constvars=keep_vars, invars=big_vars + list(jaxpr.invars))
  return ClosedJaxpr(new, keep_vals), big_vals


def _const_buffer(value):
  if core.is_extended(getattr(value, "aval", None)):
    value = value._base_array
  if isinstance(value, Array):
    return value._device_buffer()
  host = np.asarray(value)
  target = dtypes.canonicalize_dtype(host.dtype)
  host = np.array(host, dtype=target, copy=True)
  return client.put(host, ShapedArray(host.shape, target))


# (type, value) -> device buffer for Python scalars passed to jitted functions (step sizes,
# flags, loop counters): transferring one costs more than the lookup.
_scalar_buffers: dict = {}


def leaf_buffer(leaf, aval: ShapedArray):
  """The device buffer for one argument leaf of type ``aval``."""
  if type(leaf) is Array:
    buffer = leaf._buffer
    return buffer if buffer is not None else leaf._device_buffer()
  if isinstance(leaf, Array):
    return leaf._device_buffer()
  kind = type(leaf)
  if kind in core.python_scalar_types:
    # (floats by their bits: 0.0 == -0.0, and nan != nan)
    if kind is float:
      key = (kind, leaf.hex(), aval.dtype)
    elif kind is complex:
      key = (kind, leaf.real.hex(), leaf.imag.hex(), aval.dtype)
    else:
      key = (kind, leaf, aval.dtype)
    buffer = _scalar_buffers.get(key)
    if buffer is None:
      if len(_scalar_buffers) > 4096:
        _scalar_buffers.clear()
      buffer = _scalar_buffers[key] = client.put(dtypes.scalar_to_array(leaf, aval.dtype), aval)
    return buffer
  if isinstance(leaf, core.Tracer):
    raise errors.UnexpectedTracerError(eval_interpreter._leaked_tracer_message(leaf))
  if isinstance(aval.dtype, dtypes.ExtendedDType):  # a key array: the buffer of its data
    return leaf_buffer(leaf._base_array, core.physical_aval(aval))
  if hasattr(leaf, "__jax_array__"):
    leaf = leaf.__jax_array__()
    if isinstance(leaf, Array):
      return leaf._device_buffer()
  value = np.asarray(leaf)
  if value.dtype != aval.dtype:
    return client.put(value.astype(aval.dtype), aval)  # a fresh copy: may be aliased
  return client.put(value, aval, owned=False)


def _host_scalar_buffer(array: Array):
  """A device buffer holding the value of a host-backed 0-d Array, shared by every eager op
  given the same value (``x + 1.0`` makes a new 0-d Array each time). Not kept on the Array:
  a program that donates the Array must not consume the shared buffer."""
  value = array._value
  if value is None:
    return array._device_buffer()
  return _scalar_value_buffer(np.asarray(value), array._aval)


def _scalar_value_buffer(value: np.ndarray, aval: ShapedArray):
  """The shared device buffer of a 0-d value (see ``_host_scalar_buffer``); found by the
  value's identity when the same object comes again (a loop's constant), else by its bytes."""
  dtype = aval.dtype
  known = _scalar_buffers_by_id.get(id(value))
  if known is not None and known[0] is value and known[1] is dtype:
    return known[2]
  key = (dtype, value.dtype, value.tobytes())
  buffer = _array_scalar_buffers.get(key)
  if buffer is None:
    if len(_array_scalar_buffers) > 4096:
      _array_scalar_buffers.clear()
    buffer = _array_scalar_buffers[key] = client.put(np.asarray(value, dtype), aval)
  if len(_scalar_buffers_by_id) > 1024:
    _scalar_buffers_by_id.clear()
  _scalar_buffers_by_id[id(value)] = (value, dtype, buffer)  # (holding the value: its id stays)
  return buffer


_array_scalar_buffers: dict = {}
_scalar_buffers_by_id: dict = {}  # id(0-d value) -> (value, dtype, buffer)


def fresh_leaf_buffer(leaf, aval: ShapedArray):
  """``leaf_buffer`` for a donated leaf: a Python scalar gets a buffer of its own, not the
  shared cached one (which the program consumes)."""
  if type(leaf) in core.python_scalar_types:
    return client.put(dtypes.scalar_to_array(leaf, aval.dtype), aval)
  if type(leaf) is Array:
    before_donation(leaf)  # pending ops that read it run first
  return leaf_buffer(leaf, aval)


# ---------------------------------------------------------------------------
# jit equations evaluated eagerly, and the single-primitive fallback

_jaxpr_calls: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def call_for(closed: ClosedJaxpr, name: str = "main") -> CompiledCall:
  """The compiled call for a ClosedJaxpr (cached while the jaxpr lives)."""
  call = _jaxpr_calls.get(closed)
  if call is None:
    call = _jaxpr_calls[closed] = CompiledCall(closed, name)
  return call


# (primitive, avals, params) -> executable of one equation. Equations whose parameters differ
# only in identity (the branches of an eager ``cond`` on fresh lambdas are new jaxprs on every
# call) lower to the same module text, which compile_text compiles once (not kept on disk: a
# single equation compiles fast).
_primitive_executables: dict = {}
_MAX_PRIMITIVE_EXECUTABLES = 4096


def primitive_executable(primitive: core.Primitive, avals_in, params: dict) -> client.Executable:
  """A cached executable running one equation of ``primitive`` on arguments of ``avals_in``."""
  key = (primitive, tuple(a.strip_weak_type() for a in avals_in), tuple(params.items()))
  executable = _primitive_executables.get(key)
  if executable is None:
    text, out_avals = lowering.primitive_module(primitive, avals_in, params)
    executable = compile_text(text, out_avals, primitive.name, persistent=False)
    if len(_primitive_executables) >= _MAX_PRIMITIVE_EXECUTABLES:
      _primitive_executables.clear()
    _primitive_executables[key] = executable
  return executable


def run_primitive(primitive, values, avals, params):
  """Eager fallback: runs one primitive as a cached single-primitive executable (host values in,
  host values out)."""
  executable = primitive_executable(primitive, avals, params)
  buffers = [client.put(np.asarray(v), a, owned=False) for v, a in zip(values, avals)]
  outs = executable.execute(buffers)
  results = [client.to_host(o, a) for o, a in zip(outs, executable.out_avals)]
  return results if primitive.multiple_results else results[0]


# eval runs primitives without a NumPy kernel through this (eval sits below XLA execution).
eval_interpreter.fallback_impl = run_primitive


def primitive_runner(primitive, avals, params, out_avals):
  """The eager path of a primitive that runs on XLA (see eval's eager policy): a function of
  the operands (Arrays, whose device buffers are used as they are, or canonical NumPy values)
  returning device-backed Arrays of ``out_avals`` -- a cached executable, one put per host
  operand, one execute, nothing read back."""
  executable = primitive_executable(primitive, avals, params)
  execute = executable.loaded.execute_sharded
  handlers = executable._handlers
  avals = tuple(avals)
  out_avals = tuple(out_avals)

  def run(operands):
    buffers = []
    for operand, aval in zip(operands, avals):
      if type(operand) is Array:
        buffer = operand._buffer
        if buffer is None:
          buffer = (_host_scalar_buffer(operand) if not operand._aval.shape
                    else operand._device_buffer())
        buffers.append(buffer)
      elif type(operand) is np.ndarray and not operand.shape:
        buffers.append(_scalar_value_buffer(operand, aval))  # a Python scalar's value
      else:
        buffers.append(leaf_buffer(operand, aval))
    try:
      outs = execute(buffers).consume_with_handlers(handlers)
    except Exception as exc:  # noqa: BLE001 - e.g. an operand committed to another device
      if not client.is_runtime_error(exc):
        raise
      host = [o._host_value() if isinstance(o, Array) else o for o in operands]
      outs = run_primitive(primitive, host, avals, params)
      outs = outs if primitive.multiple_results else [outs]
      return [Array(np.asarray(o), False, a) for o, a in zip(outs, out_avals)]
    return _device_arrays(outs, out_avals)

  if len(avals) not in (1, 2) or len(out_avals) != 1 or isinstance(out_avals[0].dtype,
                                                                    dtypes.ExtendedDType):
    return run
  # The commonest eager ops (sin of an Array already on the device, x * y, x + 1.0 with x on
  # the device), without the general loops: their buffers, one execute, one Array out.
  out_aval = out_avals[0]
  new = object.__new__
  general = run

  def execute_one(buffers, operands):
    try:
      out = execute(buffers).consume_with_handlers(handlers)[0]
    except Exception:  # noqa: BLE001 - the general path reports or recovers
      return general(operands)
    array = new(Array)
    array._value = None
    array._buffer = out
    array._aval = out_aval
    return [array]

  if len(avals) == 1:
    def run_unary(operands):
      x = operands[0]
      buffer = x._buffer if type(x) is Array else None
      if buffer is None:
        return general(operands)
      return execute_one([buffer], operands)
    # (for callers that inline the call on an Array with a buffer: eval's eager_unary)
    run_unary.direct = (execute, handlers, out_aval)
    return run_unary

  # the second operand: an Array on the device or a Python scalar's 0-d value (its buffer
  # shared by value), as the general loop takes them
  second_aval = avals[1]
  scalar_buffer = _scalar_value_buffer
  ndarray = np.ndarray

  def run_binary(operands):
    x, y = operands
    first = x._buffer if type(x) is Array else None
    if first is None:
      return general(operands)
    kind = type(y)
    if kind is Array:
      second = y._buffer
      if second is None:
        return general(operands)
    elif kind is ndarray and not y.shape:
      second = scalar_buffer(y, second_aval)
    else:
      return general(operands)
    return execute_one([first, second], operands)
  return run_binary


eval_interpreter.xla_runner = primitive_runner


def wait_for_tokens() -> None:
  """Waits for the runtime tokens of ordered side effects (JAX's ``dispatch.wait_for_tokens``).
  axle waits for every program that calls back when it runs, so there is nothing to wait for."""
