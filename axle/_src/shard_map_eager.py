"""shard_map called outside jit runs eagerly, as in JAX: the body runs op by op, each value
holding one piece per device of the mesh, so ``print`` inside the body shows every device's
piece ("On cpu:0 at mesh coordinates (i,) = (0,): ..."). Collectives combine the pieces;
everything else runs on each piece."""
from __future__ import annotations

import math

import numpy as np

from axle._src import core
from axle._src import ir
from axle._src import tree_util
from axle._src.array import Array
from axle._src.interpreters import spmd
from axle._src.sharded_array import ShardedArray, put_sharded
from axle._src.sharding import NamedSharding, PartitionSpec, ShardedAval, shard_indices


class ShardTracer(core.Tracer):
  """A value inside an eager shard_map: one piece per device (mesh order), and the mesh axes
  along which the pieces may differ (``vma``)."""
  __slots__ = ("vals", "aval", "vma")

  def __init__(self, trace, vals, vma=frozenset()):
    self._trace = trace
    self.vals = vals
    self.aval = core.get_aval(vals[0])
    self.vma = frozenset(vma)

  def __str__(self):
    mesh = self._trace.mesh
    names = ", ".join(mesh.axis_names) + ","
    coords = np.indices(mesh.axis_sizes).reshape(len(mesh.axis_sizes), -1).T
    blocks = []
    for device, coord, value in zip(mesh.flat_devices, coords, self.vals):
      c = ", ".join(str(int(i)) for i in coord) + ("," if len(coord) == 1 else "")
      blocks.append(f"On {device} at mesh coordinates ({names}) = ({c}):\n{value}\n")
    return "\n".join(blocks)

  __repr__ = __str__

  def _tracer_type_name(self):
    return "ShardTracer"

  def _typeof(self):
    return ShardedAval(self.aval, None, self.vma)


class ShardTrace(core.Trace):
  """Runs each primitive on every device's piece; collectives over the mesh axes combine them."""

  def __init__(self, parent, mesh, manual_axes):
    self.parent = parent
    self.mesh = mesh
    self.manual_axes = tuple(manual_axes)
    self.sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    self.count = mesh.size
    self.check_vma = True

  def pieces(self, x) -> list:
    if isinstance(x, ShardTracer) and x._trace is self:
      return x.vals
    return [x] * self.count

  def process_primitive(self, primitive, args, params):
    mine = any(isinstance(x, ShardTracer) and x._trace is self for x in args)
    vma = frozenset().union(*[x.vma for x in args
                              if isinstance(x, ShardTracer) and x._trace is self])
    rule = _collectives.get(primitive.name)
    if (primitive.name == "psum" and params.get("axis_index_groups") is not None
        and self.check_vma and _names_in(params, self.manual_axes)):
      raise psum_groups_error()
    if rule is not None and _names_in(params, self.manual_axes):
      with core.set_current_trace(self.parent):
        outs = rule(self, [self.pieces(x) for x in args], **params)
      vma = collective_vma(primitive.name, params, vma)
      if primitive.multiple_results:
        return [ShardTracer(self, o, vma) for o in outs]
      return ShardTracer(self, outs, vma)
    if not mine:
      with core.set_current_trace(self.parent):
        return primitive.bind(*args, **params)
    if primitive.name in ("jit", "remat2"):
      # run the jaxpr here, so collectives inside it see the mesh (remat changes nothing
      # outside differentiation)
      closed = params["jaxpr"]
      return ir.eval_jaxpr(closed.jaxpr, closed.consts, *args)
    if primitive.name == "pvary":
      vma = vma | frozenset(params["axes"])
    columns = [self.pieces(x) for x in args]
    results = []
    with core.set_current_trace(self.parent):
      for k in range(self.count):
        results.append(primitive.bind(*[c[k] for c in columns], **params))
    if primitive.multiple_results:
      return [ShardTracer(self, [r[i] for r in results], vma) for i in range(len(results[0]))]
    return ShardTracer(self, results, vma)


def psum_groups_error() -> NotImplementedError:
  """JAX's shard_map (with check_vma) does not support psum/pmean with axis_index_groups."""
  return NotImplementedError(
      "psum (and pmean) with axis_index_groups is not supported inside shard_map with "
      "check_vma=True; pass check_vma=False (as pmap does) to use axis_index_groups")


def psum_with_groups(jaxpr) -> bool:
  """Whether ``jaxpr`` (or a jaxpr inside it) has a psum with axis_index_groups."""
  for eqn in jaxpr.eqns:
    if eqn.primitive.name == "psum" and eqn.params.get("axis_index_groups") is not None:
      return True
    if any(psum_with_groups(sub) for sub in ir._subjaxprs_of_params(eqn.params)):
      return True
  return False


def _named_axes(params) -> tuple:
  names = params.get("axes", params.get("axis_name", ()))
  names = names if isinstance(names, (tuple, list)) else (names,)
  return tuple(n for n in names if not isinstance(n, (int, np.integer)))


def collective_vma(name: str, params, vma: frozenset) -> frozenset:
  """The axes a collective's result may vary over, given its operands'."""
  axes = frozenset(_named_axes(params))
  if name in ("psum", "psum_invariant", "pmax", "pmin"):
    return vma - axes
  if name == "all_gather":
    return vma  # as JAX's all_gather: the result keeps its operand's variation
  if name == "pvary":
    return vma | frozenset(params["axes"])
  return vma | axes


def check_vma(fname, mesh, manual, out_spec: PartitionSpec, vma) -> None:
  """JAX's error for an output whose out_spec claims replication over axes it may vary on."""
  mentioned = {a for d in range(len(out_spec)) for a in out_spec.axes_of(d)}
  bad = [a for a in mesh.axis_names if a in vma and a not in mentioned and a in manual]
  if not bad:
    return
  unmentioned = [a for a in mesh.axis_names if a not in mentioned]
  in_order = lambda axes: ",".join(a for a in mesh.axis_names if a in axes)
  if len(unmentioned) > 1:
    detail = (f"implies that the corresponding output value is only varying across mesh axes "
              f"{{{in_order(mentioned)}}} and not {{{in_order(bad)}}}, but it was inferred to "
              f"be possibly varying over {{{in_order(vma)}}}")
  else:
    detail = (f"implies that the corresponding output value is replicated across mesh axis "
              f"'{unmentioned[0]}', but could not infer replication over any axes")
  raise ValueError(
      f"shard_map applied to the function '{fname}' was given out_specs which require "
      "replication which can't be statically inferred given the mesh:\n\nThe mesh given has "
      f"shape {tuple(mesh.axis_sizes)} with corresponding axis names {tuple(mesh.axis_names)}."
      f"\n\nout_specs is {out_spec!r} which {detail}\n\nCheck if these output values are meant "
      "to be replicated over those mesh axes. If not, consider revising the corresponding "
      "out_specs entries. If so, consider disabling the check by passing the check_vma=False "
      "argument to `jax.shard_map`.")


def infer_vma(jaxpr, in_vmas) -> list:
  """For each output of a shard_map body, the mesh axes it may vary over."""
  env = {}
  read = lambda v: env.get(v, frozenset()) if not isinstance(v, ir.Literal) else frozenset()
  for var, vma in zip(jaxpr.invars, in_vmas):
    env[var] = frozenset(vma)
  for eqn in jaxpr.eqns:
    vma = frozenset().union(*[read(v) for v in eqn.invars])
    if eqn.primitive.name in _collectives or eqn.primitive.name == "pvary":
      vma = collective_vma(eqn.primitive.name, eqn.params, vma)
    for var in eqn.outvars:
      env[var] = vma
  return [read(v) for v in jaxpr.outvars]


def _names_in(params, manual) -> bool:
  names = params.get("axes", params.get("axis_name", ()))
  names = names if isinstance(names, (tuple, list)) else (names,)
  named = [n for n in names if not isinstance(n, (int, np.integer))]
  return bool(named) and all(n in manual for n in named)


def _groups(trace, names, axis_index_groups=None) -> list:
  names = names if isinstance(names, (tuple, list)) else (names,)
  names = [n for n in names if not isinstance(n, (int, np.integer))]
  rows = spmd.replica_groups(trace.mesh, names, axis_index_groups)
  return [[int(g) for g in row if g >= 0] for row in rows]


def _host(x):
  aval = core.get_aval(x)
  return np.asarray(x._host_value() if isinstance(x, Array) else x, dtype=aval.dtype)


def _wrap_all(values, weak: bool = False) -> list:
  return [v if isinstance(v, Array) else Array(np.array(v, copy=True), weak) for v in values]


def _weak(column) -> bool:
  return core.get_aval(column[0]).weak_type


def _reducer(np_fn):
  def rule(trace, columns, *, axes, axis_index_groups):
    positional = tuple(int(a) for a in axes if isinstance(a, (int, np.integer)))
    outs = []
    for column in columns:
      values = [_host(v) for v in column]
      dtype = values[0].dtype
      result = [None] * trace.count
      for group in _groups(trace, axes, axis_index_groups):
        total = np_fn(np.stack([values[g] for g in group]), axis=0).astype(dtype)
        if positional:
          total = np_fn(total, axis=positional).astype(dtype)
        for g in group:
          result[g] = total
      outs.append(_wrap_all(result, _weak(column)))
    return outs
  return rule


def _psum(stacked, axis):
  return stacked.sum(axis=axis, dtype=stacked.dtype)


def _all_gather(trace, columns, *, all_gather_dimension, axis_index_groups, axis_name,
                axis_size, tiled):
  values = [_host(v) for v in columns[0]]
  result = [None] * trace.count
  for group in _groups(trace, axis_name, axis_index_groups):
    parts = [values[g] for g in group]
    gathered = (np.concatenate(parts, axis=all_gather_dimension) if tiled
                else np.stack(parts, axis=all_gather_dimension))
    for g in group:
      result[g] = gathered
  return _wrap_all(result)


def _reduce_scatter(trace, columns, *, scatter_dimension, axis_index_groups, axis_name,
                    axis_size, tiled):
  values = [_host(v) for v in columns[0]]
  result = [None] * trace.count
  for group in _groups(trace, axis_name, axis_index_groups):
    total = np.stack([values[g] for g in group]).sum(0, dtype=values[0].dtype)
    blocks = np.split(total, len(group), axis=scatter_dimension)
    for position, g in enumerate(group):
      block = blocks[position]
      result[g] = block if tiled else np.squeeze(block, scatter_dimension)
  return _wrap_all(result)


def _ppermute(trace, columns, *, axis_name, perm):
  values = [_host(v) for v in columns[0]]
  result = [np.zeros_like(v) for v in values]
  for group in _groups(trace, axis_name):
    for src, dst in perm:
      result[group[dst]] = values[group[src]]
  return _wrap_all(result)


def _axis_index(trace, columns, *, axis_name):
  result = [None] * trace.count
  for group in _groups(trace, (axis_name,)):
    for position, g in enumerate(group):
      result[g] = np.int32(position)
  return _wrap_all([np.asarray(r) for r in result])


def _all_to_all(trace, columns, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled,
                axis_size):
  values = [_host(v) for v in columns[0]]
  result = [None] * trace.count
  for group in _groups(trace, axis_name, axis_index_groups):
    chunks = [np.split(values[g], len(group), axis=split_axis) for g in group]
    for k, g in enumerate(group):
      result[g] = np.concatenate([chunks[j][k] for j in range(len(group))], axis=concat_axis)
  return _wrap_all(result)


_collectives = {
    "psum": _reducer(_psum),
    "psum_invariant": lambda trace, columns, *, axes: _reducer(_psum)(
        trace, columns, axes=axes, axis_index_groups=None),
    "pmax": _reducer(np.max),
    "pmin": _reducer(np.min),
    "all_gather": _all_gather,
    "reduce_scatter": _reduce_scatter,
    "ppermute": _ppermute,
    "axis_index": _axis_index,
    "all_to_all": _all_to_all,
}
_single_output = {"all_gather", "reduce_scatter", "ppermute", "axis_index", "all_to_all"}


def run_eager(f, leaves, in_tree, specs, mesh, manual, out_specs_fn, check: bool = True):
  """Runs ``f`` eagerly over ``mesh``: returns the assembled outputs (a pytree)."""
  trace = ShardTrace(core.current_trace(), mesh, manual)
  trace.check_vma = check
  in_tracers = []
  for leaf, spec in zip(leaves, specs):
    value = np.asarray(leaf._host_value() if isinstance(leaf, Array) else leaf)
    weak = isinstance(leaf, Array) and leaf.aval.weak_type
    indices = shard_indices(mesh, spec, value.shape)
    vma = {a for d in range(len(spec)) for a in spec.axes_of(d) if a in manual}
    in_tracers.append(ShardTracer(trace, [Array(np.array(value[i], copy=True), weak)
                                          for i in indices], vma))
  sizes = {a: s for a, s in zip(mesh.axis_names, mesh.axis_sizes) if a in manual}
  with spmd.bind_axes(sizes), core.set_current_trace(trace):
    out = f(*tree_util.tree_unflatten(in_tree, in_tracers))
  out_leaves, out_tree = tree_util.tree_flatten(out)
  out_specs = out_specs_fn(out_tree)
  if check:
    for leaf, spec in zip(out_leaves, out_specs):
      if isinstance(leaf, ShardTracer) and leaf._trace is trace:
        check_vma("_rem_singleton", mesh, manual, spec, leaf.vma)
  results = []
  for leaf, spec in zip(out_leaves, out_specs):
    pieces = trace.pieces(leaf)
    weak = core.get_aval(pieces[0]).weak_type
    pieces = [_host(p) for p in pieces]
    local = pieces[0]
    shape = tuple(d * math.prod(mesh.shape[a] for a in spec.axes_of(i))
                  for i, d in enumerate(local.shape))
    full = np.empty(shape, local.dtype)
    for index, piece in reversed(list(zip(shard_indices(mesh, spec, shape), pieces))):
      full[index] = piece
    results.append(put_sharded(Array(full, weak), NamedSharding(mesh, spec)))
  return tree_util.tree_unflatten(out_tree, results)
