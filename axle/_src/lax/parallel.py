"""Collective operations over named axes: psum, pmax, pmin, pmean, all_gather, axis_index,
ppermute, psum_scatter, all_to_all (JAX's ``lax.psum``, ...).

A named axis is introduced by ``vmap(..., axis_name=...)``: its batch trace evaluates a
collective over its own axis with ordinary array operations along the batch dimension
(``batching.collective_batchers``) and passes collectives over other names on to the
enclosing trace. Outside any such trace an axis name is unbound (JAX's NameError).
"""
from __future__ import annotations

import operator

import numpy as np

from axle._src import core
from axle._src import tree_util
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import spmd
from axle._src.lax import elementwise
from axle._src.lax import elementwise_convert
from axle._src.lax import reductions
from axle._src.lax import structural

__all__ = ["all_gather", "all_to_all", "axis_index", "pmax", "pmean", "pmin", "ppermute",
           "psum", "psum_scatter", "pshuffle", "pswapaxes", "axis_size"]


def _as_tuple(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _unbound(name):
  return NameError(f"unbound axis name: {name}. The following axis names (e.g. defined by pmap) "
                   "are available to collective operations: []")


def _unbound_impl(*operands, axis_name, **_):
  """Eager evaluation of a collective outside any vmap binding its axis name."""
  raise _unbound(_as_tuple(axis_name)[0])


def _named(axes) -> tuple:
  return tuple(a for a in axes if not isinstance(a, (int, np.integer)))


def _positional(axes) -> tuple:
  return tuple(int(a) for a in axes if isinstance(a, (int, np.integer)))


def _canonical_groups(axis_index_groups, axis_name, what: str, equal_sizes: bool = False):
  """``axis_index_groups`` as a tuple of tuples of ints (hashable jaxpr params), checked to
  partition the axis indices exactly (and, where the collective needs it, into groups of
  one size)."""
  if axis_index_groups is None:
    return None
  try:
    groups = tuple(tuple(operator.index(i) for i in group) for group in axis_index_groups)
  except TypeError:
    raise TypeError(f"{what}: axis_index_groups must be a sequence of sequences of axis "
                    f"indices, got {axis_index_groups!r}") from None
  if not groups or any(not g for g in groups):
    raise ValueError(f"{what}: axis_index_groups must be non-empty groups, got {groups}")
  if equal_sizes and len({len(g) for g in groups}) != 1:
    raise ValueError(f"{what}: axis_index_groups must all be the same size, got {groups}")
  bound = [spmd.bound_axis_size(name) for name in _as_tuple(axis_name)
           if not isinstance(name, (int, np.integer))]
  flat = sorted(i for g in groups for i in g)
  if bound and all(b is not None for b in bound):
    size = int(np.prod(bound))
    if flat != list(range(size)):
      raise ValueError(f"{what}: axis_index_groups must partition the indices 0..{size - 1} of "
                       f"axis {axis_name!r} (each exactly once), got {groups}")
  elif len(set(flat)) != len(flat):
    raise ValueError(f"{what}: axis_index_groups repeat an index: {groups}")
  return groups


def _vmap_groups_error(axis_index_groups, axis_data, names, message: str):
  if axis_index_groups is not None and axis_data.name in names:
    raise NotImplementedError(message)


_VMAP_GROUPS = ("axis_index_groups not supported in vmap collectives. Please open a feature "
                "request!")


def _no_lowering(name):
  def rule(ctx, *args, **params):
    raise NotImplementedError(f"{name} over a named axis can only run inside vmap (or pmap) "
                              "with that axis_name")
  return rule


# ---------------------------------------------------------------------------
# psum / pmax / pmin: reductions over named (and positional) axes

def _reducer(name: str, reduce_fn_name: str, np_reduce):
  primitive = core.Primitive(name)
  primitive.multiple_results = True

  def abstract_eval(*avals, axes, axis_index_groups):
    positional = set(_positional(axes))
    return [ShapedArray(tuple(d for i, d in enumerate(a.shape) if i not in positional), a.dtype,
                        a.weak_type) for a in avals]

  def impl(*values, axes, axis_index_groups):
    named = _named(axes)
    if named:
      raise _unbound(named[0])
    return [np_reduce(v, axis=_positional(axes)) for v in values]

  def lowering_rule(ctx, *args, axes, axis_index_groups):
    if _named(axes):
      return _no_lowering(name)(ctx)
    return mlir.lower_fun(lambda *xs: [getattr(reductions, reduce_fn_name)(x, _positional(axes))
                                       for x in xs], multiple_results=True)(ctx, *args)

  def batcher(axis_data, values, dims, *, axes, axis_index_groups):
    named = _named(axes)
    _vmap_groups_error(axis_index_groups, axis_data, named, _VMAP_GROUPS)
    outs, out_dims = [], []
    for v, d in zip(values, dims):
      positional = tuple(a if d is None or a < d else a + 1 for a in _positional(axes))
      if axis_data.name in named:
        rest = tuple(n for n in named if n != axis_data.name)
        if d is None:
          reduced = primitive.bind(v, axes=positional, axis_index_groups=axis_index_groups)[0] \
              if positional else v
          if name == "psum" and not isinstance(reduced, core.Tracer):
            # a concrete value summed over the axis stays concrete (psum(1, name) is its size)
            value = np.asarray(reduced)
            reduced = type(reduced)(value * axis_data.size) if type(reduced) in (int, float) \
                else np.asarray(value * axis_data.size, value.dtype)
          elif name == "psum":
            reduced = elementwise.mul(reduced, np.array(axis_data.size, core.get_aval(v).dtype))
        else:
          reduced = primitive.bind(v, axes=positional + (d,),
                                   axis_index_groups=axis_index_groups)[0]
        if rest:
          reduced = primitive.bind(reduced, axes=rest, axis_index_groups=axis_index_groups)[0]
        outs.append(reduced)
        out_dims.append(None)
      else:
        out = primitive.bind(v, axes=named + positional, axis_index_groups=axis_index_groups)[0]
        outs.append(out)
        out_dims.append(None if d is None else d - sum(1 for a in positional if a < d))
    return outs, out_dims

  primitive.def_abstract_eval(abstract_eval)
  primitive.def_impl(impl)
  mlir.register(primitive, lowering_rule)
  batching.collective_batchers[primitive] = batcher
  return primitive


psum_p = _reducer("psum", "reduce_sum", lambda v, axis: np.sum(v, axis=axis, dtype=v.dtype))
pmax_p = _reducer("pmax", "reduce_max", np.max)
pmin_p = _reducer("pmin", "reduce_min", np.min)


def _psum_transpose(cts, *args, axes, axis_index_groups):
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  named, positional = _named(axes), _positional(axes)
  if named:
    cts = psum_p.bind(*cts, axes=named, axis_index_groups=axis_index_groups)
  if positional:
    out = []
    for ct, arg in zip(cts, args):
      shape = arg.aval.shape
      kept = tuple(i for i in range(len(shape)) if i not in positional)
      out.append(structural.broadcast_in_dim(ct, shape, kept))
    cts = out
  return list(cts)


ad.deflinear2(psum_p, _psum_transpose)


def _pextremum_jvp(primitive):
  def rule(primals, tangents, *, axes, axis_index_groups):
    outs = primitive.bind(*primals, axes=axes, axis_index_groups=axis_index_groups)
    tangent_outs = []
    for x, t, out in zip(primals, tangents, outs):
      if type(t) is ad.Zero:
        tangent_outs.append(ad.Zero(ad.tangent_aval(core.get_aval(out))))
        continue
      dtype = core.get_aval(x).dtype
      hit = elementwise_convert.convert_element_type(elementwise.eq(x, out), dtype)
      count, total = psum_p.bind(hit, elementwise.mul(t, hit), axes=axes,
                                 axis_index_groups=axis_index_groups)
      tangent_outs.append(elementwise.div(total, count))
    return outs, tangent_outs
  return rule


ad.primitive_jvps[pmax_p] = _pextremum_jvp(pmax_p)
ad.primitive_jvps[pmin_p] = _pextremum_jvp(pmin_p)


def psum(x, axis_name, *, axis_index_groups=None):
  """Sums ``x`` (a pytree) over the named axis ``axis_name`` (or a tuple of names): every
  member of the axis gets the total."""
  leaves, tree = tree_util.tree_flatten(x)
  groups = _canonical_groups(axis_index_groups, axis_name, "psum")
  axes = _as_tuple(axis_name)
  manual = spmd.vma_axes()
  if (manual and groups is None and axes and all(a in manual for a in axes)
      and all(isinstance(leaf, core.Tracer) for leaf in leaves)):
    # inside a shard_map body with check_vma: JAX's psum_invariant (its transpose is pvary)
    return tree_util.tree_unflatten(tree, psum_invariant_hook(leaves, axes))
  outs = psum_p.bind(*leaves, axes=axes, axis_index_groups=groups)
  return tree_util.tree_unflatten(tree, outs)


# Filled in by parallel_spmd (psum_invariant and pvary live there, with the mesh collectives).
psum_invariant_hook = None


def pmax(x, axis_name, *, axis_index_groups=None):
  """The maximum of ``x`` over the named axis ``axis_name``."""
  leaves, tree = tree_util.tree_flatten(x)
  groups = _canonical_groups(axis_index_groups, axis_name, "pmax")
  outs = pmax_p.bind(*leaves, axes=_as_tuple(axis_name), axis_index_groups=groups)
  return tree_util.tree_unflatten(tree, outs)


def pmin(x, axis_name, *, axis_index_groups=None):
  """The minimum of ``x`` over the named axis ``axis_name``."""
  leaves, tree = tree_util.tree_flatten(x)
  groups = _canonical_groups(axis_index_groups, axis_name, "pmin")
  outs = pmin_p.bind(*leaves, axes=_as_tuple(axis_name), axis_index_groups=groups)
  return tree_util.tree_unflatten(tree, outs)


def axis_size(axis_name) -> int:
  """The size of the named axis ``axis_name`` (a concrete int)."""
  bound = [spmd.bound_axis_size(name) for name in _as_tuple(axis_name)]
  if all(size is not None for size in bound):
    return int(np.prod(bound))
  return int(psum(1, axis_name))


def pmean(x, axis_name, *, axis_index_groups=None):
  """The mean of ``x`` over the named axis ``axis_name``."""
  bound = [spmd.bound_axis_size(name) for name in _as_tuple(axis_name)]
  groups = _canonical_groups(axis_index_groups, axis_name, "pmean")
  if groups is not None:
    # JAX divides by the size of the first group (psum of a constant with groups), also
    # for groups of unequal sizes
    size = len(groups[0])
  elif all(b is not None for b in bound):
    size = int(np.prod(bound))  # inside shard_map/pmap: the mesh axis sizes
  else:
    size = psum(1, axis_name)
  summed = psum(x, axis_name, axis_index_groups=groups)
  return tree_util.tree_map(
      lambda s: elementwise.div(s, np.array(size, core.get_aval(s).dtype)), summed)


# ---------------------------------------------------------------------------
# axis_index

axis_index_p = core.Primitive("axis_index")
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.dtype(np.int32)))


def _axis_index_impl(*, axis_name):
  raise _unbound(axis_name)


def _axis_index_batcher(axis_data, values, dims, *, axis_name):
  if axis_name == axis_data.name:
    return structural.iota(np.int32, axis_data.size), 0
  return axis_index_p.bind(axis_name=axis_name), None


axis_index_p.def_impl(_axis_index_impl)
mlir.register(axis_index_p, _no_lowering("axis_index"))
batching.collective_batchers[axis_index_p] = _axis_index_batcher


def axis_index(axis_name):
  """The index of the current member along the named axis ``axis_name`` (an int32 scalar)."""
  return axis_index_p.bind(axis_name=axis_name)


# ---------------------------------------------------------------------------
# all_gather

all_gather_p = core.Primitive("all_gather")


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_index_groups, axis_name,
                              axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    shape[all_gather_dimension] *= axis_size
  else:
    shape.insert(all_gather_dimension, axis_size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_gather_batcher(axis_data, values, dims, *, all_gather_dimension, axis_index_groups,
                        axis_name, axis_size, tiled):
  (x,), (d,) = values, dims
  _vmap_groups_error(axis_index_groups, axis_data, _as_tuple(axis_name),
                     "axis_index_groups not supported in vmap")
  params = dict(all_gather_dimension=all_gather_dimension, axis_index_groups=axis_index_groups,
                axis_name=axis_name, axis_size=axis_size, tiled=tiled)
  if axis_data.name not in _as_tuple(axis_name):
    if d is None:
      return all_gather_p.bind(x, **params), None
    gather_dim = all_gather_dimension + (1 if all_gather_dimension >= d else 0)
    out = all_gather_p.bind(x, **{**params, "all_gather_dimension": gather_dim})
    return out, d if d < gather_dim else d + (0 if tiled else 1)
  x = batching.bdim_at_front(x, d, axis_data.size)
  x = batching.moveaxis(x, 0, all_gather_dimension)
  if tiled:
    shape = list(core.get_aval(x).shape)
    merged = shape[all_gather_dimension] * shape[all_gather_dimension + 1]
    x = structural.reshape(x, tuple(shape[:all_gather_dimension]) + (merged,)
                           + tuple(shape[all_gather_dimension + 2:]))
  return x, None


all_gather_p.def_abstract_eval(_all_gather_abstract_eval)
all_gather_p.def_impl(_unbound_impl)
mlir.register(all_gather_p, _no_lowering("all_gather"))
batching.collective_batchers[all_gather_p] = _all_gather_batcher


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_index_groups, axis_name,
                          axis_size, tiled):
  return [reduce_scatter_p.bind(ad.instantiate_zeros(ct), scatter_dimension=all_gather_dimension,
                                axis_index_groups=axis_index_groups, axis_name=axis_name,
                                axis_size=axis_size, tiled=tiled)]


ad.deflinear2(all_gather_p, _all_gather_transpose)


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False):
  """Gathers ``x`` from every member of the named axis, stacked along a new axis ``axis`` (or
  concatenated along ``axis`` with ``tiled=True``)."""
  groups = _canonical_groups(axis_index_groups, axis_name, "all_gather", equal_sizes=True)
  size = axis_size(axis_name) if groups is None else len(groups[0])

  def gather(leaf):
    ndim = core.get_aval(leaf).ndim
    dim = axis % (ndim + (0 if tiled else 1)) if ndim or not tiled else 0
    return all_gather_p.bind(leaf, all_gather_dimension=dim, axis_index_groups=groups,
                             axis_name=_as_tuple(axis_name), axis_size=size, tiled=tiled)
  return tree_util.tree_map(gather, x)


# ---------------------------------------------------------------------------
# psum_scatter (reduce_scatter)

reduce_scatter_p = core.Primitive("reduce_scatter")


def _reduce_scatter_abstract_eval(x, *, scatter_dimension, axis_index_groups, axis_name,
                                  axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    if shape[scatter_dimension] % axis_size:
      raise ValueError(f"tiled reduce_scatter operand scatter dimension size "
                       f"{shape[scatter_dimension]} must be divisible by shard_count {axis_size}")
    shape[scatter_dimension] //= axis_size
  else:
    if shape[scatter_dimension] != axis_size:
      raise ValueError(f"reduce_scatter operand scatter dimension size "
                       f"{shape[scatter_dimension]} must match shard count {axis_size}")
    del shape[scatter_dimension]
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _reduce_scatter_batcher(axis_data, values, dims, *, scatter_dimension, axis_index_groups,
                            axis_name, axis_size, tiled):
  (x,), (d,) = values, dims
  _vmap_groups_error(axis_index_groups, axis_data, _as_tuple(axis_name),
                     "axis_index_groups not supported in vmap")
  if axis_data.name not in _as_tuple(axis_name):
    raise NotImplementedError("psum_scatter over an axis of an enclosing vmap")
  x = batching.bdim_at_front(x, d, axis_data.size)
  total = reductions.reduce_sum(x, (0,))
  shape = list(core.get_aval(total).shape)
  size = axis_data.size
  chunk = shape[scatter_dimension] // size
  split = tuple(shape[:scatter_dimension]) + (size, chunk) + tuple(shape[scatter_dimension + 1:])
  total = structural.reshape(total, split)
  total = batching.moveaxis(total, scatter_dimension, 0)
  if not tiled:
    total = structural.squeeze(total, (scatter_dimension + 1,))
  return total, 0


reduce_scatter_p.def_abstract_eval(_reduce_scatter_abstract_eval)
reduce_scatter_p.def_impl(_unbound_impl)
mlir.register(reduce_scatter_p, _no_lowering("psum_scatter"))
batching.collective_batchers[reduce_scatter_p] = _reduce_scatter_batcher


def _reduce_scatter_transpose(ct, x, *, scatter_dimension, axis_index_groups, axis_name,
                              axis_size, tiled):
  return [all_gather_p.bind(ad.instantiate_zeros(ct), all_gather_dimension=scatter_dimension,
                            axis_index_groups=axis_index_groups, axis_name=axis_name,
                            axis_size=axis_size, tiled=tiled)]


ad.deflinear2(reduce_scatter_p, _reduce_scatter_transpose)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
  """Sums ``x`` over the named axis and scatters the result: member ``i`` gets the ``i``-th
  block along ``scatter_dimension``."""
  groups = _canonical_groups(axis_index_groups, axis_name, "psum_scatter", equal_sizes=True)
  size = axis_size(axis_name) if groups is None else len(groups[0])
  return tree_util.tree_map(
      lambda leaf: reduce_scatter_p.bind(leaf, scatter_dimension=scatter_dimension,
                                         axis_index_groups=groups,
                                         axis_name=_as_tuple(axis_name), axis_size=size,
                                         tiled=tiled), x)


# ---------------------------------------------------------------------------
# ppermute

ppermute_p = core.Primitive("ppermute")
ppermute_p.def_abstract_eval(lambda x, *, axis_name, perm: x)


def _ppermute_batcher(axis_data, values, dims, *, axis_name, perm):
  (x,), (d,) = values, dims
  if axis_data.name not in _as_tuple(axis_name):
    return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
  size = axis_data.size
  x = batching.bdim_at_front(x, d, size)
  source = np.zeros(size, np.int32)
  filled = np.zeros(size, bool)
  for src, dst in perm:
    source[dst] = src
    filled[dst] = True
  aval = core.get_aval(x)
  moved = structural.concatenate([structural.slice_in_dim(x, int(s), int(s) + 1, axis=0)
                                  for s in source], 0)
  if not filled.all():
    mask = structural.broadcast_in_dim(np.asarray(filled), aval.shape, (0,))
    moved = elementwise.select(mask, moved, structural.full(aval.shape, 0, aval.dtype))
  return moved, 0


ppermute_p.def_impl(_unbound_impl)
mlir.register(ppermute_p, _no_lowering("ppermute"))
batching.collective_batchers[ppermute_p] = _ppermute_batcher
ad.deflinear2(ppermute_p, lambda ct, x, *, axis_name, perm: [
    ppermute_p.bind(ad.instantiate_zeros(ct), axis_name=axis_name,
                    perm=tuple((dst, src) for src, dst in perm))])


def ppermute(x, axis_name, perm):
  """Sends ``x`` from member ``src`` to member ``dst`` of the named axis for each pair in
  ``perm``; members that receive nothing get zeros."""
  perm = tuple((int(s), int(d)) for s, d in perm)
  return tree_util.tree_map(
      lambda leaf: ppermute_p.bind(leaf, axis_name=_as_tuple(axis_name), perm=perm), x)


def pshuffle(x, axis_name, perm):
  """Member ``i`` gets ``x`` of member ``perm[i]``."""
  return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


# ---------------------------------------------------------------------------
# all_to_all

all_to_all_p = core.Primitive("all_to_all")


def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                              tiled, axis_size):
  shape = list(x.shape)
  if shape[split_axis] % axis_size:
    raise ValueError(f"all_to_all: split_axis size {shape[split_axis]} must be divisible by "
                     f"the axis size {axis_size}")
  shape[split_axis] //= axis_size
  shape[concat_axis] *= axis_size
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_to_all_batcher(axis_data, values, dims, *, axis_name, split_axis, concat_axis,
                        axis_index_groups, tiled, axis_size):
  (x,), (d,) = values, dims
  _vmap_groups_error(axis_index_groups, axis_data, _as_tuple(axis_name),
                     "Please open a feature request!")
  if axis_data.name not in _as_tuple(axis_name):
    raise NotImplementedError("all_to_all over an axis of an enclosing vmap")
  n = axis_data.size
  x = batching.bdim_at_front(x, d, n)  # (n, *shape): member j's array at [j]
  shape = list(core.get_aval(x).shape[1:])
  chunk = shape[split_axis] // n
  # split member arrays' split_axis into (n, chunk): x[j, ..., k, c, ...]
  split = [n] + shape[:split_axis] + [n, chunk] + shape[split_axis + 1:]
  x = structural.reshape(x, tuple(split))
  # output member k: concatenate over j of chunk k along concat_axis
  x = batching.moveaxis(x, split_axis + 1, 0)  # (k, j, ..., c, ...)
  # now member axis k at 0, source axis j at 1; the member's array without j has `shape` with
  # split_axis of size chunk; put j just before concat_axis and merge
  inner = shape[:split_axis] + [chunk] + shape[split_axis + 1:]
  x = batching.moveaxis(x, 1, 1 + concat_axis)
  merged = inner[:concat_axis] + [n * inner[concat_axis]] + inner[concat_axis + 1:]
  x = structural.reshape(x, (n, *merged))
  return x, 0


all_to_all_p.def_abstract_eval(_all_to_all_abstract_eval)
all_to_all_p.def_impl(_unbound_impl)
mlir.register(all_to_all_p, _no_lowering("all_to_all"))
batching.collective_batchers[all_to_all_p] = _all_to_all_batcher
ad.deflinear2(all_to_all_p, lambda ct, x, *, axis_name, split_axis, concat_axis,
              axis_index_groups, tiled, axis_size: [
                  all_to_all_p.bind(ad.instantiate_zeros(ct), axis_name=axis_name,
                                    split_axis=concat_axis, concat_axis=split_axis,
                                    axis_index_groups=axis_index_groups, tiled=tiled,
                                    axis_size=axis_size)])


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
  """Splits ``x`` along ``split_axis`` into one block per member of the named axis, sends
  block ``k`` to member ``k``, and concatenates the received blocks along ``concat_axis``
  (without ``tiled``, the split axis must equal the axis size and is replaced by a new axis)."""
  groups = _canonical_groups(axis_index_groups, axis_name, "all_to_all", equal_sizes=True)
  size = axis_size(axis_name) if groups is None else len(groups[0])

  def one(leaf):
    if tiled:
      return all_to_all_p.bind(leaf, axis_name=_as_tuple(axis_name), split_axis=split_axis,
                               concat_axis=concat_axis, axis_index_groups=groups,
                               tiled=True, axis_size=size)
    expanded = structural.expand_dims(leaf, (concat_axis,))
    split = split_axis + (1 if split_axis >= concat_axis else 0)
    out = all_to_all_p.bind(expanded, axis_name=_as_tuple(axis_name), split_axis=split,
                            concat_axis=concat_axis, axis_index_groups=groups,
                            tiled=False, axis_size=size)
    return structural.squeeze(out, (split,))
  return tree_util.tree_map(one, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
  """Swaps the named axis with positional axis ``axis`` (an all_to_all)."""
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
