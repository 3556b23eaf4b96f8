"""Lowering programs that run on several devices (SPMD), as JAX 0.10.2 emits them for Shardy:
a module with ``mhlo.num_partitions = N``, an ``sdy.mesh @mesh``, ``sdy.sharding`` attributes
on ``@main``'s arguments and results, ``sdy.manual_computation`` for shard_map (and pmap),
``sdy.sharding_constraint`` for ``with_sharding_constraint``; and the named-axis environment
that collectives read while tracing (``axis_size``) and lowering (replica groups).

A mesh here is anything with ``axis_names``, ``axis_sizes`` (and ``devices`` for programs that
run); logical device k is the k-th device in the mesh's flat order.
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
from typing import Sequence

import numpy as np

from axle._src import core
from axle._src.core import ShapedArray
from axle._src.interpreters import lowering
from axle._src.ir import ClosedJaxpr

# name -> size of the named axes bound by an enclosing shard_map/pmap while tracing.
_trace_axes: contextvars.ContextVar = contextvars.ContextVar("axle_spmd_trace_axes", default={})
# The mesh and manual axes of the manual computation being lowered (None outside one).
_lowering_mesh: contextvars.ContextVar = contextvars.ContextVar("axle_spmd_mesh", default=None)


@contextlib.contextmanager
def bind_axes(sizes: dict):
  """Binds named axes (name -> size) while tracing a shard_map/pmap body."""
  token = _trace_axes.set({**_trace_axes.get(), **sizes})
  try:
    yield
  finally:
    _trace_axes.reset(token)


_vma_axes: contextvars.ContextVar = contextvars.ContextVar("axle_spmd_vma_axes", default=())


@contextlib.contextmanager
def tracking_vma(manual_axes):
  """Inside, a shard_map body with ``check_vma`` is being traced: values are typed with the
  manual axes they may vary over (``f32[3]{V:i}``)."""
  token = _vma_axes.set(tuple(manual_axes))
  try:
    yield
  finally:
    _vma_axes.reset(token)


def vma_axes() -> tuple:
  """The manual axes whose variation is being typed (empty outside a checked shard_map body)."""
  return _vma_axes.get()


_boundary_transpose: contextvars.ContextVar = contextvars.ContextVar("axle_spmd_boundary_transpose",
                                                                     default=False)


@contextlib.contextmanager
def transposing_at_boundary():
  """Inside, a shard_map body is being transposed as a whole: cotangents of the inputs are
  summed over their unmentioned mesh axes at the boundary, so ``pvary`` transposes to the
  identity (a psum there would count each device's contribution again)."""
  token = _boundary_transpose.set(True)
  try:
    yield
  finally:
    _boundary_transpose.reset(token)


def at_boundary_transpose() -> bool:
  return _boundary_transpose.get()


def bound_axis_size(name):
  """The size of named axis ``name`` bound by an enclosing shard_map/pmap, or None."""
  return _trace_axes.get().get(name)


def bound_axis_names() -> tuple:
  return tuple(_trace_axes.get())


def lowering_mesh():
  """(mesh, manual axes) of the manual computation being lowered, or None."""
  return _lowering_mesh.get()


def replica_groups(mesh, axes: Sequence[str], axis_index_groups=None) -> np.ndarray:
  """The groups of logical devices that a collective over mesh axes ``axes`` combines: one row
  per combination of the other axes, each row ordered along ``axes`` (in the order given).
  With ``axis_index_groups`` (groups of indices along ``axes``), each row splits into those
  groups; rows of unequal length are padded with -1 (as StableHLO's replica_groups are)."""
  names = list(mesh.axis_names)
  sizes = list(mesh.axis_sizes)
  chosen = [names.index(a) for a in axes]
  others = [i for i in range(len(names)) if i not in chosen]
  ids = np.arange(math.prod(sizes)).reshape(sizes).transpose(others + chosen)
  rows = ids.reshape(-1, math.prod(sizes[i] for i in chosen))
  if axis_index_groups is None:
    return rows
  width = max(len(g) for g in axis_index_groups)
  return np.array([[int(row[i]) for i in g] + [-1] * (width - len(g))
                   for row in rows for g in axis_index_groups], dtype=np.int64)


def axis_stride(mesh, axis: str) -> int:
  """How far apart in logical device ids neighbours along ``axis`` are."""
  names = list(mesh.axis_names)
  return math.prod(mesh.axis_sizes[names.index(axis) + 1:])


def next_channel(ctx) -> int:
  module = ctx.module
  counter = getattr(module, "_spmd_channels", None)
  if counter is None:
    counter = itertools.count(1)
    module._spmd_channels = counter
  return next(counter)


def channel_attribute(ctx) -> str:
  return f"#stablehlo.channel_handle<handle = {next_channel(ctx)}, type = 1>"


def dims_text(ndim: int, axes_of) -> str:
  """``[{"x"}, {}]``: the mesh axes of each dimension (``axes_of(d)``)."""
  return "[" + ", ".join("{" + ", ".join(f'"{a}"' for a in axes_of(d)) + "}"
                         for d in range(ndim)) + "]"


def sharding_text(spec, ndim: int) -> str:
  unreduced = getattr(spec, "unreduced", ())
  if not unreduced:
    return f"<@mesh, {dims_text(ndim, spec.axes_of)}>"
  mesh = module_mesh()
  names = [a for a in mesh.axis_names if a in unreduced] if mesh is not None else sorted(unreduced)
  axes = ", ".join(f'"{a}"' for a in names)
  return f"<@mesh, {dims_text(ndim, spec.axes_of)}, unreduced={{{axes}}}>"


def mesh_declaration(mesh) -> str:
  axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes))
  stablehlo_axes = ", ".join(f'{{name = "{n}", size = {s} : i64}}'
                             for n, s in zip(mesh.axis_names, mesh.axis_sizes))
  return f"  sdy.mesh @mesh = <[{axes}]> {{stablehlo.mesh = {{axes = [{stablehlo_axes}]}}}}"


def emit_manual_computation(ctx, mesh, body: ClosedJaxpr, args, in_specs, out_specs,
                            manual_axes: Sequence[str], global_out_avals) -> list:
  """Emits ``sdy.manual_computation`` running ``body`` (on per-device values) over ``mesh``'s
  ``manual_axes``; ``args`` are the global values; returns the global results."""
  function = ctx.function
  args = [lowering.materialize(ctx, a) for a in args]
  in_text = ", ".join(sharding_text(s, core.physical_aval(a.aval).ndim) for s, a in zip(in_specs, args))
  out_text = ", ".join(sharding_text(s, core.physical_aval(a).ndim) for s, a in zip(out_specs, global_out_avals))
  manual_text = ", ".join(f'"{a}"' for a in manual_axes)
  region_args = [lowering.Value(function.fresh().replace("%", "%arg_m"), a) for a in body.in_avals]
  token = _lowering_mesh.set((mesh, tuple(manual_axes)))
  saved_lines, saved_indent = function.lines, function.indent
  function.lines = []
  function.indent = saved_indent + "  "
  try:
    outs = lowering.jaxpr_subcomp(ctx, body.jaxpr, body.consts, region_args)
    outs = [lowering.materialize(ctx, o) for o in outs]
    body_lines = function.lines
  finally:
    function.lines, function.indent = saved_lines, saved_indent
    _lowering_mesh.reset(token)
  out_types = ", ".join(o.type for o in outs)
  header_args = ", ".join(f"{a.name}: {a.type}" for a in region_args)
  operand_types = ", ".join(a.type for a in args)
  result_types = ", ".join(lowering.tensor_type(a) for a in global_out_avals)
  base = function.fresh()
  n = len(global_out_avals)
  target = f"{base}:{n} = " if n > 1 else (f"{base} = " if n == 1 else "")
  indent = function.indent
  lines = [f"{indent}{target}sdy.manual_computation({', '.join(a.name for a in args)}) "
           f"in_shardings=[{in_text}] out_shardings=[{out_text}] manual_axes={{{manual_text}}} "
           f"({header_args}) {{"]
  lines.extend(body_lines)
  if outs:
    lines.append(f"{indent}  sdy.return {', '.join(o.name for o in outs)} : {out_types}")
  else:
    lines.append(f"{indent}  sdy.return")
  lines.append(f"{indent}}} : ({operand_types}) -> " + (f"({result_types})" if n != 1 else result_types))
  function.lines.extend(lines)
  if n == 1:
    return [lowering.Value(base, global_out_avals[0])]
  return [lowering.Value(f"{base}#{i}", a) for i, a in enumerate(global_out_avals)]


def emit_sharding_constraint(ctx, x, spec) -> "lowering.Value":
  x = lowering.materialize(ctx, x)
  name = ctx.function.fresh()
  ctx.function.lines.append(f"{ctx.function.indent}{name} = sdy.sharding_constraint {x.name} "
                            f"{sharding_text(spec, core.physical_aval(x.aval).ndim)} : {x.type}")
  return lowering.Value(name, x.aval)


_current_module_mesh: contextvars.ContextVar = contextvars.ContextVar("axle_module_mesh",
                                                                      default=None)


def module_mesh():
  """The mesh of the SPMD module being lowered (None for a single-device module)."""
  return _current_module_mesh.get()


def lower_spmd_module(closed: ClosedJaxpr, name: str, mesh, in_specs, out_specs,
                      aliases: dict | None = None) -> str:
  """The module text of an SPMD program over ``mesh``: ``in_specs``/``out_specs`` give each
  argument's and result's PartitionSpec (None: left to XLA's propagation)."""
  module = lowering.ModuleContext(name, num_devices=mesh.size if mesh is not None else 1)
  module.entry_avals = (*closed.in_avals, *closed.out_avals)
  token = _current_module_mesh.set(mesh)
  try:
    function = lowering._Function(module)
    in_avals = closed.in_avals
    args = [lowering.Value(f"%arg{i}", a) for i, a in enumerate(in_avals)]
    ctx = lowering.RuleContext(function, None, in_avals, closed.out_avals)
    outs = [lowering.materialize(ctx, v)
            for v in lowering.jaxpr_subcomp(ctx, closed.jaxpr, closed.consts, args)]
  finally:
    _current_module_mesh.reset(token)
  token = _current_module_mesh.set(mesh)  # the attributes name the mesh's axes too
  try:
    return _module_text(module, function, mesh, args, outs, in_specs, out_specs, aliases or {})
  finally:
    _current_module_mesh.reset(token)


def _module_text(module, function, mesh, args, outs, in_specs, out_specs, aliases) -> str:

  def arg_text(i, a):
    attrs = []
    if i in aliases:
      attrs.append(f"tf.aliasing_output = {aliases[i]} : i32")
    if in_specs[i] is not None:
      attrs.append(f"sdy.sharding = #sdy.sharding{sharding_text(in_specs[i], core.physical_aval(a.aval).ndim)}")
    return f"{a.name}: {a.type}" + (" {" + ", ".join(attrs) + "}" if attrs else "")

  def result_text(j, o):
    attrs = []
    if out_specs[j] is not None:
      attrs.append(f"sdy.sharding = #sdy.sharding{sharding_text(out_specs[j], core.physical_aval(o.aval).ndim)}")
    return o.type + (" {" + ", ".join(attrs) + "}" if attrs else "")

  params = ", ".join(arg_text(i, a) for i, a in enumerate(args))
  results = ", ".join(result_text(j, o) for j, o in enumerate(outs))
  lines = [f"module @{module.name} attributes {{mhlo.num_partitions = {mesh.size} : i32, "
           f"mhlo.num_replicas = 1 : i32}} {{", mesh_declaration(mesh),
           f"  func.func public @main({params}) -> ({results}) {{"]
  lines.extend(function.lines)
  if outs:
    lines.append(f"    func.return {', '.join(o.name for o in outs)} : "
                 f"{', '.join(o.type for o in outs)}")
  else:
    lines.append("    func.return")
  lines.append("  }")
  lines.extend(module.functions)
  lines.append("}")
  return "\n".join(lines) + "\n"
