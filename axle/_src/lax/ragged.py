"""``ragged_dot_general``: matrix products over consecutive groups of rows (``lax.ragged_dot``).

One dimension of ``lhs`` (its *ragged* dimension) is split into consecutive groups whose sizes
``group_sizes`` gives. Two modes, as JAX's primitive has:

- the ragged dimension is not contracted: ``rhs`` has a *group* dimension, and the rows of
  group ``i`` are multiplied by ``rhs``'s ``i``-th slice (``ragged_dot``: ``[m, k] x [g, k, n]
  -> [m, n]``);
- the ragged dimension is contracted (``rhs`` has no group dimension): each group's rows are
  contracted separately, giving a leading group dimension (``[m, k] x [m, n] -> [g, k, n]``,
  the cotangent of ``rhs`` above).

The computation is JAX's CPU program: the operands are masked into a stack with one copy per
group (zero outside the group's rows) and contracted by ``dot_general``.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import contractions
from axle._src.lax import elementwise
from axle._src.lax import reductions
from axle._src.lax import structural

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general",
           "ragged_dot_general_p"]


class RaggedDotDimensionNumbers:
  """The dimensions of a ragged dot: ``dot_dimension_numbers`` (contracting and batch
  dimensions, as ``dot_general``'s), ``lhs_ragged_dimensions`` (the dimension of ``lhs`` split
  into groups) and ``rhs_group_dimensions`` (``rhs``'s group dimension; empty when the ragged
  dimension is contracted)."""
  __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")

  def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dot_dimension_numbers
    self.dot_dimension_numbers = ((tuple(lhs_contract), tuple(rhs_contract)),
                                  (tuple(lhs_batch), tuple(rhs_batch)))
    self.lhs_ragged_dimensions = tuple(lhs_ragged_dimensions)
    self.rhs_group_dimensions = tuple(rhs_group_dimensions)

  def _key(self):
    return (self.dot_dimension_numbers, self.lhs_ragged_dimensions, self.rhs_group_dimensions)

  def __eq__(self, other):
    return type(other) is RaggedDotDimensionNumbers and self._key() == other._key()

  def __hash__(self):
    return hash(self._key())

  def __repr__(self):
    return (f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers!r}, "
            f"lhs_ragged_dimensions={self.lhs_ragged_dimensions!r}, "
            f"rhs_group_dimensions={self.rhs_group_dimensions!r})")


# The numbers of ragged_dot: [m, k] x [g, k, n] -> [m, n].
_RAGGED_DOT_NUMBERS = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def _unpack(numbers: RaggedDotDimensionNumbers):
  (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
  lc, rc, lb, rb = ([int(d) for d in dims] for dims in (lc, rc, lb, rb))
  if len(numbers.lhs_ragged_dimensions) != 1:
    raise TypeError("ragged_dot_general requires exactly one lhs ragged dimension, got "
                    f"{numbers.lhs_ragged_dimensions}")
  ragged = int(numbers.lhs_ragged_dimensions[0])
  group = [int(d) for d in numbers.rhs_group_dimensions]
  return lc, rc, lb, rb, ragged, group


def _ragged_dot_general_abstract_eval(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                                      precision, preferred_element_type, group_offset,
                                      out_sharding):
  lc, rc, lb, rb, ragged, group = _unpack(ragged_dot_dimension_numbers)
  if group_offset is not None:
    raise NotImplementedError("ragged_dot_general: group_offset is not supported by axle")
  if len(group) > 1:
    raise TypeError(f"ragged_dot_general: at most one rhs group dimension, got {group}")
  if not dtypes.issubdtype(group_sizes.dtype, np.integer):
    raise TypeError(f"ragged_dot_general: group_sizes must be integers, got {group_sizes.dtype}")
  for a, b in zip(lc, rc):
    if lhs.shape[a] != rhs.shape[b]:
      raise TypeError(f"ragged_dot_general: contracting dimensions differ in size: lhs "
                      f"{lhs.shape} dimension {a} and rhs {rhs.shape} dimension {b}")
  batch_shape = tuple(lhs.shape[d] for d in lb)
  if ragged in lb:
    raise NotImplementedError("ragged_dot_general: a ragged batch dimension is not supported "
                              "by axle")
  lhs_free = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
  if group:
    if ragged in lc:
      raise TypeError("ragged_dot_general: a contracted ragged dimension takes no rhs group "
                      "dimension")
    num_groups = rhs.shape[group[0]]
    rhs_free = [d for d in range(rhs.ndim) if d not in rc and d not in rb and d not in group]
    shape = (*batch_shape, *(lhs.shape[d] for d in lhs_free), *(rhs.shape[d] for d in rhs_free))
  else:
    if ragged not in lc:
      raise TypeError("ragged_dot_general: a ragged dimension that is not contracted needs an "
                      "rhs group dimension")
    num_groups = group_sizes.shape[-1]
    rhs_free = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    shape = (num_groups, *batch_shape, *(lhs.shape[d] for d in lhs_free),
             *(rhs.shape[d] for d in rhs_free))
  if group_sizes.shape != (*batch_shape, num_groups):
    raise TypeError(f"ragged_dot_general: group_sizes must have shape "
                    f"{(*batch_shape, num_groups)}, got {group_sizes.shape}")
  if preferred_element_type is not None:
    dtype = np.dtype(preferred_element_type)
  else:
    if lhs.dtype != rhs.dtype:
      raise TypeError(f"ragged_dot_general: lhs and rhs must have the same dtype, got "
                      f"{lhs.dtype} and {rhs.dtype}")
    dtype = lhs.dtype
  return ShapedArray(shape, dtypes.canonicalize_dtype(dtype))


def _group_mask(group_sizes, shape, ragged_axis: int, batch_axes):
  """Where each group's rows are: a boolean array of ``shape`` (its axis 0 the groups) true at
  the positions of ``ragged_axis`` that belong to that axis-0 group (of the batch element at
  ``batch_axes``)."""
  num_groups = shape[0]
  positions = structural.broadcasted_iota(np.int32, shape, ragged_axis)
  sizes = group_sizes if core.get_aval(group_sizes).dtype == np.int32 else \
      group_sizes.astype(np.int32)
  ends = reductions.cumsum(sizes, axis=len(core.get_aval(sizes).shape) - 1)
  batch = core.get_aval(ends).shape[:-1]
  last = len(batch)
  zero = structural.full((*batch, num_groups), 0, np.int32)
  starts = structural.concatenate(
      [structural.slice(zero, (0,) * (last + 1), (*batch, 1)),
       structural.slice(ends, (0,) * (last + 1), (*batch, num_groups - 1))], last)
  if batch:  # the group axis first, then the batch axes (increasing broadcast dimensions)
    permutation = (last, *range(last))
    ends, starts = (structural.transpose(v, permutation) for v in (ends, starts))
  dims = (0, *batch_axes)
  ends_b = structural.broadcast_in_dim(ends, shape, dims)
  starts_b = structural.broadcast_in_dim(starts, shape, dims)
  return elementwise.bitwise_and(elementwise.le(starts_b, positions),
                                 elementwise.lt(positions, ends_b))


def _masked_stack(x, group_sizes, num_groups, ragged, batch_dims):
  aval = core.get_aval(x)
  shape = (num_groups, *aval.shape)
  stacked = structural.broadcast_in_dim(x, shape, tuple(range(1, aval.ndim + 1)))
  inside = _group_mask(group_sizes, shape, ragged + 1, [d + 1 for d in batch_dims])
  return elementwise.select(inside, stacked, structural.full(shape, 0, aval.dtype))


def _ragged_dot_general_program(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                                precision, preferred_element_type, group_offset, out_sharding):
  """The primitive as lax operations (its lowering and eager program)."""
  lc, rc, lb, rb, ragged, group = _unpack(ragged_dot_dimension_numbers)
  if group:
    num_groups = core.get_aval(rhs).shape[group[0]]
    masked = _masked_stack(lhs, group_sizes, num_groups, ragged, lb)
    numbers = (([d + 1 for d in lc] + [0], rc + group), ([d + 1 for d in lb], rb))
    return contractions.dot_general(masked, rhs, numbers, precision=precision,
                                    preferred_element_type=preferred_element_type)
  num_groups = core.get_aval(group_sizes).shape[-1]
  rhs_ragged = rc[lc.index(ragged)]
  masked_lhs = _masked_stack(lhs, group_sizes, num_groups, ragged, lb)
  masked_rhs = _masked_stack(rhs, group_sizes, num_groups, rhs_ragged, rb)
  numbers = (([d + 1 for d in lc], [d + 1 for d in rc]),
             ([0] + [d + 1 for d in lb], [0] + [d + 1 for d in rb]))
  return contractions.dot_general(masked_lhs, masked_rhs, numbers, precision=precision,
                                  preferred_element_type=preferred_element_type)


ragged_dot_general_p = core.Primitive("ragged_dot_general")
ragged_dot_general_p.def_abstract_eval(_ragged_dot_general_abstract_eval)
mlir.register(ragged_dot_general_p, mlir.lower_fun(_ragged_dot_general_program))


def _ragged_dot_general_jvp(primals, tangents, **params):
  lhs, rhs, group_sizes = primals
  t_lhs, t_rhs, _ = tangents
  out = ragged_dot_general_p.bind(lhs, rhs, group_sizes, **params)
  total = ad.Zero(ad.tangent_aval(core.get_aval(out)))
  if type(t_lhs) is not ad.Zero:
    total = ad.add_tangents(total, ragged_dot_general_p.bind(t_lhs, rhs, group_sizes, **params))
  if type(t_rhs) is not ad.Zero:
    total = ad.add_tangents(total, ragged_dot_general_p.bind(lhs, t_rhs, group_sizes, **params))
  return out, total


def _ragged_dot_general_transpose(ct, lhs, rhs, group_sizes, **params):
  numbers = params["ragged_dot_dimension_numbers"]
  if numbers != _RAGGED_DOT_NUMBERS:
    raise NotImplementedError(
        f"ragged_dot_general: axle transposes only ragged_dot's form ({_RAGGED_DOT_NUMBERS}), "
        f"got {numbers}")
  if ad.is_undefined_primal(group_sizes):
    raise ValueError("ragged_dot_general: group_sizes cannot be a linear input")
  ct = ad.instantiate_zeros(ct)
  ct_lhs = ct_rhs = None
  if ad.is_undefined_primal(rhs):  # [m, k] x [m, n] -> [g, k, n], ragged dimension contracted
    rhs_numbers = RaggedDotDimensionNumbers((((0,), (0,)), ((), ())), (0,), ())
    ct_rhs = ragged_dot_general_p.bind(lhs, ct, group_sizes,
                                       **dict(params, ragged_dot_dimension_numbers=rhs_numbers))
  if ad.is_undefined_primal(lhs):  # [m, n] x [g, k, n] -> [m, k]
    lhs_numbers = RaggedDotDimensionNumbers((((1,), (2,)), ((), ())), (0,), (0,))
    ct_lhs = ragged_dot_general_p.bind(ct, rhs, group_sizes,
                                       **dict(params, ragged_dot_dimension_numbers=lhs_numbers))
  return [ct_lhs, ct_rhs, None]


ad.primitive_jvps[ragged_dot_general_p] = _ragged_dot_general_jvp
ad.primitive_transposes[ragged_dot_general_p] = _ragged_dot_general_transpose


def _ragged_dot_general_batch(args, dims, **params):
  numbers = params["ragged_dot_dimension_numbers"]
  lc, rc, lb, rb, ragged, group = _unpack(numbers)
  if not group:
    raise NotImplementedError("ragged_dot_general: axle batches only ragged_dot's form (an rhs "
                              "group dimension)")
  size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
  lhs, rhs, group_sizes = (batching.bdim_at_front(a, d, size) for a, d in zip(args, dims))
  # every dimension moves up by one behind the new leading batch dimension (numbered as JAX's
  # rule numbers them: NumPy integers)
  shift = lambda ds: tuple(np.int64(d) + 1 for d in ds)
  batched = RaggedDotDimensionNumbers(
      ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb)))), shift([ragged]), shift(group))
  out = ragged_dot_general_p.bind(lhs, rhs, group_sizes,
                                  **dict(params, ragged_dot_dimension_numbers=batched))
  return out, 0


batching.primitive_batchers[ragged_dot_general_p] = _ragged_dot_general_batch


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers,
                       precision=None, preferred_element_type=None, group_offset=None,
                       out_sharding=None):
  """The ragged dot product with explicit dimension numbers (``lax.ragged_dot_general``); see
  the module docstring for its two modes."""
  structural._check_no_sharding("ragged_dot_general", out_sharding)
  if group_offset is not None:
    raise NotImplementedError("ragged_dot_general: group_offset is not supported by axle")
  lhs, rhs, group_sizes = (structural._asarray(v) for v in (lhs, rhs, group_sizes))
  return ragged_dot_general_p.bind(
      lhs, rhs, group_sizes, ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
      precision=precision, preferred_element_type=preferred_element_type, group_offset=None,
      out_sharding=None)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
  """Grouped matrix product (``lax.ragged_dot``): ``lhs`` is ``[m, k]`` with its rows split
  into consecutive groups of ``group_sizes`` (``[g]`` int32); ``rhs`` is ``[g, k, n]``; row
  ``i`` of the ``[m, n]`` result is ``lhs[i] @ rhs[group of i]`` (rows past the last group
  give 0). One ``ragged_dot_general`` equation, as in JAX."""
  structural._check_no_sharding("ragged_dot", out_sharding)
  lhs, rhs, group_sizes = (structural._asarray(v) for v in (lhs, rhs, group_sizes))
  la, ra, ga = (core.get_aval(v) for v in (lhs, rhs, group_sizes))
  if la.ndim != 2 or ra.ndim != 3 or ga.ndim != 1:
    raise TypeError(f"ragged_dot expects lhs [m, k], rhs [g, k, n] and group_sizes [g]; got "
                    f"lhs {la.shape}, rhs {ra.shape}, group_sizes {ga.shape}")
  return ragged_dot_general(lhs, rhs, group_sizes, _RAGGED_DOT_NUMBERS, precision=precision,
                            preferred_element_type=preferred_element_type,
                            group_offset=group_offset)
