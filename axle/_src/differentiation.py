"""The differentiation API: jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev,
hessian, stop_gradient (the machinery is in ``interpreters/ad.py``)."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src import traceback_util
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import staging
from axle._src.vmap import vmap

# ---------------------------------------------------------------------------
# stop_gradient

stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_abstract_eval(lambda x: x)
stop_gradient_p.def_impl(lambda x: x)
lowering.register(stop_gradient_p, lambda ctx, x: x)
ad.defjvp_zero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)


def stop_gradient(x):
  """Returns ``x`` unchanged, but with zero derivative: differentiation treats it as a
  constant. Applies to every leaf of a pytree but PRNG keys and float0 tangents
  (``lax.stop_gradient``; as JAX's, it is staged for integer and boolean arrays too)."""
  def stop(leaf):
    if type(leaf) is Array and core._context.trace is core.eval_trace:
      return leaf  # eager: the identity (as JAX's impl), without reading a device value back
    dtype = core.get_aval(leaf).dtype
    if dtypes.issubdtype(dtype, dtypes.extended) or dtype == dtypes.float0:
      return leaf
    if type(leaf) in (bool, int, float, complex) and core._context.trace is core.eval_trace:
      return leaf
    return stop_gradient_p.bind(leaf)
  return tree_util.tree_map(stop, x)


# ---------------------------------------------------------------------------
# Helpers


def _check_valid_args(leaves, what: str) -> None:
  for leaf in leaves:
    if not core.valid_jaxtype(leaf):
      raise TypeError(f"Argument '{leaf}' of type {type(leaf)} is not a valid JAX type.")


def _as_array_primal(x):
  """A primal argument as the Array JAX makes of it: Python scalars and NumPy values become
  (weakly typed where JAX's are) Arrays, so rules inside see arrays, never raw floats."""
  if isinstance(x, (core.Tracer, Array)):
    return x
  aval = core.get_aval(x)
  if core.is_extended(aval):  # a key array
    return x
  return Array(np.asarray(x, aval.dtype), aval.weak_type)


def _split_jvp_outputs(trace: ad.JVPTrace, outs):
  primals, tangents = [], []
  for out in outs:
    primal, tangent = trace.to_primal_tangent(out)
    primals.append(primal)
    tangents.append(ad.Zero.from_primal_value(primal) if tangent is None else tangent)
  return primals, tangents


def _strip(trace: ad.JVPTrace, tree):
  """``tree`` with the tracers of ``trace`` replaced by their primals (for has_aux)."""
  return tree_util.tree_map(lambda x: trace.to_primal_tangent(x)[0], tree)


def _zeros_for(aval: ShapedArray):
  return ad.zeros_like_aval(ad.tangent_aval(aval))


# ---------------------------------------------------------------------------
# Forward mode


@traceback_util.api_boundary
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
  """Computes ``(fun(*primals), J @ tangents)``: the function's value and its Jacobian-vector
  product (forward-mode differentiation). ``primals`` and ``tangents`` are tuples or lists of
  the same pytree structure; with ``has_aux`` the function returns ``(out, aux)`` and jvp
  returns ``(out, tangent_out, aux)``."""
  if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
    raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                    f"{type(primals).__name__} and {type(tangents).__name__}.")
  primal_leaves, primal_tree = tree_util.tree_flatten(tuple(primals))
  tangent_leaves, tangent_tree = tree_util.tree_flatten(tuple(tangents))
  if primal_tree != tangent_tree:
    raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                    f"structure; primals have tree structure {primal_tree} whereas tangents have "
                    f"tree structure {tangent_tree}.")
  _check_valid_args(primal_leaves, "jvp")
  parent = core.current_trace()
  trace = ad.JVPTrace(parent)
  in_tracers = []
  for p, t in zip(primal_leaves, tangent_leaves):
    p_aval, t_aval = core.get_aval(p), core.get_aval(t)
    expected = ad.tangent_dtype(p_aval.dtype)
    if t_aval.dtype != expected:
      raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must be "
                      "equal, or in case of int/bool primal dtype the tangent dtype must be "
                      f"float0.Got primal dtype {p_aval.dtype.name} and so expected tangent dtype "
                      f"{expected.name if expected != ad.float0 else 'float0'}, but got tangent "
                      f"dtype {t_aval.dtype.name if t_aval.dtype != ad.float0 else 'float0'} "
                      "instead.")
    if p_aval.shape != t_aval.shape:
      raise ValueError("jvp called with different primal and tangent shapes;Got primal shape "
                       f"{p_aval.shape} and tangent shape as {t_aval.shape}")
    tangent = ad.Zero(ad.tangent_aval(p_aval)) if expected == ad.float0 else t
    in_tracers.append(trace.pack(_as_array_primal(p), tangent))
  with core.set_current_trace(trace):
    out = fun(*tree_util.tree_unflatten(primal_tree, in_tracers))
  if has_aux:
    out, aux = _check_aux_pair(out, "jvp")
  out_leaves, out_tree = tree_util.tree_flatten(out)
  primal_out, tangent_out = _split_jvp_outputs(trace, out_leaves)
  tangent_out = [ad.instantiate_zeros(t) for t in tangent_out]
  result = (tree_util.tree_unflatten(out_tree, primal_out),
            tree_util.tree_unflatten(out_tree, tangent_out))
  if has_aux:
    return (*result, _strip(trace, aux))
  return result


def _check_aux_pair(out, name: str):
  if not (isinstance(out, (tuple, list)) and len(out) == 2):
    raise ValueError(f"{name} with has_aux=True expects the function to return a pair "
                     f"(output, auxiliary data), got {type(out).__name__}"
                     + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else "") + ".")
  return out


# ---------------------------------------------------------------------------
# linearize and vjp


class _Linearized:
  """The result of linearizing a function: primal outputs and the linear jaxpr."""

  def __init__(self, fun, primal_leaves, has_aux):
    parent = core.current_trace()
    self.linear_trace = linear_trace = ad.LinearizeTrace(parent)
    trace = ad.JVPTrace(parent, linear_trace)
    self.in_avals = [core.get_aval(p) for p in primal_leaves]
    self.in_linear = []
    tracers = []
    for p, aval in zip(primal_leaves, self.in_avals):
      p = _as_array_primal(p)
      t_aval = ad.tangent_aval(aval)
      if t_aval.dtype == ad.float0:
        self.in_linear.append(False)
        tracers.append(p)
      else:
        self.in_linear.append(True)
        tracers.append(ad.LinearizeTracer(trace, p, linear_trace.new_arg(t_aval)))
    with core.set_current_trace(trace):
      out = fun(tracers)
    self.aux = None
    if has_aux:
      out, aux = out
      self.aux = _strip(trace, aux)
    out_leaves, self.out_tree = tree_util.tree_flatten(out)
    _check_valid_outputs(out_leaves)
    self.primal_out, tangent_out = _split_jvp_outputs(trace, out_leaves)
    if any(isinstance(p, core.Tracer) and p._trace is linear_trace for p in self.primal_out):
      # a primal computed together with tangents (as the generic reduce_window's JVP does)
      raise ValueError(
          "Linearization failed to produce known values for all output primals. This is "
          "typically caused by attempting to differentiate a function uses an operation that "
          "does not support reverse-mode autodiff.")
    self.out_avals = [core.get_aval(p) for p in self.primal_out]
    self.out_nonzero = [type(t) is not ad.Zero for t in tangent_out]
    self.linear_jaxpr = linear_trace.to_jaxpr([t for t in tangent_out if type(t) is not ad.Zero])
    # As JAX: the linear jaxpr without the work no output needs (a jit there then loses its
    # unused outputs and the residuals only those read).
    self.linear_jaxpr = self.linear_jaxpr.map_jaxpr(staging.dce_jaxpr)

  def jvp(self, tangent_leaves):
    """Evaluates the linear map on input tangents (one per input leaf)."""
    tangents = [t for t, lin in zip(tangent_leaves, self.in_linear) if lin]
    outs = iter(_eval_closed(self.linear_jaxpr, tangents))
    return [next(outs) if nz else _zeros_for(a) for nz, a in zip(self.out_nonzero, self.out_avals)]

  def vjp(self, cotangent_leaves):
    """Transposes the linear map: input cotangents from output cotangents."""
    cts = [ct for ct, nz in zip(cotangent_leaves, self.out_nonzero) if nz]
    jaxpr = self.linear_jaxpr.jaxpr
    args = [ad.UndefinedPrimal(v.aval) for v in jaxpr.invars]
    cts_in = iter(ad.backward_pass(jaxpr, self.linear_jaxpr.consts, args, cts))
    return [ad.instantiate_zeros(next(cts_in)) if lin else _zeros_for(a)
            for lin, a in zip(self.in_linear, self.in_avals)]


def _eval_closed(closed, args):
  return ir.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _check_valid_outputs(leaves):
  for leaf in leaves:
    if not core.valid_jaxtype(leaf):
      raise TypeError(f"The function returned a value of type {type(leaf)}, which is not a "
                      "valid JAX type")


@traceback_util.api_boundary
def linearize(fun: Callable, *primals, has_aux: bool = False):
  """Returns ``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the Jacobian-vector
  product at ``primals`` without re-running ``fun``: the function is linearized once and its
  linear part kept as a jaxpr. With ``has_aux``, returns ``(out, f_jvp, aux)``."""
  primal_leaves, in_tree = tree_util.tree_flatten(primals)
  _check_valid_args(primal_leaves, "linearize")
  linearized = _Linearized(_flat_fun(fun, in_tree, has_aux, "linearize"), primal_leaves,
                           has_aux)

  def f_jvp(*tangents):
    """The linearized function: tangents of the inputs to the tangent of the output."""
    tangent_leaves, tangent_tree = tree_util.tree_flatten(tangents)
    if tangent_tree != in_tree:
      raise ValueError(f"linearized function called on tangent values inconsistent with the "
                       f"original primal values: expected tree structure {in_tree}, got "
                       f"{tangent_tree}.")
    for t, aval in zip(tangent_leaves, linearized.in_avals):
      t_aval = core.get_aval(t)
      expected = ad.tangent_aval(aval)
      if t_aval.shape != expected.shape or (expected.dtype != ad.float0 and
                                            t_aval.dtype != expected.dtype):
        raise ValueError(f"linearized function called on tangent values inconsistent with the "
                         f"original primal values: got tangent aval {t_aval.str_short(False)} "
                         f"for primal aval {aval.str_short(False)}")
    return tree_util.tree_unflatten(linearized.out_tree, linearized.jvp(tangent_leaves))

  out = tree_util.tree_unflatten(linearized.out_tree, linearized.primal_out)
  if has_aux:
    return out, f_jvp, linearized.aux
  return out, f_jvp


def _flat_fun(fun, in_tree, has_aux, name="vjp"):
  def flat(leaves):
    out = fun(*tree_util.tree_unflatten(in_tree, leaves))
    if has_aux:
      out = _check_aux_pair(out, name)
    return out
  return flat


@traceback_util.api_boundary
def vjp(fun: Callable, *primals, has_aux: bool = False):
  """Returns ``(fun(*primals), vjp_fun)`` where ``vjp_fun(cotangent)`` gives the
  vector-Jacobian product: one cotangent per primal, as a tuple (reverse-mode
  differentiation). With ``has_aux``, returns ``(out, vjp_fun, aux)``."""
  primal_leaves, in_tree = tree_util.tree_flatten(primals)
  _check_valid_args(primal_leaves, "vjp")
  linearized = _Linearized(_flat_fun(fun, in_tree, has_aux), primal_leaves, has_aux)
  out_tree = linearized.out_tree

  def vjp_fun(cotangent):
    """The pullback: the cotangent of the output to the cotangents of the inputs (a tuple)."""
    ct_leaves, ct_tree = tree_util.tree_flatten(cotangent)
    if ct_tree != out_tree:
      raise ValueError(f"unexpected tree structure of argument to vjp function: got {ct_tree}, "
                       f"but expected to match {out_tree}")
    for ct, aval in zip(ct_leaves, linearized.out_avals):
      ct_aval = core.get_aval(ct)
      expected = ad.tangent_aval(aval)
      if ct_aval.shape != expected.shape or ct_aval.dtype != expected.dtype:
        raise ValueError(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{ct_aval.str_short(False)}, but expected {expected.str_short(False)} because the "
            "corresponding output of the differentiated function had JAX type "
            f"{aval.str_short(False)}")
    return tree_util.tree_unflatten(in_tree, linearized.vjp(ct_leaves))

  out = tree_util.tree_unflatten(out_tree, linearized.primal_out)
  vjp_fun = tree_util.Partial(vjp_fun) if hasattr(tree_util, "Partial") else vjp_fun
  if has_aux:
    return out, vjp_fun, linearized.aux
  return out, vjp_fun


# ---------------------------------------------------------------------------
# grad


def _normalize_argnums(argnums):
  if isinstance(argnums, (int, np.integer)):
    return int(argnums), True
  argnums = tuple(int(a) for a in argnums)
  return argnums, False


def _check_input_dtype(aval: ShapedArray, holomorphic: bool, allow_int: bool, name: str):
  dtype = aval.dtype
  if holomorphic:
    if not dtypes.issubdtype(dtype, np.complexfloating):
      raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, but "
                      f"got {dtype.name}.")
  if dtypes.issubdtype(dtype, np.integer) or dtypes.issubdtype(dtype, np.bool_):
    if not allow_int:
      raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                      f"sub-dtype of np.inexact), but got {dtype.name}. If you want to use "
                      "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")
  elif not dtypes.issubdtype(dtype, np.inexact):
    raise TypeError(f"{name} requires numerical-valued inputs (input dtype that is a sub-dtype "
                    f"of np.bool_ or np.number), but got {dtype.name}.")


def _check_output(aval: ShapedArray, holomorphic: bool, name: str):
  if aval.shape != ():
    raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                    f"{aval.shape}.")
  dtype = aval.dtype
  if holomorphic:
    if not dtypes.issubdtype(dtype, np.complexfloating):
      raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, but "
                      f"got {dtype.name}.")
  elif dtypes.issubdtype(dtype, np.complexfloating):
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {dtype.name}. For holomorphic differentiation, pass "
                    "holomorphic=True. For differentiation of non-holomorphic functions involving "
                    "complex outputs, use jax.vjp directly.")
  elif not dtypes.issubdtype(dtype, np.floating):
    raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
                    f"np.floating), but got {dtype.name}. For differentiation of functions with "
                    "integer outputs, use jax.vjp directly.")


def _dyn_args(fun, argnums, args, name):
  positions = (argnums,) if isinstance(argnums, int) else argnums
  for a in positions:
    if a >= len(args) or a < -len(args):
      shown = argnums if isinstance(argnums, int) else tuple(argnums)
      raise TypeError(f"differentiating with respect to argnums={shown} requires at least "
                      f"{max(positions) + 1} positional arguments to be passed by the caller, "
                      f"but got only {len(args)} positional arguments.")
  positions = tuple(a % len(args) for a in positions)

  def partial_fun(*dyn):
    full = list(args)
    for p, v in zip(positions, dyn):
      full[p] = v
    return full

  return positions, partial_fun


def _vjp_of_args(fun, full_args, kwargs, dyn, has_aux):
  """``vjp`` of ``fun`` in the differentiated arguments ``dyn`` (the others fixed by
  ``full_args``): ``(out, pullback, aux or None)``."""
  def f_dyn(*dyn_values):
    return fun(*full_args(*dyn_values), **kwargs)

  if has_aux:
    return vjp(f_dyn, *dyn, has_aux=True)
  out, pullback = vjp(f_dyn, *dyn)
  return out, pullback, None


def _one_like(value, aval: ShapedArray):
  """The seed cotangent 1 of a scalar output, weakly typed when the output is (as JAX's); of
  the current trace when the output is traced."""
  if isinstance(value, core.Tracer):
    return ad.full_like(value, 1)
  if aval.weak_type:
    return complex(1) if dtypes.issubdtype(aval.dtype, np.complexfloating) else 1.0
  return np.ones((), aval.dtype)


def value_and_grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False, reduce_axes=()) -> Callable:
  """Returns a function computing both ``fun``'s value and its gradient with respect to the
  positional arguments ``argnums`` (an int or a sequence of ints). ``fun`` must return a real
  scalar (complex with ``holomorphic=True``); with ``has_aux`` it returns ``(value, aux)`` and
  the result is ``((value, aux), grad)``."""
  argnums, single = _normalize_argnums(argnums)
  name = "value_and_grad"

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def value_and_grad_fun(*args, **kwargs):
    positions, full_args = _dyn_args(fun, argnums, args, name)
    dyn = [args[p] for p in positions]
    for leaf in tree_util.tree_leaves(dyn):
      _check_input_dtype(core.get_aval(leaf), holomorphic, allow_int, "grad")

    value, pullback, aux = _vjp_of_args(fun, full_args, kwargs, dyn, has_aux)
    value_leaves = tree_util.tree_leaves(value)
    if len(value_leaves) != 1 or not core.valid_jaxtype(value_leaves[0]):
      raise TypeError("Gradient only defined for scalar-output functions. Output was "
                      f"{value}.")
    aval = core.get_aval(value_leaves[0])
    _check_output(aval, holomorphic, "grad")
    grads = pullback(tree_util.tree_unflatten(tree_util.tree_structure(value),
                                              [_one_like(value_leaves[0], aval)]))
    grads = grads[0] if single else tuple(grads)
    if has_aux:
      return (value, aux), grads
    return value, grads

  return value_and_grad_fun


def grad(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False, reduce_axes=()) -> Callable:
  """Returns a function computing the gradient of the scalar-valued ``fun`` with respect to the
  positional arguments ``argnums`` (an int: one gradient; a sequence: a tuple of them). The
  gradient has the structure of the argument. With ``has_aux``, returns ``(grad, aux)``."""
  value_and_grad_fun = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def grad_fun(*args, **kwargs):
    if has_aux:
      (_, aux), g = value_and_grad_fun(*args, **kwargs)
      return g, aux
    return value_and_grad_fun(*args, **kwargs)[1]

  return grad_fun


# ---------------------------------------------------------------------------
# Jacobians


def _std_basis(leaves):
  """Rows of the identity over the flattened inexact ``leaves``: an array per leaf of shape
  ``(total_size, *leaf.shape)``, built as JAX builds it (``jnp.eye`` split per leaf)."""
  from axle._src.numpy import creation  # the Jacobian helpers reach jnp late (see ARCHITECTURE)
  sizes = [core.get_aval(x).size for x in leaves]
  total = sum(sizes)
  avals = [core.get_aval(x) for x in leaves]
  dtype = dtypes.result_type(*[a.dtype for a in avals]) if avals else np.float32
  parts = _split_axis(creation.eye(total, dtype=dtype), sizes, 1)
  # JAX converts each part to its leaf's type with a sharding, so even an identity convert
  # stays in the jaxpr.
  return [_reshape_convert(part, (total,) + aval.shape, aval, keep=True)
          for part, aval in zip(parts, avals)]


def _split_axis(x, sizes, axis):
  """``x`` split along ``axis`` into pieces of ``sizes`` (JAX's ``_unravel_array_into_pytree``
  splits at NumPy offsets, so the printed sizes are NumPy integers)."""
  from axle._src.lax import structural  # lax sits above the transformation API
  axis = axis % core.get_aval(x).ndim
  return structural.split_p.bind(x, sizes=tuple(np.int64(s) for s in sizes), axis=axis)


def _reshape_convert(x, shape, aval, keep: bool = False):
  """``x`` reshaped to ``shape`` and converted to ``aval``'s dtype and weak type; with
  ``keep`` an identity conversion stays in the jaxpr (JAX's carries a sharding)."""
  from axle._src.lax import elementwise_convert, structural  # lax sits above this layer
  x = structural.reshape(x, shape)
  params = dict(new_dtype=np.dtype(aval.dtype), weak_type=aval.weak_type, sharding=None)
  if keep:
    with staging.no_forwarding():
      return elementwise_convert.convert_element_type_p.bind(x, **params)
  return elementwise_convert.convert_element_type_p.bind(x, **params)


def _check_jacobian_inputs(dyn, holomorphic, allow_int, name):
  for leaf in tree_util.tree_leaves(dyn):
    _check_input_dtype(core.get_aval(leaf), holomorphic, allow_int, name)


def jacfwd(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False) -> Callable:
  """The Jacobian of ``fun`` with respect to ``argnums``, computed column by column with
  forward mode (``vmap`` of ``jvp`` over the standard basis). For output leaf of shape ``o`` and
  input leaf of shape ``i`` the Jacobian block has shape ``o + i``."""
  argnums_n, single = _normalize_argnums(argnums)

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def jacfun(*args, **kwargs):
    positions, full_args = _dyn_args(fun, argnums_n, args, "jacfwd")
    dyn = tuple(args[p] for p in positions)
    _check_jacobian_inputs(dyn, holomorphic, False, "jacfwd")
    in_leaves, in_tree = tree_util.tree_flatten(dyn)

    def f_flat(*leaves):
      out = fun(*full_args(*tree_util.tree_unflatten(in_tree, leaves)), **kwargs)
      return out

    basis = _std_basis(in_leaves)

    def push(*tangent_leaves):
      if has_aux:
        out, t_out, aux = jvp(f_flat, tuple(in_leaves), tangent_leaves, has_aux=True)
        return out, t_out, aux
      return jvp(f_flat, tuple(in_leaves), tangent_leaves)

    # As JAX: one vmapped jvp gives the primal output (unbatched) and the Jacobian columns.
    if has_aux:
      out, columns, aux = vmap(push, out_axes=(None, -1, None))(*basis)
    else:
      out, columns = vmap(push, out_axes=(None, -1))(*basis)
    jac = tree_util.tree_map(lambda o, col: _split_last(o, col, in_leaves, in_tree, single),
                             out, columns)
    return (jac, aux) if has_aux else jac

  return jacfun


def _split_last(out_leaf, column, in_leaves, in_tree, single):
  """Splits the trailing flattened-input axis of ``column`` into one block per input leaf."""
  out_shape = core.get_aval(out_leaf).shape
  in_avals = [core.get_aval(leaf) for leaf in in_leaves]
  parts = _split_axis(column, [a.size for a in in_avals], -1)
  out_aval = core.get_aval(out_leaf)  # JAX casts each block like the output leaf
  blocks = [_reshape_convert(part, out_shape + a.shape, out_aval)
            for part, a in zip(parts, in_avals)]
  tree = tree_util.tree_unflatten(in_tree, blocks)
  return tree[0] if single else tree


def jacrev(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False) -> Callable:
  """The Jacobian of ``fun`` with respect to ``argnums``, computed row by row with reverse mode
  (``vmap`` of the VJP over the standard basis of the output)."""
  argnums_n, single = _normalize_argnums(argnums)

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def jacfun(*args, **kwargs):
    positions, full_args = _dyn_args(fun, argnums_n, args, "jacrev")
    dyn = tuple(args[p] for p in positions)
    _check_jacobian_inputs(dyn, holomorphic, allow_int, "jacrev")

    out, pullback, aux = _vjp_of_args(fun, full_args, kwargs, dyn, has_aux)
    out_leaves, out_tree = tree_util.tree_flatten(out)
    basis = _std_basis(out_leaves)
    rows = vmap(lambda *ct: pullback(tree_util.tree_unflatten(out_tree, ct)))(*basis)
    # rows: tuple over dyn args of pytrees whose leaves have shape (total_out,) + in_shape;
    # each is split along axis 0 into one block per output leaf, as JAX's.
    row_leaves, rows_tree = tree_util.tree_flatten(rows)
    out_avals = [core.get_aval(o) for o in out_leaves]
    split_rows = []
    for r in row_leaves:
      r_aval = core.get_aval(r)
      parts = _split_axis(r, [a.size for a in out_avals], 0)
      split_rows.append([_reshape_convert(part, a.shape + r_aval.shape[1:], r_aval)
                         for part, a in zip(parts, out_avals)])
    per_out = []
    for i in range(len(out_leaves)):
      tree = tree_util.tree_unflatten(rows_tree, [blocks[i] for blocks in split_rows])
      per_out.append(tree[0] if single else tree)
    jac = tree_util.tree_unflatten(out_tree, per_out)
    return (jac, aux) if has_aux else jac

  return jacfun


jacobian = jacrev


def hessian(fun: Callable, argnums=0, has_aux: bool = False, holomorphic: bool = False) -> Callable:
  """The Hessian of the scalar-valued ``fun``: ``jacfwd(jacrev(fun))``."""
  return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                has_aux=has_aux, holomorphic=holomorphic)


# ---------------------------------------------------------------------------
# linear_transpose


def linear_transpose(fun: Callable, *primals, reduce_axes=()) -> Callable:
  """The transpose of the linear function ``fun`` at inputs shaped like ``primals``: a function
  taking the output cotangent and returning the input cotangents (a tuple, one per primal).
  ``fun`` must be linear in its inputs (its jaxpr is transposed equation by equation)."""
  leaves, in_tree = tree_util.tree_flatten(primals)
  in_avals = [core.get_aval(x) for x in leaves]
  for aval in in_avals:
    if not dtypes.issubdtype(aval.dtype, np.inexact):
      raise TypeError(f"linear_transpose only supports [float or complex] -> [float or complex], "
                      f"got an input of dtype {aval.dtype.name}.")
  store = {}

  def flat_fun(*flat):
    out = fun(*tree_util.tree_unflatten(in_tree, flat))
    out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
    return out_leaves

  closed, _ = staging.trace_to_jaxpr(flat_fun, in_avals)
  out_tree = store["out_tree"]
  out_avals = closed.out_avals

  def transposed(*out_cotangent):
    """Input cotangents (a tuple like the primals) from the output cotangent."""
    cotangent = out_cotangent[0] if len(out_cotangent) == 1 else out_cotangent
    ct_leaves, ct_tree = tree_util.tree_flatten(cotangent)
    if ct_tree != out_tree:
      raise TypeError(f"cotangent tree does not match function output, expected {out_tree} but "
                      f"got {ct_tree}")
    for ct, aval in zip(ct_leaves, out_avals):
      ct_aval = core.get_aval(ct)
      if ct_aval.shape != aval.shape or ct_aval.dtype != aval.dtype:
        raise TypeError(f"cotangent type does not match function output, expected "
                        f"{aval.str_short(False)} but got {ct_aval.str_short(False)}")
    args = [ad.UndefinedPrimal(aval) for aval in in_avals]
    cts_in = ad.backward_pass(closed.jaxpr, closed.consts, args, ct_leaves)
    return tree_util.tree_unflatten(in_tree, [ad.instantiate_zeros(ct) for ct in cts_in])

  return transposed
