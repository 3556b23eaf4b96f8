"""Host callbacks: calling Python from traced and compiled code.

``pure_callback`` (a side-effect-free function of its arguments), ``io_callback`` (a function
with side effects, optionally ordered) and the primitive behind ``jax.debug.callback`` /
``jax.debug.print``. Eagerly a callback is called directly; under ``jit`` it becomes a custom
call into Python (``lowering.emit_host_callback``). What the callback returns is checked
against the declared shapes and dtypes before XLA sees it.

Effects: ``io_callback`` and the debug callbacks carry an effect (``ir.Effect``), so
dead-code elimination keeps them; the ordered ones are chained with tokens in the compiled
program and the program is waited for, so they run in program order also across calls.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.lax import loops
from axle._src.lax import structural

# ---------------------------------------------------------------------------
# Effects


class _NamedEffect(ir.Effect):
  def __init__(self, name: str, ordered: bool):
    self.name = name
    self.ordered = ordered

  def __repr__(self):
    return self.name


debug_effect = _NamedEffect("Debug", ordered=False)
ordered_debug_effect = _NamedEffect("OrderedDebug", ordered=True)
io_effect = _NamedEffect("IO", ordered=False)
ordered_io_effect = _NamedEffect("OrderedIO", ordered=True)


# ---------------------------------------------------------------------------
# The Python side of a callback


class _FlatCallback:
  """Calls the user's function on the pytree its flat arguments stand for."""
  __slots__ = ("callback_func", "in_tree", "static_args")

  def __init__(self, callback_func: Callable, in_tree, static_args=()):
    self.callback_func = callback_func
    self.in_tree = in_tree
    self.static_args = tuple(static_args)

  def __call__(self, *flat_args):
    args, kwargs = merge_callback_args(self.in_tree, flat_args, self.static_args)
    return self.callback_func(*args, **kwargs)

  def __repr__(self):
    return f"_FlatCallback(callback_func={self.callback_func!r}, in_tree={self.in_tree!r})"


def split_callback_args(args, kwargs):
  """Flattens ``(args, kwargs)``: the tree, the array leaves (traced) and the other leaves
  (strings, None, ...) as ``((position, value), ...)``, passed to the callback untouched."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  dynamic, static = [], []
  for i, leaf in enumerate(leaves):
    if isinstance(leaf, core.Tracer) or core.valid_jaxtype(leaf):
      dynamic.append(leaf)
    else:
      static.append((i, leaf))
  return in_tree, dynamic, tuple(static)


def merge_callback_args(in_tree, dynamic: Sequence, static: Sequence):
  static_at = dict(static)
  values = iter(dynamic)
  leaves = [static_at[i] if i in static_at else next(values)
            for i in range(len(static) + len(dynamic))]
  return tree_util.tree_unflatten(in_tree, leaves)


def _host_arrays(values) -> list:
  """The callback's arguments as axle Arrays (copied: XLA's buffers live only during the call)."""
  out = []
  for value in values:
    host = np.array(value, copy=True)
    out.append(Array(host))
  return out


def eager_arrays(values) -> list | None:
  """Outside any transformation: the operands as Arrays keeping their weak types (a Python
  ``1`` is ``Array(1, dtype=int32, weak_type=True)``), for calling a debug callback directly as
  JAX does; None under a transformation (the primitive must be bound)."""
  if core.current_trace() is not core.eval_trace:
    return None
  out = []
  for value in values:
    if isinstance(value, Array):
      out.append(value)
    else:
      aval = core.get_aval(value)
      out.append(Array(np.asarray(value, aval.dtype), aval=aval))
  return out


def check_results(leaves: Sequence, result_avals: Sequence[ShapedArray],
                  what: str = "callback") -> tuple:
  """The callback's flat results as NumPy arrays of exactly ``result_avals``; a RuntimeError
  naming the declared and the returned shape/dtype otherwise."""
  if len(leaves) != len(result_avals):
    raise RuntimeError(f"Mismatched number of outputs from {what}. Expected: "
                       f"{len(result_avals)}, Actual: {len(leaves)}")
  out = []
  for i, (leaf, aval) in enumerate(zip(leaves, result_avals)):
    value = np.asarray(leaf)
    canonical = dtypes.canonicalize_dtype(value.dtype)
    if canonical is not value.dtype and canonical != value.dtype:
      value = value.astype(canonical)
    if value.shape != aval.shape:
      raise RuntimeError(f"Incorrect output shape for return value #{i} of the {what}: "
                         f"Expected: {aval.shape}, Actual: {value.shape}")
    if value.dtype != aval.dtype:
      raise RuntimeError(f"Incorrect output dtype for return value #{i} of the {what}: "
                         f"Expected: {aval.dtype}, Actual: {value.dtype}")
    out.append(np.asarray(value, order="C"))
  return tuple(out)


def _result_avals_of(result_shape_dtypes):
  leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
  avals = []
  for leaf in leaves:
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
      shape, dtype = tuple(leaf.shape), np.dtype(leaf.dtype)
    elif core.valid_jaxtype(leaf):
      aval = core.get_aval(leaf)
      shape, dtype = aval.shape, aval.dtype
    else:
      raise TypeError("result_shape_dtypes must be a pytree of objects with .shape and .dtype "
                      f"(e.g. jax.ShapeDtypeStruct), got {leaf!r}")
    avals.append(ShapedArray(shape, dtypes.canonicalize_dtype(dtype)))
  return tuple(avals), tree


# ---------------------------------------------------------------------------
# pure_callback

pure_callback_p = core.Primitive("pure_callback")
pure_callback_p.multiple_results = True

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized")


@pure_callback_p.def_abstract_eval
def _pure_callback_abstract_eval(*avals, callback, result_avals, sharding, vmap_method):
  return list(result_avals)


def _pure_callback_host(callback, result_avals):
  def run(*values):
    return check_results(callback(*_host_arrays(values)), result_avals,
                         what="pure_callback")
  return run


@pure_callback_p.def_impl
def _pure_callback_impl(*values, callback, result_avals, sharding, vmap_method):
  return list(_pure_callback_host(callback, result_avals)(*values))


def _pure_callback_lowering(ctx, *operands, callback, result_avals, sharding, vmap_method):
  return lowering.emit_host_callback(ctx, _pure_callback_host(callback, result_avals), operands,
                                     result_avals, has_side_effect=False)


def _pure_callback_jvp(primals, tangents, **params):
  raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                   "callbacks while taking gradients.")


def _pure_callback_transpose(*args, **params):
  raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` to use "
                   "callbacks while taking gradients.")


def _batch_size(values, dims) -> int:
  for value, dim in zip(values, dims):
    if dim is not None:
      return core.get_aval(value).shape[dim]
  raise AssertionError("no batched operand")


def _sequential(bind_one, values, dims, size: int, unrolled: bool):
  """Applies ``bind_one(*unbatched values)`` to each batch element in turn; stacked outputs."""
  batched_positions = [i for i, d in enumerate(dims) if d is not None]
  moved = [batching.moveaxis(values[i], dims[i], 0) for i in batched_positions]

  def one(sliced):
    args = list(values)
    for i, x in zip(batched_positions, sliced):
      args[i] = x
    return bind_one(*args)

  if unrolled:
    per_element = [one([structural.index_in_dim(x, j, 0, keepdims=False) for x in moved])
                   for j in range(size)]
    if not per_element or not per_element[0]:
      return []
    return [structural.concatenate([structural.expand_dims(outs[k], (0,)) for outs in per_element], 0)
            for k in range(len(per_element[0]))]
  return list(loops.map(lambda sliced: list(one(sliced)), moved))


def _pure_callback_batcher(values, dims, *, callback, result_avals, sharding, vmap_method):
  size = _batch_size(values, dims)
  params = dict(callback=callback, result_avals=result_avals, sharding=sharding,
                vmap_method=vmap_method)
  if vmap_method in ("sequential", "sequential_unrolled"):
    outs = _sequential(lambda *xs: pure_callback_p.bind(*xs, **params), values, dims, size,
                       unrolled=vmap_method == "sequential_unrolled")
    return outs, [0] * len(outs)
  if vmap_method == "expand_dims":
    args = [structural.expand_dims(x, (0,)) if d is None else batching.moveaxis(x, d, 0)
            for x, d in zip(values, dims)]
  elif vmap_method == "broadcast_all":
    args = [batching.broadcast(x, size, 0) if d is None else batching.moveaxis(x, d, 0)
            for x, d in zip(values, dims)]
  elif vmap_method == "legacy_vectorized":
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(values, dims)]
  else:
    raise NotImplementedError(
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method}.")
  batched_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in result_avals)
  outs = pure_callback_p.bind(*args, **dict(params, result_avals=batched_avals))
  return outs, [0] * len(outs)


lowering.register(pure_callback_p, _pure_callback_lowering)
ad.primitive_jvps[pure_callback_p] = _pure_callback_jvp
ad.primitive_transposes[pure_callback_p] = _pure_callback_transpose
batching.primitive_batchers[pure_callback_p] = _pure_callback_batcher


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
  """Calls a pure Python function from traced code, e.g. NumPy or SciPy inside ``jit``.

  ``callback(*args, **kwargs)`` is called with ``jax.Array``s and must return a pytree of the
  structure of ``result_shape_dtypes`` whose leaves have exactly their shapes and dtypes
  (``jax.ShapeDtypeStruct``s or arrays). The callback must have no side effects: XLA may call
  it any number of times or not at all (when its results are unused).

  ``vmap_method`` says how the callback is batched under ``vmap``: ``"sequential"`` (once per
  batch element, in a loop), ``"sequential_unrolled"`` (the same, unrolled),
  ``"expand_dims"`` (once, unbatched arguments get a leading axis of size 1),
  ``"broadcast_all"`` (once, every argument broadcast to the batch size) or
  ``"legacy_vectorized"`` (once, unbatched arguments unchanged). Left None, ``vmap`` raises.

  Not differentiable: wrap it in ``jax.custom_jvp`` or ``jax.custom_vjp``.
  """
  if vmap_method not in (*VMAP_METHODS, None):
    raise ValueError(f"vmap_method must be on of the allowed methods {[*VMAP_METHODS, None]}, "
                     f"but got: {vmap_method}")
  in_tree, dynamic, static = split_callback_args(args, kwargs)
  result_avals, result_tree = _result_avals_of(result_shape_dtypes)
  flat = _FlatCallback(callback, in_tree, static)
  outs = pure_callback_p.bind(*dynamic, callback=_ResultChecking(flat, result_tree),
                              result_avals=result_avals, sharding=sharding,
                              vmap_method=vmap_method)
  return tree_util.tree_unflatten(result_tree, outs)


class _ResultChecking:
  """A flat callback whose result pytree is checked against the declared one (printed as the
  flat callback it wraps)."""
  __slots__ = ("flat", "result_tree")

  def __init__(self, flat: _FlatCallback, result_tree):
    self.flat = flat
    self.result_tree = result_tree

  def __call__(self, *values):
    results = self.flat(*values)
    leaves, tree = tree_util.tree_flatten(results)
    if tree != self.result_tree:
      raise RuntimeError(f"The callback returned a result with pytree structure {tree}, but "
                         f"result_shape_dtypes declared {self.result_tree}.")
    return leaves

  def __repr__(self):
    return repr(self.flat)


# ---------------------------------------------------------------------------
# io_callback

io_callback_p = core.Primitive("io_callback")
io_callback_p.multiple_results = True


@io_callback_p.def_abstract_eval
def _io_callback_abstract_eval(*avals, callback, ordered, result_avals, sharding):
  return list(result_avals)


@io_callback_p.def_impl
def _io_callback_impl(*values, callback, ordered, result_avals, sharding):
  return list(_io_callback_host(callback, result_avals)(*values))


def _io_callback_host(callback, result_avals):
  def run(*values):
    return check_results(callback(*_host_arrays(values)), result_avals, what="io_callback")
  return run


def _io_callback_lowering(ctx, *operands, callback, ordered, result_avals, sharding):
  return lowering.emit_host_callback(ctx, _io_callback_host(callback, result_avals), operands,
                                     result_avals, has_side_effect=True, ordered=ordered)


def _io_callback_jvp(primals, tangents, **params):
  raise ValueError("IO callbacks do not support JVP.")


def _io_callback_transpose(*args, **params):
  raise ValueError("IO callbacks do not support transpose.")


def _io_callback_batcher(values, dims, *, callback, ordered, result_avals, sharding):
  if ordered:
    raise ValueError("Cannot `vmap` ordered IO callback.")
  size = _batch_size(values, dims)
  params = dict(callback=callback, ordered=ordered, result_avals=result_avals, sharding=sharding)
  outs = _sequential(lambda *xs: io_callback_p.bind(*xs, **params), values, dims, size,
                     unrolled=False)
  return outs, [0] * len(outs)


ir.effect_rules[io_callback_p] = lambda params: frozenset(
    [ordered_io_effect if params["ordered"] else io_effect])
lowering.register(io_callback_p, _io_callback_lowering)
ad.primitive_jvps[io_callback_p] = _io_callback_jvp
ad.primitive_transposes[io_callback_p] = _io_callback_transpose
batching.primitive_batchers[io_callback_p] = _io_callback_batcher


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                sharding=None, ordered: bool = False, **kwargs: Any):
  """Calls a Python function with side effects from traced code.

  Like ``pure_callback``, the callback gets ``jax.Array``s and must return a pytree matching
  ``result_shape_dtypes``; unlike it, the call is never removed even if its results are unused.
  With ``ordered=True`` the calls run in program order (also across separate ``jit`` calls);
  an ordered io_callback cannot be vmapped. Not differentiable.
  """
  in_tree, dynamic, static = split_callback_args(args, kwargs)
  result_avals, result_tree = _result_avals_of(result_shape_dtypes)
  flat = _FlatCallback(callback, in_tree, static)
  outs = io_callback_p.bind(*dynamic, callback=_ResultChecking(flat, result_tree),
                            ordered=bool(ordered), result_avals=result_avals, sharding=sharding)
  return tree_util.tree_unflatten(result_tree, outs)


# ---------------------------------------------------------------------------
# debug callbacks (jax.debug.callback; jax.debug.print registers a sibling primitive)


def _debug_host(callback):
  def run(*values):
    callback(*_host_arrays(values))
    return ()
  return run


def _debug_jvp(primitive):
  def rule(primals, tangents, **params):
    primitive.bind(*primals, **params)  # the forward pass only, on the primal values
    return [], []
  return rule


def _debug_batcher(primitive):
  def rule(values, dims, **params):
    size = _batch_size(values, dims)
    for j in range(size):
      sliced = [x if d is None else structural.index_in_dim(x, j, d, keepdims=False)
                for x, d in zip(values, dims)]
      primitive.bind(*sliced, **params)
    return [], []
  return rule


def _debug_transpose(primitive):
  def rule(cts, *args, **params):
    return [None] * len(args)
  return rule


def register_debug_primitive(primitive: core.Primitive, host: Callable[[dict], Callable],
                             effect_of: Callable[[dict], ir.Effect]) -> None:
  """Registers the rules of a debug primitive: no outputs, ``host(params)`` is the Python
  function called on the operand arrays, ``effect_of(params)`` its effect."""
  primitive.multiple_results = True
  primitive.def_abstract_eval(lambda *avals, **params: [])

  def impl(*values, **params):
    host(params)(*values)
    return []

  def lower(ctx, *operands, **params):
    effect = effect_of(params)
    return lowering.emit_host_callback(ctx, host(params), operands, [], has_side_effect=True,
                                       ordered=effect.ordered)

  primitive.def_impl(impl)
  ir.effect_rules[primitive] = lambda params: frozenset([effect_of(params)])
  lowering.register(primitive, lower)
  ad.primitive_jvps[primitive] = _debug_jvp(primitive)
  ad.primitive_transposes[primitive] = _debug_transpose(primitive)
  batching.primitive_batchers[primitive] = _debug_batcher(primitive)


debug_callback_p = core.Primitive("debug_callback")
register_debug_primitive(debug_callback_p, lambda params: _debug_host(params["callback"]),
                         lambda params: params["effect"])


def debug_callback(callback: Callable[..., None] | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any):
  """Calls ``callback(*args, **kwargs)`` for its side effect, with the arguments' values, from
  traced code: eagerly, under ``jit`` (from the compiled program), once per batch element under
  ``vmap``, and in the forward pass only under ``grad``. ``ordered=True`` keeps ordered
  callbacks in program order. Without ``callback``, returns a decorator."""
  if callback is None:
    if args or kwargs:
      raise TypeError("jax.debug.callback: when used as a decorator, pass only ordered= and "
                      "partitioned=, not arguments.")

    def decorator(f):
      def wrapped(*a, **k):
        debug_callback(f, *a, ordered=ordered, partitioned=partitioned, **k)
      return wrapped
    return decorator
  if not callable(callback):
    raise TypeError(f"jax.debug.callback: callback must be callable, got {callback!r}")
  in_tree, dynamic, static = split_callback_args(args, kwargs)
  flat = _FlatCallback(callback, in_tree, static)
  arrays = eager_arrays(dynamic)
  if arrays is not None:
    flat(*arrays)
    return None
  debug_callback_p.bind(*dynamic, callback=flat,
                        effect=ordered_debug_effect if ordered else debug_effect,
                        partitioned=partitioned)
  return None
