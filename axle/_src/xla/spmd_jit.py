"""jit over several devices: programs that contain a shard_map, a sharding constraint
(``lax.with_sharding_constraint``, ``jit(in_shardings=, out_shardings=)``) or take Arrays
sharded over a mesh compile as one SPMD executable over that mesh (Shardy partitioner,
``num_partitions`` = mesh size), as JAX's jit does. Shardings that XLA chose (propagation) are
read back from the executable and given to the outputs as NamedShardings.
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
from typing import Sequence

import numpy as np

from axle._src import core
from axle._src import tree_util
from axle._src.array import Array, before_donation
from axle._src.core import ShapedArray
from axle._src import ir
from axle._src.interpreters import ad
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import spmd
from axle._src.interpreters import staging
from axle._src.ir import ClosedJaxpr, Jaxpr
from axle._src import sharded_array as sharded_array_module
from axle._src.sharded_array import ShardedArray, hlo_sharding_of, sharded_buffer_for
from axle._src.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec, ShardedAval,
                                get_abstract_mesh,
                                get_mesh, tiling_for, use_abstract_mesh, with_axis_types)
from axle._src.xla import client

# ---------------------------------------------------------------------------
# sharding_constraint_p (lax.with_sharding_constraint)

sharding_constraint_p = core.Primitive("sharding_constraint")
sharding_constraint_p.def_abstract_eval(lambda x, *, sharding: x)
sharding_constraint_p.def_impl(lambda x, *, sharding: x)


def _constraint_lowering(ctx, x, *, sharding):
  if spmd.module_mesh() is None or spmd.lowering_mesh() is not None:
    return x
  return spmd.emit_sharding_constraint(ctx, x, sharding.spec)


lowering.register(sharding_constraint_p, _constraint_lowering)
ad.deflinear2(sharding_constraint_p, lambda ct, x, *, sharding: [
    sharding_constraint_p.bind(ad.instantiate_zeros(ct), sharding=sharding)])


def _constraint_batcher(values, dims, *, sharding):
  (x,), (d,) = values, dims
  spec = list(sharding.spec) + [None] * (core.get_aval(x).ndim - 1 - len(sharding.spec))
  spec.insert(d, None)
  return sharding_constraint_p.bind(x, sharding=sharding.with_spec(PartitionSpec(*spec))), d


batching.primitive_batchers[sharding_constraint_p] = _constraint_batcher


def _as_named(sharding, what: str = "sharding") -> NamedSharding:
  if isinstance(sharding, NamedSharding):
    return sharding
  if isinstance(sharding, PartitionSpec):
    mesh = get_mesh()
    abstract = get_abstract_mesh()
    if (mesh is not None and not abstract.empty
        and abstract.shape_tuple != mesh.abstract_mesh.shape_tuple
        and abstract.size == mesh.size):
      # ``use_abstract_mesh`` with another shape over the same devices: the spec names its axes
      mesh = Mesh(np.asarray(mesh.flat_devices, dtype=object).reshape(abstract.axis_sizes),
                  abstract.axis_names, axis_types=abstract.axis_types)
    if mesh is None:
      raise ValueError(f"{what}: a PartitionSpec {sharding} needs a mesh; use "
                       "`jax.set_mesh(mesh)` or pass NamedSharding(mesh, spec)")
    return NamedSharding(mesh, sharding)
  raise TypeError(f"{what}: expected a NamedSharding or PartitionSpec, got {sharding!r}")


def with_sharding_constraint(x, shardings):
  """Constrains how the values of the pytree ``x`` are laid out over the devices inside jit
  (``shardings``: a NamedSharding or PartitionSpec, or a pytree prefix of them)."""
  leaves, tree = tree_util.tree_flatten(x)
  flat = _flat_shardings(shardings, tree, "with_sharding_constraint")
  outs = []
  for leaf, sharding in zip(leaves, flat):
    if sharding is None:
      outs.append(leaf)
      continue
    sharding = _as_named(sharding, "with_sharding_constraint")
    sharding.tiling(core.get_aval(leaf).ndim)  # rank check
    sharding.shard_shape(core.get_aval(leaf).shape)  # divisibility check
    if core.current_trace() is core.eval_trace:
      outs.append(put_hook(leaf, sharding))
    else:
      outs.append(sharding_constraint_p.bind(leaf, sharding=sharding))
  return tree_util.tree_unflatten(tree, outs)


def put_hook(x, sharding):
  return sharded_array_module.put_sharded(x, sharding)


_reshard_calls: dict = {}


def reshard_program(x, sharding: NamedSharding):
  """``x`` laid out as ``sharding`` by a program over its mesh (how arrays move into and out of
  unreduced layouts: XLA pads the partial values with zeros, or sums them)."""
  mesh = sharding.mesh
  if isinstance(x, ShardedArray) and x._sharding.mesh != mesh and x._sharding.mesh.size > 1:
    if x._sharding.spec.unreduced:
      raise NotImplementedError(
          f"reshard: an unreduced array over {x._sharding.mesh} can only be resharded over the "
          f"same mesh, not {mesh}; reduce it first with jax.reshard(x, P(...)) over its own mesh")
    x = sharded_array_module.put_sharded(x, NamedSharding(mesh, PartitionSpec()))
  aval = core.get_aval(x)
  aval = ShapedArray(aval.shape, aval.dtype, aval.weak_type)
  key = (aval, sharding)
  call = _reshard_calls.get(key)
  if call is None:
    var = ir.Var(aval)
    closed = ClosedJaxpr(Jaxpr([], [var], [var], []), [])
    call = _reshard_calls[key] = SpmdJitCall(closed, "reshard", mesh, out_shardings=[sharding])
  if not (isinstance(x, ShardedArray) and x._sharding.mesh == mesh):
    x = sharded_array_module.put_sharded(x, NamedSharding(mesh, PartitionSpec()))
  return call.run([x])[0]


sharded_array_module.reshard_program_hook = reshard_program


def reshard(x, out_shardings):
  """``x`` laid out as ``out_shardings`` (a NamedSharding/PartitionSpec or a pytree prefix):
  data moves between devices as needed."""
  return with_sharding_constraint(x, out_shardings)


def with_out_sharding(x, out_sharding):
  """``x`` laid out as ``out_sharding`` (the ``out_sharding=`` keyword of array-creating
  functions); ``x`` itself when it is None."""
  return x if out_sharding is None else reshard(x, out_sharding)


def auto_axes(fun=None, *, axes=None, out_sharding=None):
  """``fun`` run with the mesh axes ``axes`` (all when None) in Auto mode, so the compiler picks
  how values are laid out over them; the results are then resharded to ``out_sharding`` (given
  here or as a keyword of the call)."""
  if fun is None:
    return lambda f: auto_axes(f, axes=axes, out_sharding=out_sharding)
  return _with_axis_types(fun, AxisType.Auto, axes, out_sharding=out_sharding)


def explicit_axes(fun=None, *, axes=None, in_sharding=None):
  """``fun`` run with the mesh axes ``axes`` (all when None) in Explicit mode, its arguments
  first resharded to ``in_sharding`` (given here or as a keyword of the call)."""
  if fun is None:
    return lambda f: explicit_axes(f, axes=axes, in_sharding=in_sharding)
  return _with_axis_types(fun, AxisType.Explicit, axes, in_sharding=in_sharding)


def _with_axis_types(fun, axis_type, axes, *, in_sharding=None, out_sharding=None):
  import functools

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    in_spec = kwargs.pop("in_sharding", in_sharding)
    out_spec = kwargs.pop("out_sharding", out_sharding)
    if axis_type == AxisType.Auto and out_spec is None:
      raise TypeError(f"auto_axes: {getattr(fun, '__name__', fun)} needs `out_sharding=` (how "
                      f"the results are laid out on leaving the Auto axes)")
    if axis_type == AxisType.Explicit and in_spec is None:
      raise TypeError(f"explicit_axes: {getattr(fun, '__name__', fun)} needs `in_sharding=` (how "
                      f"the arguments are laid out on entering the Explicit axes)")
    mesh = get_abstract_mesh()
    if mesh.empty:
      raise ValueError("auto_axes/explicit_axes need a mesh: use `jax.set_mesh(mesh)` first")
    with use_abstract_mesh(with_axis_types(mesh, axis_type, axes)):
      if in_spec is not None:
        args = reshard(args, in_spec if not isinstance(in_spec, list) else tuple(in_spec))
      out = fun(*args, **kwargs)
    if out_spec is not None:
      out = reshard(out, out_spec)
    return out
  return wrapped


def _flat_shardings(shardings, tree, what: str) -> list:
  is_leaf = lambda s: s is None or isinstance(s, (NamedSharding, PartitionSpec))
  if is_leaf(shardings):
    return [shardings] * tree.num_leaves
  prefix_leaves, prefix_def = tree_util.tree_flatten(shardings, is_leaf)
  try:
    subtrees = prefix_def.flatten_up_to(tree_util.tree_unflatten(tree, [0] * tree.num_leaves))
  except (ValueError, TypeError) as exc:
    raise ValueError(f"{what}: the shardings must be a pytree prefix of the values: {exc}") from None
  out = []
  for s, sub in zip(prefix_leaves, subtrees):
    out.extend([s] * tree_util.tree_structure(sub).num_leaves)
  return out


def constrain_function(fun, in_shardings, out_shardings):
  """``fun`` with its positional arguments and results constrained to the given shardings
  (how ``jit(in_shardings=, out_shardings=)`` is built)."""
  import functools

  @functools.wraps(fun)
  def constrained(*args, **kwargs):
    if in_shardings is not None:
      shardings = in_shardings
      if isinstance(shardings, list):
        shardings = tuple(shardings)
      if not isinstance(shardings, tuple) or isinstance(shardings, PartitionSpec):
        shardings = (shardings,) * len(args)
      args = tuple(with_sharding_constraint(a, s) if _is_traced(a) else a
                   for a, s in zip(args, shardings))
    out = fun(*args, **kwargs)
    if out_shardings is not None:
      out = with_sharding_constraint(out, out_shardings)
    return out

  return constrained


def _is_traced(x) -> bool:
  return any(isinstance(leaf, core.Tracer) for leaf in tree_util.tree_leaves(x))


# ---------------------------------------------------------------------------
# Which jaxprs need an SPMD program


_mesh_cache: dict = {}


def jaxpr_mesh(jaxpr: Jaxpr):
  """The mesh a jaxpr's shard_maps and sharding constraints use (None if it has none)."""
  key = id(jaxpr)
  cached = _mesh_cache.get(key)
  if cached is not None and cached[0] is jaxpr:
    return cached[1]
  mesh = None
  for eqn in jaxpr.eqns:
    name = eqn.primitive.name
    if name == "shard_map":
      mesh = eqn.params["mesh"]
    elif eqn.primitive is sharding_constraint_p:
      mesh = eqn.params["sharding"].mesh
    else:
      for sub in ir._subjaxprs_of_params(eqn.params):
        mesh = jaxpr_mesh(sub) or mesh
    if mesh is not None:
      break
  _mesh_cache[key] = (jaxpr, mesh)
  return mesh


def named_from_hlo(mesh, hlo, ndim: int) -> NamedSharding | None:
  """The NamedSharding over ``mesh`` whose XLA tiling is ``hlo`` (None if there is none)."""
  tiling = client.hlo_tiling(hlo)
  if tiling is None:
    return NamedSharding(mesh, PartitionSpec())
  names = list(mesh.axis_names)
  # each mesh axis: unused (-1), unreduced (-2, when XLA's sharding has such a subgroup) or
  # splitting a dimension
  first = -2 if "unreduced" in tiling[2] else -1
  for choice in itertools.product(range(first, ndim), repeat=len(names)):
    per_dim = [[names[i] for i, d in enumerate(choice) if d == dim] for dim in range(ndim)]
    unreduced = frozenset(names[i] for i, d in enumerate(choice) if d == -2)
    for orders in itertools.product(*[list(itertools.permutations(p)) for p in per_dim]):
      parts = [None if not o else (o[0] if len(o) == 1 else tuple(o)) for o in orders]
      spec = PartitionSpec(*parts, unreduced=unreduced)
      if tiling_for(mesh, spec, ndim) == tiling:
        while parts and parts[-1] is None:
          parts.pop()
        return NamedSharding(mesh, PartitionSpec(*parts, unreduced=unreduced))
  return None


class SpmdJitCall:
  """A jitted function's program over a mesh, compiled once per layout of its arguments."""

  def __init__(self, closed: ClosedJaxpr, name: str, mesh, donated=(), out_shardings=None):
    self.fixed_out_shardings = out_shardings  # NamedShardings (or None: XLA's choice) per result
    self.closed = closed
    self.name = name
    self.mesh = mesh
    self.in_avals = tuple(closed.in_avals)
    self.out_avals = tuple(closed.out_avals)
    self.donated = tuple(donated)
    self._variants: dict = {}
    self.text = None
    self.executable = None

  def _input_specs(self, leaves) -> tuple:
    specs = []
    for leaf in leaves:
      if isinstance(leaf, ShardedArray) and leaf._sharding.mesh == self.mesh:
        specs.append(leaf._sharding.spec)
      else:
        specs.append(None)
    return tuple(specs)

  def variant(self, in_specs):
    entry = self._variants.get(in_specs)
    if entry is None:
      aliases = lowering.donation_aliases(self.closed, self.donated) if self.donated else {}
      fixed = self.fixed_out_shardings or [None] * len(self.out_avals)
      out_specs = [None if s is None else s.spec for s in fixed]
      text = spmd.lower_spmd_module(self.closed, f"jit_{self.name}", self.mesh, list(in_specs),
                                    out_specs, aliases)
      executable = client.compile_spmd(
          text, self.in_avals, self.out_avals, self.mesh.flat_devices,
          propagate_to_outputs=[s is None for s in out_specs],
          propagate_to_parameters=[s is None for s in in_specs])
      in_shardings = [named_from_hlo(self.mesh, h, a.ndim)
                      for h, a in zip(executable.in_shardings, self.in_avals)]
      out_shardings = [given if given is not None else named_from_hlo(self.mesh, h, a.ndim)
                       for given, h, a in zip(fixed, executable.out_shardings, self.out_avals)]
      if any(s is None for s in in_shardings + out_shardings):
        raise NotImplementedError("XLA chose a layout that axle cannot express as a "
                                  "NamedSharding over the mesh")
      entry = self._variants[in_specs] = (text, executable, in_shardings, out_shardings,
                                          tuple(aliases))
      if self.text is None:
        self.text, self.executable = text, executable
    return entry

  def run(self, leaves) -> list:
    text, executable, in_shardings, out_shardings, aliased = self.variant(self._input_specs(leaves))
    buffers = [sharded_buffer_for(v, s, a) for v, s, a in zip(leaves, in_shardings, self.in_avals)]
    for position in aliased:
      if type(leaves[position]) is Array:
        before_donation(leaves[position])
    outs = executable.execute(buffers)
    for position in aliased:
      leaf = leaves[position]
      if isinstance(leaf, Array):
        leaf.delete() if not isinstance(leaf, ShardedArray) else None
        if isinstance(leaf, ShardedArray):
          leaf._sharded_buffer = None
          leaf._value = None
          leaf._pieces = None
          leaf._buffer = None
    return [ShardedArray.from_buffer(b, a, s) for b, a, s in zip(outs, self.out_avals,
                                                                  out_shardings)]

  run_arrays = run

  def lowered_text(self, leaves=None) -> str:
    specs = self._input_specs(leaves) if leaves is not None else (None,) * len(self.in_avals)
    return self.variant(specs)[0]


def arguments_layout(closed: ClosedJaxpr, leaves):
  """(mesh, input specs) when jit's flat arguments ``leaves`` are laid out over a mesh of
  several devices (the program then runs there); None otherwise."""
  mesh = None
  for leaf in leaves:
    if type(leaf) is ShardedArray and leaf._sharding.mesh.size > 1:
      mesh = leaf._sharding.mesh
      break
  if mesh is None:
    return None
  program_mesh = jaxpr_mesh(closed.jaxpr)
  if program_mesh is not None and program_mesh != mesh:
    return None
  specs = tuple(leaf._sharding.spec if isinstance(leaf, ShardedArray) and leaf._sharding.mesh == mesh
                else None for leaf in leaves)
  return mesh, specs


def compiled_for_layout(closed: ClosedJaxpr, name: str, layout, donated=()) -> SpmdJitCall:
  """The SPMD program of ``closed`` for arguments laid out as ``layout`` (from
  ``arguments_layout``), compiled: its ``text`` is the lowered module with the sharding
  annotations, its ``executable`` the partitioned program."""
  mesh, specs = layout
  call = SpmdJitCall(closed, name, mesh, donated)
  call.text, call.executable = call.variant(specs)[:2]
  return call


sharded_array_module.constraint_hook = lambda x, s: sharding_constraint_p.bind(x, sharding=s)


# ---------------------------------------------------------------------------
# Eager operations on arrays laid out over a mesh run there, as one program per primitive
# (XLA's propagation gives the outputs' layouts).

_eager_calls: dict = {}


_out_sharding_given = contextvars.ContextVar("axle_out_sharding_given", default=False)


@contextlib.contextmanager
def out_sharding_given():
  """Inside, contractions are not checked for an ambiguous result sharding: the caller
  reshards the result to the ``out_sharding=`` it was given."""
  token = _out_sharding_given.set(True)
  try:
    yield
  finally:
    _out_sharding_given.reset(token)


class ShardingTypeError(Exception):
  """An operation whose result's sharding (over Explicit mesh axes) is ambiguous or illegal."""


_ELEMENTWISE_BINARY = frozenset([
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter", "and", "or",
    "xor", "eq", "ne", "lt", "le", "gt", "ge", "complex", "shift_left", "shift_right_logical",
    "shift_right_arithmetic", "select_n"])


def _explicit_axes(mesh) -> set:
  types = mesh.axis_types
  current = get_abstract_mesh()
  if current.shape_tuple == mesh.abstract_mesh.shape_tuple:
    types = current.axis_types  # auto_axes/explicit_axes
  return {n for n, t in zip(mesh.axis_names, types) if t == AxisType.Explicit}


def _explicit_dims(x, ndim, explicit) -> list:
  spec = x._sharding.spec if isinstance(x, ShardedArray) else PartitionSpec()
  return [tuple(a for a in spec.axes_of(d) if a in explicit) for d in range(ndim)]


def _short_type(aval, dims) -> str:
  parts = [str(n) + ("" if not axes else "@" + (axes[0] if len(axes) == 1 else
                                                "(" + ",".join(axes) + ")"))
           for n, axes in zip(aval.shape, dims)]
  return aval.str_short().split("[")[0] + "[" + ",".join(parts) + "]"


def check_explicit_sharding(primitive, args, params, mesh) -> None:
  """JAX's sharding-in-types rules for eager operations over Explicit mesh axes: an
  elementwise operation may not use one mesh axis for two dimensions, and a contraction over
  dimensions split on both sides needs ``out_sharding=``."""
  explicit = _explicit_axes(mesh)
  if not explicit:
    return
  name = primitive.name
  if name in _ELEMENTWISE_BINARY:
    avals = [core.get_aval(x) for x in args]
    shaped = [(x, a) for x, a in zip(args, avals) if a.ndim > 0]
    if len(shaped) < 2 or len({a.shape for _, a in shaped}) != 1:
      return
    ndim = shaped[0][1].ndim
    dims_of = [_explicit_dims(x, ndim, explicit) for x, _ in shaped]
    result = []
    for d in range(ndim):
      choices = {dims[d] for dims in dims_of if dims[d]}
      if len(choices) > 1:
        raise ShardingTypeError(
            f"{name} got incompatible shardings for broadcasting: "
            + ", ".join(repr(tuple(_spec_entry(axes) for axes in dims)) for dims in dims_of)
            + ".")
      result.append(next(iter(choices)) if choices else ())
    used = [axis for axes in result for axis in axes]
    if len(used) != len(set(used)):
      inputs = ", ".join(_short_type(a, dims) for (_, a), dims in zip(shaped, dims_of))
      raise ShardingTypeError(
          f"{name} operation with inputs: {inputs} produces an illegally sharded result: "
          f"{_short_type(shaped[0][1], result)}")
  elif (name == "dot_general" and params.get("out_sharding") is None and len(args) == 2
        and not _out_sharding_given.get()):
    (lhs_contract, rhs_contract), _ = params["dimension_numbers"]
    lhs, rhs = args
    lhs_dims = _explicit_dims(lhs, core.get_aval(lhs).ndim, explicit)
    rhs_dims = _explicit_dims(rhs, core.get_aval(rhs).ndim, explicit)
    lhs_spec = tuple(_spec_entry(lhs_dims[d]) for d in lhs_contract)
    rhs_spec = tuple(_spec_entry(rhs_dims[d]) for d in rhs_contract)
    if any(e is not None for e in lhs_spec) and any(e is not None for e in rhs_spec):
      raise ShardingTypeError(
          "Contracting dimensions are sharded and it is ambiguous how the output should be "
          "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
          f"lhs_contracting_spec={lhs_spec} and rhs_contracting_spec={rhs_spec}")


def _spec_entry(axes):
  return None if not axes else axes[0] if len(axes) == 1 else axes


def _eager_sharded(primitive, args, params):
  mesh = None
  for x in args:
    if isinstance(x, ShardedArray) and x._sharding.mesh.size > 1:
      mesh = x._sharding.mesh
      break
  if mesh is None or primitive.name in ("shard_map", "sharding_constraint"):
    return None
  if any(isinstance(x, ShardedArray) and x._sharding.mesh != mesh and x._sharding.mesh.size > 1
         for x in args):
    return None
  check_explicit_sharding(primitive, args, params, mesh)
  try:
    avals = [core.get_aval(x) for x in args]
    key = (primitive, tuple(avals), tuple(params.items()), mesh)
    hash(key)
  except TypeError:
    return None
  call = _eager_calls.get(key)
  if call is None:
    try:
      out = eval_interpreter.abstract_eval(primitive, avals, params)
    except Exception:
      return None
    out_avals = list(out) if primitive.multiple_results else [out]
    invars = [ir.Var(a) for a in avals]
    outvars = [ir.Var(a) for a in out_avals]
    closed = ClosedJaxpr(Jaxpr([], invars, outvars, [ir.Eqn(invars, outvars, primitive, params)]), [])
    call = _eager_calls[key] = SpmdJitCall(closed, primitive.name, mesh)
  try:
    outs = call.run(list(args))
  except (NotImplementedError, client.XlaError):
    _eager_calls[key] = None
    return None
  return outs if primitive.multiple_results else outs[0]


eval_interpreter.sharded_hook = _eager_sharded


# ---------------------------------------------------------------------------
# Sharding in types under tracing: each staged operation's result type carries the Explicit
# mesh axes it is split over (``jax.typeof(y)`` shows ``float32[4@X,4@Y]`` inside jit), by a
# rule per primitive: elementwise operations keep their operands' layout, transpose permutes
# it, reductions drop the reduced dimensions, dot_general keeps the batch and free dimensions,
# broadcast_in_dim and reshape move it with the dimensions they keep. Operations without a rule,
# and layouts a rule cannot follow (operands split differently, a contraction split on both
# sides), give unsplit types: the values are unaffected, XLA decides the layout. (Eager
# operations on Explicit axes raise JAX's errors for the ambiguous cases: check_explicit_sharding.)

def _typed_mesh(mesh):
  """The abstract mesh a type over ``mesh`` names: the current one inside auto_axes /
  explicit_axes / use_abstract_mesh (same shape), else ``mesh``'s own."""
  abstract = mesh.abstract_mesh if isinstance(mesh, Mesh) else mesh
  current = get_abstract_mesh()
  if not current.empty and current.shape_tuple == abstract.shape_tuple:
    return current
  return abstract


def _explicit_spec(mesh, spec: PartitionSpec, ndim: int) -> PartitionSpec:
  explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t == AxisType.Explicit}
  parts = []
  for d in range(ndim):
    axes = tuple(a for a in spec.axes_of(d) if a in explicit)
    parts.append(_spec_entry(axes))
  return PartitionSpec(*parts, unreduced=spec.unreduced & explicit)


def _typed(aval, mesh, parts, unreduced=frozenset()):
  spec = PartitionSpec(*parts, unreduced=unreduced)
  if not any(p is not None for p in parts) and not unreduced:
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)
  return ShardedAval(ShapedArray(aval.shape, aval.dtype, aval.weak_type),
                     NamedSharding(mesh, spec))


def _parts_of(aval) -> list:
  sharding = aval.sharding if isinstance(aval, ShardedAval) else None
  spec = sharding.spec if sharding is not None else PartitionSpec()
  return [_spec_entry(spec.axes_of(d)) for d in range(aval.ndim)]


def _same_shape_rule(name, avals, out_avals):
  shaped = [a for a in avals if a.ndim > 0]
  if not shaped or any(o.shape != out_avals[0].shape for o in out_avals):
    return None
  shape = out_avals[0].shape
  if any(a.ndim != len(shape) or any(d not in (n, 1) for d, n in zip(a.shape, shape))
         for a in shaped):
    return None
  merged = [None] * len(shape)
  for a in shaped:
    for d, p in enumerate(_parts_of(a)):
      if p is None or a.shape[d] != shape[d]:
        continue
      if merged[d] is not None and merged[d] != p:
        return None
      merged[d] = p
  used = [axis for p in merged if p is not None for axis in (p if isinstance(p, tuple) else (p,))]
  if len(used) != len(set(used)):
    return None
  return [merged] * len(out_avals)


def _axes(entry) -> tuple:
  return () if entry is None else entry if isinstance(entry, tuple) else (entry,)


def _split_axes(axes, out_sizes, sizes):
  """``axes`` (outermost first) handed out to the dimensions ``out_sizes`` a dimension splits
  (or several merge) into, each taking axes while they divide it; None if they do not fit."""
  axes = list(axes)
  out = []
  for size in out_sizes:
    taken = []
    while size > 1 and axes:
      size, remainder = divmod(size, sizes[axes[0]])
      if remainder:
        return None
      taken.append(axes.pop(0))
    out.append(_spec_entry(tuple(taken)))
  return None if axes else out


def _reshape_parts(in_shape, out_shape, parts, sizes):
  """The result's per-dimension axes of a reshape: dimensions of size 1 come and go; a split
  dimension hands its axes to the dimensions it splits into, outermost first; merged
  dimensions give theirs (in order) to the merged one. None when the layout cannot follow."""
  if [d for d in in_shape if d != 1] == [d for d in out_shape if d != 1]:
    kept = iter(p for d, p in zip(in_shape, parts) if d != 1)
    return [None if d == 1 else next(kept) for d in out_shape]
  out = []
  i = j = 0
  while i < len(in_shape) or j < len(out_shape):
    i0, j0 = i, j
    a = in_shape[i] if i < len(in_shape) else 1
    b = out_shape[j] if j < len(out_shape) else 1
    i, j = i + 1, j + 1
    while a != b:
      if a < b:
        if i >= len(in_shape):
          return None
        a *= in_shape[i]
        i += 1
      else:
        if j >= len(out_shape):
          return None
        b *= out_shape[j]
        j += 1
    group = parts[i0:i]
    n_out = min(j, len(out_shape)) - j0
    if not any(p is not None for p in group):
      out.extend([None] * n_out)
      continue
    flat = [a for p in group for a in _axes(p)]
    entries = list(group)
    while entries and entries[-1] is None:
      entries.pop()
    if len(group) > 1 and (None in entries or (n_out > 1)):
      return None  # merging after an unsplit dimension, or many dimensions into many
    split = _split_axes(flat, out_shape[j0:j0 + n_out], sizes)
    if split is None:
      return None
    out.extend(split)
  return out if len(out) == len(out_shape) else None


def _transpose_rule(avals, params, out_avals, mesh):
  parts = _parts_of(avals[0])
  return [[parts[p] for p in params["permutation"]]]


def _reduce_rule(avals, params, out_avals, mesh):
  axes = set(params["axes"])
  return [[p for d, p in enumerate(_parts_of(avals[0])) if d not in axes]]


def _squeeze_rule(avals, params, out_avals, mesh):
  dims = {d % avals[0].ndim for d in params["dimensions"]}
  return [[p for d, p in enumerate(_parts_of(avals[0])) if d not in dims]]


def _broadcast_in_dim_rule(avals, params, out_avals, mesh):
  parts = _parts_of(avals[0])
  out = [None] * out_avals[0].ndim
  for d, od in enumerate(params["broadcast_dimensions"]):
    if avals[0].shape[d] == out_avals[0].shape[od]:
      out[od] = parts[d]
  return [out]


def _reshape_rule(avals, params, out_avals, mesh):
  sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
  return [_reshape_parts(avals[0].shape, out_avals[0].shape, _parts_of(avals[0]), sizes)]


def _dot_general_rule(avals, params, out_avals, mesh):
  given = params.get("out_sharding")
  if given is not None:
    spec = given.spec if isinstance(given, NamedSharding) else given
    return [[_spec_entry(spec.axes_of(d)) for d in range(out_avals[0].ndim)]]
  (lc, rc), (lb, rb) = params["dimension_numbers"]
  lp, rp = _parts_of(avals[0]), _parts_of(avals[1])
  batch = [lp[a] if lp[a] is not None else rp[b] for a, b in zip(lb, rb)]
  lhs_free = [lp[d] for d in range(len(lp)) if d not in lc and d not in lb]
  rhs_free = [rp[d] for d in range(len(rp)) if d not in rc and d not in rb]
  out = batch + lhs_free + rhs_free
  used = [a for p in out if p is not None for a in _axes(p)]
  return None if len(used) != len(set(used)) else [out]


def _concatenate_rule(avals, params, out_avals, mesh):
  split = [_parts_of(a) for a in avals if any(p is not None for p in _parts_of(a))]
  return [split[0] if split else _parts_of(avals[0])]


def _keep_inner_types(avals, params, out_avals, mesh):
  return None  # the results' types come from the inner jaxpr, traced with typed operands


# primitive name -> rule(operand avals, params, result avals, mesh) -> per result, its
# per-dimension mesh axes (None: leave the types unsplit). Primitives without an entry use the
# elementwise rule (operands and results of one shape, up to size-1 broadcasting).
sharding_rules: dict = {
    "transpose": _transpose_rule, "squeeze": _squeeze_rule,
    "broadcast_in_dim": _broadcast_in_dim_rule, "reshape": _reshape_rule,
    "dot_general": _dot_general_rule, "concatenate": _concatenate_rule,
    **{name: _reduce_rule for name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min",
                                        "reduce_and", "reduce_or", "reduce_xor", "argmax",
                                        "argmin")},
    **{name: _keep_inner_types for name in ("jit", "remat2", "custom_jvp_call",
                                             "custom_vjp_call", "cond", "while", "scan")},
}


def _rule_parts(primitive, avals, params, out_avals, mesh):
  rule = sharding_rules.get(primitive.name)
  if rule is not None:
    return rule(avals, params, out_avals, mesh)
  return _same_shape_rule(primitive.name, avals, out_avals)


def sharded_result_types(primitive, avals, params, out):
  """``out`` (the abstract eval's result avals) with the Explicit mesh axes the rule above
  gives them, when an operand's type is split over a mesh (or the operation lays it out)."""
  name = primitive.name
  if name == "sharding_constraint":
    sharding = params["sharding"]
    mesh = _typed_mesh(sharding.mesh)
    spec = _explicit_spec(mesh, sharding.spec, out.ndim)
    return _typed(out, mesh, list(spec)[:out.ndim] + [None] * (out.ndim - len(spec)),
                  spec.unreduced)
  if name == "shard_map":
    mesh = _typed_mesh(params["mesh"])
    typed = []
    for a, spec in zip(out, params["out_specs"]):
      spec = _explicit_spec(mesh, spec, a.ndim)
      typed.append(_typed(a, mesh, [_spec_entry(spec.axes_of(d)) for d in range(a.ndim)]))
    return typed
  if name == "axis_index":
    if params["axis_name"] in spmd.vma_axes():
      return ShardedAval(out, None, {params["axis_name"]})
    return out
  if (name == "pvary" or (_COLLECTIVE_VMA.get(name) == "add" and spmd.vma_axes())
      or any(getattr(a, "vma", None) for a in avals)):
    return _varying_types(primitive, avals, params, out)
  mesh = None
  for a in avals:
    if type(a) is ShardedAval and a.sharding is not None and not a.sharding.mesh.empty:
      mesh = a.sharding.mesh
      break
  if mesh is None:
    return out
  if any(type(a) is ShardedAval and a.sharding is not None and a.sharding.spec.unreduced
         for a in avals):
    return out  # unreduced values: XLA reduces them where needed (no typed rule here)
  outs = list(out) if primitive.multiple_results else [out]
  _check_typed_operation(name, avals, params, outs)
  try:
    parts = _rule_parts(primitive, avals, params, outs, mesh)
  except (KeyError, IndexError, TypeError, ValueError):
    return out  # parameters a rule does not expect: the types stay unsplit
  if parts is None or any(p is None for p in parts):
    return out
  typed = [_typed(o, mesh, p) if len(p) == o.ndim else o for o, p in zip(outs, parts)]
  return typed if primitive.multiple_results else typed[0]


def _type_with_axes(aval, parts) -> str:
  """``float32[8,4@X]``: the type as ``jax.typeof`` prints it."""
  dims = [str(n) + ("" if p is None else "@" + (p if isinstance(p, str) else
                                               "(" + ",".join(p) + ")"))
          for n, p in zip(aval.shape, parts)]
  return aval.dtype.name + "[" + ",".join(dims) + "]"


def _sharding_repr(aval) -> str:
  sharding = aval.sharding if isinstance(aval, ShardedAval) else None
  if sharding is None:
    return repr(PartitionSpec(*([None] * aval.ndim)))
  return repr(NamedSharding(sharding.mesh, PartitionSpec(*_parts_of(aval))))


def _check_typed_operation(name, avals, params, outs) -> None:
  """JAX's sharding-in-types errors for a traced operation over Explicit mesh axes (the types
  carry only those): operands split differently along one dimension, one mesh axis used for
  two dimensions, a contraction split on both sides, a reshape whose layout cannot follow, a
  concatenation or select of differently split operands. ``out_sharding=`` resolves the
  contraction and reshape cases."""
  if name in _ELEMENTWISE_BINARY and name != "select_n" and len(outs) == 1:
    shape = outs[0].shape
    shaped = [a for a in avals if a.ndim > 0]
    if len(shaped) < 2 or any(a.ndim != len(shape) for a in shaped):
      return
    parts_of = [_parts_of(a) for a in shaped]
    result = []
    for d in range(len(shape)):
      choices = {parts[d] for a, parts in zip(shaped, parts_of)
                 if parts[d] is not None and a.shape[d] == shape[d]}
      if len(choices) > 1:
        raise ShardingTypeError(
            f"{name} got incompatible shardings for broadcasting: "
            + ", ".join(repr(tuple(parts)) for parts in parts_of) + ".")
      result.append(next(iter(choices)) if choices else None)
    used = [axis for p in result for axis in _axes(p)]
    if len(used) != len(set(used)):
      inputs = ", ".join(_type_with_axes(a, parts).replace("float", "f", 1)
                         for a, parts in zip(shaped, parts_of))
      raise ShardingTypeError(
          f"{name} operation with inputs: {inputs} produces an illegally sharded result: "
          f"{_type_with_axes(outs[0], result).replace('float', 'f', 1)}")
  elif name == "select_n":
    # (JAX also rejects an unsplit case beside a split one; axle's broadcasts of scalars are
    # not typed as JAX's are, so only two differently split cases raise here.)
    cases = [a for a in avals[1:] if a.ndim > 0]
    if len({tuple(_parts_of(a)) for a in cases if any(p is not None for p in _parts_of(a))}) > 1:
      raise ShardingTypeError(
          "select cases must have the same shardings, got ["
          + ", ".join(_sharding_repr(a) for a in cases) + "].")
  elif name == "concatenate":
    if len({tuple(_parts_of(a)) for a in avals if any(p is not None for p in _parts_of(a))}) > 1:
      raise ShardingTypeError(
          "All operands should have the same sharding. Got shardings "
          + ", ".join(_sharding_repr(a) for a in avals))
  elif (name == "dot_general" and params.get("out_sharding") is None and len(avals) == 2
        and not _out_sharding_given.get()):
    (lhs_contract, rhs_contract), _ = params["dimension_numbers"]
    lhs_spec = tuple(_parts_of(avals[0])[d] for d in lhs_contract)
    rhs_spec = tuple(_parts_of(avals[1])[d] for d in rhs_contract)
    if any(e is not None for e in lhs_spec) and any(e is not None for e in rhs_spec):
      raise ShardingTypeError(
          "Contracting dimensions are sharded and it is ambiguous how the output should be "
          "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
          f"lhs_contracting_spec={lhs_spec} and rhs_contracting_spec={rhs_spec}")
  elif name == "reshape" and not _out_sharding_given.get() and params.get("dimensions") is None:
    parts = _parts_of(avals[0])
    if any(p is not None for p in parts):
      mesh = avals[0].sharding.mesh
      sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
      if _reshape_parts(avals[0].shape, outs[0].shape, parts, sizes) is None:
        raise ShardingTypeError(
            "This reshape is not supported. Please specify the sharding of the output via the "
            "`out_sharding` argument of jax.lax.reshape. Got operand type: "
            f"{_type_with_axes(avals[0], parts)}, new sizes: {tuple(outs[0].shape)}")


_COLLECTIVE_VMA = {"psum": "drop", "psum_invariant": "drop", "pmax": "drop", "pmin": "drop",
                   "pvary": "add", "ppermute": "add", "all_to_all": "add", "reduce_scatter": "add"}


def _varying_types(primitive, avals, params, out):
  """Inside a shard_map body: each result varies over the manual axes its operands vary over
  (``f32[3]{V:i}``); collectives over an axis make the result invariant along it (psum, pmax,
  pmin) or varying (pvary, ppermute, all_to_all, psum_scatter); all_gather keeps its
  operand's variation (as JAX's). Calls of jaxprs
  keep the types their inner jaxprs give."""
  name = primitive.name
  if name in _keep_types:
    return out
  vma = frozenset().union(*[getattr(a, "vma", frozenset()) for a in avals])
  kind = _COLLECTIVE_VMA.get(name)
  if kind is not None:
    names = params.get("axes", params.get("axis_name", ()))
    names = frozenset(n for n in (names if isinstance(names, (tuple, list)) else (names,))
                      if isinstance(n, str))
    vma = vma - names if kind == "drop" else vma | names
  outs = list(out) if primitive.multiple_results else [out]
  typed = [ShardedAval(ShapedArray(o.shape, o.dtype, o.weak_type), None, vma) if vma
           else ShapedArray(o.shape, o.dtype, o.weak_type) for o in outs]
  return typed if primitive.multiple_results else typed[0]


_keep_types = frozenset({"jit", "remat2", "custom_jvp_call", "custom_vjp_call", "cond", "while",
                         "scan", "shard_map"})


staging.sharded_types_hook = sharded_result_types
staging.sharded_type_primitives.update({"sharding_constraint", "shard_map", "axis_index",
                                        "pvary", "ppermute", "all_to_all", "reduce_scatter"})
