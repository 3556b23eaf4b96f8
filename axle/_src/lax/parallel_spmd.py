"""Collectives over mesh axes inside shard_map and pmap, lowered as JAX 0.10.2 lowers them:
``all_reduce`` / ``all_gather`` / ``reduce_scatter`` / ``all_to_all`` /
``collective_permute`` with ``replica_groups`` over logical device ids, a channel handle and
``use_global_device_ids``; ``axis_index`` from ``partition_id``. Outside a manual computation
the rules registered by ``parallel`` apply (and a name that no shard_map, pmap or vmap binds is
JAX's NameError)."""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import shard_map as shard_map_module
from axle._src import tree_util
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.core import ShapedArray
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import spmd
from axle._src.interpreters import staging
from axle._src.lax import elementwise
from axle._src.lax import parallel
from axle._src.lax import structural


def _unbound(name) -> NameError:
  return NameError(f"Found an unbound axis name: {name}. To fix this, please call psum under "
                   "`jax.shard_map`.")


def _mesh_axes(names) -> tuple:
  """(mesh, the named axes) when lowering inside a manual computation that binds them all."""
  current = spmd.lowering_mesh()
  for name in names:
    if current is None or name not in current[1]:
      raise _unbound(name)
  return current[0], tuple(names)


def _groups_attr(mesh, axes, axis_index_groups=None) -> str:
  groups = spmd.replica_groups(mesh, axes, axis_index_groups)
  return mlir.dense_elements(groups)


# ---------------------------------------------------------------------------
# psum / pmax / pmin

_REDUCE_OPS = {"psum": "stablehlo.add", "pmax": "stablehlo.maximum", "pmin": "stablehlo.minimum"}


def _reducer_rule(primitive, previous):
  op_name = _REDUCE_OPS[primitive.name]

  def rule(ctx, *args, axes, axis_index_groups):
    named = parallel._named(axes)
    if not named:
      return previous(ctx, *args, axes=axes, axis_index_groups=axis_index_groups)
    mesh, names = _mesh_axes(named)
    positional = parallel._positional(axes)
    if positional:
      args = previous(ctx.replace(avals_out=ctx.avals_out), *args, axes=positional,
                      axis_index_groups=None)
    results = []
    for x in args:
      x = mlir.materialize(ctx, x)
      scalar = mlir.scalar_aval(x.aval.dtype)

      def body(ctx, a, b, op_name=op_name, dtype=x.aval.dtype):
        if dtype == np.bool_ and op_name == "stablehlo.add":
          return mlir.op(ctx, "stablehlo.or", [a, b], scalar)
        return mlir.op(ctx, op_name, [a, b], scalar)

      reduction = mlir.region(ctx, [scalar, scalar], body)
      attrs = (f"{{channel_handle = {spmd.channel_attribute(ctx)}, replica_groups = "
               f"{_groups_attr(mesh, names, axis_index_groups)}, use_global_device_ids}}")
      results.append(mlir.op(ctx, "stablehlo.all_reduce", [x], x.aval, attrs, [reduction]))
    return results

  return rule


for _p in (parallel.psum_p, parallel.pmax_p, parallel.pmin_p):
  mlir.register(_p, _reducer_rule(_p, mlir.lowering_rules[_p]))


# ---------------------------------------------------------------------------
# axis_index

def _axis_index_rule(ctx, *, axis_name):
  mesh, (name,) = _mesh_axes((axis_name,))
  u32 = ShapedArray((), np.dtype(np.uint32))
  pid = mlir.op(ctx, "stablehlo.partition_id", [], u32)
  stride = mlir.constant(ctx, np.uint32(spmd.axis_stride(mesh, name)))
  size = mlir.constant(ctx, np.uint32(dict(zip(mesh.axis_names, mesh.axis_sizes))[name]))
  index = mlir.op(ctx, "stablehlo.remainder",
                  [mlir.op(ctx, "stablehlo.divide", [pid, stride], u32), size], u32)
  return mlir.convert(ctx, index, np.int32)


mlir.register(parallel.axis_index_p, _axis_index_rule)


# ---------------------------------------------------------------------------
# all_gather, reduce_scatter, all_to_all, ppermute

def _all_gather_rule(ctx, x, *, all_gather_dimension, axis_index_groups, axis_name, axis_size,
                     tiled):
  mesh, names = _mesh_axes(axis_name)
  x = mlir.materialize(ctx, x)
  if not tiled:
    shape = list(x.aval.shape)
    shape.insert(all_gather_dimension, 1)
    kept = [d for d in range(len(shape)) if d != all_gather_dimension]
    x = mlir.broadcast_in_dim(ctx, x, ShapedArray(tuple(shape), x.aval.dtype), kept)
  attrs = (f"{{all_gather_dim = {all_gather_dimension} : i64, channel_handle = "
           f"{spmd.channel_attribute(ctx)}, replica_groups = {_groups_attr(mesh, names, axis_index_groups)}, "
           "use_global_device_ids}")
  return mlir.op(ctx, "stablehlo.all_gather", [x], ctx.avals_out[0], attrs)


mlir.register(parallel.all_gather_p, _all_gather_rule)


def _reduce_scatter_rule(ctx, x, *, scatter_dimension, axis_index_groups, axis_name, axis_size,
                         tiled):
  mesh, names = _mesh_axes(axis_name)
  x = mlir.materialize(ctx, x)
  scalar = mlir.scalar_aval(x.aval.dtype)
  reduction = mlir.region(ctx, [scalar, scalar],
                          lambda ctx, a, b: mlir.op(ctx, "stablehlo.add", [a, b], scalar))
  shape = list(x.aval.shape)
  shape[scatter_dimension] //= axis_size
  scattered = ShapedArray(tuple(shape), x.aval.dtype)
  attrs = (f"{{channel_handle = {spmd.channel_attribute(ctx)}, replica_groups = "
           f"{_groups_attr(mesh, names, axis_index_groups)}, scatter_dimension = {scatter_dimension} : i64, "
           "use_global_device_ids}")
  out = mlir.op(ctx, "stablehlo.reduce_scatter", [x], scattered, attrs, [reduction])
  if scattered.shape != ctx.avals_out[0].shape:
    out = mlir.op(ctx, "stablehlo.reshape", [out], ctx.avals_out[0])
  return out


mlir.register(parallel.reduce_scatter_p, _reduce_scatter_rule)


def _all_to_all_rule(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled,
                     axis_size):
  mesh, names = _mesh_axes(axis_name)
  x = mlir.materialize(ctx, x)
  attrs = (f"{{channel_handle = {spmd.channel_attribute(ctx)}, concat_dimension = "
           f"{concat_axis} : i64, replica_groups = {_groups_attr(mesh, names, axis_index_groups)}, split_count = "
           f"{axis_size} : i64, split_dimension = {split_axis} : i64}}")
  return mlir.op(ctx, "stablehlo.all_to_all", [x], ctx.avals_out[0], attrs)


mlir.register(parallel.all_to_all_p, _all_to_all_rule)


def _ppermute_rule(ctx, x, *, axis_name, perm):
  mesh, names = _mesh_axes(axis_name)
  groups = spmd.replica_groups(mesh, names)
  pairs = [(int(group[s]), int(group[d])) for group in groups for s, d in perm]
  x = mlir.materialize(ctx, x)
  if not pairs:
    return mlir.full_like_aval(ctx, 0, x.aval)
  attrs = (f"{{channel_handle = {spmd.channel_attribute(ctx)}, source_target_pairs = "
           f"{mlir.dense_elements(np.array(pairs).reshape(-1, 2))}}}")
  return mlir.op(ctx, "stablehlo.collective_permute", [x], x.aval, attrs)


mlir.register(parallel.ppermute_p, _ppermute_rule)


# ---------------------------------------------------------------------------
# What shard_map and pmap need from lax

def _psum(x, axes):
  return parallel.psum(x, axes)


def _divide(x, d):
  return elementwise.div(x, np.array(d, x.dtype))


def _squeeze(x, axis):
  return structural.squeeze(x, (axis,))


def _expand(x, axis):
  return structural.expand_dims(x, (axis,))


shard_map_module.spmd_psum = _psum
shard_map_module.spmd_divide = _divide
shard_map_module._squeeze = _squeeze
shard_map_module._expand = _expand


# ---------------------------------------------------------------------------
# pvary / pcast: mark a value as varying over mesh axes (the values do not change)

pvary_p = core.Primitive("pvary")
pvary_p.def_abstract_eval(lambda x, *, axes: x)
pvary_p.def_impl(lambda x, *, axes: x)
mlir.register(pvary_p, lambda ctx, x, *, axes: x)
batching.primitive_batchers[pvary_p] = lambda values, dims, *, axes: (
    pvary_p.bind(values[0], axes=axes), dims[0])
def _pvary_transpose(ct, x, *, axes):
  ct = ad.instantiate_zeros(ct)
  if spmd.at_boundary_transpose():
    return [ct]
  if spmd.vma_axes() or getattr(core.get_aval(ct), "vma", None):
    return psum_invariant_p.bind(ct, axes=axes)
  return [parallel.psum(ct, axes)]


ad.deflinear2(pvary_p, _pvary_transpose)


# ---------------------------------------------------------------------------
# psum_invariant: psum inside a shard_map body with check_vma (JAX's name). Its operands vary
# over the summed axes (psum first marks an invariant operand varying with pvary) and its
# results are invariant over them, so its transpose is pvary and pvary's is psum_invariant: a
# cotangent is summed exactly where the primal was broadcast.

psum_invariant_p = core.Primitive("psum_invariant")
psum_invariant_p.multiple_results = True
psum_invariant_p.def_abstract_eval(lambda *avals, axes: list(avals))


def _psum_invariant_impl(*values, axes):
  raise _unbound(axes[0])


psum_invariant_p.def_impl(_psum_invariant_impl)
_psum_rule = mlir.lowering_rules[parallel.psum_p]
mlir.register(psum_invariant_p, lambda ctx, *args, axes: _psum_rule(
    ctx, *args, axes=axes, axis_index_groups=None))
batching.primitive_batchers[psum_invariant_p] = lambda values, dims, *, axes: (
    psum_invariant_p.bind(*values, axes=axes), list(dims))


def _psum_invariant_transpose(cts, *args, axes):
  return [pvary_p.bind(ad.instantiate_zeros(ct), axes=axes) for ct in cts]


ad.deflinear2(psum_invariant_p, _psum_invariant_transpose)


def _psum_invariant(leaves, axes):
  out = []
  for leaf in leaves:
    missing = tuple(a for a in axes if a not in _vma_of(core.get_aval(leaf)))
    out.append(pvary_p.bind(leaf, axes=missing) if missing else leaf)
  return psum_invariant_p.bind(*out, axes=axes)


parallel.psum_invariant_hook = _psum_invariant


def _vma_of(aval) -> frozenset:
  return getattr(aval, "vma", frozenset())


def _match_vma(args, avals):
  vmas = [_vma_of(a) for a in avals]
  union = frozenset().union(*vmas)
  if not union or all(v == union for v in vmas):
    return None
  order = spmd.vma_axes()
  out = []
  for x, a, v in zip(args, avals, vmas):
    missing = union - v
    if missing and a.ndim >= 0:
      axes = tuple(n for n in order if n in missing) + tuple(sorted(missing - set(order)))
      x = pvary_p.bind(x, axes=axes)
    out.append(x)
  return out


staging.match_vma_hook = _match_vma


def pvary(x, axis_name):
  """``x`` marked as varying over the mesh axes ``axis_name`` inside shard_map."""
  axes = parallel._as_tuple(axis_name)
  return tree_util.tree_map(lambda leaf: pvary_p.bind(leaf, axes=axes), x)


def pcast(x, axis_name, *, to: str):
  """Changes how ``x`` is typed over the mesh axes ``axis_name`` (``to='varying'``)."""
  if to != "varying":
    raise NotImplementedError(f"pcast(..., to={to!r}): only to='varying' is supported")
  return pvary(x, axis_name)
