"""``vmap``: vectorizing a function over an axis of its inputs (the interpreter is in
``interpreters/batching.py``)."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import tree_util
from axle._src import traceback_util
from axle._src.interpreters import batching
from axle._src.interpreters import staging


def _is_none(x) -> bool:
  return x is None


def _flatten_axes(what: str, tree_def, axes, tree) -> list:
  """One axis spec per leaf of ``tree`` from the pytree prefix ``axes``."""
  axes_leaves, axes_def = tree_util.tree_flatten(axes, is_leaf=_is_none)
  try:
    subtrees = axes_def.flatten_up_to(tree)
  except (ValueError, TypeError):
    raise ValueError(f"{what} specification must be a tree prefix of the corresponding value, "
                     f"got specification {axes} for value tree {tree_def}.") from None
  out = []
  for axis, subtree in zip(axes_leaves, subtrees):
    out.extend([axis] * tree_util.tree_structure(subtree).num_leaves)
  return out


def _check_axis_spec(axis, what: str):
  if axis is not None and not isinstance(axis, (int, np.integer)):
    raise TypeError(f"vmap {what} must be an int, None, or a tuple of entries corresponding to "
                    f"the positional arguments passed to the function, but got {axis}.")


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size: int | None = None,
         spmd_axis_name=None) -> Callable:
  """Vectorizes ``fun`` over an axis of its inputs: the result maps ``fun`` over the slices along
  ``in_axes`` (an int, None for unmapped, or a pytree prefix of the positional arguments) and
  stacks the results along ``out_axes``. ``axis_name`` names the axis for collectives (psum, ...);
  ``axis_size`` is needed when no input is mapped."""
  if isinstance(in_axes, list):
    in_axes = tuple(in_axes)

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def vmapped(*args, **kwargs):
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
      raise ValueError("vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                       "the positional arguments passed to the function, but got "
                       f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    axes = _flatten_axes("vmap in_axes", in_tree, (in_axes, 0), (args, kwargs))
    # keyword arguments are always mapped along axis 0
    for axis in axes:
      _check_axis_spec(axis, "in_axes")
    size = _mapped_size(leaves, axes, axis_size, args, kwargs, fun)
    parent = core.current_trace()
    trace = batching.BatchTrace(parent, batching.AxisData(axis_name, size))
    tracers = []
    for leaf, axis in zip(leaves, axes):
      if axis is None:
        tracers.append(leaf)
      else:
        ndim = core.get_aval(leaf).ndim
        tracers.append(batching.BatchTracer(trace, leaf, axis % ndim))
    args_t, kwargs_t = tree_util.tree_unflatten(in_tree, tracers)
    with core.set_current_trace(trace):
      out = fun(*args_t, **kwargs_t)
    out_leaves, out_tree = tree_util.tree_flatten(out)
    out_axes_flat = _flatten_axes("vmap out_axes", out_tree, out_axes, out)
    results = []
    for leaf, axis in zip(out_leaves, out_axes_flat):
      _check_axis_spec(axis, "out_axes")
      value, dim = trace.to_batched(leaf)
      if axis is None:
        if dim is not None:
          raise ValueError(f"at vmap out_axes, got axis spec None but output was batched on "
                           f"axis {dim}")
        results.append(value)
        continue
      ndim = core.get_aval(value).ndim + (dim is None)
      if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
      results.append(batching.matchaxis(value, dim, axis % ndim, size))
    return tree_util.tree_unflatten(out_tree, results)

  return vmapped


def _mapped_size(leaves, axes, axis_size, args, kwargs, fun) -> int:
  sizes = []
  for leaf, axis in zip(leaves, axes):
    if axis is None:
      continue
    aval = core.get_aval(leaf)
    if not -aval.ndim <= axis < aval.ndim or aval.ndim == 0:
      raise ValueError(f"vmap was requested to map its argument along axis {axis}, which implies "
                       f"that its rank should be at least {max(axis, -axis - 1) + 1}, but is only "
                       f"{aval.ndim} (its shape is {aval.shape})")
    sizes.append(aval.shape[axis])
  if not sizes:
    if axis_size is None:
      raise ValueError("vmap must have at least one non-None value in in_axes or axis_size must "
                       "be specified")
    return int(axis_size)
  if axis_size is not None and any(s != axis_size for s in sizes):
    sizes.append(int(axis_size))
  if len(set(sizes)) > 1:
    raise ValueError(_inconsistent_sizes_message(leaves, axes, args, kwargs, fun))
  return sizes[0]


def _inconsistent_sizes_message(leaves, axes, args, kwargs, fun) -> str:
  try:
    names = staging.flat_arg_names(fun, args, kwargs)
  except Exception:
    names = []
  lines = ["vmap got inconsistent sizes for array axes to be mapped:"]
  by_size: dict = {}
  for i, (leaf, axis) in enumerate(zip(leaves, axes)):
    if axis is None:
      continue
    aval = core.get_aval(leaf)
    size = aval.shape[axis]
    name = names[i] if i < len(names) else f"args[{i}]"
    by_size.setdefault(size, []).append(
        f"axis {axis % aval.ndim} of argument {name} of type {aval.str_short(False)}")
  items = []
  for size, where in by_size.items():
    if len(where) == 1:
      items.append(f"  * one axis had size {size}: {where[0]}")
    else:
      items.append(f"  * {len(where)} axes had size {size}, e.g. {where[0]}")
  return "\n".join(lines + [";\n".join(items)])
