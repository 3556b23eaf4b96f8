"""``shard_map`` and ``pmap``: one function run on every device of a mesh, each device on its
own piece of the inputs, collectives (psum, all_gather, ppermute, ...) over the mesh's named
axes.

As in JAX 0.10.2, ``pmap(f, axis_name)`` is ``jit(shard_map(f'))`` over a one-axis mesh
``Mesh(devices, (axis_name,))``, where ``f'`` squeezes the mapped axis of each input and puts it
back on each output. ``shard_map`` is a primitive (``shard_map_p``) carrying the per-device
jaxpr; it lowers to Shardy's ``sdy.manual_computation`` and runs as one SPMD executable
(``num_partitions`` = number of devices, XLA's collectives).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.devices import devices as _devices
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import spmd
from axle._src.interpreters import staging
from axle._src.ir import ClosedJaxpr, Eqn, Jaxpr, Var
from axle._src import shard_map_eager
from axle._src.sharded_array import (ShardedArray, make_array_from_process_local_data,
                                     sharded_buffer_for)
from axle._src.sharding import (Mesh, NamedSharding, PartitionSpec, IndivisibleError, ShardedAval,
                                get_mesh)
from axle._src.xla import client

shard_map_p = core.Primitive("shard_map")
shard_map_p.multiple_results = True


def _factor(mesh, spec: PartitionSpec, dim: int) -> int:
  sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
  return math.prod(sizes[a] for a in spec.axes_of(dim))


def global_aval(local: ShapedArray, mesh, spec: PartitionSpec) -> ShapedArray:
  shape = tuple(d * _factor(mesh, spec, i) for i, d in enumerate(local.shape))
  return ShapedArray(shape, local.dtype, local.weak_type)


def local_aval(aval: ShapedArray, mesh, spec: PartitionSpec, what: str = "argument") -> ShapedArray:
  shape = []
  for i, d in enumerate(aval.shape):
    factor = _factor(mesh, spec, i)
    if d % factor:
      raise ValueError(f"shard_map applied to the function was given an {what} with shape "
                       f"{aval.shape} whose dimension {i} of size {d} is not divisible by "
                       f"{factor}, the product of the mesh axes {spec.axes_of(i)} it is split "
                       f"over by {spec}")
    shape.append(d // factor)
  return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, manual_axes, check_vma):
  for i, (aval, spec, expected) in enumerate(zip(avals, in_specs, jaxpr.in_avals)):
    local = local_aval(aval, mesh, spec)
    if local.shape != expected.shape:
      raise TypeError(f"shard_map argument {i}: got {aval.str_short()}, expected a global "
                      f"shape whose per-device shape is {expected.str_short()}")
  return [global_aval(a, mesh, s) for a, s in zip(jaxpr.out_avals, out_specs)]


shard_map_p.def_abstract_eval(_abstract_eval)


def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, manual_axes, check_vma):
  module_mesh = spmd.module_mesh()
  if module_mesh is None:
    raise NotImplementedError("shard_map/pmap inside a single-device program: call it outside "
                              "jit, or let jit see the shard_map at its top level")
  return spmd.emit_manual_computation(ctx, mesh, jaxpr, args, in_specs, out_specs, manual_axes,
                                      ctx.avals_out)


lowering.register(shard_map_p, _lowering)


def _shown_params(params) -> dict:
  """The parameters as JAX prints them: the mesh's abstract form, the manual axes as
  ``newly_manual_axes``."""
  shown = {k: v for k, v in params.items() if k not in ("mesh", "manual_axes")}
  mesh = params["mesh"]
  shown["mesh"] = mesh.abstract_mesh if isinstance(mesh, Mesh) else mesh
  shown["newly_manual_axes"] = frozenset(params["manual_axes"])
  return shown


ir.pp_param_rules[shard_map_p] = _shown_params


def _impl(*values, **params):
  outs = _run_eqn(values, params)
  return [np.asarray(o._host_value()) for o in outs]


shard_map_p.def_impl(_impl)


# ---------------------------------------------------------------------------
# Running: one shard_map equation as an SPMD executable

class SpmdCall:
  """A compiled SPMD program whose ``@main`` is one shard_map equation: global arguments in,
  ShardedArrays out."""

  def __init__(self, params, in_avals, name: str = "shmap", donated=()):
    mesh = params["mesh"]
    self.mesh = mesh
    self.in_avals = tuple(a.strip_weak_type() if False else a for a in in_avals)
    out_avals = _abstract_eval(*in_avals, **params)
    self.out_avals = tuple(out_avals)
    invars = [Var(a) for a in in_avals]
    outvars = [Var(a) for a in out_avals]
    closed = ClosedJaxpr(Jaxpr([], invars, outvars, [Eqn(invars, outvars, shard_map_p, params)]), [])
    self.in_shardings = [NamedSharding(mesh, s) for s in params["in_specs"]]
    self.out_shardings = [NamedSharding(mesh, s) for s in params["out_specs"]]
    aliases = lowering.donation_aliases(closed, donated) if donated else {}
    self.donated = tuple(aliases)
    self.text = spmd.lower_spmd_module(closed, f"jit_{name}", mesh, list(params["in_specs"]),
                                       list(params["out_specs"]), aliases)
    # key arrays (an extended dtype) go in and out as their physical data
    self.executable = _compile(self.text, [core.physical_aval(a) for a in self.in_avals],
                               [core.physical_aval(a) for a in self.out_avals], mesh)

  def run(self, values) -> list:
    buffers = [sharded_buffer_for(v._base_array, s, core.physical_aval(a)) if core.is_extended(a)
               else sharded_buffer_for(v, s, a)
               for v, s, a in zip(values, self.in_shardings, self.in_avals)]
    outs = self.executable.execute(buffers)
    for position in self.donated:
      value = values[position]
      if isinstance(value, ShardedArray):
        value._sharded_buffer = None
        value._pieces = None
        value._value = None
        value._buffer = None
    return [a.dtype.wrap_physical(ShardedArray.from_buffer(b, core.physical_aval(a), s))
            if core.is_extended(a) else ShardedArray.from_buffer(b, a, s)
            for b, a, s in zip(outs, self.out_avals, self.out_shardings)]


_executables: dict = {}


def _compile(text: str, in_avals, out_avals, mesh):
  key = (text, tuple(d.id for d in mesh.devices.flat))
  executable = _executables.get(key)
  if executable is None:
    executable = client.compile_spmd(text, in_avals, out_avals, mesh.flat_devices,
                                     propagate_to_outputs=[False] * len(out_avals),
                                     propagate_to_parameters=[False] * len(in_avals))
    _executables[key] = executable
  return executable


_calls: dict = {}


def _run_eqn(values, params) -> list:
  avals = [core.get_aval(v) for v in values]
  key = (tuple(avals), _params_key(params))
  call = _calls.get(key)
  if call is None:
    call = _calls[key] = SpmdCall(params, avals)
  return call.run(list(values))


def _params_key(params):
  return (id(params["jaxpr"]), params["mesh"], tuple(params["in_specs"]),
          tuple(params["out_specs"]), tuple(params["manual_axes"]))


# ---------------------------------------------------------------------------
# Differentiation and batching

def _jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, manual_axes, check_vma):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  tangent_specs = [s for s, nz in zip(in_specs, nonzeros) if nz]
  out_tangent_specs = [s for s, nz in zip(out_specs, out_nonzeros) if nz]
  outs = shard_map_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                          jaxpr=jvp_closed, mesh=mesh, in_specs=(*in_specs, *tangent_specs),
                          out_specs=(*out_specs, *out_tangent_specs), manual_axes=manual_axes,
                          check_vma=check_vma)
  n = len(jaxpr.out_avals)
  tangent_outs = iter(outs[n:])
  global_outs = [global_aval(a, mesh, s) for a, s in zip(jaxpr.out_avals, out_specs)]
  return outs[:n], [next(tangent_outs) if nz else ad.Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nonzeros, global_outs)]


def _unmentioned(spec: PartitionSpec, manual_axes) -> tuple:
  used = {a for d in range(len(spec)) for a in spec.axes_of(d)}
  return tuple(a for a in manual_axes if a not in used)


def _transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, manual_axes, check_vma):
  linear = [ad.is_undefined_primal(a) for a in args]
  sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
  if check_vma:
    # Typed bodies (JAX's way): psum_invariant transposes to pvary and pvary to
    # psum_invariant, so each cotangent is summed where its primal was broadcast and nothing
    # changes at the boundary.
    transposed = ad.transpose_jaxpr(jaxpr, linear)
    out_divisors = [1] * len(out_specs)
    in_psums = [() for lin in linear if lin]
  else:
    # Untyped bodies: the transpose of psum is psum, so an output replicated over unmentioned
    # axes takes 1/n of its cotangent on each device, and inputs replicated over unmentioned
    # axes sum their cotangents at the boundary.
    with spmd.transposing_at_boundary():
      transposed = ad.transpose_jaxpr(jaxpr, linear)
    out_divisors = [math.prod(sizes[a] for a in _unmentioned(s, manual_axes)) for s in out_specs]
    in_psums = [_unmentioned(s, manual_axes) for s, lin in zip(in_specs, linear) if lin]
  n_cts = len(out_specs)

  def body(*xs):
    cts_local, nonlinear = xs[:n_cts], xs[n_cts:]
    cts_local = [c if d == 1 or dtypes.issubdtype(core.get_aval(c).dtype, np.integer)
                 else spmd_divide(c, d) for c, d in zip(cts_local, out_divisors)]
    outs = _eval(transposed, [*nonlinear, *cts_local])

    return [spmd_psum(o, axes) if axes else o for o, axes in zip(outs, in_psums)]

  nonlinear_args = [a for a in args if not ad.is_undefined_primal(a)]
  nonlinear_specs = [s for s, lin in zip(in_specs, linear) if not lin]
  nonlinear_local = [local_aval(core.get_aval(a), mesh, s)
                     for a, s in zip(nonlinear_args, nonlinear_specs)]
  ct_avals = [ad.tangent_aval(a) for a in jaxpr.out_avals]
  if check_vma:
    nonlinear_local = [_varying(a, _spec_axes(s, manual_axes))
                       for a, s in zip(nonlinear_local, nonlinear_specs)]
    ct_avals = [_varying(c, getattr(a, "vma", frozenset()))
                for c, a in zip(ct_avals, jaxpr.out_avals)]
  with spmd.bind_axes(sizes), spmd.tracking_vma(manual_axes if check_vma else ()):
    body_closed, _ = staging.trace_to_jaxpr(body, [*ct_avals, *nonlinear_local])
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  linear_specs = [s for s, lin in zip(in_specs, linear) if lin]
  outs = iter(shard_map_p.bind(*cts, *nonlinear_args, jaxpr=body_closed, mesh=mesh,
                               in_specs=(*out_specs, *nonlinear_specs),
                               out_specs=tuple(linear_specs), manual_axes=manual_axes,
                               check_vma=check_vma))
  return [next(outs) if lin else None for lin in linear]


def _eval(closed: ClosedJaxpr, args):
  return ir.eval_jaxpr(closed.jaxpr, closed.consts, *args)


# Filled in by axle._src.lax.parallel_spmd (lax is above this layer).
spmd_psum: Callable = None
spmd_divide: Callable = None

def _partial_eval(trace, args, params):
  """Splits a shard_map with known and unknown operands into a known shard_map (run now) and
  an unknown one (staged for transposition). Residuals keep one piece per device: with
  check_vma (as JAX), a residual varying over manual axes leaves split over them along its
  first dimension (a scalar first gains a dimension of size 1) and an invariant one leaves
  replicated; without, every residual leaves with a new leading axis split over all manual
  axes, and the unknown body takes that axis off again."""
  jaxpr, mesh, manual = params["jaxpr"], params["mesh"], params["manual_axes"]
  in_specs, out_specs = params["in_specs"], params["out_specs"]
  check_vma = params["check_vma"]
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(jaxpr, unknowns)
  n_known_out = len(known.out_avals) - num_res
  sizes = {a: s for a, s in zip(mesh.axis_names, mesh.axis_sizes) if a in manual}
  res_local = known.out_avals[n_known_out:]

  def res_layout(aval):
    """(spec, whether a leading dimension is added) of a residual of type ``aval``."""
    vma = getattr(aval, "vma", frozenset()) if check_vma else frozenset(manual)
    if not vma:
      return PartitionSpec(), False
    axes = tuple(a for a in manual if a in vma)
    return PartitionSpec(axes if len(axes) > 1 else axes[0]), not check_vma or aval.ndim == 0

  layouts = [res_layout(a) for a in res_local]
  res_specs = tuple(spec for spec, _ in layouts)

  def known_body(*xs):
    outs = ir.eval_jaxpr(known.jaxpr, known.consts, *xs)
    return [_expand(r, 0) if expand else r for r, (_, expand)
            in zip(outs[n_known_out:], layouts)] + list(outs[:n_known_out])

  def unknown_body(*xs):
    residuals = [_squeeze(r, 0) if expand else r for r, (_, expand) in zip(xs[:num_res], layouts)]
    return ir.eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, *xs[num_res:])

  with spmd.bind_axes(sizes), spmd.tracking_vma(manual if check_vma else ()):
    known_closed, _ = staging.trace_to_jaxpr(known_body, known.in_avals)
    res_avals = [_varying(ShapedArray((1, *a.shape) if expand else a.shape, a.dtype, a.weak_type),
                          getattr(a, "vma", frozenset()) if check_vma else ())
                 for a, (_, expand) in zip(res_local, layouts)]
    unknown_closed, _ = staging.trace_to_jaxpr(
        unknown_body, [*res_avals, *unknown.in_avals[num_res:]])
  known_in = tuple(s for s, u in zip(in_specs, unknowns) if not u)
  known_out = res_specs + tuple(s for s, u in zip(out_specs, out_unknowns) if not u)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  with core.set_current_trace(trace.parent):
    known_outs = shard_map_p.bind(*known_args, **{**params, "jaxpr": known_closed,
                                                  "in_specs": known_in, "out_specs": known_out})
  residuals = known_outs[:num_res]
  known_outs = iter(known_outs[num_res:])
  unknown_args = [x for x, u in zip(args, unknowns) if u]
  unknown_in = res_specs + tuple(s for s, u in zip(in_specs, unknowns) if u)
  unknown_out = tuple(s for s, u in zip(out_specs, out_unknowns) if u)
  unknown_outs = iter(trace.stage(shard_map_p, [*residuals, *unknown_args],
                                  {**params, "jaxpr": unknown_closed, "in_specs": unknown_in,
                                   "out_specs": unknown_out}))
  return [next(unknown_outs) if u else next(known_outs) for u in out_unknowns]


ad.primitive_jvps[shard_map_p] = _jvp
ad.partial_eval_rules[shard_map_p] = _partial_eval
ad.primitive_transposes[shard_map_p] = _transpose


def _batch(args, dims, *, jaxpr, mesh, in_specs, out_specs, manual_axes, check_vma):
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  args = [batching.moveaxis(a, d, 0) if d is not None else a for a, d in zip(args, dims)]
  batched, out_dims = batching.batch_jaxpr(jaxpr, size, [0 if d is not None else None
                                                         for d in dims], True)
  new_in = tuple(PartitionSpec(None, *s) if d is not None else s for s, d in zip(in_specs, dims))
  new_out = tuple(PartitionSpec(None, *s) for s in out_specs)
  outs = shard_map_p.bind(*args, jaxpr=batched, mesh=mesh, in_specs=new_in, out_specs=new_out,
                          manual_axes=manual_axes, check_vma=check_vma)
  return outs, [0] * len(outs)


batching.primitive_batchers[shard_map_p] = _batch


# ---------------------------------------------------------------------------
# shard_map

def _as_spec(spec) -> PartitionSpec:
  if isinstance(spec, PartitionSpec):
    return spec
  if spec is None:
    return PartitionSpec()
  raise TypeError(f"shard_map specs must be PartitionSpecs (or None), got {spec!r}")


def _prefix_leaves(prefix, tree, is_leaf) -> list:
  """One entry of the pytree prefix ``prefix`` per leaf of the structure ``tree``."""
  prefix_leaves, prefix_def = tree_util.tree_flatten(prefix, is_leaf)
  subtrees = prefix_def.flatten_up_to(tree_util.tree_unflatten(tree, [0] * tree.num_leaves))
  result = []
  for leaf, subtree in zip(prefix_leaves, subtrees):
    result.extend([leaf] * tree_util.tree_structure(subtree).num_leaves)
  return result


def _broadcast_specs(specs, tree, what: str) -> list:
  """Specs (a pytree prefix of the arguments/outputs) broadcast to one per leaf."""
  if isinstance(specs, PartitionSpec) or specs is None:
    return [_as_spec(specs)] * tree.num_leaves
  if isinstance(specs, list):
    specs = tuple(specs)
  try:
    flat = _prefix_leaves(specs, tree, lambda x: isinstance(x, PartitionSpec) or x is None)
  except (ValueError, TypeError) as exc:
    raise ValueError(f"shard_map {what} specs must be a tree prefix of the {what}s: {exc}") from None
  return [_as_spec(s) for s in flat]


def shard_map(f: Callable | None = None, /, *, out_specs, in_specs=None, mesh=None,
              axis_names=frozenset(), check_vma: bool = True, check_rep=None, auto=None):
  """Maps ``f`` over the devices of ``mesh``: each device runs ``f`` on its piece of every
  input (``in_specs`` says how each input is split over the mesh axes) and the outputs are
  assembled from the per-device results as ``out_specs`` says. Inside ``f``, collectives over
  the mesh axis names (``psum``, ``all_gather``, ``ppermute``, ...) combine the devices' values."""
  if f is None:
    return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                             axis_names=axis_names, check_vma=check_vma)

  @functools.wraps(f)
  def mapped(*args):
    the_mesh = mesh if mesh is not None else get_mesh()
    if the_mesh is None:
      raise ValueError("shard_map requires a `mesh` argument, or a mesh set with "
                       "`jax.set_mesh(mesh)` / `with mesh:`")
    leaves, in_tree = tree_util.tree_flatten(args)
    if in_specs is not None:
      specs = _broadcast_specs(in_specs, in_tree, "input")
    else:  # as laid out: each argument's own spec over this mesh
      specs = [_own_spec(x, the_mesh) for x in leaves]
    manual = tuple(a for a in the_mesh.axis_names if not axis_names or a in axis_names)
    if in_specs is not None:
      _check_input_specs(leaves, specs, the_mesh)
    if core.current_trace() is core.eval_trace:
      return shard_map_eager.run_eager(
          f, leaves, in_tree, specs, the_mesh, manual,
          lambda tree: _broadcast_specs(out_specs, tree, "output"), check_vma)
    return _bind_shard_map(f, args, leaves, in_tree, specs, out_specs, the_mesh, manual,
                           check_vma, "shmap_body", cache_key=mapped)

  return mapped


def _own_spec(x, mesh) -> PartitionSpec:
  """How ``x`` is laid out over ``mesh`` (what shard_map infers when in_specs is omitted): an
  Array's own sharding, or a traced value's sharded type (``jax.typeof(x).sharding``)."""
  if isinstance(x, ShardedArray):
    return x._sharding.spec if x._sharding.mesh == mesh else PartitionSpec()
  if isinstance(x, core.Tracer):
    aval = core.get_aval(x)
    sharding = getattr(aval, "sharding", None)
    if (isinstance(aval, ShardedAval) and sharding is not None
        and tuple(sharding.mesh.axis_names) == tuple(mesh.axis_names)
        and tuple(sharding.mesh.axis_sizes) == tuple(mesh.axis_sizes)):
      return sharding.spec
  return PartitionSpec()


def _varying(aval: ShapedArray, vma) -> ShapedArray:
  if isinstance(aval, ShardedAval):
    aval = ShapedArray(aval.shape, aval.dtype, aval.weak_type)
  return ShardedAval(aval, None, frozenset(vma)) if vma else aval


def _spec_axes(spec: PartitionSpec, manual_axes) -> set:
  """The manual axes ``spec`` splits a value over (those it varies over in the body)."""
  return {a for d in range(len(spec)) for a in spec.axes_of(d) if a in manual_axes}


def _check_input_specs(leaves, specs, mesh) -> None:
  """With Explicit mesh axes, an array's own layout must be what in_specs says (JAX's error)."""
  explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t.name == "Explicit"}
  if not explicit:
    return
  for leaf, spec in zip(leaves, specs):
    if (isinstance(leaf, core.Tracer) and type(leaf) is not staging.StagingTracer) or not any(
        a in explicit for d in range(len(spec)) for a in spec.axes_of(d)):
      continue  # (differentiation and batching tracers do not carry sharded types)
    aval = core.get_aval(leaf)
    if isinstance(leaf, ShardedArray) and leaf._sharding.mesh == mesh:
      have = leaf._sharding.spec
    elif isinstance(leaf, core.Tracer):  # a value traced by jit: its sharded type
      have = _own_spec(leaf, mesh)
      if have == PartitionSpec():
        have = PartitionSpec(*([None] * aval.ndim))
    else:
      have = PartitionSpec(*([None] * aval.ndim))
    if have != spec:
      raise ValueError(
          f"in_specs passed to shard_map: {spec!r} does not match the specs of the input: "
          f"{have!r} for arg: {aval.str_short(short_dtypes=False)}. `in_specs` is an optional "
          "argument so you can omit specifying it and shard_map will infer the in_specs from "
          "the arguments. If you want to reshard your inputs, you can use `jax.reshard` on the "
          "arguments and then pass those args to shard_map.")


def _bind_shard_map(f, args, leaves, in_tree, specs, out_specs, mesh, manual, check_vma,
                    name, out_specs_flat=None, donated=(), cache_key=None):
  avals = [core.get_aval(x) for x in leaves]
  top = core.current_trace() is core.eval_trace
  key = None
  if cache_key is not None:
    key = (cache_key, tuple(avals), in_tree, tuple(specs), mesh, tuple(manual), tuple(donated))
    entry = _top_calls.get(key)
    if entry is not None:
      params, out_tree, call = entry
      if top and call is not None:
        return tree_util.tree_unflatten(out_tree, call.run(leaves))
      if not top:
        return tree_util.tree_unflatten(out_tree, shard_map_p.bind(*leaves, **params))
  local_avals = [local_aval(a, mesh, s) for a, s in zip(avals, specs)]
  if check_vma:  # each block is typed with the manual axes its spec splits it over
    local_avals = [_varying(a, {x for d in range(len(s)) for x in s.axes_of(d) if x in manual})
                   for a, s in zip(local_avals, specs)]
  out_tree_box = []

  def flat_body(*xs):
    out = f(*tree_util.tree_unflatten(in_tree, list(xs)))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    out_tree_box.append(out_tree)
    return out_leaves

  sizes = {a: s for a, s in zip(mesh.axis_names, mesh.axis_sizes) if a in manual}
  with spmd.bind_axes(sizes), spmd.tracking_vma(manual if check_vma else ()):
    closed, _ = staging.trace_to_jaxpr(flat_body, local_avals)
  out_tree = out_tree_box[0]
  if out_specs_flat is None:
    out_flat_specs = _broadcast_specs(out_specs, out_tree, "output")
  else:
    out_flat_specs = out_specs_flat(out_tree)
  if check_vma and shard_map_eager.psum_with_groups(closed.jaxpr):
    raise shard_map_eager.psum_groups_error()
  if check_vma:
    in_vmas = [{a for d in range(len(s)) for a in s.axes_of(d) if a in manual} for s in specs]
    for spec, vma in zip(out_flat_specs, shard_map_eager.infer_vma(closed.jaxpr, in_vmas)):
      shard_map_eager.check_vma(getattr(f, "__name__", "f"), mesh, manual, spec, vma)
  params = dict(jaxpr=closed, mesh=mesh, in_specs=tuple(specs), out_specs=tuple(out_flat_specs),
                manual_axes=tuple(manual), check_vma=check_vma)
  call = None
  if top:
    call = SpmdCall(params, avals, name, donated)
    outs = call.run(leaves)
  else:
    outs = shard_map_p.bind(*leaves, **params)
  if key is not None:
    _top_calls[key] = (params, out_tree, call)
  return tree_util.tree_unflatten(out_tree, outs)


_top_calls: dict = {}


# ---------------------------------------------------------------------------
# pmap

_PMAP_AXIS = "_internal_pmap_axis_name"


def _flat_axes(axes, tree, what: str) -> list:
  if axes is None or isinstance(axes, int):
    return [axes] * tree.num_leaves
  try:
    return _prefix_leaves(tuple(axes) if isinstance(axes, list) else axes, tree,
                          lambda x: x is None)
  except (ValueError, TypeError):
    raise ValueError(f"pmap {what} specification must be a tree prefix of the corresponding "
                     f"value, got specification {axes} for value tree {tree}.") from None


class _PmapFunction:
  def __init__(self, fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices,
               backend, axis_size, donate_argnums):
    self.fun = fun
    self.axis_name = axis_name
    self.in_axes = in_axes
    self.out_axes = out_axes
    self.static = tuple(sorted({static_broadcasted_argnums} if isinstance(
        static_broadcasted_argnums, int) else set(static_broadcasted_argnums)))
    self.devices = devices
    self.axis_size = axis_size
    self.donate = tuple({donate_argnums} if isinstance(donate_argnums, int) else donate_argnums)
    functools.update_wrapper(self, fun)

  def __call__(self, *args, **kwargs):
    if kwargs:
      raise NotImplementedError("pmap: keyword arguments are not supported; pass them "
                                "positionally")
    static_values = {i: args[i] for i in self.static if i < len(args)}
    dynamic = [a for i, a in enumerate(args) if i not in static_values]
    dynamic_index = [i for i in range(len(args)) if i not in static_values]
    in_axes = self.in_axes
    if isinstance(in_axes, (list, tuple)) and not isinstance(in_axes, int):
      if len(in_axes) != len(args):
        raise ValueError(f"pmap in_axes specification must be a tree prefix of the "
                         f"corresponding value, got specification {in_axes} for value tree "
                         f"{tree_util.tree_structure(tuple(args))}.")
      in_axes = tuple(in_axes[i] for i in dynamic_index)
    leaves, in_tree = tree_util.tree_flatten(tuple(dynamic))
    flat_in_axes = _flat_axes(in_axes, in_tree, "in_axes")
    name = self.axis_name if self.axis_name is not None else _PMAP_AXIS
    sizes = set()
    for leaf, axis in zip(leaves, flat_in_axes):
      if axis is not None:
        aval = core.get_aval(leaf)
        if axis < 0:
          axis += aval.ndim
        if not 0 <= axis < aval.ndim:
          raise ValueError(f"pmap got arg with shape {aval.shape} and in_axes={axis}; the mapped "
                           "axis is out of bounds")
        sizes.add(aval.shape[axis])
    if self.axis_size is not None:
      size = self.axis_size
    elif sizes:
      size = _first_size(leaves, flat_in_axes)
    else:
      raise ValueError("pmap requires at least one argument with a mapped axis (or axis_size=)")
    processes = client.process_count()
    if processes > 1 and self.devices is None:
      # Several processes: each passes its own slice (one row per local device); the program
      # spans every process's devices, as in JAX.
      local_count = len(client.local_devices())
      first = next(x for x, a in zip(leaves, flat_in_axes) if a is not None)
      if isinstance(first, ShardedArray) and not first.is_fully_addressable():
        size //= processes  # an output of an earlier pmap: already global
      if size != local_count:
        raise ValueError(f"pmap with several processes: the mapped axis ({size}) must equal the "
                         f"number of local devices ({local_count})")
      devices = sorted(_devices(), key=lambda d: (d.process_index, d.id))
      size = size * processes
    else:
      devices = list(self.devices) if self.devices is not None else list(_devices())
    if self.devices is None and size > len(devices):
      raise ValueError(f"compiling computation that requires {size} logical devices, but only "
                       f"{len(devices)} XLA devices are available (num_replicas={size})")
    if self.devices is not None and len(devices) != size:
      raise ValueError(f"pmap got {len(devices)} devices but the mapped axis has size {size}")
    mesh = _pmap_mesh(tuple(devices[:size]), name)
    specs, norm_axes = [], []
    for position, (leaf, axis) in enumerate(zip(list(leaves), flat_in_axes)):
      if axis is None:
        specs.append(PartitionSpec())
        norm_axes.append(None)
        continue
      aval = core.get_aval(leaf)
      axis = axis % aval.ndim
      norm_axes.append(axis)
      spec = PartitionSpec(*([None] * axis), name)
      if processes > 1 and self.devices is None and not isinstance(leaf, ShardedArray):
        global_shape = list(aval.shape)
        global_shape[axis] = size
        leaf = make_array_from_process_local_data(NamedSharding(mesh, spec), np.asarray(leaf),
                                                  tuple(global_shape))
        leaves[position] = leaf
        aval = core.get_aval(leaf)
      if aval.shape[axis] != size:
        raise IndivisibleError(
            f"Sharding {NamedSharding(mesh, spec)} implies that array axis {axis} is "
            f"partitioned {size} times, but the dimension size is {aval.shape[axis]} (full "
            f"shape: {aval.shape}, per-dimension tiling factors: "
            f"{[size if d == axis else 1 for d in range(aval.ndim)]} should evenly divide the "
            "shape)")
      specs.append(spec)
    fun, out_axes_spec = self.fun, self.out_axes
    out_axes_box = []

    def body(*locals_):
      from_local = [x if a is None else _squeeze(x, a) for x, a in zip(
          tree_util.tree_leaves(locals_), norm_axes)]
      call_args = list(tree_util.tree_unflatten(in_tree, from_local))
      full = []
      it = iter(call_args)
      for i in range(len(args)):
        full.append(static_values[i] if i in static_values else next(it))
      out = fun(*full)
      out_leaves, out_tree = tree_util.tree_flatten(out)
      flat_out_axes = _flat_axes(out_axes_spec, out_tree, "out_axes")
      out_axes_box.append(flat_out_axes)
      results = []
      for leaf, axis in zip(out_leaves, flat_out_axes):
        if axis is None:
          results.append(leaf)
        else:
          results.append(_expand(leaf, axis % (core.get_aval(leaf).ndim + 1)))
      return tree_util.tree_unflatten(out_tree, results)

    def out_specs_for(out_tree):
      flat_out_axes = out_axes_box[0]
      return [PartitionSpec() if a is None else PartitionSpec(*([None] * a), name)
              for a in flat_out_axes]

    donated = tuple(j for j, i in enumerate(dynamic_index) if i in self.donate)
    donated_leaves = []
    offsets = np.cumsum([0] + [len(tree_util.tree_leaves(a)) for a in dynamic])
    for j in donated:
      donated_leaves.extend(range(offsets[j], offsets[j + 1]))
    try:
      static_key = tuple(sorted(static_values.items()))
      hash(static_key)
    except TypeError:
      raise ValueError("Non-hashable static arguments are not supported. An error occurred "
                       "while trying to hash an object of type "
                       f"{type(static_values)}") from None
    cache_key = (self, static_key, tuple(norm_axes), repr(self.out_axes))
    return _bind_shard_map(lambda *xs: body(*xs), tuple(dynamic), leaves, in_tree, specs, None,
                           mesh, (name,), False, getattr(self.fun, "__name__", "fun"),
                           out_specs_flat=out_specs_for, donated=tuple(donated_leaves),
                           cache_key=cache_key)


_pmap_meshes: dict = {}


def _pmap_mesh(devices: tuple, name) -> Mesh:
  mesh = _pmap_meshes.get((devices, name))
  if mesh is None:
    array = np.empty(len(devices), dtype=object)
    array[:] = devices
    mesh = _pmap_meshes[(devices, name)] = Mesh(array, (name,))
  return mesh


def _first_size(leaves, axes) -> int:
  for leaf, axis in zip(leaves, axes):
    if axis is not None:
      return core.get_aval(leaf).shape[axis]
  raise ValueError("pmap: no mapped argument")


# Filled in by axle._src.lax.parallel_spmd: squeeze / expand_dims of one axis.
_squeeze: Callable = None
_expand: Callable = None


def pmap(fun: Callable | None = None, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums=(), devices=None, backend=None, axis_size=None,
         donate_argnums=()):
  """Maps ``fun`` over the leading axis (``in_axes``) of its arguments, one slice per device,
  all devices running in parallel; collectives over ``axis_name`` combine them. Returns
  per-device results stacked along ``out_axes``, as an Array sharded over the devices."""
  if fun is None:
    return functools.partial(pmap, axis_name=axis_name, in_axes=in_axes, out_axes=out_axes,
                             static_broadcasted_argnums=static_broadcasted_argnums,
                             devices=devices, backend=backend, axis_size=axis_size,
                             donate_argnums=donate_argnums)
  if not callable(fun):
    raise TypeError(f"pmap requires a callable, got {fun!r}")
  return _PmapFunction(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices,
                       backend, axis_size, donate_argnums)
