"""Eager evaluation: the EvalTrace runs each primitive's NumPy kernel.

``EvalTrace.process_primitive`` turns operands into NumPy values and abstract
values, runs the primitive's shape rule (cached per input signature, so bad
input raises the same error as under jit), runs the NumPy kernel and wraps the
result in an Array. A primitive with no NumPy kernel but a lowering runs as a
cached single-primitive XLA executable (``fallback_impl``, set by the jit issue).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import ShapedArray, Tracer

_python_scalar_types = core.python_scalar_types

# (primitive, *input avals, *params items) -> output aval(s)
_abstract_eval_cache: dict = {}

# Set by axle._src.xla.execution: a function(primitive, values, avals, params) running the
# primitive as a cached single-primitive XLA executable.
fallback_impl = None

# How many ``ensure_compile_time_eval`` blocks are open (a one-element list, set by the api).
compile_time_eval_depth = [0]


def _to_value(x):
  """The NumPy value and abstract value of an eager operand."""
  if type(x) is Array:
    return x._value if x._value is not None else x._host_value(), x.aval
  if type(x) in _python_scalar_types:
    value = dtypes.scalar_to_array(x)
    return value, ShapedArray((), value.dtype, type(x) is not bool)
  if isinstance(x, (np.ndarray, np.generic)):
    # Copy: kernels may return views of their inputs, and the caller may mutate its array.
    target = dtypes.canonicalize_dtype(x.dtype)
    x = x.astype(target) if isinstance(x, np.ndarray) else np.asarray(x, target)
    return x, ShapedArray(x.shape, target, False)
  if isinstance(x, Array):  # a subclass
    return x._host_value(), x.aval
  if isinstance(x, Tracer):
    raise errors.UnexpectedTracerError(_leaked_tracer_message(x))
  if hasattr(x, "__jax_array__"):
    return _to_value(x.__jax_array__())
  raise TypeError(f"Value {x!r} with type {type(x)} is not a valid JAX type")


def _leaked_tracer_message(tracer) -> str:
  describe = getattr(tracer, "_leak_description", None)
  details = describe() if describe is not None else ""
  return ("Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
          f"allowing for a reference to an intermediate value with type {tracer.aval.str_short(False)} "
          f"wrapped in a {tracer._public_type_name} to escape the scope of the transformation.\n"
          "JAX transformations require that functions explicitly return their outputs, and disallow "
          f"saving intermediate values to global state.{details}\n"
          "To catch the leak earlier, try setting the environment variable JAX_CHECK_TRACER_LEAKS or "
          "using the `jax.checking_leaks` context manager.")


def _shape_rule(primitive: core.Primitive):
  rule = primitive.abstract_eval
  if rule is None:
    raise NotImplementedError(f"Abstract evaluation for '{primitive.name}' not implemented")
  return rule


def _call_array_impl(primitive: core.Primitive, values, avals, params):
  """Runs an impl defined outside axle on Arrays (it may return Arrays or NumPy values)."""
  outs = primitive.impl(*[Array(v, aval=a) for v, a in zip(values, avals)], **params)
  return outs


def _eval_without_shape_rule(primitive: core.Primitive, values, params, avals=None):
  """Eager evaluation of a (user-defined) primitive that has an impl but no abstract eval
  yet: the output avals are those of what the impl returns, as in JAX."""
  if primitive.impl is None:
    raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")
  if primitive.impl_takes_arrays and avals is not None:
    out = _call_array_impl(primitive, values, avals, params)
  else:
    out = primitive.impl(*values, **params)
  outs = out if primitive.multiple_results else [out]
  wrapped = []
  for o in outs:
    if isinstance(o, Array):
      wrapped.append(o)
      continue
    value = np.asarray(o)
    value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)
    wrapped.append(Array(value, False, ShapedArray(value.shape, value.dtype)))
  return wrapped if primitive.multiple_results else wrapped[0]


def abstract_eval(primitive: core.Primitive, avals, params):
  """The primitive's output aval(s) for ``avals``, memoised per signature."""
  if not primitive.memoise_abstract_eval:
    return _shape_rule(primitive)(*avals, **params)
  if params:
    key = (primitive, *avals, *params.items())
  else:
    key = (primitive, *avals)
  try:
    return _abstract_eval_cache[key]
  except KeyError:
    pass
  except TypeError:  # unhashable params
    return _shape_rule(primitive)(*avals, **params)
  out = _shape_rule(primitive)(*avals, **params)
  if len(_abstract_eval_cache) > 20000:
    _abstract_eval_cache.clear()
  _abstract_eval_cache[key] = out
  return out


def _wrap(value, aval: ShapedArray) -> Array:
  """A kernel's output as an Array of ``aval`` (cast if the kernel returned another dtype)."""
  if type(value) is not np.ndarray and not isinstance(value, np.generic):
    value = np.asarray(value)
  if value.dtype is not aval.dtype and value.dtype != aval.dtype:
    value = value.astype(aval.dtype)
  return Array(value, False, aval)


class _SpecialValueChecks:
  """Whether eager results are checked for NaN (``jax_debug_nans``) and infinities
  (``jax_debug_infs``); fast eager paths test ``enabled`` and step aside when it is set."""
  __slots__ = ("nans", "infs", "enabled")

  def __init__(self):
    self.refresh()

  def refresh(self, *_):
    self.nans = bool(config.read("jax_debug_nans"))
    self.infs = bool(config.read("jax_debug_infs"))
    self.enabled = self.nans or self.infs


special_checks = _SpecialValueChecks()
config.add_listener(special_checks.refresh)

DEOPTIMIZED_MESSAGE = ("Invalid nan value encountered in the output of a jax.jit function. "
                       "Calling the de-optimized version.")


def special_value_kind(values) -> str | None:
  """``"nan"`` or ``"inf"`` when one of ``values`` (NumPy values or Arrays) holds a value the
  debug flags ask to catch, else None."""
  checks = special_checks
  for value in values:
    dtype = getattr(value, "dtype", None)
    if dtype is None or dtype.kind not in "fc" and dtype != dtypes.bfloat16:
      continue
    host = value._host_value() if isinstance(value, Array) else np.asarray(value)
    if dtype.kind == "V":  # bfloat16 and the float8 types: NumPy cannot test them directly
      host = host.astype(np.float32)
    if checks.nans and np.isnan(host).any():
      return "nan"
    if checks.infs and np.isinf(host).any():
      return "inf"
  return None


def check_special_values(name: str, outputs) -> None:
  """Raises FloatingPointError naming ``name`` when an output is NaN/inf and the debug flags ask
  for it (an eager primitive: JAX runs each as a small jitted program, hence the message)."""
  kind = special_value_kind(outputs)
  if kind is not None:
    print(DEOPTIMIZED_MESSAGE)
    raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")


def _operand_error(primitive, position, x) -> TypeError:
  return TypeError(f"Error interpreting argument to {primitive.name} as a JAX value. The "
                   f"problematic value is of type {type(x)} and was passed to "
                   f"{primitive.name} at position {position}.")


# Set by axle._src.xla.spmd_jit: runs a primitive whose operands are laid out over a mesh as
# one program over that mesh (None when it cannot).
sharded_hook: Callable | None = None


class EvalTrace(core.Trace):
  """The root trace: evaluates primitives right away with NumPy kernels."""
  parent = None

  def process_primitive(self, primitive, args, params):
    # The hot path of every eager op: keep it to plain loops and one dict lookup.
    values = []
    avals = []
    for position, x in enumerate(args):
      if type(x) is Array and x._value is not None:
        values.append(x._value)
        avals.append(x._aval)
        continue
      if sharded_hook is not None and hasattr(x, "_sharded_buffer"):
        out = sharded_hook(primitive, args, params)  # operands laid out over a mesh
        if out is not None:
          return out
      try:
        value, aval = _to_value(x)
      except errors.UnexpectedTracerError:
        if compile_time_eval_depth[0] and isinstance(x, Tracer):
          # Inside ensure_compile_time_eval, an operation on a traced value is traced by the
          # value's own trace instead (only concrete operands are computed right away), as in JAX.
          with core.set_current_trace(x._trace):
            return primitive.bind(*args, **params)
        raise
      except TypeError:
        raise _operand_error(primitive, position, x) from None
      values.append(value)
      avals.append(aval)
    if primitive.abstract_eval is None or primitive.impl_takes_arrays:
      # A user-defined primitive runs its impl eagerly, without its shape rule (as in JAX).
      return _eval_without_shape_rule(primitive, values, params, avals)
    out_aval = abstract_eval(primitive, avals, params)
    impl = primitive.impl
    if impl is None:
      if fallback_impl is None:
        raise NotImplementedError(f"Primitive '{primitive.name}' has no eager implementation.")
      out = fallback_impl(primitive, values, avals, params)
    else:
      out = impl(*values, **params)
    if special_checks.enabled:
      check_special_values(primitive.name, out if primitive.multiple_results else [out])
    if primitive.multiple_results:
      return [_wrap(o, a) for o, a in zip(out, out_aval)]
    return _wrap(out, out_aval)

  def __repr__(self):
    return "EvalTrace"


core._install_eval_trace(EvalTrace())


def eager_unary(primitive: core.Primitive, bind: Callable, **params) -> Callable:
  """``bind`` (a one-operand lax function that binds ``primitive`` with ``params``) with a
  shortcut for an eager Array whose signature has been seen before: the kernel runs directly
  with the cached output aval -- exactly what ``process_primitive`` would do, minus the
  dispatch."""
  impl = primitive.impl
  if impl is None:  # no NumPy kernel: the primitive runs on XLA, through bind
    return bind
  context = core._context
  root = core.eval_trace
  cache = _abstract_eval_cache
  param_items = tuple(params.items())
  checks = special_checks

  def call(x):
    if type(x) is Array and context.trace is root and x._value is not None and not checks.enabled:
      out_aval = cache.get((primitive, x._aval, *param_items))
      if out_aval is not None:
        return _wrap(impl(x._value, **params), out_aval)
    return bind(x)

  return call


def run_on_xla(primitive: core.Primitive, values, params: dict):
  """One equation of ``primitive`` on NumPy ``values``, run as a cached single-primitive XLA
  executable. For eager kernels on inputs where NumPy's answer would differ from XLA's (JAX's
  answer is XLA's); returns NumPy values, like a kernel."""
  values = [np.asarray(v) for v in values]
  avals = [ShapedArray(v.shape, v.dtype) for v in values]
  return fallback_impl(primitive, values, avals, params)

