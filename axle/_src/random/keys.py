"""PRNG keys: raw uint32[2] keys (``PRNGKey``), typed key arrays (``key``), and the key API
(``split``, ``fold_in``, ``clone``, ``bits``, ``key_data``, ``wrap_key_data``, ``key_impl``).

A typed key array has the extended dtype ``key<fry>``: its abstract value is
``ShapedArray(shape, KeyTy)`` (printed ``key<fry>[2]``), and it is a pytree leaf like any
array, so ``jit``, ``vmap``, ``grad`` and the control-flow primitives trace it as a key-typed
value. A concrete one is a ``PRNGKeyArray`` holding its data ``uint32[*shape, 2]``;
``key_data``/``wrap_key_data`` are the ``random_unwrap``/``random_wrap`` primitives, and raw
keys given to the key functions are wrapped inside them, as in JAX.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from axle._src import basearray
from axle._src.array import Array
from axle._src import core
from axle._src import dtypes
from axle._src import tree_util
from axle._src.config import config
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import structural as lax_structural
from axle._src.numpy import creation
from axle._src.numpy import indexing as jnp_indexing
from axle._src.numpy import reductions as jnp_reductions
from axle._src.numpy import ufuncs as jnp_ufuncs
from axle._src import custom_derivatives
from axle._src import vmap as vmap_api
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.random import prng

UINT32 = prng.UINT32


KeyTy = prng.KeyTy


def _staging() -> bool:
  """Whether a transformation is tracing (operations on keys are then staged as key ops)."""
  return core._context.trace is not core.eval_trace


class PRNGKeyArray:
  """An array of typed PRNG keys (``dtype=key<fry>``) over key data ``uint32[*shape, 2]``."""
  __slots__ = ("_impl", "_base_array", "__weakref__")
  __array_priority__ = 100

  def __init__(self, impl: prng.PRNGImpl, key_data):
    self._impl = impl
    self._base_array = key_data

  @property
  def aval(self) -> core.ShapedArray:
    """The abstract value ``key<fry>[*shape]``."""
    return core.ShapedArray(self.shape, KeyTy(self._impl))

  shape = property(lambda self: tuple(self._base_array.shape[:-1]))
  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
  dtype = property(lambda self: KeyTy(self._impl))
  weak_type = False
  itemsize = 8  # two uint32 words per threefry key

  @property
  def T(self):
    """The keys with their axes reversed."""
    ndim = self.ndim
    if _staging():
      return lax_structural.transpose(self, tuple(range(ndim - 1, -1, -1)))
    return PRNGKeyArray(self._impl, lax_structural.transpose(
        self._base_array, (*range(ndim - 1, -1, -1), ndim)))

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __iter__(self):
    if not self.shape:
      raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.shape[0]))

  def __getitem__(self, index):
    if not isinstance(index, tuple):
      index = (index,)
    if _staging() or any(isinstance(i, core.Tracer) for i in index):
      # under a transformation: the indexing ops are staged with these keys as a constant
      return jnp_indexing.getitem(self, index)
    if any(i is Ellipsis for i in index):
      index = (*index, slice(None))
    return PRNGKeyArray(self._impl, self._base_array[index])

  def reshape(self, *shape, order="C"):
    """The keys with a new shape (the key data keeps its trailing dimension)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
      shape = tuple(shape[0])
    shape = list(shape)
    if -1 in shape:
      known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
      shape[shape.index(-1)] = self.size // max(known, 1)
    if _staging():
      return lax_structural.reshape(self, tuple(shape))
    return PRNGKeyArray(self._impl, lax_structural.reshape(self._base_array, (*shape, 2)))

  def ravel(self):
    """The keys as a 1-D key array."""
    return self.reshape((self.size,))

  flatten = ravel

  def __repr__(self):
    data = self._base_array
    if isinstance(data, core.Tracer):
      return f"{type(data).__name__}<key<{self._impl.tag}>[{','.join(map(str, self.shape))}]>"
    return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{np.asarray(data)}"

  def __str__(self):
    return repr(self)

  def __array__(self, dtype=None, copy=None):
    raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                    "jax.random.key_data(arr) if you wish to extract the underlying integer "
                    "array.")

  def __hash__(self):
    raise TypeError("unhashable type: 'PRNGKeyArray'")

  def _typeof(self) -> core.ShapedArray:
    """The abstract value ``key<fry>[*shape]`` (what ``jax.typeof`` returns)."""
    return core.ShapedArray(self.shape, self.dtype)

  def __eq__(self, other):
    return _compare_keys(self, other, jnp_ufuncs.equal, jnp_reductions.all)

  def __ne__(self, other):
    return _compare_keys(self, other, jnp_ufuncs.not_equal, jnp_reductions.any)

  def __pos__(self):
    return self

  def __neg__(self):
    raise _unary_error(self, "neg", "integer, floating, complexfloating")

  def __abs__(self):
    raise _unary_error(self, "abs", "floating, complexfloating, signedinteger")

  def block_until_ready(self):
    """Waits for the key data; returns the keys."""
    if hasattr(self._base_array, "block_until_ready"):
      self._base_array.block_until_ready()
    return self


# Arithmetic on keys raises JAX's error: operands that do not promote name the jnp function
# and both dtypes; two keys name the lax primitive and the dtypes it accepts.
_NUMERIC = "integer, floating, complexfloating"
_ORDERED = "integer, floating, bool"
_BINARY_OPS = {  # dunder -> (jnp name, lax name, accepted dtypes)
    "add": ("add", "add", _NUMERIC), "sub": ("subtract", "sub", _NUMERIC),
    "mul": ("multiply", "mul", _NUMERIC), "truediv": ("true_divide", "div", _NUMERIC),
    "floordiv": ("floor_divide", "div", _NUMERIC), "mod": ("remainder", "rem", _NUMERIC),
    "pow": ("power", "pow", "floating, complexfloating"), "lt": ("less", "lt", _ORDERED),
    "le": ("less_equal", "le", _ORDERED), "gt": ("greater", "gt", _ORDERED),
    "ge": ("greater_equal", "ge", _ORDERED), "and": ("bitwise_and", "and", "integer, bool"),
    "or": ("bitwise_or", "or", "integer, bool"), "xor": ("bitwise_xor", "xor", "integer, bool"),
    "matmul": ("matmul", "dot_general", _NUMERIC),
}


def _dtype_name(x) -> str:
  if isinstance(x, PRNGKeyArray):
    return x.dtype.name
  if type(x) in core.python_scalar_types:
    return dtypes.canonicalize_dtype(dtypes.python_scalar_dtype(x)).name
  dtype = getattr(x, "dtype", None)
  return str(dtype) if dtype is not None else type(x).__name__


def _binary_error(op: str, left, right) -> TypeError:
  jnp_name, lax_name, accepted = _BINARY_OPS[op]
  if isinstance(left, PRNGKeyArray) and isinstance(right, PRNGKeyArray):
    return TypeError(f"{lax_name} does not accept dtype {left.dtype.name} at position 0. "
                     f"Accepted dtypes at position 0 are subtypes of {accepted}.")
  return TypeError(f"{jnp_name} does not accept dtypes {_dtype_name(left)}, "
                   f"{_dtype_name(right)}.")


def _unary_error(keys, name: str, accepted: str) -> TypeError:
  return TypeError(f"{name} does not accept dtype {keys.dtype.name}. Accepted dtypes are "
                   f"subtypes of {accepted}.")


def _binary_method(op: str, reflected: bool):
  def method(self, other):
    raise _binary_error(op, other, self) if reflected else _binary_error(op, self, other)
  method.__name__ = f"__{'r' if reflected else ''}{op}__"
  return method


for _op in _BINARY_OPS:
  setattr(PRNGKeyArray, f"__{_op}__", _binary_method(_op, False))
  if _op not in ("lt", "le", "gt", "ge"):
    setattr(PRNGKeyArray, f"__r{_op}__", _binary_method(_op, True))


def _compare_keys(left, right, compare, reduce):
  """``==``/``!=`` of key arrays: elementwise over keys (all key words equal)."""
  if not isinstance(right, PRNGKeyArray):
    return NotImplemented
  if right.dtype != left.dtype:
    raise TypeError(f"cannot compare key arrays of dtypes {left.dtype.name} and "
                    f"{right.dtype.name}")
  return reduce(compare(left._base_array, right._base_array), axis=-1)


basearray.Array.register(PRNGKeyArray)  # isinstance(key, jax.Array), as in JAX
eval_interpreter.extended_array_types.add(PRNGKeyArray)  # eager ops on keys: eval_on_extended

prng.key_array_type = PRNGKeyArray


_physical_rules: dict = {}


def _physical_lowering(primitive, avals_in, avals_out):
  """The lowering of ``primitive`` (a structural op: slicing, reshape, select, concatenate,
  gather, ...) applied to key arrays: the same op mapped over the trailing dimension of the
  keys' data, so it acts on whole keys (its batching rule gives the physical operation)."""
  in_axes = tuple(-1 if prng.is_key_aval(a) else None for a in avals_in)
  out_axes = [-1 if prng.is_key_aval(a) else 0 for a in avals_out]
  cache_key = (primitive, in_axes, tuple(out_axes))
  rule = _physical_rules.get(cache_key)
  if rule is not None:
    return rule
  if primitive is lax_structural.squeeze_p or primitive is lax_structural.reshape_p:
    # reshaping key dimensions reshapes the data as it lies (no transposes), as in JAX
    rule = _physical_rules[cache_key] = prng.on_physical(
        _squeeze_key_data if primitive is lax_structural.squeeze_p else _reshape_key_data)
    return rule

  def on_data(*operands, **params):
    def apply(*xs):
      out = primitive.bind(*xs, **params)
      return list(out) if primitive.multiple_results else [out]
    outs = vmap_api.vmap(apply, in_axes=in_axes, out_axes=out_axes, axis_size=2)(*operands)
    return outs if primitive.multiple_results else outs[0]
  on_data.__name__ = f"{primitive.name}_on_key_data"
  rule = _physical_rules[cache_key] = prng.on_physical(
      mlir.lower_fun(on_data, primitive.multiple_results), primitive.multiple_results)
  return rule


def _squeeze_key_data(ctx, data, **params):
  return mlir.op(ctx, "stablehlo.reshape", [data], ctx.avals_out[0])


def _reshape_key_data(ctx, data, *, dimensions, **params):
  if dimensions is not None:  # reshape's transpose first, the key data's own axis kept last
    data = mlir.transpose(ctx, data, (*dimensions, len(dimensions)))
  return mlir.op(ctx, "stablehlo.reshape", [data], ctx.avals_out[0])


mlir.physical_lowering = _physical_lowering
# calls whose jaxpr is traced lazily: lowered as they are (their bodies see the key types)
mlir.extended_dtype_rules.update({custom_derivatives.custom_jvp_call_p,
                                  custom_derivatives.custom_vjp_call_p})


def default_prng_impl() -> prng.PRNGImpl:
  name = getattr(config, "jax_default_prng_impl", "threefry2x32")
  if name not in ("threefry2x32", None):
    raise NotImplementedError(f"axle only implements the threefry2x32 PRNG, not {name!r}")
  return prng.threefry_prng_impl


def _resolve_impl(impl) -> prng.PRNGImpl:
  if impl is None or impl == "threefry2x32" or impl is prng.threefry_prng_impl:
    return prng.threefry_prng_impl
  if isinstance(impl, str):
    raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
                     '"threefry2x32"?')
  raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")


def _is_key_data_like(x) -> bool:
  return hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "ndim")


def is_key_array(x) -> bool:
  """Whether ``x`` is a typed key array (concrete or traced)."""
  return isinstance(getattr(x, "dtype", None), KeyTy)


def check_prng_key(name: str, key, *, allow_batched: bool = False):
  """``(keys, wrapped)`` for a typed key array or raw key data ``key``: the typed keys (raw
  data is wrapped with ``random_wrap``), and whether ``key`` was typed. Non-scalar keys raise
  unless allowed."""
  if is_key_array(key):
    keys, typed = key, True
  elif isinstance(key, (int, float, complex, bool, str, np.generic)) or _is_key_data_like(key):
    prng.check_key_data(key)
    if (type(key) is Array and core._context.trace is core.eval_trace
        and not key._aval.weak_type):
      # eager: the key array views the same data Array (its device buffer too), as JAX's does
      keys = PRNGKeyArray(prng.threefry_prng_impl, key)
    else:
      keys = prng.random_wrap_p.bind(key, impl=prng.threefry_prng_impl)
    typed = False
  else:
    raise TypeError(f"unexpected PRNG key type {type(key)}")
  if keys.ndim > 0 and not allow_batched:
    # JAX reports the shape of the key array as given: raw key data keeps its trailing 2.
    shape = tuple(keys.shape) if typed else tuple(key.shape)
    raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                     f"{shape} != (). Use jax.vmap for batching.")
  return keys, typed


def _validate_keys(key) -> None:
  """Checks that ``key`` is a key array or raw key data, binding nothing."""
  if is_key_array(key):
    return
  if isinstance(key, (int, float, complex, bool, str, np.generic)) or _is_key_data_like(key):
    prng.check_key_data(key)
    return
  raise TypeError(f"unexpected PRNG key type {type(key)}")


def _return_keys(keys, typed: bool):
  if typed:
    return keys
  if type(keys) is PRNGKeyArray and type(keys._base_array) is Array \
      and core._context.trace is core.eval_trace:
    return keys._base_array  # eager: the data Array the keys view
  return prng.random_unwrap_p.bind(keys)


def _seed_array(seed, name: str):
  if isinstance(seed, PRNGKeyArray):
    raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key array.")
  if np.ndim(seed) if not isinstance(seed, core.Tracer) else seed.ndim:
    raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                    f"{np.shape(seed) if not isinstance(seed, core.Tracer) else seed.shape} != (). "
                    "Use jax.vmap for batching")
  if isinstance(seed, bool):
    seed = int(seed)
  if isinstance(seed, int):
    # Python ints go through int64 (then wrap to int32 with x64 off), as JAX does, so
    # hash()-sized seeds work.
    value = np.asarray(np.int64(seed))
    return value if config.jax_enable_x64 else value.astype(np.int32)
  if isinstance(seed, float):
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
  aval = core.get_aval(seed)
  if not dtypes.issubdtype(aval.dtype, np.integer):
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
  return seed


def PRNGKey(seed, *, impl=None):
  """A raw PRNG key (``uint32[2]``) from an integer seed (legacy API; prefer ``key``).

  A 64-bit seed fills both words; a 32-bit seed the second word (the first is 0)."""
  impl = _resolve_impl(impl)
  seed = _seed_array(seed, "PRNGKey")
  return prng.random_unwrap_p.bind(prng.random_seed_p.bind(seed, impl=impl))


def key(seed, *, impl=None):
  """A typed PRNG key (``dtype=key<fry>``, shape ``()``) from an integer seed."""
  impl = _resolve_impl(impl)
  seed = _seed_array(seed, "key")
  return prng.random_seed_p.bind(seed, impl=impl)


def key_data(keys):
  """The underlying ``uint32[..., 2]`` data of a key array (raw keys are returned as is)."""
  if is_key_array(keys):
    return prng.random_unwrap_p.bind(keys)
  _validate_keys(keys)
  return keys


def wrap_key_data(key_bits_array, *, impl=None):
  """A typed key array over ``key_bits_array`` (``uint32[..., 2]``)."""
  impl = _resolve_impl(impl)
  if is_key_array(key_bits_array):
    raise TypeError("wrap_key_data requires an array of key data, got a typed key array")
  if not _is_key_data_like(key_bits_array):
    key_bits_array = creation.asarray(key_bits_array)
  prng.check_key_data(key_bits_array)
  return prng.random_wrap_p.bind(key_bits_array, impl=impl)


def key_impl(keys):
  """The PRNG implementation of ``keys`` (``threefry2x32``)."""
  _validate_keys(keys)
  return prng.threefry_prng_impl


def _split_shape(num) -> tuple[int, ...]:
  if isinstance(num, Sequence):
    return core.canonicalize_shape(num)
  return core.canonicalize_shape((operator.index(num) if not isinstance(num, core.Tracer)
                                  else num,))


_RAW_KEY_AVAL = core.ShapedArray((2,), UINT32)
# Eager splits of one raw key into at most this many keys hash on Python ints right here.
_SMALL_SPLIT = 8


def _split_raw_key_eagerly(key: Array, num: int) -> Array:
  """``split(key, num)`` of one concrete raw key: the same bits as the ``random_split`` kernel
  (threefry on Python ints), without wrapping the key and binding the primitive."""
  k0, k1 = np.asarray(key._host_value()).tolist()
  hash_pair = prng._threefry2x32_ints
  if prng.threefry_partitionable():  # counts (0, i) for key i
    rows = [hash_pair(k0, k1, 0, i) for i in range(num)]
  else:  # counts 0..2*num-1 in two halves; key i takes words 2i and 2i+1 of the output
    pairs = [hash_pair(k0, k1, i, num + i) for i in range(num)]
    words = [p[0] for p in pairs] + [p[1] for p in pairs]
    rows = [words[2 * i:2 * i + 2] for i in range(num)]
  return Array(np.array(rows, UINT32).reshape(num, 2), False,
               core.ShapedArray((num, 2), UINT32))


def split(key, num=2):
  """Splits a key into ``num`` new keys (``num`` may be a shape); keys keep their kind."""
  if (type(key) is Array and type(num) is int and 0 <= num <= _SMALL_SPLIT
      and key._aval == _RAW_KEY_AVAL and core._context.trace is core.eval_trace):
    return _split_raw_key_eagerly(key, num)
  keys, typed = check_prng_key("split", key)
  shape = _split_shape(num)
  if any(d < 0 for d in shape):
    raise ValueError(f"split: num must be non-negative, got shape {shape}")
  return _return_keys(prng.random_split_p.bind(keys, shape=shape), typed)


def fold_in(key, data):
  """A new key from ``key`` and the integer ``data`` (an array-safe hash of the pair)."""
  key_data_, typed = check_prng_key("fold_in", key)
  ndim = data.ndim if isinstance(data, core.Tracer) else np.ndim(data)
  if ndim:
    shape = data.shape if isinstance(data, core.Tracer) else np.shape(data)
    raise TypeError(f"fold_in accepts a scalar, but was given an array of"
                    f"shape {shape} != (). Use jax.vmap for batching.")
  if isinstance(data, (int, bool)) and not isinstance(data, np.generic):
    if not 0 <= int(data) <= 0xFFFFFFFF:
      raise OverflowError(f"Python integer {data} out of bounds for uint32")
    msg = np.uint32(data)
  elif isinstance(data, float):
    msg = np.asarray(data).astype(UINT32)
  else:
    msg = lax_convert.convert_element_type(data, UINT32)
  return _return_keys(prng.random_fold_in_p.bind(key_data_, msg), typed)


def clone(key):
  """A copy of ``key`` (keys are immutable, so the same key)."""
  _validate_keys(key)
  return prng.random_clone_p.bind(key)


def random_bits(keys, bit_width: int, shape) -> object:
  """``bit_width``-bit unsigned random bits of ``shape`` from typed keys."""
  return prng.random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


def bits(key, shape=(), dtype=None):
  """Uniform random bits as unsigned integers of ``dtype`` (default ``uint32``, or uint64 with
  x64) and ``shape``."""
  data, _ = check_prng_key("bits", key)
  if dtype is None:
    dtype = np.dtype(np.uint64) if config.jax_enable_x64 else UINT32
  else:
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "bits")
  if not dtypes.issubdtype(dtype, np.unsignedinteger):
    raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
  dtype = dtypes.canonicalize_dtype(dtype)
  shape = core.canonicalize_shape(shape)
  return random_bits(data, dtype.itemsize * 8, shape)


__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "split", "fold_in", "clone",
           "bits", "PRNGKeyArray", "KeyTy"]
