"""Op records for gather and the scatter family.

The references are deliberately naive: a Python loop over index vectors and window elements
that follows XLA's definition of Gather/Scatter (clamped or filled/dropped windows), so they
check the vectorised NumPy kernels independently.

Tolerances: everything agrees bitwise (rtol = atol = 0; XLA applies repeated indices in index
order, like the kernels), except scatter-mul: on float32/bfloat16/complex64 it allows atol = the
smallest normal number, because XLA:CPU flushes subnormal products to zero (the NumPy kernel and
reference do not), and on complex64 rtol 1e-5, because XLA's complex product (which the eager
kernel runs) differs from NumPy's, the reference's, in the last bit. jit vs eager is bitwise
for complex64 scatter-mul (both run XLA).
"""
import itertools

import ml_dtypes
import numpy as np

from axle import lax
from tests.op_record import OpRecord, edge_values, random_array

GD = lax.GatherDimensionNumbers
SD = lax.ScatterDimensionNumbers
CLIP, FILL, PROMISE = (lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP,
                       lax.GatherScatterMode.PROMISE_IN_BOUNDS)

ALL_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int32, np.int16, np.int8, np.uint32,
              np.uint16, np.uint8, np.bool_, np.complex64]
ORDERED_DTYPES = [d for d in ALL_DTYPES if d not in (np.bool_, np.complex64)]


def _name(dtype):
  return np.dtype(dtype).name


def _values(rng, shape, dtype, finite=False):
  """Random values with edge values sprinkled in (only finite, moderate ones if ``finite``)."""
  values = random_array(rng, shape, dtype)
  edges = edge_values(dtype)
  if finite:
    with np.errstate(invalid="ignore"):
      edges = edges[np.isfinite(edges) & (np.abs(edges) <= 100)]
  flat = values.reshape(-1)
  if flat.size:
    picks = rng.integers(0, flat.size, size=min(len(edges), flat.size))
    flat[picks] = rng.choice(edges, size=len(picks))
  return values


def _starts(index_vector, batch_index, operand_shape, index_map, operand_batching_dims,
            indices_batching_dims):
  start = [0] * len(operand_shape)
  for k, d in enumerate(index_map):
    start[d] = int(index_vector[k])
  for d_operand, d_indices in zip(operand_batching_dims, indices_batching_dims):
    start[d_operand] = batch_index[d_indices]
  return start


def gather_reference(operand, indices, dn, slice_sizes, mode, fill_value=None):
  batch_shape = indices.shape[:-1]
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  window_sizes = [s for d, s in enumerate(slice_sizes) if d not in dropped]
  out_rank = len(batch_shape) + len(window_sizes)
  batch_dims = [d for d in range(out_rank) if d not in dn.offset_dims]
  out_shape = [0] * out_rank
  for d, s in zip(dn.offset_dims, window_sizes):
    out_shape[d] = s
  for d, s in zip(batch_dims, batch_shape):
    out_shape[d] = s
  out = np.zeros(out_shape, operand.dtype)
  if fill_value is None:
    kind = operand.dtype.kind
    fill_value = {"f": np.nan, "c": np.nan, "V": np.nan, "b": True}.get(
        kind, np.iinfo(operand.dtype).min if kind == "i" else
        (np.iinfo(operand.dtype).max if kind == "u" else np.nan))
    if operand.dtype == ml_dtypes.bfloat16:
      fill_value = np.nan
  for b in np.ndindex(*batch_shape):
    start = _starts(indices[b], b, operand.shape, dn.start_index_map, dn.operand_batching_dims,
                    dn.start_indices_batching_dims)
    in_bounds = all(0 <= start[d] <= operand.shape[d] - slice_sizes[d] for d in dn.start_index_map)
    start = [min(max(s, 0), n - k) for s, n, k in zip(start, operand.shape, slice_sizes)]
    window = operand[tuple(slice(s, s + k) for s, k in zip(start, slice_sizes))]
    window = window.reshape(window_sizes)
    if mode == FILL and not in_bounds:
      window = np.full(window_sizes, fill_value).astype(operand.dtype)
    target = [slice(None)] * out_rank
    for d, i in zip(batch_dims, b):
      target[d] = i
    out[tuple(target)] = window
  return out


_combine = {"scatter": lambda old, new: new, "scatter-add": lambda a, b: a + b,
            "scatter-sub": lambda a, b: a - b, "scatter-mul": lambda a, b: a * b,
            "scatter-min": np.minimum, "scatter-max": np.maximum}


def scatter_reference(name, operand, indices, updates, dn, mode):
  out = operand.copy()
  rank = operand.ndim
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  window_operand_dims = [d for d in range(rank) if d not in dropped]
  window = [1] * rank
  for i, d in enumerate(dn.update_window_dims):
    window[window_operand_dims[i]] = updates.shape[d]
  scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  combine = _combine[name]
  with np.errstate(all="ignore"):
    for b in np.ndindex(*indices.shape[:-1]):
      start = _starts(indices[b], b, operand.shape, dn.scatter_dims_to_operand_dims,
                      dn.operand_batching_dims, dn.scatter_indices_batching_dims)
      if mode == CLIP:
        start = [min(max(s, 0), n - k) for s, n, k in zip(start, operand.shape, window)]
      elif not all(0 <= s <= n - k for s, n, k in zip(start, operand.shape, window)):
        continue
      for w in itertools.product(*(range(k) for k in window)):
        update_index = [0] * updates.ndim
        for d, i in zip(scatter_dims, b):
          update_index[d] = i
        for i, d in enumerate(dn.update_window_dims):
          update_index[d] = w[window_operand_dims[i]]
        target = tuple(s + o for s, o in zip(start, w))
        out[target] = combine(out[target], updates[tuple(update_index)])
  return out


# (name, operand shape, indices, dimension numbers, slice sizes)
GATHER_CASES = [
    ("rows", (5, 4), np.array([[0], [4], [7], [-2], [2]]), GD((1,), (0,), (0,)), (1, 4)),
    ("windows", (4, 5), np.array([[0, 0], [3, 4], [2, 1], [-1, 3]]), GD((1, 2), (), (0, 1)), (2, 3)),
    ("points", (3, 4), np.array([[[0, 1], [2, 3]], [[5, 0], [1, -1]]]), GD((), (0, 1), (0, 1)), (1, 1)),
    ("columns_first", (3, 6), np.array([[1], [5], [0]]), GD((0,), (1,), (1,)), (3, 1)),
    ("batched", (2, 3, 4), np.array([[[1], [0]], [[3], [2]]]), GD((2,), (1,), (1,), (0,), (0,)),
     (1, 1, 4)),
    ("empty_batch", (3, 4), np.zeros((0, 1), np.int32), GD((1,), (0,), (0,)), (1, 4)),
]

# (name, operand shape, indices, dimension numbers, updates shape)
SCATTER_CASES = [
    ("rows_dup", (5, 4), np.array([[0], [4], [7], [0], [-2], [0]]), SD((1,), (0,), (0,)), (6, 4)),
    ("windows", (4, 5), np.array([[0, 0], [3, 4], [2, 1], [1, 1]]), SD((1, 2), (), (0, 1)), (4, 2, 3)),
    ("points_dup", (3, 4), np.array([[0, 1], [0, 1], [2, 3], [5, 0], [0, 1]]), SD((), (0, 1), (0, 1)),
     (5,)),
    ("batched", (2, 3, 4), np.array([[[1], [0]], [[1], [2]]]), SD((2,), (1,), (1,), (0,), (0,)),
     (2, 2, 4)),
]

_SCATTERS = {"scatter": lax.scatter, "scatter-add": lax.scatter_add, "scatter-sub": lax.scatter_sub,
             "scatter-mul": lax.scatter_mul, "scatter-min": lax.scatter_min,
             "scatter-max": lax.scatter_max}


# vmap-vs-loop runs on these dtypes; check_grads on float32 in CLIP mode here (PROMISE_IN_BOUNDS
# with out-of-bounds indices breaks its promise: a gather clamps while its transpose, a
# scatter-add, drops, as in JAX; FILL_OR_DROP gathers fill NaN, which finite differences cannot
# difference: FILL_OR_DROP is checked by the records further below, with finite fill values).
VMAP_DTYPES = {np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_),
               np.dtype(np.complex64)}


def _smooth(make_args):
  """Float arguments replaced by moderate random values (points for check_grads)."""
  def make(rng):
    return [random_array(rng, a.shape, a.dtype, low=-2, high=2) if a.dtype.kind in "fc" else a
            for a in map(np.asarray, make_args(rng))]
  return make


def _transform_kw(dtype, mode, make_args, differentiable=True, gather=False) -> dict:
  transforms = {"jit"}
  kw = {}
  if np.dtype(dtype) in VMAP_DTYPES:
    transforms.add("vmap")
  grad_modes = (CLIP,) if gather else (CLIP, FILL)
  if differentiable and np.dtype(dtype) == np.float32 and mode in grad_modes:
    transforms.add("grad")
    kw["grad_make_args"] = _smooth(make_args)
  kw["transforms"] = frozenset(transforms)
  return kw


def _gather_record(case, dtype, mode):
  name, shape, indices, dn, sizes = case

  def make_args(rng):
    return [_values(rng, shape, dtype), indices.astype(np.int32)]

  return OpRecord(
      name=f"gather_{name}_{_name(dtype)}_{mode.name.lower()}", primitive="gather",
      fun=lambda x, i: lax.gather(x, i, dn, sizes, mode=mode),
      reference=lambda x, i: gather_reference(x, i, dn, sizes, mode), make_args=make_args,
      trials=2, rtol=0, atol=0, **_transform_kw(dtype, mode, make_args, gather=True))


def _scatter_record(prim, case, dtype, mode):
  name, shape, indices, dn, updates_shape = case
  # XLA's scatter multiplies complex numbers its own way where products overflow (inf vs nan);
  # the kernel runs it on XLA, the NumPy reference cannot follow, so keep those values finite.
  finite = prim == "scatter-mul" and np.dtype(dtype).kind == "c"

  def make_args(rng):
    return [_values(rng, shape, dtype, finite), indices.astype(np.int32),
            random_array(rng, updates_shape, dtype, low=-3, high=3)]

  flushes = prim == "scatter-mul" and np.dtype(dtype) in (np.float32, ml_dtypes.bfloat16,
                                                           np.complex64)
  return OpRecord(
      name=f"{prim}_{name}_{_name(dtype)}_{mode.name.lower()}", primitive=prim,
      fun=lambda x, i, u: _SCATTERS[prim](x, i, u, dn, mode=mode),
      reference=lambda x, i, u: scatter_reference(prim, x, i, u, dn, mode), make_args=make_args,
      trials=2, rtol=1e-5 if finite else 0,
      # (x 2**10: a product of several factors under vmap+jit flushes a subnormal partial product)
      atol=float(ml_dtypes.finfo(dtype).tiny) * 2**10 if flushes else 0,
      # scatter-mul differentiates in its updates only with unique indices (records below).
      **_transform_kw(dtype, mode, make_args, differentiable=prim != "scatter-mul"))


RECORDS = []
for _case in GATHER_CASES:
  for _dtype in ALL_DTYPES:
    for _mode in (CLIP, FILL, PROMISE):
      RECORDS.append(_gather_record(_case, _dtype, _mode))
for _prim in _SCATTERS:
  if _prim == "scatter":
    _dtypes = ALL_DTYPES
  elif _prim in ("scatter-min", "scatter-max"):
    _dtypes = ORDERED_DTYPES
  else:
    _dtypes = [d for d in ALL_DTYPES if d is not np.bool_]
  for _case in SCATTER_CASES:
    for _dtype in _dtypes:
      for _mode in (CLIP, FILL, PROMISE):
        RECORDS.append(_scatter_record(_prim, _case, _dtype, _mode))


# Narrow and unsigned index dtypes on a dimension of 300: the window bound (300 - 3) does not fit
# in int8/uint8, and uint32 values past 2**31 must stay out of bounds (not wrap to negative).
_WIDE_GD = GD((1,), (), (0,))
_WIDE_SD = SD((1,), (), (0,))
_NARROW_INDICES = {
    np.int8: [[100], [127], [-1], [-128], [0], [5]],
    np.uint8: [[255], [200], [0], [3], [255], [254]],
    np.int16: [[299], [297], [298], [-1], [-300], [150]],
    np.uint32: [[2**31 + 5], [298], [2**32 - 1], [297], [7], [0]],
    np.int32: [[2**31 - 1], [298], [-2**31], [297], [-1], [0]],
}


def _narrow_index_records(index_dtype, rows):
  """Several index vectors as a jit argument, and each single one closed over (a constant:
  XLA rewrites a one-window gather/scatter into a dynamic slice/update slice and folds it)."""
  tag = np.dtype(index_dtype).name
  variants = [("", np.array(rows, np.int64).astype(index_dtype))]
  variants += [(f"_const{k}", np.array([row], np.int64).astype(index_dtype))
               for k, row in enumerate(rows)]
  for suffix, indices in variants:
    const = bool(suffix)
    for mode in (CLIP, FILL, PROMISE):
      RECORDS.append(OpRecord(
          name=f"gather_index_{tag}{suffix}_{mode.name.lower()}", primitive="gather",
          fun=(lambda x, mode=mode, indices=indices: lax.gather(x, indices, _WIDE_GD, (3,),
                                                                 mode=mode)) if const else
              (lambda x, i, mode=mode: lax.gather(x, i, _WIDE_GD, (3,), mode=mode)),
          reference=(lambda x, mode=mode, indices=indices: gather_reference(
              x, indices, _WIDE_GD, (3,), mode)) if const else
              (lambda x, i, mode=mode: gather_reference(x, i, _WIDE_GD, (3,), mode)),
          make_args=lambda rng, indices=indices, const=const: [
              _values(rng, (300,), np.float32)] + ([] if const else [indices]),
          trials=1, rtol=0, atol=0))
      for prim in ("scatter", "scatter-add"):
        RECORDS.append(OpRecord(
            name=f"{prim}_index_{tag}{suffix}_{mode.name.lower()}", primitive=prim,
            fun=(lambda x, u, mode=mode, prim=prim, indices=indices: _SCATTERS[prim](
                x, indices, u, _WIDE_SD, mode=mode)) if const else
                (lambda x, i, u, mode=mode, prim=prim: _SCATTERS[prim](x, i, u, _WIDE_SD,
                                                                       mode=mode)),
            reference=(lambda x, u, mode=mode, prim=prim, indices=indices: scatter_reference(
                prim, x, indices, u, _WIDE_SD, mode)) if const else
                (lambda x, i, u, mode=mode, prim=prim: scatter_reference(
                    prim, x, i, u, _WIDE_SD, mode)),
            make_args=lambda rng, indices=indices, const=const: [
                _values(rng, (300,), np.int32)] + ([] if const else [indices]) +
                [random_array(rng, (len(indices), 3), np.int32)],
            trials=1, rtol=0, atol=0))


for _index_dtype, _rows in _NARROW_INDICES.items():
  _narrow_index_records(_index_dtype, _rows)


# An explicit fill_value for out-of-bounds gathers (converted to the operand dtype).
for _dtype, _fill in [(np.float32, -7.5), (np.int8, 42), (np.uint16, 7), (np.bool_, False),
                      (np.complex64, 2 - 1j), (ml_dtypes.bfloat16, np.inf)]:
  _case = GATHER_CASES[1]
  RECORDS.append(OpRecord(
      name=f"gather_fill_value_{_name(_dtype)}", primitive="gather",
      fun=lambda x, i, fill=_fill, case=_case: lax.gather(x, i, case[3], case[4], mode=FILL,
                                                           fill_value=fill),
      reference=lambda x, i, fill=_fill, case=_case: gather_reference(
          x, i, case[3], case[4], FILL, fill_value=fill),
      make_args=lambda rng, dtype=_dtype, case=_case: [_values(rng, case[1], dtype),
                                                        case[2].astype(np.int32)],
      trials=1, rtol=0, atol=0))


# indices_are_sorted / unique_indices promises kept (the indices are sorted and unique).
_SORTED = np.array([[0], [2], [3]], np.int32)
for _mode in (CLIP, FILL):
  RECORDS.append(OpRecord(
      name=f"gather_sorted_unique_{_mode.name.lower()}", primitive="gather",
      fun=lambda x, i, mode=_mode: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 4), mode=mode,
                                              indices_are_sorted=True, unique_indices=True),
      reference=lambda x, i, mode=_mode: gather_reference(x, i, GD((1,), (0,), (0,)), (1, 4),
                                                          mode),
      make_args=lambda rng: [_values(rng, (5, 4), np.float32), _SORTED], trials=1, rtol=0, atol=0))
  for _prim in ("scatter", "scatter-add", "scatter-max"):
    RECORDS.append(OpRecord(
        name=f"{_prim}_sorted_unique_{_mode.name.lower()}", primitive=_prim,
        fun=lambda x, i, u, mode=_mode, prim=_prim: _SCATTERS[prim](
            x, i, u, SD((1,), (0,), (0,)), mode=mode, indices_are_sorted=True,
            unique_indices=True),
        reference=lambda x, i, u, mode=_mode, prim=_prim: scatter_reference(
            prim, x, i, u, SD((1,), (0,), (0,)), mode),
        make_args=lambda rng: [_values(rng, (5, 4), np.float32), _SORTED,
                               random_array(rng, (3, 4), np.float32)],
        trials=1, rtol=0, atol=0))


# scatter_apply: a scatter whose update computation ignores the updates; repeated indices
# apply the function repeatedly.
def _apply_reference(x, i):
  out = x.copy()
  for (k,) in i:
    if 0 <= k < x.shape[0]:
      out[k] = out[k] * np.float32(2) + np.float32(1)
  return out


RECORDS.append(OpRecord(
    name="scatter_apply_float32", primitive="scatter",
    fun=lambda x, i: lax.scatter_apply(x, i, lambda v: v * np.float32(2) + np.float32(1),
                                       SD((), (0,), (0,)), update_shape=(6,)),
    reference=_apply_reference,
    make_args=lambda rng: [random_array(rng, (6,), np.float32),
                           np.array([[1], [4], [1], [9], [-1], [1]], np.int32)],
    trials=2, rtol=0, atol=0))


# Transformation checks that need their own records: FILL_OR_DROP gathers with a finite
# fill_value (finite differences of a NaN fill are NaN), and the scatters whose derivatives need
# unique indices (scatter-mul in its updates; scatter's simpler unique-indices rule).
for _case in GATHER_CASES:
  _name_, _shape, _indices, _dn, _sizes = _case
  _make = (lambda rng, shape=_shape, indices=_indices: [_values(rng, shape, np.float32),
                                                        indices.astype(np.int32)])
  RECORDS.append(OpRecord(
      name=f"gather_{_name_}_float32_fill0", primitive="gather",
      fun=lambda x, i, dn=_dn, sizes=_sizes: lax.gather(x, i, dn, sizes, mode=FILL,
                                                        fill_value=0),
      reference=lambda x, i, dn=_dn, sizes=_sizes: gather_reference(x, i, dn, sizes, FILL,
                                                                    fill_value=0),
      make_args=_make, trials=1, rtol=0, atol=0,
      transforms=frozenset({"jit", "vmap", "grad"}), grad_make_args=_smooth(_make)))

# (name, operand shape, unique in-bounds indices, dimension numbers, updates shape)
_UNIQUE_SCATTER_CASES = [
    ("rows", (5, 4), np.array([[3], [0], [4]]), SD((1,), (0,), (0,)), (3, 4)),
    ("points", (3, 4), np.array([[0, 1], [2, 3], [1, 0]]), SD((), (0, 1), (0, 1)), (3,)),
    ("batched", (2, 3, 4), np.array([[[1], [0]], [[2], [1]]]), SD((2,), (1,), (1,), (0,), (0,)),
     (2, 2, 4)),
]
for _prim in ("scatter", "scatter-mul", "scatter-add"):
  for _case in _UNIQUE_SCATTER_CASES:
    _name_, _shape, _indices, _dn, _ushape = _case
    _make = (lambda rng, shape=_shape, indices=_indices, ushape=_ushape: [
        random_array(rng, shape, np.float32, -2, 2), indices.astype(np.int32),
        random_array(rng, ushape, np.float32, -2, 2)])
    for _mode in (CLIP, FILL):
      RECORDS.append(OpRecord(
          name=f"{_prim}_{_name_}_unique_float32_{_mode.name.lower()}", primitive=_prim,
          fun=lambda x, i, u, prim=_prim, dn=_dn, mode=_mode: _SCATTERS[prim](
              x, i, u, dn, mode=mode, unique_indices=True),
          reference=lambda x, i, u, prim=_prim, dn=_dn, mode=_mode: scatter_reference(
              prim, x, i, u, dn, mode),
          make_args=_make, trials=1, rtol=1e-6, atol=1e-6,
          transforms=frozenset({"jit", "vmap", "grad"})))
