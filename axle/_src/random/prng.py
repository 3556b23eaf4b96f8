"""The threefry2x32 PRNG: the hash, key derivation (seed, split, fold_in) and random bits.

Keys are arrays of ``uint32[..., 2]`` ("raw" keys, what ``PRNGKey`` returns) or typed key
arrays (``PRNGKeyArray``, what ``key`` returns) that wrap such data. Every key operation is a
primitive named as in JAX (``random_seed``, ``random_split``, ``random_fold_in``,
``random_bits``, ``threefry2x32``) whose eager kernel is vectorised NumPy on ``uint32`` and
whose lowering is a lax-level implementation of the same algorithm, so eager and jitted code
produce the same bits. ``jax_threefry_partitionable`` (default True) chooses between the two
counter layouts JAX uses for ``split`` and ``random_bits``.
"""
from __future__ import annotations

import math

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.config import config
from axle._src.config import enable_x64
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.array import Array
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import loops as lax_loops
from axle._src.lax import structural as lax_structural

UINT32 = np.dtype(np.uint32)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
               64: np.dtype(np.uint64)}

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KS_PARITY = 0x1BD11BDA


def threefry_partitionable() -> bool:
  """The value of ``jax_threefry_partitionable`` (True unless turned off)."""
  return bool(getattr(config, "jax_threefry_partitionable", True))


class PRNGImpl:
  """Describes a PRNG implementation (only threefry2x32 exists in axle)."""
  __slots__ = ("key_shape", "name", "tag")

  def __init__(self, key_shape, name, tag):
    self.key_shape = key_shape
    self.name = name
    self.tag = tag

  def __repr__(self):
    return self.name

  __str__ = __repr__

  def pprint(self):
    return self.tag


threefry_prng_impl = PRNGImpl((2,), "threefry2x32", "fry")


class KeyTy(dtypes.ExtendedDType):
  """The dtype of typed PRNG key arrays: prints as ``key<fry>`` for threefry2x32.

  An extended dtype (``issubdtype(dt, dtypes.prng_key)``); an array of keys ``key<fry>[*S]``
  is stored as its key data ``uint32[*S, 2]`` (``physical_shape``, ``physical_dtype``)."""
  __slots__ = ("_impl",)
  type = dtypes.prng_key
  physical_dtype = UINT32

  def __init__(self, impl: PRNGImpl):
    self._impl = impl

  @property
  def name(self) -> str:
    return f"key<{self._impl.tag}>"

  @property
  def impl(self) -> PRNGImpl:
    return self._impl

  @property
  def physical_shape(self) -> tuple:
    return self._impl.key_shape

  itemsize = property(lambda self: 8)
  kind = "V"

  def wrap_physical(self, data):
    """The key array (``PRNGKeyArray``) over concrete key data ``data``."""
    return key_array_type(self._impl, data)

  def __repr__(self):
    return self.name

  __str__ = __repr__

  def __eq__(self, other):
    return type(other) is KeyTy and other._impl is self._impl

  def __hash__(self):
    return hash((KeyTy, self._impl.name))


# The class of concrete key arrays, ``keys.PRNGKeyArray`` (set there: it is built on jnp).
key_array_type = None


def key_aval(shape, impl: PRNGImpl = threefry_prng_impl) -> ShapedArray:
  """The abstract value of keys of ``shape``: ``key<fry>[*shape]``."""
  return ShapedArray(tuple(shape), KeyTy(impl))


def is_key_aval(aval) -> bool:
  return isinstance(getattr(aval, "dtype", None), KeyTy)


def _invalid_key_data(message: str) -> TypeError:
  return TypeError(f"JAX encountered invalid PRNG key data: {message} for "
                   f"impl={threefry_prng_impl.name}")


def check_key_data(data):
  """Validates raw key data: a uint32 array whose shape ends with (2,). Returns it."""
  if not (hasattr(data, "shape") and hasattr(data, "dtype") and hasattr(data, "ndim")):
    raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                    f"shape, and dtype attributes. Got {data!r}")
  if data.ndim < 1 or tuple(data.shape[-1:]) != (2,):
    raise _invalid_key_data(f"expected key_data.shape to end with (2,); got "
                            f"shape={tuple(data.shape)}")
  if np.dtype(data.dtype) != UINT32:
    raise _invalid_key_data(f"expected key_data.dtype = uint32; got dtype={np.dtype(data.dtype)}")
  return data


# ---------------------------------------------------------------------------
# The threefry2x32 hash


def _threefry2x32_numpy(k0, k1, x0, x1):
  """Threefry-2x32 (20 rounds) on uint32 NumPy arrays; keys broadcast against counts.

  Works in place on blocks of the counts so the intermediates stay in cache."""
  k0 = np.asarray(k0, UINT32)
  k1 = np.asarray(k1, UINT32)
  shape = np.broadcast_shapes(k0.shape, k1.shape, np.shape(x0), np.shape(x1))
  x0 = np.broadcast_to(np.asarray(x0, UINT32), shape).reshape(-1)
  x1 = np.broadcast_to(np.asarray(x1, UINT32), shape).reshape(-1)
  scalar_keys = k0.ndim == 0 and k1.ndim == 0
  if scalar_keys:
    keys = [k0.reshape(()), k1.reshape(())]
  else:
    keys = [np.broadcast_to(k0, shape).reshape(-1), np.broadcast_to(k1, shape).reshape(-1)]
  n = x0.shape[0]
  if n <= _SMALL_HASH:
    if scalar_keys:
      pairs = [_threefry2x32_ints(int(keys[0]), int(keys[1]), a, b)
               for a, b in zip(x0.tolist(), x1.tolist())]
    else:
      pairs = [_threefry2x32_ints(ka, kb, a, b) for ka, kb, a, b in
               zip(keys[0].tolist(), keys[1].tolist(), x0.tolist(), x1.tolist())]
    return (np.array([p[0] for p in pairs], UINT32).reshape(shape),
            np.array([p[1] for p in pairs], UINT32).reshape(shape))
  out0 = np.empty(x0.shape, UINT32)
  out1 = np.empty(x1.shape, UINT32)
  block = 1 << 16
  shifts = [[(np.uint32(r), np.uint32(32 - r)) for r in rots] for rots in _ROTATIONS]
  with np.errstate(over="ignore"):
    for start in range(0, n, block):
      stop = min(start + block, n)
      if scalar_keys:
        ka, kb = keys
      else:
        ka, kb = keys[0][start:stop], keys[1][start:stop]
      ks = (ka, kb, ka ^ kb ^ np.uint32(_KS_PARITY))
      a = out0[start:stop]
      b = out1[start:stop]
      np.add(x0[start:stop], ks[0], out=a)
      np.add(x1[start:stop], ks[1], out=b)
      tmp = np.empty_like(a)
      for group in range(5):
        for left, right in shifts[group % 2]:
          np.add(a, b, out=a)
          np.left_shift(b, left, out=tmp)
          np.right_shift(b, right, out=b)
          np.bitwise_or(b, tmp, out=b)
          np.bitwise_xor(b, a, out=b)
        np.add(a, ks[(group + 1) % 3], out=a)
        np.add(b, ks[(group + 2) % 3], out=b)
        np.add(b, np.uint32(group + 1), out=b)
  return out0.reshape(shape), out1.reshape(shape)


# Up to this many counts the hash runs on Python ints: NumPy's per-call cost on arrays of a
# few elements (a split, a fold_in) is far above the arithmetic.
_SMALL_HASH = 16


def _threefry2x32_ints(k0: int, k1: int, x0: int, x1: int) -> tuple[int, int]:
  """Threefry-2x32 (20 rounds) of one pair of counts, on Python ints modulo 2**32."""
  mask = 0xFFFFFFFF
  ks = (k0, k1, k0 ^ k1 ^ _KS_PARITY)
  a = (x0 + k0) & mask
  b = (x1 + k1) & mask
  for group in range(5):
    for r in _ROTATIONS[group % 2]:
      a = (a + b) & mask
      b = (((b << r) & mask) | (b >> (32 - r))) ^ a
    a = (a + ks[(group + 1) % 3]) & mask
    b = (b + ks[(group + 2) % 3] + group + 1) & mask
  return a, b


def _threefry2x32_lax(k0, k1, x0, x1):
  """Threefry-2x32 in uint32 lax operations (the lowering)."""
  add = lax_elementwise.add
  rotl = lambda v, r: lax_elementwise.bitwise_or(
      lax_elementwise.shift_left(v, np.uint32(r)),
      lax_elementwise.shift_right_logical(v, np.uint32(32 - r)))
  shape = np.broadcast_shapes(*(core.get_aval(v).shape for v in (k0, k1, x0, x1)))

  def full(v):
    if core.get_aval(v).shape == shape:
      return v
    return lax_structural.broadcast_in_dim(v, shape, ())
  ks = [k0, k1, lax_elementwise.bitwise_xor(lax_elementwise.bitwise_xor(k0, k1),
                                            np.uint32(_KS_PARITY))]
  a = add(full(x0), ks[0])
  b = add(full(x1), ks[1])
  for group in range(5):
    for r in _ROTATIONS[group % 2]:
      a = add(a, b)
      b = lax_elementwise.bitwise_xor(rotl(b, r), a)
    a = add(a, ks[(group + 1) % 3])
    b = add(b, add(ks[(group + 2) % 3], np.uint32(group + 1)))
  return [a, b]


def _rotate_left(v, r):
  shape = core.get_aval(v).shape
  left = lax_elementwise.shift_left(v, lax_structural.broadcast_in_dim(r, shape, ()))
  right = lax_elementwise.shift_right_logical(
      v, lax_structural.broadcast_in_dim(lax_elementwise.sub(np.uint32(32), r), shape, ()))
  return lax_elementwise.bitwise_or(left, right)


def _broadcast_word(k, shape):
  """``k`` broadcast to ``shape``: a scalar everywhere, else dimension by dimension (its
  size-1 dimensions stretched, as the operands of vmapped keys and counts come)."""
  k_shape = core.get_aval(k).shape
  if k_shape == shape:
    return k
  return lax_structural.broadcast_in_dim(k, shape, tuple(range(len(k_shape))))


def _rolled_rounds_step(i, x0, x1, ks0, ks1, ks2, rot0, rot1):
  """One of the five groups of four rounds (then the key injection) of the rolled hash; the
  key words and the rotation tables rotate by one each step, as in JAX's rolled loop."""
  shape = core.get_aval(x0).shape
  i_next = lax_elementwise.add(i, np.int32(1))
  for j in range(4):
    r = lax_structural.reshape(lax_structural.slice(rot0, (j,), (j + 1,)), ())
    x0 = lax_elementwise.add(x0, x1)
    x1 = lax_elementwise.bitwise_xor(x0, _rotate_left(x1, r))
  x0 = lax_elementwise.add(x0, _broadcast_word(ks0, shape))
  x1 = lax_elementwise.add(x1, _broadcast_word(ks1, shape))
  step = lax_convert.convert_element_type(lax_elementwise.add(i, np.int32(1)), UINT32)
  x1 = lax_elementwise.add(x1, lax_structural.broadcast_in_dim(step, shape, ()))
  return i_next, x0, x1, ks1, ks2, ks0, rot1, rot0




def _threefry2x32_rolled_lax(k0, k1, x0, x1):
  """Threefry-2x32 as JAX lowers it on CPU: the five round groups rolled into a ``while``
  loop whose body is a called function (``closed_call``). Same bits as the unrolled form."""
  shape = _threefry2x32_shape(*(core.get_aval(v).shape for v in (k0, k1, x0, x1)))
  rot0 = np.array(_ROTATIONS[0], UINT32)
  rot1 = np.array(_ROTATIONS[1], UINT32)
  ks2 = lax_elementwise.bitwise_xor(lax_elementwise.bitwise_xor(k0, k1), np.uint32(_KS_PARITY))
  x0 = _broadcast_word(x0, shape)
  x0 = lax_elementwise.add(x0, _broadcast_word(k0, shape))
  x1 = _broadcast_word(x1, shape)
  x1 = lax_elementwise.add(x1, _broadcast_word(k1, shape))

  def step(carry, _):  # (scan's lowering calls the body as @closed_call, as JAX's)
    return _rolled_rounds_step(*carry), None
  carry, _ = lax_loops.scan(step, (np.int32(0), x0, x1, k1, ks2, k0, rot0, rot1), length=5)
  return [carry[1], carry[2]]


threefry2x32_p = core.Primitive("threefry2x32")
threefry2x32_p.multiple_results = True


def _threefry2x32_shape(*shapes):
  """The common shape of threefry2x32's operands: scalars broadcast, and operands of equal
  rank broadcast their size-1 dimensions (what vmapping keys over shared counts gives)."""
  shapes = [s for s in shapes if s]
  if not shapes:
    return ()
  if len({len(s) for s in shapes}) == 1:
    sizes = [{d for d in dims if d != 1} for dims in zip(*shapes)]
    if all(len(n) <= 1 for n in sizes):
      return tuple(n.pop() if n else 1 for n in sizes)
  raise TypeError("threefry2x32 got incompatible shapes for broadcasting: "
                  f"{', '.join(str(s) for s in shapes)}.")


def _threefry2x32_abstract_eval(*avals):
  if any(a.dtype != UINT32 for a in avals):
    raise TypeError("Arguments to threefry2x32 must have uint32 type, got "
                    f"{[a.str_short(False) for a in avals]}")
  return [ShapedArray(_threefry2x32_shape(*(a.shape for a in avals)), UINT32)] * 2


threefry2x32_p.def_abstract_eval(_threefry2x32_abstract_eval)
threefry2x32_p.def_impl(lambda k0, k1, x0, x1: list(_threefry2x32_numpy(k0, k1, x0, x1)))
mlir.register(threefry2x32_p,
              mlir.outlined(mlir.lower_fun(_threefry2x32_rolled_lax, multiple_results=True)))
batching.defbroadcasting(threefry2x32_p)
ad.defjvp_zero(threefry2x32_p)


def threefry2x32(k0, k1, x0, x1):
  """Applies the Threefry-2x32 hash (20 rounds) to the counter pairs ``(x0, x1)`` under the
  key ``(k0, k1)``; all uint32, equal shapes or scalars. Returns the two output words."""
  return threefry2x32_p.bind(k0, k1, x0, x1)


def _words_lax(keys):
  """The two words of key data u32[*B, 2] as two u32[*B] arrays."""
  shape = core.get_aval(keys).shape
  batch = shape[:-1]
  take = lambda i: lax_structural.reshape(
      lax_structural.slice(keys, (0,) * len(batch) + (i,), batch + (i + 1,)), batch)
  return take(0), take(1)


def _hash_lax(k0, k1, x0, x1):
  """threefry2x32 of keys u32[*B] with counts u32[*S] (shared by all keys): u32[*B, *S]."""
  batch = core.get_aval(k0).shape
  count_shape = core.get_aval(x0).shape
  if not batch or not count_shape:  # threefry2x32 broadcasts scalars itself
    return threefry2x32_p.bind(k0, k1, x0, x1)
  # the one-key hash vmapped, as JAX's: counts u32[1.., *S] and key words u32[*B, 1..],
  # broadcast against each other inside threefry2x32. Each vmap level gives the counts one
  # leading unit dimension; the innermost level's come before the keys' expansion.
  def lead_unit(x):
    x_shape = core.get_aval(x).shape
    return lax_structural.broadcast_in_dim(x, (1, *x_shape), tuple(range(1, len(x_shape) + 1)))
  x0, x1 = lead_unit(x0), lead_unit(x1)
  n = len(batch)
  k0, k1 = (lax_structural.broadcast_in_dim(k, (*batch, *(1,) * len(count_shape)),
                                            tuple(range(n))) for k in (k0, k1))
  for _ in range(n - 1):
    x0, x1 = lead_unit(x0), lead_unit(x1)
  return threefry2x32_p.bind(k0, k1, x0, x1)


def _hash_numpy(k0, k1, x0, x1):
  extra = (1,) * np.ndim(x0)
  return _threefry2x32_numpy(np.reshape(k0, np.shape(k0) + extra),
                             np.reshape(k1, np.shape(k1) + extra), x0, x1)


def _threefry_2x32_lax(keys, size):
  """JAX's ``threefry_2x32`` layout hashing the counts 0..size-1 with each key: the counts
  (padded to even length) are split in halves that form the pairs. u32[*B, size]."""
  k0, k1 = _words_lax(keys)
  half = (size + 1) // 2
  x0 = lax_structural.iota(UINT32, half)
  x1 = lax_elementwise.add(lax_structural.iota(UINT32, half), np.uint32(half))
  if size % 2:  # the padding count is 0
    x1 = lax_elementwise.mul(x1, lax_convert.convert_element_type(
        lax_elementwise.lt(lax_structural.iota(UINT32, half), np.uint32(half - 1)), UINT32))
  y0, y1 = _hash_lax(k0, k1, x0, x1)
  out = lax_structural.concatenate([y0, y1], len(core.get_aval(y0).shape) - 1)
  if size % 2:
    batch = core.get_aval(keys).shape[:-1]
    out = lax_structural.slice(out, (0,) * (len(batch) + 1), batch + (size,))
  return out


def _threefry_2x32_numpy(keys, size):
  half = (size + 1) // 2
  x0 = np.arange(half, dtype=UINT32)
  x1 = np.arange(half, 2 * half, dtype=UINT32)
  if size % 2:
    x1[-1] = 0
  y0, y1 = _hash_numpy(keys[..., 0], keys[..., 1], x0, x1)
  return np.concatenate([y0, y1], axis=-1)[..., :size]


# ---------------------------------------------------------------------------
# Key derivation on raw key data u32[*B, 2] (B: leading key dimensions, as vmap produces);
# a NumPy and a lax version of each.


def _iota_2x32(shape):
  size = math.prod(shape)
  if size > 2 ** 32:
    raise NotImplementedError("random bits arrays of more than 2**32 elements")
  return np.zeros(shape, UINT32), np.arange(size, dtype=UINT32).reshape(shape)


def _iota_2x32_lax(shape):
  size = math.prod(shape)
  if size > 2 ** 32:
    raise NotImplementedError("random bits arrays of more than 2**32 elements")
  if not shape:
    zero = lax_structural.full((), np.uint32(0), UINT32)
    return zero, zero
  # JAX's form: the row-major count of each element in uint64, split into its two words
  # (64-bit counts whatever jax_enable_x64 says, as JAX's lowering builds them)
  with enable_x64(True):
    return _iota_2x32_u64_lax(shape)


def _iota_2x32_u64_lax(shape):
  u64 = np.dtype(np.uint64)
  iotas = [lax_structural.broadcasted_iota(u64, shape, d) for d in range(len(shape))]
  strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
  terms = (lax_elementwise.mul(lax_structural.broadcast_in_dim(np.uint64(s), shape, ()), k)
           for k, s in zip(iotas, strides))
  counts = next(terms)
  for term in terms:
    counts = lax_elementwise.add(counts, term)
  shifted = lax_elementwise.shift_right_logical(
      counts, lax_structural.broadcast_in_dim(np.uint64(32), shape, ()))
  lo = lax_convert.convert_element_type(counts, UINT32)
  hi = lax_convert.convert_element_type(shifted, UINT32)
  return hi, lo


def _split_numpy(keys, shape, partitionable):
  batch = keys.shape[:-1]
  if partitionable:
    hi, lo = _iota_2x32(shape)
    b0, b1 = _hash_numpy(keys[..., 0], keys[..., 1], hi, lo)
    return np.stack([b0, b1], axis=-1)
  num = math.prod(shape)
  return _threefry_2x32_numpy(keys, num * 2).reshape((*batch, *shape, 2))


def _split_lax(keys, shape, partitionable):
  if not core.get_aval(keys).shape[:-1] or partitionable:
    # JAX's jitted helper, as it prints (for key batches: the helper vmapped)
    split = _threefry_split_jit if partitionable else _threefry_split_original_jit
    return split(keys, tuple(shape))
  return _split_keys_lax(keys, shape, partitionable)


def _split_keys_lax(keys, shape, partitionable):
  batch = core.get_aval(keys).shape[:-1]
  out_shape = (*batch, *shape)
  if partitionable:
    k0, k1 = _words_lax(keys)
    hi, lo = _iota_2x32_lax(shape)
    b0, b1 = _hash_lax(k0, k1, hi, lo)
    expand = lambda v: lax_structural.broadcast_in_dim(v, (*out_shape, 1),
                                                       tuple(range(len(out_shape))))
    return lax_structural.concatenate([expand(b0), expand(b1)], len(out_shape))
  num = math.prod(shape)
  return lax_structural.reshape(_threefry_2x32_lax(keys, num * 2), (*out_shape, 2))


def _named_jit(fn, name, static_argnums=()):
  """``fn`` as a ``jit`` named as JAX names its helper (a private function in StableHLO)."""
  fn.__name__ = fn.__qualname__ = name
  jitted = api.jit(fn, static_argnums=static_argnums)
  jitted._report_retraces = False
  return jitted


_threefry_split_jit = _named_jit(
    lambda keys, shape: _split_keys_lax(keys, shape, True), "_threefry_split", (1,))
_threefry_split_original_jit = _named_jit(
    lambda keys, shape: _split_keys_lax(keys, shape, False), "_threefry_split", (1,))


def _fold_in_numpy(keys, msgs):
  msgs = np.broadcast_to(np.asarray(msgs, UINT32), keys.shape[:-1])
  y0, y1 = _threefry2x32_numpy(keys[..., 0], keys[..., 1], np.zeros_like(msgs), msgs)
  return np.stack([y0, y1], axis=-1)


def _fold_in_lax(keys, msgs):
  batch = core.get_aval(keys).shape[:-1]
  if not core.get_aval(msgs).shape:  # one message: JAX's jitted helper (vmapped for a batch)
    return _threefry_fold_in_jit(keys, msgs)
  k0, k1 = _words_lax(keys)
  if core.get_aval(msgs).shape != batch:
    msgs = lax_structural.broadcast_in_dim(msgs, batch, ())
  zeros = lax_structural.full(batch, np.uint32(0), UINT32)
  y0, y1 = threefry2x32_p.bind(k0, k1, zeros, msgs)
  expand = lambda v: lax_structural.reshape(v, (*batch, 1))
  return lax_structural.concatenate([expand(y0), expand(y1)], len(batch))


def _threefry_fold_in(key, msg):
  """JAX's form: the message seeds a key pair (high word, low word: the high word of a
  uint32 is 0) hashed with the key in the original two-word layout."""
  expand = lambda v: lax_structural.broadcast_in_dim(v, (1,), ())
  hi = expand(lax_elementwise.shift_right_logical(msg, np.uint32(32)))
  lo = expand(lax_elementwise.bitwise_and(msg, np.uint32(0xFFFFFFFF)))
  seed = lax_structural.concatenate([hi, lo], 0)
  k0, k1 = _words_lax(key)
  s0, s1 = lax_structural.slice(seed, (0,), (1,)), lax_structural.slice(seed, (1,), (2,))
  batch = core.get_aval(k0).shape
  if batch:  # a key batch (the one-key form vmapped): seed u32[1.., 1] against keys u32[*B, 1]
    n = len(batch)
    s0, s1 = (lax_structural.broadcast_in_dim(v, (1,) * (n + 1), (n,)) for v in (s0, s1))
    k0, k1 = (lax_structural.broadcast_in_dim(k, (*batch, 1), tuple(range(n))) for k in (k0, k1))
  y0, y1 = threefry2x32_p.bind(k0, k1, s0, s1)
  return lax_structural.concatenate([y0, y1], len(batch))


_threefry_fold_in_jit = _named_jit(_threefry_fold_in, "_threefry_fold_in")


def _bits_numpy(keys, bit_width, shape, partitionable):
  batch = keys.shape[:-1]
  size = math.prod(shape)
  dtype = UINT_DTYPES[bit_width]
  if partitionable:
    hi, lo = _iota_2x32(shape)
    b0, b1 = _hash_numpy(keys[..., 0], keys[..., 1], hi, lo)
    if bit_width == 64:
      return (b0.astype(np.uint64) << np.uint64(32)) | b1.astype(np.uint64)
    np.bitwise_xor(b0, b1, out=b0)
    return b0 if bit_width == 32 else b0.astype(dtype)
  max_count = -(-bit_width * size // 32)
  if max_count >= np.iinfo(np.uint32).max:
    raise NotImplementedError("random bits arrays of more than 2**32 words")
  bits = _threefry_2x32_numpy(keys, max_count)
  if bit_width == 64:
    half = max_count // 2
    bits = (bits[..., :half].astype(np.uint64) << np.uint64(32)) | bits[..., half:].astype(np.uint64)
  elif bit_width in (8, 16):
    bits = np.ascontiguousarray(bits.astype("<u4")).view(dtype)[..., :size]
  return bits.reshape((*batch, *shape))


def _bits_lax(keys, bit_width, shape, partitionable):
  dtype = UINT_DTYPES[bit_width]
  batch = core.get_aval(keys).shape[:-1]
  size = math.prod(shape)
  if partitionable:
    k0, k1 = _words_lax(keys)
    hi, lo = _iota_2x32_lax(shape)
    b0, b1 = _hash_lax(k0, k1, hi, lo)
    if bit_width == 64:
      hi64 = lax_convert.convert_element_type(b0, dtype)
      lo64 = lax_convert.convert_element_type(b1, dtype)
      return lax_elementwise.bitwise_or(lax_elementwise.shift_left(hi64, np.uint64(32)), lo64)
    bits = lax_elementwise.bitwise_xor(b0, b1)
    return bits if bit_width == 32 else lax_convert.convert_element_type(bits, dtype)
  max_count = -(-bit_width * size // 32)
  if max_count >= np.iinfo(np.uint32).max:
    raise NotImplementedError("random bits arrays of more than 2**32 words")
  bits = _threefry_2x32_lax(keys, max_count)
  nb = len(batch)
  if bit_width == 64:
    half = max_count // 2
    part = lambda lo, hi: lax_convert.convert_element_type(
        lax_structural.slice(bits, (0,) * nb + (lo,), batch + (hi,)), dtype)
    bits = lax_elementwise.bitwise_or(
        lax_elementwise.shift_left(part(0, half), np.uint64(32)), part(half, 2 * half))
  elif bit_width in (8, 16):
    per_word = 32 // bit_width
    full_shape = (*batch, max_count, per_word)
    shifts = lax_elementwise.mul(np.uint32(bit_width),
                                 lax_structural.broadcasted_iota(UINT32, full_shape, nb + 1))
    words = lax_structural.broadcast_in_dim(bits, full_shape, tuple(range(nb + 1)))
    pieces = lax_elementwise.bitwise_and(lax_elementwise.shift_right_logical(words, shifts),
                                         np.uint32(np.iinfo(dtype).max))
    pieces = lax_structural.reshape(pieces, (*batch, max_count * per_word))
    bits = lax_convert.convert_element_type(
        lax_structural.slice(pieces, (0,) * (nb + 1), batch + (size,)), dtype)
  return lax_structural.reshape(bits, (*batch, *shape))


def _seed_numpy(seeds):
  seeds = np.asarray(seeds)
  if seeds.dtype.itemsize == 8:
    value = seeds.astype(np.uint64)
    hi, lo = value >> np.uint64(32), value & np.uint64(0xFFFFFFFF)
  else:
    hi, lo = np.zeros(seeds.shape, UINT32), seeds
  return np.stack([hi.astype(UINT32), lo.astype(UINT32)], axis=-1)


def _seed_lax(seeds):
  aval = core.get_aval(seeds)
  if not aval.shape and aval.dtype.itemsize in (4, 8):
    # JAX's form: the high word is the seed shifted right by 32 (0 for 32-bit seeds, as XLA
    # shifts by the bit width or more give 0), the low word the seed masked to 32 bits
    expand = lambda v: lax_structural.broadcast_in_dim(
        lax_convert.convert_element_type(v, UINT32), (1,), ())
    hi = expand(lax_elementwise.shift_right_logical(seeds, np.array(32, aval.dtype)))
    mask = np.array(0xFFFFFFFF, np.uint64).astype(aval.dtype)
    lo = expand(lax_elementwise.bitwise_and(seeds, mask))
    return lax_structural.concatenate([hi, lo], 0)
  if aval.dtype.itemsize == 8:
    unsigned = lax_convert.bitcast_convert_type(seeds, np.uint64) \
        if dtypes.issubdtype(aval.dtype, np.signedinteger) else seeds
    hi = lax_convert.convert_element_type(
        lax_elementwise.shift_right_logical(unsigned, np.uint64(32)), UINT32)
    lo = lax_convert.convert_element_type(
        lax_elementwise.bitwise_and(unsigned, np.uint64(0xFFFFFFFF)), UINT32)
  else:
    hi = lax_structural.full(aval.shape, np.uint32(0), UINT32)
    lo = lax_convert.convert_element_type(seeds, UINT32)
  expand = lambda v: lax_structural.reshape(v, (*aval.shape, 1))
  return lax_structural.concatenate([expand(hi), expand(lo)], len(aval.shape))


def _batch_by_moving_to_front(primitive):
  """Batching rule for a primitive over key data u32[*B, 2] whose leading dimensions are key
  dimensions: the vmapped axis moves to the front (it is then one more key dimension)."""
  def rule(values, dims, **params):
    (keys,), (d,) = values, dims
    return primitive.bind(batching.moveaxis(keys, d, 0), **params), 0
  batching.primitive_batchers[primitive] = rule


def _lower_by_flag(impl_lax, multiple_results=False):
  """A lowering rule that picks the partitionable or original counter layout by the flag."""
  rules = {flag: mlir.lower_fun(_with_flag(impl_lax, flag), multiple_results)
           for flag in (True, False)}

  def rule(ctx, *args, **params):
    return rules[threefry_partitionable()](ctx, *args, **params)
  return rule


def _with_flag(fn, flag):
  def wrapped(*args, **params):
    return fn(*args, partitionable=flag, **params)
  wrapped.__name__ = f"{fn.__name__}_{'partitionable' if flag else 'original'}"
  return wrapped


def _check_key_aval(aval: ShapedArray, name: str) -> None:
  if not is_key_aval(aval):
    raise TypeError(f"{name} accepts PRNG key arrays, got {aval.str_short(False)}")


def on_physical(rule, multiple_results=False):
  """A lowering rule for a primitive on key arrays: ``rule`` runs on the keys' physical data
  (``uint32[..., 2]``); its key-typed results are typed back as keys."""
  def physical_rule(ctx, *operands, **params):
    inner = ctx.replace(avals_in=[core.physical_aval(a) for a in ctx.avals_in],
                        avals_out=[core.physical_aval(a) for a in ctx.avals_out])
    outs = rule(inner, *mlir.physical_values(operands), **params)
    outs = list(outs) if multiple_results else [outs]
    outs = [mlir.Value(v.name, a, v.splat) if core.is_extended(a) else v
            for v, a in zip(outs, ctx.avals_out)]
    return outs if multiple_results else outs[0]
  physical_rule.__name__ = f"physical_{getattr(rule, '__name__', 'rule')}"
  return physical_rule


def _register_key_primitive(primitive, lowering_rule):
  mlir.register(primitive, on_physical(lowering_rule, primitive.multiple_results))
  mlir.extended_dtype_rules.add(primitive)


# random_seed --------------------------------------------------------------

random_seed_p = core.Primitive("random_seed")


def _random_seed_abstract_eval(seed, *, impl):
  if not dtypes.issubdtype(seed.dtype, np.integer):
    raise TypeError(f"PRNG key seed must be an integer; got dtype {seed.dtype.name}")
  return key_aval(seed.shape, impl)


random_seed_p.def_abstract_eval(_random_seed_abstract_eval)
_register_key_primitive(random_seed_p, mlir.lower_fun(lambda seeds, impl: _seed_lax(seeds)))
ir.pp_param_rules[random_seed_p] = lambda params: {"impl": params["impl"].tag}
batching.defvectorized(random_seed_p)
ad.defjvp_zero(random_seed_p)


# random_wrap / random_unwrap: key data <-> key arrays (no computation) ----------

random_wrap_p = core.Primitive("random_wrap")


def _random_wrap_abstract_eval(data, *, impl):
  if data.dtype != UINT32:
    raise _invalid_key_data(f"expected key_data.dtype = uint32; got dtype={data.dtype.name}")
  key_shape = tuple(impl.key_shape)
  if data.shape[len(data.shape) - len(key_shape):] != key_shape or not data.shape:
    raise _invalid_key_data(f"expected key_data.shape to end with {key_shape}; got "
                            f"shape={data.shape}")
  return key_aval(data.shape[:-len(key_shape)], impl)


random_wrap_p.def_abstract_eval(_random_wrap_abstract_eval)
_register_key_primitive(random_wrap_p, lambda ctx, data, *, impl: data)
ir.pp_param_rules[random_wrap_p] = lambda params: {"impl": params["impl"].tag}


def _wrap_batcher(values, dims, *, impl):
  (data,), (d,) = values, dims
  return random_wrap_p.bind(batching.moveaxis(data, d, 0), impl=impl), 0


batching.primitive_batchers[random_wrap_p] = _wrap_batcher
ad.defjvp_zero(random_wrap_p)

random_unwrap_p = core.Primitive("random_unwrap")


def _random_unwrap_abstract_eval(keys):
  _check_key_aval(keys, "random_unwrap")
  return core.physical_aval(keys)


random_unwrap_p.def_abstract_eval(_random_unwrap_abstract_eval)
_register_key_primitive(random_unwrap_p, lambda ctx, keys: keys)
batching.defvectorized(random_unwrap_p)
ad.defjvp_zero(random_unwrap_p)


# random_clone: a copy of keys (identity; takes raw key data as it is too) ---------

random_clone_p = core.Primitive("random_clone")
random_clone_p.def_abstract_eval(lambda keys: keys)
_register_key_primitive(random_clone_p, lambda ctx, keys: keys)
batching.defvectorized(random_clone_p)
ad.defjvp_zero(random_clone_p)


# random_split -------------------------------------------------------------

random_split_p = core.Primitive("random_split")


def _random_split_abstract_eval(keys, *, shape):
  _check_key_aval(keys, "random_split")
  return keys.update(shape=(*keys.shape, *shape), weak_type=False)


random_split_p.def_abstract_eval(_random_split_abstract_eval)
_register_key_primitive(random_split_p, _lower_by_flag(_split_lax))
_batch_by_moving_to_front(random_split_p)
ad.defjvp_zero(random_split_p)


# random_fold_in -----------------------------------------------------------

random_fold_in_p = core.Primitive("random_fold_in")


def _random_fold_in_abstract_eval(keys, msgs):
  _check_key_aval(keys, "random_fold_in")
  if msgs.dtype != UINT32:
    raise TypeError(f"random_fold_in expects uint32 data, got {msgs.dtype.name}")
  if msgs.shape and msgs.shape != keys.shape:
    raise ValueError(f"fold_in data of shape {msgs.shape} does not match keys of shape "
                     f"{keys.shape}")
  return keys.strip_weak_type()


random_fold_in_p.def_abstract_eval(_random_fold_in_abstract_eval)
_register_key_primitive(random_fold_in_p, mlir.lower_fun(_fold_in_lax))


def _fold_in_batcher(values, dims):
  keys, msgs = values
  kd, md = dims
  size = core.get_aval(keys).shape[kd] if kd is not None else core.get_aval(msgs).shape[md]
  keys = batching.bdim_at_front(keys, kd, size)
  key_batch = core.get_aval(keys).shape
  if md is None and not core.get_aval(msgs).shape:
    return random_fold_in_p.bind(keys, msgs), 0  # one message for every key, as JAX's
  if md is None:
    msgs = lax_structural.broadcast_in_dim(msgs, key_batch, tuple(
        range(len(key_batch) - core.get_aval(msgs).ndim, len(key_batch))))
  else:
    msgs = batching.moveaxis(msgs, md, 0)
    aval = core.get_aval(msgs)
    if aval.shape != key_batch:
      msgs = lax_structural.broadcast_in_dim(msgs, key_batch, (0,) + tuple(
          range(len(key_batch) - aval.ndim + 1, len(key_batch))))
  return random_fold_in_p.bind(keys, msgs), 0


batching.primitive_batchers[random_fold_in_p] = _fold_in_batcher
ad.defjvp_zero(random_fold_in_p)


# random_bits --------------------------------------------------------------

random_bits_p = core.Primitive("random_bits")


def _random_bits_abstract_eval(keys, *, bit_width, shape):
  _check_key_aval(keys, "random_bits")
  if bit_width not in UINT_DTYPES:
    raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
  dtype = dtypes.canonicalize_dtype(UINT_DTYPES[bit_width])
  return ShapedArray((*keys.shape, *shape), dtype)


random_bits_p.def_abstract_eval(_random_bits_abstract_eval)
_register_key_primitive(random_bits_p, _lower_by_flag(_bits_lax))
_batch_by_moving_to_front(random_bits_p)
ad.defjvp_zero(random_bits_p)


# Eager kernels on the keys' data (NumPy on uint32, the same bits as the lowerings).

def _host(x):
  data = getattr(x, "_base_array", x)
  return data._host_value() if hasattr(data, "_host_value") else np.asarray(data)


def _eager_on_keys(primitive, kernel):
  def rule(*args, **params):
    out = kernel(*[_host(x) for x in args], **params)
    out_aval = eval_interpreter.abstract_eval(
        primitive, [core.get_aval(x).strip_weak_type() for x in args], params)
    data = Array(np.asarray(out, core.physical_aval(out_aval).dtype), False,
                 core.physical_aval(out_aval))
    return out_aval.dtype.wrap_physical(data) if core.is_extended(out_aval) else data
  # operands are key arrays (not NumPy values): the trace hands them over as they are
  primitive.def_impl(rule)
  primitive.impl_takes_arrays = True
  eval_interpreter.extended_eval_rules[primitive] = rule


_eager_on_keys(random_seed_p, lambda seeds, *, impl: _seed_numpy(seeds))
_eager_on_keys(random_wrap_p, lambda data, *, impl: data)
_eager_on_keys(random_unwrap_p, lambda data: data)
_eager_on_keys(random_clone_p, lambda data: data)
_eager_on_keys(random_split_p,
               lambda keys, *, shape: _split_numpy(keys, shape, threefry_partitionable()))
_eager_on_keys(random_fold_in_p, _fold_in_numpy)
_eager_on_keys(random_bits_p, lambda keys, *, bit_width, shape: _bits_numpy(
    keys, bit_width, shape, threefry_partitionable()))


__all__ = ["threefry2x32", "threefry2x32_p", "random_seed_p", "random_split_p",
           "random_fold_in_p", "random_bits_p", "random_wrap_p", "random_unwrap_p",
           "random_clone_p",
           "threefry_prng_impl", "check_key_data", "KeyTy", "key_aval"]
