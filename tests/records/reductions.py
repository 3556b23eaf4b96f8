"""Op records for reductions, cumulative/windowed reductions and sorting.

References are plain NumPy written from XLA's definitions (accumulating in float64/int64 and
converting, which wraps integers like XLA); they do not call axle's kernels.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

from axle import lax
from tests.op_record import OpRecord, edge_values, random_array

bfloat16 = np.dtype(ml_dtypes.bfloat16)
INTS = [np.dtype(d) for d in ("int8", "int16", "int32", "uint8", "uint16", "uint32")]
FLOATS = [np.dtype(np.float16), bfloat16, np.dtype(np.float32)]
NUMBERS = INTS + FLOATS + [np.dtype(np.complex64)]
ALL = [np.dtype(bool)] + NUMBERS
SHAPES_AXES = [((3, 4), (0,)), ((3, 4), (1,)), ((2, 3, 4), (0, 2)), ((0, 4), (0,)), ((2, 0, 3), (1, 2)),
               ((3, 4), ()), ((), ())]
RECORDS: list[OpRecord] = []


def _name(dtype) -> str:
  return "bfloat16" if np.dtype(dtype) == bfloat16 else np.dtype(dtype).name


def _tol(dtype):
  dtype = np.dtype(dtype)
  return {np.dtype(np.float16): 2e-2, bfloat16: 5e-2}.get(dtype, 1e-5)


def _wide(dtype):
  dtype = np.dtype(dtype)
  if dtype.kind == "c":
    return np.complex128
  if dtype.kind == "u":
    return np.uint64
  if dtype.kind in "ib":
    return np.int64
  return np.float64


def _args(shape, dtype, edges=False):
  def make(rng):
    x = random_array(rng, shape, dtype, low=-3, high=3)
    if edges and x.size and np.dtype(dtype).kind != "b":
      edge = edge_values(dtype)
      if np.dtype(dtype).kind in "fc" or np.dtype(dtype) == bfloat16:
        # NaN placement is covered by recorded cases (complex max/min keep or drop a NaN depending
        # on XLA's combining order, which no NumPy reference reproduces).
        edge = edge[~np.isnan(edge.astype(np.complex64 if np.dtype(dtype).kind == "c" else np.float32))]
      flat = x.reshape(-1).copy()
      picks = rng.integers(0, len(edge), size=min(flat.size, 3))
      flat[rng.choice(flat.size, size=len(picks), replace=False)] = edge[picks]
      x = flat.reshape(shape)
    return [x]
  return make


def _ref_arith(ufunc, identity):
  def ref(x, axes):
    dtype = x.dtype
    with np.errstate(all="ignore"):
      out = ufunc.reduce(x.astype(_wide(dtype)), axis=axes) if axes else x.astype(_wide(dtype))
      if np.ndim(out) == 0 and not axes:
        pass
      return np.asarray(out).astype(dtype)
  return ref


def _ref_extremum(is_max):
  def ref(x, axes):
    dtype = x.dtype
    if not axes:
      return x.copy()
    w = x.astype(np.float32) if dtype == bfloat16 else x
    if any(x.shape[a] == 0 for a in axes):
      shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
      if dtype.kind in "iu":
        fill = np.iinfo(dtype).min if is_max else np.iinfo(dtype).max
      elif dtype == np.bool_:
        fill = not is_max
      else:
        fill = -np.inf if is_max else np.inf
      return np.full(shape, fill, dtype)
    return np.asarray(np.max(w, axis=axes) if is_max else np.min(w, axis=axes)).astype(dtype)
  return ref


def _ref_logical(kind):
  def ref(x, axes):
    if not axes:
      return x.copy()
    if x.dtype == np.bool_:
      f = {"and": np.all, "or": np.any, "xor": lambda v, axis: np.sum(v, axis=axis) % 2 == 1}[kind]
      return np.asarray(f(x, axis=axes))
    u = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if any(x.shape[a] == 0 for a in axes):
      return np.full(shape, -1 if kind == "and" else 0).astype(x.dtype)
    return np.asarray(u.reduce(x, axis=axes)).astype(x.dtype)
  return ref


for prim, fun, ref, dtypes_ in [
    ("reduce_sum", lax.reduce_sum, _ref_arith(np.add, 0), NUMBERS),
    ("reduce_prod", lax.reduce_prod, _ref_arith(np.multiply, 1), NUMBERS),
    ("reduce_max", lax.reduce_max, _ref_extremum(True), ALL),
    ("reduce_min", lax.reduce_min, _ref_extremum(False), ALL),
    ("reduce_and", lax.reduce_and, _ref_logical("and"), [np.dtype(bool)] + INTS),
    ("reduce_or", lax.reduce_or, _ref_logical("or"), [np.dtype(bool)] + INTS),
    ("reduce_xor", lax.reduce_xor, _ref_logical("xor"), [np.dtype(bool)] + INTS)]:
  for dtype in dtypes_:
    for shape, axes in SHAPES_AXES:
      if prim == "reduce_prod" and np.dtype(dtype).kind in "fc" and len(shape) > 2:
        continue  # products of 12 values in [-3, 3] exceed float16's range
      RECORDS.append(OpRecord(
          name=f"{prim}_{_name(dtype)}_{'x'.join(map(str, shape)) or 'scalar'}_axes{''.join(map(str, axes))}",
          primitive=prim, fun=lambda x, f=fun, a=axes: f(x, a),
          reference=lambda x, r=ref, a=axes: r(x, a),
          make_args=_args(shape, dtype, edges=prim in ("reduce_max", "reduce_min")),
          rtol=_tol(dtype), atol=_tol(dtype)))

for prim, fun, np_fun in [("argmax", lax.argmax, np.argmax), ("argmin", lax.argmin, np.argmin)]:
  for dtype in [np.dtype(bool)] + INTS + FLOATS:
    for shape, axis, index_dtype in [((3, 4), 0, np.int32), ((3, 4), 1, np.int32), ((2, 5, 3), 1, np.uint8),
                                     ((4, 0), 0, np.int32), ((7,), 0, np.int8)]:
      RECORDS.append(OpRecord(
          name=f"{prim}_{_name(dtype)}_{'x'.join(map(str, shape))}_axis{axis}_{np.dtype(index_dtype).name}",
          primitive=prim, fun=lambda x, f=fun, a=axis, d=index_dtype: f(x, a, d),
          reference=lambda x, g=np_fun, a=axis, d=index_dtype: np.asarray(
              g(x.astype(np.float32) if x.dtype == bfloat16 else x, axis=a)).astype(d),
          make_args=_args(shape, dtype, edges=True)))


def _ref_cumulative(kind):
  def ref(x, axis, reverse):
    dtype = x.dtype
    if x.size == 0:
      return x.copy()
    w = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
      if kind == "sum":
        out = np.cumsum(w.astype(_wide(dtype)), axis=axis)
      elif kind == "prod":
        out = np.cumprod(w.astype(_wide(dtype)), axis=axis)
      elif kind == "max":
        out = np.maximum.accumulate(w.astype(np.float64) if dtype == bfloat16 else w, axis=axis)
      elif kind == "min":
        out = np.minimum.accumulate(w.astype(np.float64) if dtype == bfloat16 else w, axis=axis)
      else:
        out = np.log(np.cumsum(np.exp(w.astype(_wide(dtype))), axis=axis))
      out = np.asarray(out).astype(dtype)
    return np.flip(out, axis) if reverse else out
  return ref


for prim, fun, kind, dtypes_ in [("cumsum", lax.cumsum, "sum", NUMBERS), ("cumprod", lax.cumprod, "prod", NUMBERS),
                                 ("cummax", lax.cummax, "max", NUMBERS),
                                 ("cummin", lax.cummin, "min", NUMBERS),
                                 ("cumlogsumexp", lax.cumlogsumexp, "logsumexp", FLOATS + [np.dtype(np.complex64)])]:
  for dtype in dtypes_:
    for shape, axis, reverse in [((5,), 0, False), ((3, 4), 1, True), ((3, 4), 0, False), ((0, 3), 0, False),
                                 ((2, 0), 1, True)]:
      RECORDS.append(OpRecord(
          name=f"{prim}_{_name(dtype)}_{'x'.join(map(str, shape))}_axis{axis}{'_rev' if reverse else ''}",
          primitive=prim, fun=lambda x, f=fun, a=axis, r=reverse: f(x, a, reverse=r),
          reference=lambda x, g=_ref_cumulative(kind), a=axis, r=reverse: g(x, a, r),
          make_args=_args(shape, dtype), rtol=_tol(dtype), atol=_tol(dtype)))


def _ref_window(x, init, combine, window, strides, padding, base, wdil):
  """reduce_window from XLA's definition: loop over outputs and window taps, skipping padding/holes."""
  dilated = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(x.shape, base)]
  spans = [(w - 1) * d + 1 for w, d in zip(window, wdil)]
  out_shape = [max(0, (dz + lo + hi - sp) // s + 1) if dz + lo + hi >= sp else 0
               for dz, (lo, hi), sp, s in zip(dilated, padding, spans, strides)]
  wide = _wide(x.dtype) if combine is np.add else (np.float64 if x.dtype == bfloat16 else x.dtype)
  out = np.full(out_shape, init, dtype=wide)
  for pos in itertools.product(*[range(o) for o in out_shape]):
    for tap in itertools.product(*[range(w) for w in window]):
      index = []
      for p, t, s, d, (lo, _), b, n in zip(pos, tap, strides, wdil, padding, base, x.shape):
        i = p * s + t * d - lo
        if i < 0 or i % b or i // b >= n:
          break
        index.append(i // b)
      else:
        out[pos] = combine(out[pos], x[tuple(index)].astype(wide))
  with np.errstate(all="ignore"):
    return out.astype(x.dtype)


_WINDOW_CONFIGS = [
    ("valid", (3, 5), (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ("strided_pad", (4, 5), (2, 3), (2, 1), ((1, 0), (1, 2)), (1, 1), (1, 1)),
    ("dilated", (3, 4), (2, 2), (1, 2), ((0, 1), (2, 0)), (2, 1), (1, 2)),
    ("negative_pad", (4, 4), (1, 2), (1, 1), ((-1, 0), (0, -1)), (1, 1), (1, 1)),
    ("empty", (0, 4), (1, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ("1d", (6,), (3,), (2,), ((1, 1),), (1,), (1,)),
]
for prim, combine, identity_of, dtypes_ in [
    ("reduce_window_sum", np.add, lambda d: 0, INTS + FLOATS + [np.dtype(np.complex64)]),
    ("reduce_window_max", np.maximum,
     lambda d: np.iinfo(d).min if np.dtype(d).kind in "iu" else (False if d == np.bool_ else -np.inf),
     ALL),
    ("reduce_window_min", np.minimum,
     lambda d: np.iinfo(d).max if np.dtype(d).kind in "iu" else (True if d == np.bool_ else np.inf),
     ALL)]:
  computation = {"reduce_window_sum": lax.add, "reduce_window_max": lax.max,
                 "reduce_window_min": lax.min}[prim]
  for dtype in dtypes_:
    for cname, shape, window, strides, padding, base, wdil in _WINDOW_CONFIGS:
      init = np.array(identity_of(dtype)).astype(dtype)
      RECORDS.append(OpRecord(
          name=f"{prim}_{_name(dtype)}_{cname}", primitive=prim,
          fun=lambda x, c=computation, i=init, w=window, s=strides, p=padding, b=base, d=wdil:
              lax.reduce_window(x, i, c, w, s, p, b, d),
          reference=lambda x, c=combine, i=init, w=window, s=strides, p=padding, b=base, d=wdil:
              _ref_window(x, i, c, w, s, p, b, d),
          make_args=_args(shape, dtype), rtol=_tol(dtype), atol=_tol(dtype),
          # (as in JAX, max/min windows with dilation have a JVP but no VJP)
          grad_modes=("fwd",) if prim != "reduce_window_sum" and (
              any(v != 1 for v in base + wdil)) else ("fwd", "rev")))

for cname, shape, window, strides, padding, base, wdil in _WINDOW_CONFIGS[:4]:
  RECORDS.append(OpRecord(
      name=f"reduce_window_generic_mul_float32_{cname}", primitive="reduce_window",
      fun=lambda x, w=window, s=strides, p=padding, b=base, d=wdil: lax.reduce_window(x, np.float32(2), lax.mul, w, s, p, b, d),
      reference=lambda x, w=window, s=strides, p=padding, b=base, d=wdil: _ref_window(x, np.float32(2), np.multiply, w, s, p, b, d),
      make_args=_args(shape, np.float32), rtol=1e-5, atol=1e-5,
      # (as in JAX, a generic window reduction has a JVP but no VJP: linearize raises)
      grad_modes=("fwd",)))

for axes in [(0,), (1,), (0, 1)]:
  RECORDS.append(OpRecord(
      name=f"reduce_generic_float32_axes{''.join(map(str, axes))}", primitive="reduce",
      fun=lambda x, a=axes: lax.reduce(x, np.float32(1), lambda u, v: u * 0.5 + v, a),
      reference=lambda x, a=axes: _ref_fold(x, a),
      make_args=_args((3, 4), np.float32), rtol=1e-5, atol=1e-5))


def _ref_fold(x, axes, init=1.0, step=lambda acc, v: acc * 0.5 + v):
  """XLA's fold acc = step(acc, element) in row-major order of the reduced dimensions (float32
  folds run in float64, integer folds wrap in the operand's dtype)."""
  kept = [d for d in range(x.ndim) if d not in axes]
  work = np.float64 if x.dtype.kind == "f" else x.dtype
  moved = np.transpose(x, kept + list(axes)).reshape([x.shape[d] for d in kept] + [-1]).astype(work)
  acc = np.full(moved.shape[:-1], init, work)
  with np.errstate(over="ignore"):
    for i in range(moved.shape[-1]):
      acc = step(acc, moved[..., i])
  return acc.astype(x.dtype)


RECORDS.append(OpRecord(
    name="reduce_generic_int32_wraps", primitive="reduce",
    fun=lambda x: lax.reduce(x, np.int32(3), lambda u, v: u * 1000003 + v, (1,)),
    reference=lambda x: _ref_fold(x, (1,), 3, lambda acc, v: acc * np.int32(1000003) + v),
    make_args=_args((3, 4), np.int32)))
RECORDS.append(OpRecord(
    name="reduce_generic_pair_float32_int32", primitive="reduce",
    fun=lambda x, y: lax.reduce((x, y), (np.float32(0), np.int32(0)),
                                lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (0,)),
    reference=lambda x, y: [x.astype(np.float64).sum(0).astype(np.float32),
                            np.maximum(y.max(0), 0).astype(np.int32)],
    make_args=lambda rng: [random_array(rng, (4, 3), np.float32), random_array(rng, (4, 3), np.int32)],
    rtol=1e-5, atol=1e-5))
RECORDS.append(OpRecord(
    name="reduce_window_generic_pair_float32_int32", primitive="reduce_window",
    fun=lambda x, y: lax.reduce_window((x, y), (np.float32(0), np.int32(0)),
                                       lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])),
                                       (2, 2), (1, 2), ((1, 0), (0, 1))),
    reference=lambda x, y: [
        _ref_window(x, np.float32(0), np.add, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1)),
        _ref_window(y, np.int32(0), np.maximum, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1))],
    make_args=lambda rng: [random_array(rng, (4, 5), np.float32), random_array(rng, (4, 5), np.int32)],
    rtol=1e-5, atol=1e-5, grad_modes=("fwd",)))


def _distinct_args(shape, dtype):
  """Random values without ties or NaNs, so any correct sort agrees on the permutation."""
  def make(rng):
    size = int(np.prod(shape))
    if np.dtype(dtype) == np.bool_:
      return [rng.random(shape) < 0.5]
    if np.dtype(dtype).kind in "iu":
      info = np.iinfo(dtype)
      pool = np.arange(max(info.min, -100), min(info.max, 100) + 1)
      return [rng.choice(pool, size=size, replace=size > len(pool)).astype(dtype).reshape(shape)]
    return [(rng.permutation(size) - size // 2).astype(dtype).reshape(shape)]
  return make


for dtype in ALL:
  for shape, dimension in [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 0), 1), ((0, 3), 0)]:
    RECORDS.append(OpRecord(
        name=f"sort_{_name(dtype)}_{'x'.join(map(str, shape))}_dim{dimension}", primitive="sort",
        fun=lambda x, d=dimension: lax.sort(x, dimension=d),
        reference=lambda x, d=dimension: np.sort(x.astype(np.float32) if x.dtype == bfloat16 else x,
                                                 axis=d, kind="stable").astype(x.dtype),
        make_args=_distinct_args(shape, dtype)))
  if dtype.kind != "c":
    for shape, k, axis in [((7,), 3, -1), ((3, 5), 5, -1), ((4, 3), 2, 0), ((3, 4), 0, -1)]:
      def _ref_top_k(x, k=k, axis=axis):
        w = np.moveaxis(x.astype(np.float64) if x.dtype != np.bool_ else x.astype(np.int64), axis, -1)
        order = np.argsort(-w, axis=-1, kind="stable")[..., :k]
        values = np.take_along_axis(np.moveaxis(x, axis, -1), order, -1)
        return [np.moveaxis(values, -1, axis), np.moveaxis(order.astype(np.int32), -1, axis)]
      RECORDS.append(OpRecord(
          name=f"top_k_{_name(dtype)}_{'x'.join(map(str, shape))}_k{k}_axis{axis}", primitive="top_k",
          fun=lambda x, k=k, axis=axis: lax.top_k(x, k, axis=axis), reference=_ref_top_k,
          make_args=_distinct_args(shape, dtype)))


def _sort_pair_args(rng):
  keys = rng.integers(-2, 3, (3, 6)).astype(np.float32)  # ties: stability decides
  return [keys, rng.integers(-50, 50, (3, 6)).astype(np.int32)]


def _ref_sort_pair(keys, values):
  order = np.argsort(keys, axis=-1, kind="stable")
  return [np.take_along_axis(keys, order, -1), np.take_along_axis(values, order, -1)]


RECORDS.append(OpRecord(name="sort_key_val_float32_int32_ties", primitive="sort",
                        fun=lambda k, v: lax.sort_key_val(k, v), reference=_ref_sort_pair,
                        make_args=_sort_pair_args))
RECORDS.append(OpRecord(
    name="sort_two_keys_int32", primitive="sort",
    fun=lambda a, b: lax.sort((a, b), num_keys=2),
    reference=lambda a, b: [np.take_along_axis(x, np.lexsort((b, a), axis=-1), -1) for x in (a, b)],
    make_args=lambda rng: [rng.integers(0, 3, (2, 8)).astype(np.int32), rng.integers(-5, 5, (2, 8)).astype(np.int32)]))


# Sorting on edge values (ties, +-0, inf, NaN, integer extremes), with the permutation carried
# along as an int32 payload so stability and the order of -0.0/+0.0 are checked exactly.
def _edge_sort_args(shape, dtype, payload=True):
  def make(rng):
    values = np.resize(edge_values(dtype), int(np.prod(shape)))  # repeats: ties
    keys = rng.permutation(values).reshape(shape)
    if not payload:
      return [keys]
    return [keys, np.arange(keys.size, dtype=np.int32).reshape(shape)]
  return make


def _sort_order_keys(x):
  """Keys for np.lexsort (primary last) giving XLA's sort order: -0.0 == +0.0, NaN last (all NaNs
  equal), complex by real then imaginary part."""
  if x.dtype.kind == "c":
    return _sort_order_keys(x.imag) + _sort_order_keys(x.real)
  if x.dtype.kind in "biu":
    return [x.astype(np.int64)]
  w = x.astype(np.float64)
  nan = np.isnan(w)
  return [np.where(nan, 0.0, w), nan]


def _ref_edge_sort(keys, payload, dimension):
  moved_keys, moved_payload = np.moveaxis(keys, dimension, -1), np.moveaxis(payload, dimension, -1)
  order = np.lexsort(_sort_order_keys(moved_keys), axis=-1)  # stable
  return [np.moveaxis(np.take_along_axis(a, order, -1), -1, dimension)
          for a in (moved_keys, moved_payload)]


def _ref_edge_top_k(x, k, axis):
  """IEEE total order, largest first (NaN above +inf, +0.0 above -0.0), lower index first on ties."""
  moved = np.moveaxis(x, axis, -1)
  if moved.dtype.kind in "biu":
    keys = [-moved.astype(np.int64)]
  else:
    w = moved.astype(np.float64)
    nan = np.isnan(w)
    keys = [np.signbit(w) & ~nan, -np.where(nan, 0.0, w), ~nan]
  order = np.lexsort(keys, axis=-1)[..., :k]
  values = np.take_along_axis(moved, order, -1)
  return [np.moveaxis(values, -1, axis), np.moveaxis(order.astype(np.int32), -1, axis)]


for dtype in ALL:
  for shape, dimension in [((40,), 0), ((3, 20), 1), ((20, 3), 0)]:
    RECORDS.append(OpRecord(
        name=f"sort_edges_{_name(dtype)}_{'x'.join(map(str, shape))}_dim{dimension}",
        primitive="sort",
        fun=lambda k, v, d=dimension: lax.sort((k, v), dimension=d, num_keys=1),
        reference=lambda k, v, d=dimension: _ref_edge_sort(k, v, d),
        make_args=_edge_sort_args(shape, dtype), rtol=0, atol=0))
  if dtype.kind != "c":
    for shape, k, axis in [((40,), 40, -1), ((3, 20), 7, -1), ((20, 3), 5, 0)]:
      RECORDS.append(OpRecord(
          name=f"top_k_edges_{_name(dtype)}_{'x'.join(map(str, shape))}_k{k}_axis{axis}",
          primitive="top_k", fun=lambda x, k=k, axis=axis: lax.top_k(x, k, axis=axis),
          reference=lambda x, k=k, axis=axis: _ref_edge_top_k(x, k, axis % x.ndim),
          make_args=_edge_sort_args(shape, dtype, payload=False), rtol=0, atol=0))


def _two_float_keys_args(rng):
  first = np.resize(edge_values(np.float32), 48)
  second = rng.integers(-2, 2, 48).astype(np.float32)
  second[::7] = np.nan
  return [rng.permutation(first).reshape(2, 24), second.reshape(2, 24),
          np.arange(48, dtype=np.int32).reshape(2, 24)]


RECORDS.append(OpRecord(
    name="sort_edges_two_float_keys_float32", primitive="sort",
    fun=lambda a, b, c: lax.sort((a, b, c), num_keys=2),
    reference=lambda a, b, c: [
        np.take_along_axis(x, np.lexsort(_sort_order_keys(b) + _sort_order_keys(a), axis=-1), -1)
        for x in (a, b, c)],
    make_args=_two_float_keys_args, rtol=0, atol=0))


# ---------------------------------------------------------------------------
# Transformations. vmap-vs-loop for the float32, int32 and bool records (every primitive has
# some); check_grads (order 2, forward and reverse) for the float32 records of differentiable
# primitives, at tie-free finite points (random normals), away from the kinks of max/min/sort.

_DIFFERENTIABLE = {"reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "cumsum", "cumprod",
                   "cummax", "cummin", "cumlogsumexp", "reduce_window_sum", "reduce_window_max",
                   "reduce_window_min", "reduce_window", "sort", "top_k"}
# Non-associative computations: XLA may combine in any order, so only the fold order the eager
# kernel uses is defined, and the JVP (a pairwise tree, as JAX's) differs from it.
_NOT_ASSOCIATIVE = {f"reduce_generic_float32_axes{a}" for a in ("0", "1", "01")}


def _first_dtype(record: OpRecord) -> np.dtype:
  return np.asarray(record.make_args(np.random.default_rng(0))[0]).dtype


def _normal_args(make_args, spaced: bool):
  """Float32 arguments replaced by random normals, or by distinct values 0.25 apart (``spaced``,
  for sorts: finite differences must not reorder them)."""
  def fresh(rng, a):
    if spaced:
      return ((rng.permutation(a.size) - a.size // 2) * 0.25).astype(np.float32).reshape(a.shape)
    return rng.normal(size=a.shape).astype(np.float32)

  def make(rng):
    return [fresh(rng, np.asarray(a)) if np.asarray(a).dtype == np.float32 else a
            for a in make_args(rng)]
  return make


def _empty_extremum(record: OpRecord) -> bool:
  """max/min over an empty axis is -inf/+inf: nothing to differentiate."""
  args = record.make_args(np.random.default_rng(0))
  return record.primitive in ("reduce_max", "reduce_min") and any(np.size(a) == 0 for a in args)


for _record in RECORDS:
  _dtype = _first_dtype(_record)
  if _dtype in (np.dtype(np.float32), np.dtype(np.int32), np.dtype(bool)):
    _record.transforms = _record.transforms | {"vmap"}
  if (_dtype == np.dtype(np.float32) and _record.primitive in _DIFFERENTIABLE
      and _record.name not in _NOT_ASSOCIATIVE and not _empty_extremum(_record)):
    _record.transforms = _record.transforms | {"grad"}
    _record.grad_make_args = _normal_args(_record.make_args,
                                          spaced=_record.primitive in ("sort", "top_k"))
    _record.grad_tol = 2e-2

RECORDS.append(OpRecord(
    name="reduce_generic_pair_float32_float32_grad", primitive="reduce",
    fun=lambda x, y: lax.reduce((x, y), (np.float32(0), np.float32(-np.inf)),
                                lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (1,)),
    reference=lambda x, y: [x.astype(np.float64).sum(1).astype(np.float32), y.max(1)],
    make_args=lambda rng: [rng.normal(size=(3, 5)).astype(np.float32),
                           rng.normal(size=(3, 5)).astype(np.float32)],
    rtol=1e-5, atol=1e-5, transforms=frozenset({"jit", "grad", "vmap"}), grad_tol=2e-2))
