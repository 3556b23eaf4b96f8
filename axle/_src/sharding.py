"""Meshes and shardings (``jax.sharding``): ``Mesh``, ``AbstractMesh``, ``PartitionSpec``
(``P``), ``NamedSharding``, ``SingleDeviceSharding``, ``AxisType``; and the translation of a
NamedSharding to XLA's tiling (which piece of an array each device holds).

Logical device k of a program over a mesh is ``mesh.devices.flat[k]``: the device list, the
device assignment and the buffers of every multi-device program are built from that one order.
"""
from __future__ import annotations

import contextvars
import enum
import math
from typing import Sequence

import numpy as np

from axle._src import core
from axle._src.core import ShapedArray
from axle._src.devices import SingleDeviceSharding
from axle._src.devices import devices as _all_devices


class AxisType(enum.Enum):
  """How a mesh axis is treated by sharding-in-types: ``Auto`` (XLA decides), ``Explicit``
  (part of an array's type) or ``Manual`` (inside shard_map)."""
  Auto = enum.auto()
  Explicit = enum.auto()
  Manual = enum.auto()

  def __repr__(self):
    return self.name


class _Unconstrained:
  def __repr__(self):
    return "UNCONSTRAINED"


def _axis_set(axes, what: str) -> frozenset:
  axes = frozenset({axes} if isinstance(axes, str) else axes)
  if None in axes:
    raise ValueError(f"{what} cannot contain None. All elements in {what} should refer to the "
                     "mesh axes.")
  return axes


def _make_spec(partitions, unreduced, reduced):
  return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


class PartitionSpec(tuple):
  """How each dimension of an array is split over mesh axes: ``P('x', None)`` splits dimension
  0 over axis ``'x'`` and keeps dimension 1 whole; ``P(('x', 'y'))`` splits over both."""
  UNCONSTRAINED = _Unconstrained()

  def __new__(cls, *partitions, unreduced=frozenset(), reduced=frozenset()):
    for p in partitions:
      if not (p is None or isinstance(p, (str, tuple, list)) or p is cls.UNCONSTRAINED):
        raise TypeError(f"PartitionSpec entries must be a mesh axis name, a tuple of names or "
                        f"None; got {p!r}")
    partitions = tuple(tuple(p) if isinstance(p, list) else p for p in partitions)
    unreduced, reduced = _axis_set(unreduced, "unreduced"), _axis_set(reduced, "reduced")
    if unreduced & reduced:
      raise ValueError("`unreduced` and `reduced` argument to PartitionSpec cannot overlap. "
                       f"Got unreduced: {set(unreduced)} and reduced: {set(reduced)}")
    for part in partitions:
      for axis in part if isinstance(part, tuple) else (part,):
        for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
          if axis in axes:
            raise ValueError(f"partitions cannot overlap with {name} axes passed to "
                             f"PartitionSpec. Got partitions: {partitions} and {name} axes: "
                             f"{set(axes)}")
    spec = super().__new__(cls, partitions)
    spec.unreduced = unreduced
    spec.reduced = reduced
    return spec

  @property
  def partitions(self) -> tuple:
    """The per-dimension entries (without the unreduced/reduced axes)."""
    return tuple(self)

  def __repr__(self):
    parts = "".join(repr(p) + ", " for p in self)[:-2] + ("," if len(self) == 1 else "")
    extra = ", ".join(([f"unreduced={set(self.unreduced)!r}"] if self.unreduced else [])
                      + ([f"reduced={set(self.reduced)!r}"] if self.reduced else []))
    if not extra:
      return f"P({parts})"
    parts = "" if not parts else f"{parts} " if parts.endswith(",") else f"{parts}, "
    return f"P({parts}{extra})"

  def __reduce__(self):
    return (_make_spec, (tuple(self), self.unreduced, self.reduced))

  def __eq__(self, other):
    if isinstance(other, PartitionSpec):
      return (_strip(tuple(self)) == _strip(tuple(other)) and self.unreduced == other.unreduced
              and self.reduced == other.reduced)
    if isinstance(other, tuple):
      return not self.unreduced and not self.reduced and _strip(tuple(self)) == _strip(other)
    return NotImplemented

  def __ne__(self, other):
    result = self.__eq__(other)
    return result if result is NotImplemented else not result

  def __hash__(self):
    return hash((_strip(tuple(self)), self.unreduced, self.reduced))

  def update(self, partitions=None, unreduced=None, reduced=None) -> "PartitionSpec":
    """This spec with the given fields replaced."""
    return PartitionSpec(*(tuple(self) if partitions is None else partitions),
                         unreduced=self.unreduced if unreduced is None else unreduced,
                         reduced=self.reduced if reduced is None else reduced)

  def axes_of(self, dim: int) -> tuple:
    """The mesh axes dimension ``dim`` is split over (outermost first)."""
    if dim >= len(self):
      return ()
    p = self[dim]
    if p is None or p is self.UNCONSTRAINED:
      return ()
    return p if isinstance(p, tuple) else (p,)


def _strip(parts: tuple) -> tuple:
  parts = list(parts)
  while parts and parts[-1] is None:
    parts.pop()
  return tuple(parts)


P = PartitionSpec


def _axis_types_text(types) -> str:
  return "(" + ", ".join(t.name for t in types) + ("," if len(types) == 1 else "") + ")"


class AbstractMesh:
  """A mesh's shape and axis names without devices (``AbstractMesh((2, 4), ('x', 'y'))``)."""

  def __init__(self, axis_sizes: Sequence[int], axis_names: Sequence[str], axis_types=None,
               *, _device_kind: str | None = None):
    self._device_kind = _device_kind
    self.axis_sizes = tuple(int(s) for s in axis_sizes)
    self.axis_names = tuple(axis_names)
    if len(self.axis_sizes) != len(self.axis_names):
      raise ValueError(f"AbstractMesh: {len(self.axis_sizes)} axis sizes for "
                       f"{len(self.axis_names)} axis names")
    self.axis_types = _normalize_axis_types(axis_types, len(self.axis_names))

  @property
  def shape(self) -> dict:
    from collections import OrderedDict
    return OrderedDict(zip(self.axis_names, self.axis_sizes))

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.axis_sizes))

  @property
  def size(self) -> int:
    return math.prod(self.axis_sizes)

  @property
  def empty(self) -> bool:
    return not self.axis_names

  def __repr__(self):
    axes = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes)) or "()"
    device = (f", device_kind={self._device_kind}, num_cores=None, platform=cpu"
              if self._device_kind else "")
    return f"AbstractMesh({axes}, axis_types={_axis_types_text(self.axis_types)}{device})"

  def __eq__(self, other):
    return (isinstance(other, AbstractMesh) and not isinstance(other, Mesh)
            and self.shape_tuple == other.shape_tuple and self.axis_types == other.axis_types)

  def __hash__(self):
    return hash((self.shape_tuple, self.axis_types))


def _normalize_axis_types(axis_types, n: int) -> tuple:
  if axis_types is None:
    return (AxisType.Auto,) * n
  if isinstance(axis_types, AxisType):
    return (axis_types,) * n
  types = tuple(axis_types)
  if len(types) != n:
    raise ValueError(f"Number of axis_types ({len(types)}) must match the number of mesh axes "
                     f"({n})")
  return types


_current_mesh: contextvars.ContextVar = contextvars.ContextVar("axle_mesh", default=None)


class Mesh(AbstractMesh):
  """Devices arranged in an n-dimensional array with named axes
  (``Mesh(np.array(jax.devices()).reshape(2, 4), ('x', 'y'))``). ``with mesh:`` makes it the
  mesh that bare PartitionSpecs refer to."""

  def __init__(self, devices, axis_names, *, axis_types=None):
    if isinstance(axis_names, str):
      axis_names = (axis_names,)
    array = np.asarray(devices, dtype=object)
    if array.ndim != len(axis_names):
      raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to equal the "
                       f"length of its second argument (`axis_names`), but got devices.ndim == "
                       f"{array.ndim} and len(axis_names) == {len(axis_names)}.")
    flat = list(array.flat)
    if len(set(flat)) != len(flat):
      raise ValueError(f"Mesh: duplicate devices in {flat}")
    self.devices = array
    super().__init__(array.shape, axis_names, axis_types=axis_types)
    self._tokens = []

  @property
  def device_ids(self) -> np.ndarray:
    return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

  @property
  def flat_devices(self) -> tuple:
    return tuple(self.devices.flat)

  @property
  def local_devices(self) -> list:
    return list(self.devices.flat)

  @property
  def abstract_mesh(self) -> AbstractMesh:
    return AbstractMesh(self.axis_sizes, self.axis_names, axis_types=self.axis_types,
                        _device_kind=self.devices.flat[0].device_kind)

  def __repr__(self):
    return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={_axis_types_text(self.axis_types)})")

  def __str__(self):
    axes = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes))
    return f"Mesh({axes}, axis_types={_axis_types_text(self.axis_types)})"

  def __eq__(self, other):
    return (isinstance(other, Mesh) and self.axis_names == other.axis_names
            and self.axis_types == other.axis_types and self.devices.shape == other.devices.shape
            and all(a == b for a, b in zip(self.devices.flat, other.devices.flat)))

  def __hash__(self):
    return hash((self.axis_names, self.axis_types, self.devices.shape, tuple(self.devices.flat)))

  def __enter__(self):
    self._tokens.append(_current_mesh.set(self))
    return self

  def __exit__(self, *exc):
    _current_mesh.reset(self._tokens.pop())
    return False


def get_mesh():
  """The mesh set by ``with mesh:`` or ``set_mesh`` (None if none)."""
  return _current_mesh.get()


def get_concrete_mesh():
  return _current_mesh.get()


class set_mesh:  # noqa: N801 -- a class, as in JAX: a call sets the mesh, `with` scopes it
  """Makes ``mesh`` the current mesh (``jax.set_mesh(mesh)``), or only inside
  ``with jax.set_mesh(mesh):``."""

  def __init__(self, mesh):
    self.mesh = mesh
    self.previous = _current_mesh.get()
    _current_mesh.set(mesh)

  def __enter__(self):
    return self.mesh

  def __exit__(self, *exc):
    _current_mesh.set(self.previous)
    return False


set_mesh.__module__ = "axle._src.sharding_impls"  # where JAX's repr places it


_abstract_mesh: contextvars.ContextVar = contextvars.ContextVar("axle_abstract_mesh", default=None)


def get_abstract_mesh():
  """The abstract mesh in effect (``use_abstract_mesh``, else the current mesh's)."""
  mesh = _abstract_mesh.get()
  if mesh is not None:
    return mesh
  mesh = _current_mesh.get()
  return mesh.abstract_mesh if mesh is not None else AbstractMesh((), ())


def with_axis_types(mesh: AbstractMesh, axis_type, axes=None) -> AbstractMesh:
  """``mesh`` with ``axes`` (all when None) made ``axis_type``."""
  names = mesh.axis_names if axes is None else ((axes,) if isinstance(axes, str) else tuple(axes))
  for name in names:
    if name not in mesh.axis_names:
      raise ValueError(f"axis {name!r} is not an axis of the mesh {mesh.axis_names}")
  types = tuple(axis_type if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
  return AbstractMesh(mesh.axis_sizes, mesh.axis_names, types, _device_kind=mesh._device_kind)


class use_abstract_mesh:  # noqa: N801
  """``with use_abstract_mesh(mesh):`` makes ``mesh`` the abstract mesh inside the block."""

  def __init__(self, mesh):
    self.mesh = mesh

  def __enter__(self):
    self.token = _abstract_mesh.set(self.mesh)
    return self.mesh

  def __exit__(self, *exc):
    _abstract_mesh.reset(self.token)
    return False


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
  """A Mesh of the given shape over the first ``prod(axis_shapes)`` devices (axis types
  ``Explicit`` unless given, as in JAX 0.10.2)."""
  axis_shapes = tuple(int(s) for s in axis_shapes)
  if len(axis_shapes) != len(axis_names):
    raise ValueError(f"make_mesh: {len(axis_shapes)} axis sizes for {len(axis_names)} names")
  devices = list(devices) if devices is not None else list(_all_devices())
  count = math.prod(axis_shapes)
  if count > len(devices):
    raise ValueError(f"Number of devices {len(devices)} must be >= the product of mesh_shape "
                     f"{axis_shapes}")
  array = np.empty(count, dtype=object)
  array[:] = devices[:count]
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_shapes)
  return Mesh(array.reshape(axis_shapes), tuple(axis_names), axis_types=axis_types)


class NamedSharding:
  """An array laid out over ``mesh`` as ``spec`` says (``NamedSharding(mesh, P('x', None))``)."""

  def __init__(self, mesh, spec=PartitionSpec(), *, memory_kind: str | None = None):
    if not isinstance(spec, PartitionSpec):
      if isinstance(spec, (tuple, list)) or spec is None:
        spec = PartitionSpec(*(spec or ()))
      else:
        raise TypeError(f"NamedSharding: spec must be a PartitionSpec, got {spec!r}")
    names = set(mesh.axis_names)
    used = []
    for dim in range(len(spec)):
      for axis in spec.axes_of(dim):
        if axis not in names:
          raise ValueError(f"Resource axis: {axis} of {spec} is not found in mesh: "
                           f"{tuple(mesh.axis_names)}.")
        if axis in used:
          raise ValueError(f"A single NamedSharding spec specification can map every mesh axis "
                           f"to at most one positional dimension, but {spec} has duplicate "
                           f"entries for `{axis}`")
        used.append(axis)
    for axis in sorted(spec.unreduced | spec.reduced):
      if axis not in names:
        raise ValueError(f"Resource axis: {axis} of {spec} is not found in mesh: "
                         f"{tuple(mesh.axis_names)}.")
    self.mesh = mesh
    self.spec = spec
    self._memory_kind = memory_kind

  @property
  def memory_kind(self) -> str:
    return self._memory_kind or "device"

  @property
  def device_set(self) -> set:
    return set(self.mesh.devices.flat)

  @property
  def _device_assignment(self) -> tuple:
    return tuple(self.mesh.devices.flat)

  @property
  def num_devices(self) -> int:
    return self.mesh.size

  @property
  def is_fully_addressable(self) -> bool:
    return True

  @property
  def is_fully_replicated(self) -> bool:
    return not self.spec.unreduced and all(not self.spec.axes_of(d) or all(self.mesh.shape[a] == 1 for a in self.spec.axes_of(d))
               for d in range(len(self.spec)))

  def with_spec(self, spec) -> "NamedSharding":
    return NamedSharding(self.mesh, spec, memory_kind=self._memory_kind)

  def update(self, **kwargs) -> "NamedSharding":
    """This sharding with ``mesh=``, ``spec=`` or ``memory_kind=`` replaced."""
    unknown = set(kwargs) - {"mesh", "spec", "memory_kind"}
    if unknown:
      raise TypeError(f"NamedSharding.update: unexpected keyword(s) {sorted(unknown)}; "
                      "expected mesh=, spec= or memory_kind=")
    return NamedSharding(kwargs.get("mesh", self.mesh), kwargs.get("spec", self.spec),
                         memory_kind=kwargs.get("memory_kind", self._memory_kind))

  def __repr__(self):
    if not isinstance(self.mesh, Mesh):
      return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"
    return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}, memory_kind={self.memory_kind})"

  def __eq__(self, other):
    return isinstance(other, NamedSharding) and self.mesh == other.mesh and self.spec == other.spec

  def __hash__(self):
    return hash((self.mesh, self.spec))

  # -- layout -------------------------------------------------------------------
  def tiling(self, ndim: int):
    """(tile dims, logical device order, last dim replicated) for an array of rank ``ndim``;
    None when fully replicated."""
    if len(self.spec) > ndim:
      raise ValueError(f"One of pjit arguments was given the sharding of {self}, which implies "
                       f"that it has a rank of at least {len(self.spec)}, but it is {ndim}")
    return tiling_for(self.mesh, self.spec, ndim)

  def shard_shape(self, shape: Sequence[int]) -> tuple:
    """The shape of each device's piece of an array of ``shape`` (raises IndivisibleError-like
    ValueError when a dimension does not divide)."""
    return shard_shape(self.mesh, self.spec, tuple(shape), self)

  def devices_indices_map(self, shape: Sequence[int]) -> dict:
    """{device: tuple of slices} of the piece each device holds."""
    indices = shard_indices(self.mesh, self.spec, tuple(shape))
    return dict(zip(self.mesh.devices.flat, indices))

  def addressable_devices_indices_map(self, shape):
    return self.devices_indices_map(shape)


def tiling_for(mesh, spec: PartitionSpec, ndim: int):
  """(tile dims, logical device order, kinds of the trailing subgroup dims) of ``spec`` over
  ``mesh`` for rank ``ndim``: the subgroup kinds are ``("unreduced",)`` (one more tile dim over
  the unreduced axes) and/or ``("replicated",)`` (over the unused axes), in XLA's order.
  None when fully replicated."""
  names = list(mesh.axis_names)
  sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
  order, tile_dims = [], []
  for dim in range(ndim):
    axes = spec.axes_of(dim)
    order.extend(names.index(a) for a in axes)
    tile_dims.append(math.prod(sizes[a] for a in axes))
  kinds = []
  unreduced = [i for i, n in enumerate(names) if n in spec.unreduced]
  if unreduced:
    order.extend(unreduced)
    tile_dims.append(math.prod(mesh.axis_sizes[i] for i in unreduced))
    kinds.append("unreduced")
  unused = [i for i in range(len(names)) if i not in order]
  replicated = math.prod(mesh.axis_sizes[i] for i in unused)
  if math.prod(tile_dims) == 1:
    return None
  logical = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(order + unused).reshape(-1)
  if replicated > 1:
    tile_dims.append(replicated)
    kinds.append("replicated")
  return tuple(tile_dims), tuple(int(i) for i in logical), tuple(kinds)


class IndivisibleError(ValueError):
  """A sharding splits a dimension into pieces that do not divide it."""


def shard_shape(mesh, spec: PartitionSpec, shape: tuple, sharding=None) -> tuple:
  out = []
  sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
  factors = [math.prod(sizes[a] for a in spec.axes_of(d)) for d in range(len(shape))]
  for dim, (size, factor) in enumerate(zip(shape, factors)):
    if size % factor:
      raise IndivisibleError(
          f"Sharding {sharding if sharding is not None else NamedSharding(mesh, spec)} implies "
          f"that array axis {dim} is partitioned {factor} times, but the dimension size is "
          f"{size} (full shape: {shape}, per-dimension tiling factors: {factors} should evenly "
          "divide the shape)")
    out.append(size // factor)
  return tuple(out)


def shard_indices(mesh, spec: PartitionSpec, shape: tuple) -> list:
  """For each logical device (flat mesh order), the tuple of slices of its piece."""
  piece = shard_shape(mesh, spec, shape)
  coords = np.indices(mesh.axis_sizes).reshape(len(mesh.axis_sizes), -1).T
  names = list(mesh.axis_names)
  result = []
  for coord in coords:
    index = []
    for dim in range(len(shape)):
      axes = spec.axes_of(dim)
      if not axes:
        index.append(slice(None))
        continue
      block = 0
      for axis in axes:
        block = block * mesh.axis_sizes[names.index(axis)] + int(coord[names.index(axis)])
      index.append(slice(block * piece[dim], (block + 1) * piece[dim]))
    result.append(tuple(index))
  return result


def replica_ids(mesh, spec: PartitionSpec) -> list:
  """For each logical device, which copy of its piece it holds (0 for the first)."""
  used = {a for d in range(len(spec)) for a in spec.axes_of(d)}
  names = list(mesh.axis_names)
  unused = [i for i, n in enumerate(names) if n not in used]
  coords = np.indices(mesh.axis_sizes).reshape(len(names), -1).T
  out = []
  for coord in coords:
    r = 0
    for i in unused:
      r = r * mesh.axis_sizes[i] + int(coord[i])
    out.append(r)
  return out


def sdy_sharding_text(spec: PartitionSpec, ndim: int, mesh_symbol: str = "@mesh",
                      mesh=None) -> str:
  """``<@mesh, [{"x"}, {}]>`` (Shardy's per-dimension axes; ``, unreduced={"y"}`` after them,
  in ``mesh``'s axis order)."""
  dims = []
  for d in range(ndim):
    axes = spec.axes_of(d)
    dims.append("{" + ", ".join(f'"{a}"' for a in axes) + "}")
  extra = ""
  if spec.unreduced:
    names = list(mesh.axis_names) if mesh is not None else sorted(spec.unreduced)
    extra = ", unreduced={" + ", ".join(f'"{a}"' for a in names if a in spec.unreduced) + "}"
  return f"<{mesh_symbol}, [{', '.join(dims)}]{extra}>"


def sdy_mesh_text(mesh) -> str:
  axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes))
  return f"<[{axes}]>"


def canonical_sharding(sharding, ndim: int):
  """A NamedSharding for any sharding axle understands (SingleDeviceSharding included)."""
  if isinstance(sharding, NamedSharding):
    return sharding
  if isinstance(sharding, SingleDeviceSharding):
    device = next(iter(sharding.device_set))
    array = np.empty(1, dtype=object)
    array[0] = device
    return NamedSharding(Mesh(array, ("_single",)), PartitionSpec())
  raise TypeError(f"unsupported sharding {sharding!r}")


class ShardedAval(ShapedArray):
  """What ``jax.typeof`` shows for an array laid out over a mesh: the shape and dtype with each
  dimension's Explicit mesh axes (``float32[8@X,4@Y]``), and inside shard_map the axes a value
  may vary over (``float32[3]{V:i}``)."""
  __slots__ = ("sharding", "vma")

  def __init__(self, aval, *args, **kwargs):
    if not isinstance(aval, ShapedArray):
      # Built by ``ShapedArray(shape, dtype, ..., sharding=...)``, whose ``__new__`` filled it in.
      return
    sharding = args[0] if args else kwargs.get("sharding")
    vma = args[1] if len(args) > 1 else kwargs.get("vma", frozenset())
    super().__init__(aval.shape, aval.dtype, aval.weak_type)
    self.sharding = sharding
    self.vma = frozenset(vma)

  def str_short(self, short_dtypes: bool = True) -> str:
    """``f32[8@X,4@Y]`` (each dimension's Explicit mesh axes), ``{U:Y}`` for unreduced axes and
    ``{V:i}`` for the axes a value inside shard_map may vary over."""
    dims = []
    for i, d in enumerate(self.shape):
      text = str(d)
      if self.sharding is not None:
        mesh = self.sharding.mesh
        explicit = [a for a in self.sharding.spec.axes_of(i)
                    if mesh.axis_types[list(mesh.axis_names).index(a)] == AxisType.Explicit]
        if explicit:
          text += "@" + (explicit[0] if len(explicit) == 1 else "(" + ",".join(explicit) + ")")
      dims.append(text)
    name = super().str_short(short_dtypes).split("[")[0]
    text = f"{name}[{','.join(dims)}]"
    unreduced = self.sharding.spec.unreduced if self.sharding is not None else ()
    if unreduced:
      names = [a for a in self.sharding.mesh.axis_names if a in unreduced]
      text += "{U:" + (names[0] if len(names) == 1 else "(" + ",".join(names) + ")") + "}"
    if self.vma:
      names = sorted(self.vma)
      text += "{V:" + (names[0] if len(names) == 1 else "(" + ",".join(names) + ")") + "}"
    return text

  def __str__(self):
    return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"

  def update(self, shape=None, dtype=None, weak_type=None, **kwargs) -> ShapedArray:
    """A copy with some fields replaced; ``sharding=``/``vma=`` keep this type's unless given."""
    if not kwargs:
      return super().update(shape, dtype, weak_type)
    sharding = kwargs.pop("sharding", self.sharding)
    vma = kwargs.pop("vma", self.vma)
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type,
                       sharding=sharding, vma=vma, **kwargs)


def _trivial_sharding(ndim: int) -> NamedSharding:
  return NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * ndim))


core.trivial_sharding = _trivial_sharding
core.sharded_aval = ShardedAval
