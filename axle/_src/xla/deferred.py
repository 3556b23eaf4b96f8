"""Deferred eager operations: a chain of eager ops on device values, run as one program.

An eager op whose operands are already on the device (results of XLA) runs on XLA as a
single-primitive program (see eval's eager policy), and on small arrays the cost of each such
op is XLA's dispatch, not its arithmetic. So the op is not run at once: the runner returns a
pending Array (neither host value nor buffer; ``_node`` records the op and its operands). To
the eager fast paths it looks like any Array on the device, so the ops applied to it take the
XLA runners and are deferred in turn. Reading it in any way (its value, its buffer,
``block_until_ready``, passing it to jit or to a NumPy kernel) computes it: the pending ops it
depends on are collected into a graph, which runs op by op, as it would have eagerly, or, once
compiled, as one program.

The bits are those of the single-primitive programs: in the fused program every op's result
goes through an optimization barrier, so XLA compiles each op on its own, as it does the op's
own program (the tests compare the two on chains of every kind of op).

Graphs are keyed by their structure (which op, which operand comes from which op), not by
values; a graph is compiled once it has run op by op often, each time computed right after
itself (a tight loop's body), so one-off eager code never compiles. A graph holds at most
``MAX_OPS`` ops (the next op runs at once), and ops on arrays of more than ``MAX_ELEMENTS``
elements are never deferred.

A device Array that a pending op reads (a "leaf") records its pending readers (``_readers``);
before its buffer is donated or deleted they are computed (``settle_readers``).
"""
from __future__ import annotations

import logging
import time
import weakref

import numpy as np

from axle._src import array as array_module
from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.array import Array
from axle._src.config import config
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering
from axle._src.ir import ClosedJaxpr
from axle._src.xla import client
from axle._src.xla import execution

logger = logging.getLogger(__name__)

# The optimization barrier primitive (registered by lax, which sits above this module).
barrier_primitive = None

MAX_OPS = 128  # pending ops one value may depend on before an op runs at once
# Ops on larger arrays run at once: their cost is the arithmetic, not the dispatch, and a
# pending op keeps its operands alive (a loop over large arrays would hold up to MAX_OPS).
MAX_ELEMENTS = 1 << 16
# A graph of at least ``_MIN_COMPILED_OPS`` ops is compiled once it has run op by op often
# enough to have run ``_COMPILE_AFTER_OPS`` ops, each time computed right after itself (within
# ``_HOT`` such graphs: a loop whose body computes that one graph). Compiling costs about 20 ms
# plus 1-10 ms per op, and an op run on its own about 3 us more than in a compiled graph, so
# only a tight loop repays a compile soon. One-off code, short loops and loops whose steps
# compute several graphs never pay for one (an eager MLP training step took 17 ms in its first
# 60 steps when a graph re-met within 8 others was compiled; 3.7 ms as it is, 3.9 undeferred).
_HOT = 1
_COMPILE_AFTER_OPS = 128
_MIN_COMPILED_OPS = 8
_MAX_PROGRAMS = 128  # (an executable holds its machine code: tens to hundreds of KB)
_UNSEEN = object()

_fused: dict = {}  # graph key -> executable, or None (it could not be compiled)
_sightings: dict = {}  # graph key -> (when it last ran op by op, in graphs computed; hot runs)
# (op id, key or -1 of each operand) -> the graph key: a number for each structure
_structures: dict = {}
_structure_count = [0]


def _structure(parts: tuple) -> int:
  """The key of the graph made of op ``parts[0]`` on operands with keys ``parts[1:]`` (-1: a
  leaf). Keys are never reused, so a graph keeps its key if the table is emptied."""
  key = _structures.get(parts)
  if key is None:
    if len(_structures) >= 1 << 16:
      _structures.clear()
    _structure_count[0] += 1
    key = _structures[parts] = _structure_count[0]
  return key
_computed = [0]  # graphs that could be compiled, computed so far
_enabled = [config.axle_deferred_eager]


class _Op:
  """One deferrable single-primitive program: what a node of it runs."""
  __slots__ = ("id", "primitive", "avals", "params", "out_aval", "run")

  def __init__(self, id_, primitive, avals, params, out_aval, run):
    self.id = id_
    self.primitive = primitive
    self.avals = avals
    self.params = params
    self.out_aval = out_aval
    self.run = run  # the runner that runs it at once


class _Node:
  """A deferred op. ``operands``: nodes, device Arrays, or 0-d NumPy values (a Python
  scalar's value). The graph is read as a tree (an op feeding two others counts twice):
  ``key`` is a number for its structure (see ``_structure``; -1 stands for a leaf, a value
  from outside); ``leaves`` the leaf values with their avals, in the order the program takes
  them; ``size`` the number of ops. ``result``: the Array once computed."""
  __slots__ = ("op", "operands", "key", "leaves", "size", "result", "__weakref__")


# (primitive, avals, params) -> the number that stands for its program in graph keys
_op_ids: dict = {}


def deferring(make_runner):
  """``make_runner`` (eval's ``xla_runner``) whose runners of one-result ops defer the op when
  an operand is on the device or pending."""
  def runner(primitive, avals, params, out_avals):
    run = make_runner(primitive, avals, params, out_avals)
    if (primitive.multiple_results or len(out_avals) != 1 or not 1 <= len(avals) <= 3
        or any(isinstance(a.dtype, dtypes.ExtendedDType) or a.size > MAX_ELEMENTS
               for a in (*avals, *out_avals))
        or barrier_primitive is None):
      return run
    strong = tuple(a.strip_weak_type() for a in avals)
    try:
      key = (primitive, strong, tuple(params.items()))
      op_id = _op_ids.get(key)
    except TypeError:  # unhashable parameters
      return run
    if op_id is None:
      op_id = _op_ids[key] = len(_op_ids) + 1
    return _deferring_run(_Op(op_id, primitive, strong, dict(params), out_avals[0], run))
  return runner


def _pending_array(op: _Op, operands, key: int, leaves: tuple, size: int) -> Array:
  """A pending Array: a new node of ``op`` (see ``_Node``) for its value."""
  node = _new(_Node)
  node.op = op
  node.operands = operands
  node.key = key
  node.leaves = leaves
  node.size = size
  node.result = None
  array = _new(Array)
  array._value = None
  array._buffer = None
  array._aval = op.out_aval
  array._node = node
  return array


_new = object.__new__


def _deferring_run(op: _Op):
  run = op.run
  op_id = op.id
  avals = op.avals
  pending = _pending_array
  ndarray = np.ndarray
  checks = eval_interpreter.special_checks
  enabled = _enabled
  first_aval = avals[0]
  structures = _structures
  leaf_key = _structure((op_id,) + (-1,) * len(avals))

  def deferred(operands):
    if checks.enabled or not enabled[0]:
      return run(operands)
    on_device = False
    size = 1
    parts = [op_id]
    leaves = ()
    inputs = []
    read = None  # device Arrays read as leaves
    for operand, aval in zip(operands, avals):
      kind = type(operand)
      if kind is Array:
        if operand._value is None:
          if operand._buffer is None:
            node = getattr(operand, "_node", None)
            if node is None:
              return run(operands)  # deleted: the runner raises
            if node.result is None:
              size += node.size
              parts.append(node.key)
              leaves += node.leaves
              inputs.append(node)
              continue
            force(operand)  # computed as an operand of another pending op
          on_device = True
          read = [operand] if read is None else [*read, operand]
      elif kind is not ndarray or operand.shape:
        return run(operands)
      parts.append(-1)
      leaves += ((operand, aval),)
      inputs.append(operand)
    if size == 1 and not on_device or size > MAX_OPS:
      return run(operands)
    parts = tuple(parts)
    array = pending(op, inputs, structures.get(parts) or _structure(parts), leaves, size)
    if read is not None:
      for leaf in read:
        _add_reader(leaf, array._node)
    return [array]

  if len(avals) == 1:
    def deferred_unary(operands):
      x = operands[0]
      if type(x) is not Array or x._value is not None:
        return run(operands)  # (a host value: nothing to wait for)
      if checks.enabled or not enabled[0]:
        return run(operands)
      if x._buffer is None:
        source = getattr(x, "_node", None)
        if source is None or source.result is not None or source.size >= MAX_OPS:
          return deferred(operands)
        parts = (op_id, source.key)
        return [pending(op, (source,), structures.get(parts) or _structure(parts),
                        source.leaves, source.size + 1)]
      array = pending(op, (x,), leaf_key, ((x, first_aval),), 1)
      _add_reader(x, array._node)
      return [array]
    deferred_unary.undeferred = run  # (what runs an operand with a host value: callers that
    return deferred_unary             # know they hold one call it directly)

  if len(avals) == 2:
    second_aval = avals[1]

    def deferred_binary(operands):
      # (the commonest forms: an Array on the device or pending, and another or a scalar)
      x, y = operands
      if type(x) is not Array or x._value is not None:
        if type(y) is not Array or y._value is not None:
          return run(operands)  # (host values: nothing to wait for)
        return deferred(operands)
      if checks.enabled or not enabled[0]:
        return run(operands)
      if x._buffer is None:
        source = getattr(x, "_node", None)
        if source is None or source.result is not None:
          return deferred(operands)
        first, first_key, leaves, size = source, source.key, source.leaves, source.size + 1
      else:
        first, first_key, leaves, size = x, -1, ((x, first_aval),), 1
      kind = type(y)
      if kind is ndarray:
        if y.shape:
          return deferred(operands)
        second, second_key, leaves = y, -1, leaves + ((y, second_aval),)
      elif kind is Array and y._value is None:
        if y._buffer is None:
          source = getattr(y, "_node", None)
          if source is None or source.result is not None:
            return deferred(operands)
          second, second_key, leaves = source, source.key, leaves + source.leaves
          size += source.size
        else:
          second, second_key, leaves = y, -1, leaves + ((y, second_aval),)
      else:
        return deferred(operands)
      if size > MAX_OPS:
        return run(operands)
      parts = (op_id, first_key, second_key)
      array = pending(op, (first, second), structures.get(parts) or _structure(parts), leaves,
                      size)
      if first is x:
        _add_reader(x, array._node)
      if second is y and kind is Array:
        _add_reader(y, array._node)
      return [array]
    return deferred_binary
  return deferred


def _add_reader(leaf: Array, node: _Node) -> None:
  readers = getattr(leaf, "_readers", None)
  if readers is None:
    leaf._readers = [weakref.ref(node)]
  else:
    count = len(readers)
    if count >= 64 and not count & (count - 1):  # (at powers of two: amortised linear time)
      readers[:] = [r for r in readers if (n := r()) is not None and n.result is None]
    readers.append(weakref.ref(node))


def settle_readers(leaf: Array) -> None:
  """Computes the pending ops that read ``leaf`` (an Array whose buffer is about to be donated
  or deleted), so that none reads it afterwards."""
  readers = getattr(leaf, "_readers", None)
  if not readers:
    return
  leaf._readers = None
  for reader in readers:
    node = reader()
    if node is not None and node.result is None:
      _compute(node)


def force(array: Array) -> None:
  """Computes a pending array: its op and the pending ops it depends on."""
  node = array._node
  if node.result is None:
    if node.size == 1:  # one op on leaves (an eager op read at once): its own program
      _finish(node, node.op.run(node.operands)[0])
    else:
      _compute(node, array)
      if array._node is None:
        return
  result = node.result
  array._value = result._value
  array._buffer = result._buffer
  array._node = None


def _compute(node: _Node, array: Array | None = None) -> None:
  """Computes ``node`` (and the pending nodes it reads); ``array``: its pending Array, if
  known, which then takes the result directly."""
  if node.size < _MIN_COMPILED_OPS:  # (never compiled)
    _run_one(node)
    return
  key = node.key
  _computed[0] = now = _computed[0] + 1
  executable = _fused.get(key, _UNSEEN)
  if executable is _UNSEEN:
    executable = None
    last, runs = _sightings.get(key, (None, 0))
    runs = runs + 1 if last is not None and now - last <= _HOT else 1
    if runs * node.size >= _COMPILE_AFTER_OPS:
      _sightings.pop(key, None)
      executable = _compile(node)
      if len(_fused) >= _MAX_PROGRAMS:
        _fused.clear()
      _fused[key] = executable
    else:
      if len(_sightings) >= 4 * _MAX_PROGRAMS:
        _sightings.clear()
      _sightings[key] = (now, runs)
  if executable is not None:
    try:
      buffers = [_leaf_buffer(value, aval) for value, aval in node.leaves]
      out = executable.loaded.execute_sharded(buffers).consume_with_handlers(
          executable._handlers)[0]
    except Exception:  # noqa: BLE001 - op by op instead: an operand on another device, or a
      pass  # leaf deleted since an op reading it was computed (the program recomputes that op)
    else:
      if array is not None:
        array._buffer = out
        array._node = None
        _finish(node, array)
        return
      result = object.__new__(Array)
      result._value = None
      result._buffer = out
      result._aval = node.op.out_aval
      _finish(node, result)
      return
  _run_one(node)


def _run_one(node: _Node) -> None:
  """Runs ``node`` with its op's own program, after the pending nodes it reads (a recursion
  at most ``MAX_OPS`` deep)."""
  operands = []
  for operand in node.operands:
    if type(operand) is _Node:
      if operand.result is None:
        _run_one(operand)
      operand = operand.result
    operands.append(operand)
  _finish(node, node.op.run(operands)[0])


def _finish(node: _Node, result: Array) -> None:
  node.result = result
  node.leaves = None  # (its operands stay: a graph that reads it may be compiled as a tree)


def _leaf_buffer(value, aval):
  if type(value) is Array:
    buffer = value._buffer
    if buffer is not None:
      return buffer
    if not value._aval.shape:
      return execution._host_scalar_buffer(value)
    return value._device_buffer()
  return execution._scalar_value_buffer(value, aval)  # a Python scalar's 0-d value


def _compile(root: _Node):
  """The graph of ``root`` as one program (each op's result behind an optimization barrier)
  taking ``root.leaves``; None where it cannot be compiled."""
  try:
    invars, eqns = [], []

    def emit(node):
      ins = []
      for operand, aval in zip(node.operands, node.op.avals):
        if type(operand) is _Node:
          ins.append(emit(operand))
        else:
          var = ir.Var(aval)
          invars.append(var)
          ins.append(var)
      out = ir.Var(node.op.out_aval.strip_weak_type())
      eqns.append(ir.Eqn(ins, [out], node.op.primitive, node.op.params))
      kept = ir.Var(out.aval)
      eqns.append(ir.Eqn([out], [kept], barrier_primitive, {}))
      return kept

    result = emit(root)
    jaxpr = ir.Jaxpr([], invars, [result], eqns)
    text = lowering.lower_jaxpr_to_module(ClosedJaxpr(jaxpr, []), "deferred_ops")
    out_aval = core.physical_aval(root.op.out_aval.strip_weak_type())
    start = time.perf_counter()
    executable = client.compile(text, [out_aval], client.CompileOptions(keep_barriers=True))
  except Exception:  # noqa: BLE001 - a rule that cannot lower in a program: op by op
    return None
  if config.jax_log_compiles:
    logger.warning("Finished XLA compilation of %d deferred eager ops in %.3f sec", root.size,
                   time.perf_counter() - start)
  return executable


def clear_caches() -> None:
  """Forgets the compiled graphs and how often each graph was seen."""
  _fused.clear()
  _sightings.clear()


def _follow_flag(name, value) -> None:
  if name == "axle_deferred_eager":
    _enabled[0] = bool(value)


config.add_listener(_follow_flag)
array_module.force_pending = force
array_module.settle_readers = settle_readers
eval_interpreter.xla_runner = deferring(eval_interpreter.xla_runner)
