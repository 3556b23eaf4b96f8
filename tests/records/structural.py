"""Op records for the structural primitives (broadcast_in_dim, reshape, squeeze, transpose, rev,
concatenate, pad, slice, dynamic_slice, dynamic_update_slice, iota, split).

References are written independently of the kernels (index arithmetic with ``np.indices``, explicit
loops over small shapes) and follow XLA's semantics: negative and interior padding, strided slices,
and dynamic start indices that are first wrapped (negative means from the end, as the lax functions
do) and then clamped so the slice stays inside the operand.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

from axle import lax
from tests.op_record import OpRecord, edge_values, random_array

DTYPES = [np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32),
          np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.float16),
          np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32), np.dtype(np.complex64)]


def _name(dtype) -> str:
  return np.dtype(dtype).name


def data(rng: np.random.Generator, shape, dtype) -> np.ndarray:
  """Random values of ``dtype`` with some of its edge values (inf, nan, min, max...) mixed in."""
  dtype = np.dtype(dtype)
  out = np.array(random_array(rng, shape, dtype))
  if out.size:
    edges = edge_values(dtype)
    flat = out.reshape(-1)
    count = min(flat.size, len(edges))
    positions = rng.choice(flat.size, count, replace=False)
    flat[positions] = rng.permutation(edges)[:count]
  return out


def scalar(rng, dtype) -> np.ndarray:
  return data(rng, (), dtype)[()]


# ---------------------------------------------------------------------------
# References


def ref_broadcast_in_dim(x, shape, dims):
  out = np.empty(shape, x.dtype)
  for index in np.ndindex(*shape):
    out[index] = x[tuple(index[d] if x.shape[i] != 1 else 0 for i, d in enumerate(dims))]
  return out


def ref_pad(x, value, config):
  # Interior padding by placing elements on a strided grid, then edges one dimension at a time.
  shape = [0 if d == 0 else d + (d - 1) * i for d, (_, _, i) in zip(x.shape, config)]
  dilated = np.full(shape, value, x.dtype)
  if x.size:
    dilated[tuple(np.s_[::i + 1] for _, _, i in config)] = x
  # XLA's output size is lo + hi + dilated: add the positive edges first, then crop the negative.
  out = dilated
  for axis, (lo, hi, _) in enumerate(config):
    out = np.moveaxis(out, axis, 0)
    fill = lambda k: np.full((k,) + out.shape[1:], value, x.dtype)
    out = np.concatenate([fill(max(lo, 0)), out, fill(max(hi, 0))])
    out = out[max(-lo, 0):out.shape[0] - max(-hi, 0)]
    out = np.moveaxis(out, 0, axis)
  return out


def _wrap_and_clamp(index, dim, size):
  dtype = np.asarray(index).dtype
  index = int(index)
  if index < 0:  # the lax functions add dim in the index dtype: a narrow type wraps, as in JAX
    index = int(np.array(index + dim).astype(dtype))
  return min(max(index, 0), dim - size)


def ref_dynamic_slice(x, starts, sizes):
  starts = [_wrap_and_clamp(i, d, s) for i, d, s in zip(starts, x.shape, sizes)]
  out = np.empty(sizes, x.dtype)
  for index in itertools.product(*(range(s) for s in sizes)):
    out[index] = x[tuple(a + b for a, b in zip(starts, index))]
  return out


def ref_dynamic_update_slice(x, update, starts):
  starts = [_wrap_and_clamp(i, d, s) for i, d, s in zip(starts, x.shape, update.shape)]
  out = x.copy()
  for index in itertools.product(*(range(s) for s in update.shape)):
    out[tuple(a + b for a, b in zip(starts, index))] = update[index]
  return out


def ref_iota(dtype, shape, dimension):
  index = np.indices(shape)[dimension] if shape else np.zeros((), int)
  return index.astype(dtype)


# ---------------------------------------------------------------------------
# Records

RECORDS: list[OpRecord] = []


# vmap-vs-loop runs on these dtypes, check_grads on float32 (at points without edge values).
VMAP_DTYPES = {np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_),
               np.dtype(np.complex64), np.dtype(ml_dtypes.bfloat16)}
GRAD_DTYPES = {np.dtype(np.float32)}


def smooth_args(make_args):
  """``make_args`` with its float arrays replaced by moderate random values (no inf/nan/edge
  values): the points check_grads differentiates at. Integer arguments (indices) are kept."""
  def make(rng):
    out = []
    for a in make_args(rng):
      a = np.asarray(a)
      if a.dtype.kind in "fc" or a.dtype == ml_dtypes.bfloat16:
        a = random_array(rng, a.shape, a.dtype, low=-2, high=2)
      out.append(a)
    return out
  return make


def _transforms(dtype, primitive) -> dict:
  if primitive == "iota":  # no operands: nothing to batch or differentiate
    return {}
  transforms = {"jit"}
  if np.dtype(dtype) in VMAP_DTYPES:
    transforms.add("vmap")
  if np.dtype(dtype) in GRAD_DTYPES:
    transforms.add("grad")
  return {"transforms": frozenset(transforms)}


def _add_typed(dtype, name, primitive, fun, reference, make_args, **kw):
  _add(name, primitive, fun, reference, make_args, dtype=dtype, **kw)


def _add(name, primitive, fun, reference, make_args, dtype=None, **kw):
  # Structural ops move values without arithmetic: eager, jit and reference agree bitwise
  # (NaNs positionally), so the tolerance is zero for every primitive of the family.
  kw.setdefault("rtol", 0)
  kw.setdefault("atol", 0)
  if dtype is not None and "transforms" not in kw:
    kw.update(_transforms(dtype, primitive))
    if "grad" in kw.get("transforms", ()):
      kw["grad_make_args"] = smooth_args(make_args)
  RECORDS.append(OpRecord(name=f"structural.{name}", primitive=primitive, fun=fun,
                          reference=reference, make_args=make_args, **kw))


_BROADCAST_CASES = [((), (2, 3), ()), ((3,), (2, 3), (1,)), ((3, 1), (2, 3, 4), (1, 0)),
                    ((0, 2), (3, 0, 2), (1, 2)), ((2, 1), (2, 5), (0, 1)), ((1,), (0,), (0,))]
_RESHAPE_CASES = [((2, 3), (3, 2), None), ((2, 3), (6,), (1, 0)), ((), (1, 1), None),
                  ((0, 3), (3, 0), None), ((2, 3, 4), (4, 6), (2, 0, 1)), ((1,), (), None)]
_SQUEEZE_CASES = [((1, 3, 1), (0, 2)), ((1,), (0,)), ((2, 1, 0), (1,))]
_TRANSPOSE_CASES = [((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((0, 2, 1), (1, 2, 0)), ((), ())]
_REV_CASES = [((2, 3), (1,)), ((2, 3, 4), (0, 2)), ((0, 3), (0, 1)), ((), ())]
_CONCAT_CASES = [([(2, 3), (2, 1)], 1), ([(3,), (0,), (2,)], 0), ([(1, 2), (4, 2), (1, 2)], 0)]
_PAD_CASES = [((3, 4), ((1, -1, 1), (0, 2, 0))), ((4,), ((-2, -2, 2),)), ((2, 3), ((0, 0, 3), (-1, -2, 0))),
              ((0, 2), ((1, 2, 3), (0, 0, 1))), ((5,), ((-5, 0, 0),)), ((), ()), ((3,), ((-7, 2, 2),))]
_SLICE_CASES = [((3, 4), (0, 1), (3, 4), None), ((3, 4), (0, 1), (3, 4), (2, 2)),
                ((5,), (1,), (5,), (3,)), ((2, 0), (1, 0), (2, 0), None), ((3, 4), (1, 1), (1, 4), (1, 2))]
_DYNAMIC_SLICE_CASES = [((4, 5), (2, 3)), ((6,), (0,)), ((3, 4), (3, 4)), ((5, 1, 2), (2, 1, 1))]
_SPLIT_CASES = [((3, 4), (1, 0, 3), 1), ((5,), (2, 3), 0), ((0, 2), (0, 0), 0)]


def _start_indices(rng, shape):
  # Anything from well below -dim to well above dim, to exercise wrapping and clamping.
  return [np.int32(rng.integers(-2 * d - 2, 2 * d + 3)) for d in shape]


for dtype in DTYPES:
  n = _name(dtype)
  for k, (in_shape, shape, dims) in enumerate(_BROADCAST_CASES):
    _add_typed(dtype, f"broadcast_in_dim.{n}.{k}", "broadcast_in_dim",
         lambda x, shape=shape, dims=dims: lax.broadcast_in_dim(x, shape, dims),
         lambda x, shape=shape, dims=dims: ref_broadcast_in_dim(x, shape, dims),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (in_shape, new_sizes, dims) in enumerate(_RESHAPE_CASES):
    _add_typed(dtype, f"reshape.{n}.{k}", "reshape",
         lambda x, new_sizes=new_sizes, dims=dims: lax.reshape(x, new_sizes, dims),
         lambda x, new_sizes=new_sizes, dims=dims: np.reshape(
             x if dims is None else np.transpose(x, dims), new_sizes),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (in_shape, dims) in enumerate(_SQUEEZE_CASES):
    _add_typed(dtype, f"squeeze.{n}.{k}", "squeeze", lambda x, dims=dims: lax.squeeze(x, dims),
         lambda x, dims=dims: np.squeeze(x, dims),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (in_shape, perm) in enumerate(_TRANSPOSE_CASES):
    _add_typed(dtype, f"transpose.{n}.{k}", "transpose", lambda x, perm=perm: lax.transpose(x, perm),
         lambda x, perm=perm: np.transpose(x, perm),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (in_shape, dims) in enumerate(_REV_CASES):
    _add_typed(dtype, f"rev.{n}.{k}", "rev", lambda x, dims=dims: lax.rev(x, dims),
         lambda x, dims=dims: x[tuple(np.s_[::-1] if i in dims else np.s_[:] for i in range(x.ndim))],
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (shapes, axis) in enumerate(_CONCAT_CASES):
    _add_typed(dtype, f"concatenate.{n}.{k}", "concatenate",
         lambda *xs, axis=axis: lax.concatenate(xs, axis),
         lambda *xs, axis=axis: np.concatenate(xs, axis),
         lambda rng, shapes=shapes, dtype=dtype: [data(rng, s, dtype) for s in shapes])
  for k, (in_shape, config) in enumerate(_PAD_CASES):
    _add_typed(dtype, f"pad.{n}.{k}", "pad", lambda x, v, config=config: lax.pad(x, v, config),
         lambda x, v, config=config: ref_pad(x, v, config),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype), scalar(rng, dtype)])
  for k, (in_shape, start, limit, strides) in enumerate(_SLICE_CASES):
    _add_typed(dtype, f"slice.{n}.{k}", "slice",
         lambda x, start=start, limit=limit, strides=strides: lax.slice(x, start, limit, strides),
         lambda x, start=start, limit=limit, strides=strides: x[tuple(
             np.s_[s:l:(1 if strides is None else strides[i])] for i, (s, l) in enumerate(zip(start, limit)))],
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  for k, (in_shape, sizes) in enumerate(_DYNAMIC_SLICE_CASES):
    _add_typed(dtype, f"dynamic_slice.{n}.{k}", "dynamic_slice",
         lambda x, *starts, sizes=sizes: lax.dynamic_slice(x, starts, sizes),
         lambda x, *starts, sizes=sizes: ref_dynamic_slice(x, starts, sizes),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype),
                                                      *_start_indices(rng, in_shape)], trials=6)
    _add_typed(dtype, f"dynamic_update_slice.{n}.{k}", "dynamic_update_slice",
         lambda x, u, *starts: lax.dynamic_update_slice(x, u, starts),
         lambda x, u, *starts: ref_dynamic_update_slice(x, u, starts),
         lambda rng, in_shape=in_shape, sizes=sizes, dtype=dtype: [
             data(rng, in_shape, dtype), data(rng, sizes, dtype), *_start_indices(rng, in_shape)],
         trials=6)
  for k, (in_shape, sizes, axis) in enumerate(_SPLIT_CASES):
    _add_typed(dtype, f"split.{n}.{k}", "split", lambda x, sizes=sizes, axis=axis: lax.split(x, sizes, axis),
         lambda x, sizes=sizes, axis=axis: np.split(x, np.cumsum(sizes)[:-1], axis),
         lambda rng, in_shape=in_shape, dtype=dtype: [data(rng, in_shape, dtype)])
  if dtype != np.bool_:
    for k, (shape, dimension) in enumerate([((5,), 0), ((2, 3), 1), ((3, 0, 2), 0), ((300,), 0)]):
      _add_typed(dtype, f"iota.{n}.{k}", "iota",
           lambda shape=shape, dimension=dimension, dtype=dtype: lax.broadcasted_iota(dtype, shape, dimension),
           lambda shape=shape, dimension=dimension, dtype=dtype: ref_iota(dtype, shape, dimension),
           lambda rng: [], trials=1)

# Unsigned start indices: never wrapped, only clamped.
for index_dtype in (np.uint32, np.uint8):
  _add(f"dynamic_slice.index_{np.dtype(index_dtype).name}", "dynamic_slice",
       lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)),
       lambda x, i, j: ref_dynamic_slice(x, (i, j), (2, 2)),
       lambda rng, index_dtype=index_dtype: [
           data(rng, (4, 5), np.float32),
           *[np.array(v).astype(index_dtype)[()] for v in rng.integers(-7 if np.dtype(index_dtype).kind == "i" else 0, 9, 2)]],
       trials=8)

# Index dtypes on a dimension they cannot span: the clamp bound (300 - size) does not fit in
# int8/uint8, negative int8 indices wrap when the dimension is added (JAX's arithmetic), uint32
# values past 2**31 must not read as negative. One record per index value, so the jit check (one
# draw) sees each; the index is a jit argument (runtime) or closed over (a constant XLA folds).
for index_dtype in (np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int32):
  info = np.iinfo(index_dtype)
  for value in sorted({int(info.min), int(info.max), 0, 1, min(int(info.max), 127), -1,
                       min(int(info.max), 298), -300, int(info.max) - 1}):
    if not info.min <= value <= info.max:
      continue
    index = np.array(value).astype(index_dtype)[()]
    tag = f"index_{np.dtype(index_dtype).name}.{value}"
    _add(f"dynamic_slice.{tag}", "dynamic_slice",
         lambda x, i: lax.dynamic_slice(x, (i,), (3,)),
         lambda x, i: ref_dynamic_slice(x, (i,), (3,)),
         lambda rng, index=index: [data(rng, (300,), np.float32), index], trials=1)
    _add(f"dynamic_slice.{tag}.const", "dynamic_slice",
         lambda x, index=index: lax.dynamic_slice(x, (index,), (3,)),
         lambda x, index=index: ref_dynamic_slice(x, (index,), (3,)),
         lambda rng: [data(rng, (300,), np.float32)], trials=1)
    _add(f"dynamic_update_slice.{tag}", "dynamic_update_slice",
         lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)),
         lambda x, u, i: ref_dynamic_update_slice(x, u, (i,)),
         lambda rng, index=index: [data(rng, (300,), np.int32), data(rng, (3,), np.int32), index],
         trials=1)
    _add(f"dynamic_update_slice.{tag}.const", "dynamic_update_slice",
         lambda x, u, index=index: lax.dynamic_update_slice(x, u, (index,)),
         lambda x, u, index=index: ref_dynamic_update_slice(x, u, (index,)),
         lambda rng: [data(rng, (300,), np.int32), data(rng, (3,), np.int32)], trials=1)
