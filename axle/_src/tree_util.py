"""Pytrees: the registry of container types, flatten/unflatten, key paths, and the tree utilities.

A pytree is a nested structure of registered container nodes (tuple, list, dict, None,
namedtuple, OrderedDict, defaultdict and user-registered classes) whose non-container
values are *leaves*. ``tree_flatten`` turns a pytree into its leaves and a ``PyTreeDef``
describing the structure; ``tree_unflatten`` rebuilds a pytree from a ``PyTreeDef`` and
leaves. Class hierarchy is ignored: a subclass of ``dict`` is a leaf unless registered itself
(namedtuples are the exception: any tuple subclass with ``_fields`` is a namedtuple node).

Flattening sits on every ``jit`` call's path, so the hot functions here avoid per-call
closures and use a type-keyed dispatch table with fast paths for the builtin containers.

Internally a structure is a tree of *nodes*. A leaf is ``None`` (the Python object ``None``
as a pytree is a node with no children). Every other node is a 4-tuple
``(node_type, node_data, children, num_leaves)``: ``node_data`` is the hashable metadata that
must match for two structures to be equal (sorted keys for a dict, the aux data of a custom
node), ``children`` a tuple of nodes. Tuples make equality and hashing of whole structures a
single C-level comparison.
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import sys
import textwrap
import threading
from typing import Any, Callable, Hashable, Iterable, Sequence, TypeVar

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
    "SequenceKey", "all_leaves", "default_registry", "flatten_one_level",
    "flatten_one_level_with_keys", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path", "tree_map",
    "tree_map_with_path", "tree_reduce", "tree_reduce_associative", "tree_structure",
    "tree_transpose", "tree_unflatten", "treedef_children", "treedef_is_leaf", "treedef_tuple",
]

T = TypeVar("T")
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]
_NoneType = type(None)
_OrderedDict = collections.OrderedDict
_defaultdict = collections.defaultdict


# ---------------------------------------------------------------------------
# Key path entries


class _KeyEntry:
  """A read-only key-path entry holding one value, exposed under the name ``_field``."""
  __slots__ = ("_value",)
  _field = ""
  _value_type: type | None = None  # when set, the value must be an instance of it
  _type_hint = ""

  def __init__(self, value):
    if self._value_type is not None and not isinstance(value, self._value_type):
      raise TypeError(f"{type(self).__name__}({self._field}) expects {self._type_hint}, got "
                      f"{type(value).__name__} {value!r}.")
    object.__setattr__(self, "_value", value)

  def __setattr__(self, name, value):
    raise AttributeError(f"property of '{type(self).__name__}' object has no setter")

  def __repr__(self):
    return f"{type(self).__name__}({self._field}={self._value!r})"

  def __eq__(self, other):
    return type(other) is type(self) and self._value == other._value

  def __hash__(self):
    return hash(self._value)

  def __reduce__(self):
    return type(self), (self._value,)


class SequenceKey(_KeyEntry):
  """Key-path entry for the ``idx``-th child of a list, tuple or other sequence node."""
  __slots__ = ()
  __match_args__ = ("idx",)
  _field, _value_type, _type_hint = "idx", int, "an int index"
  idx = property(lambda self: self._value)

  def __str__(self):
    return f"[{self._value!r}]"


class DictKey(_KeyEntry):
  """Key-path entry for the child of a dict-like node stored under ``key``."""
  __slots__ = ()
  __match_args__ = ("key",)
  _field = "key"
  key = property(lambda self: self._value)

  def __str__(self):
    return f"[{self._value!r}]"


class GetAttrKey(_KeyEntry):
  """Key-path entry for the child of a node stored as attribute ``name`` (namedtuples, dataclasses)."""
  __slots__ = ()
  __match_args__ = ("name",)
  _field, _value_type, _type_hint = "name", str, "a str attribute name"
  name = property(lambda self: self._value)

  def __str__(self):
    return f".{self._value}"


class FlattenedIndexKey(_KeyEntry):
  """Key-path entry for the ``key``-th child of a custom node registered without keys."""
  __slots__ = ()
  __match_args__ = ("key",)
  _field, _value_type, _type_hint = "key", int, "an int index"
  key = property(lambda self: self._value)

  def __str__(self):
    return f"[<flat index {self._value}>]"


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
  """Joins a key path into a string, e.g. ``"['foo'][0].bar"``.

  Args:
    keys: a tuple of key entries (``SequenceKey``, ``DictKey``, ``GetAttrKey``,
      ``FlattenedIndexKey``) or any objects convertible with ``str``.
    simple: if True, each entry is written as its bare index/key/name (``foo/0/bar``), which is
      more compact but ambiguous.
    separator: the string placed between entries.
  """
  if simple:
    return separator.join(map(_simple_entrystr, keys))
  return separator.join(map(str, keys))


def _simple_entrystr(key) -> str:
  t = type(key)
  if t is SequenceKey:
    return str(key.idx)
  if t is DictKey or t is FlattenedIndexKey:
    return str(key.key)
  if t is GetAttrKey:
    return key.name
  return str(key)


# ---------------------------------------------------------------------------
# The registry

# Node kinds; LEAF must stay 0 (tested first on the hot path).
_LEAF, _TUPLE, _LIST, _DICT, _NONE, _NAMEDTUPLE, _CUSTOM = range(7)


class _NodeSpec:
  """How one registered node type flattens and unflattens."""
  __slots__ = ("flatten", "unflatten", "flatten_with_keys", "is_dataclass", "data_fields")

  def __init__(self, flatten, unflatten, flatten_with_keys=None, is_dataclass=False,
               data_fields=()):
    self.flatten = flatten
    self.unflatten = unflatten
    self.flatten_with_keys = flatten_with_keys
    self.is_dataclass = is_dataclass
    self.data_fields = data_fields


_BUILTIN_KINDS = {tuple: _TUPLE, list: _LIST, dict: _DICT, _NoneType: _NONE}
# Custom node types, including the builtin OrderedDict/defaultdict and Partial.
_registry: dict[type, _NodeSpec] = {}
# type -> kind, memoised for every type seen (leaf types included); cleared on registration.
_kinds: dict[type, int] = dict(_BUILTIN_KINDS)
_kinds_get = _kinds.get  # _kinds is only ever mutated in place, so this stays valid


def _kind_of_type(t: type) -> int:
  kind = _kinds.get(t)
  if kind is None:
    if t in _registry:
      kind = _CUSTOM
    elif issubclass(t, tuple) and hasattr(t, "_fields"):
      kind = _NAMEDTUPLE
    else:
      kind = _LEAF
    _kinds[t] = kind
  return kind


def _check_new_registration(nodetype, dataclass: bool = False):
  if not isinstance(nodetype, type):
    raise TypeError(f"A pytree node type must be a class, got {nodetype!r} of type "
                    f"{type(nodetype).__name__}.")
  if nodetype in _registry or nodetype in _BUILTIN_KINDS:
    kind = "dataclass " if dataclass else ""
    raise ValueError(f"Duplicate custom {kind}PyTreeDef type registration for {nodetype}.")


def _add_to_registry(nodetype, spec: _NodeSpec):
  _registry[nodetype] = spec
  _kinds.clear()
  _kinds.update(_BUILTIN_KINDS)


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
  """Registers ``nodetype`` as a pytree node (a container) rather than a leaf.

  Args:
    nodetype: the class to register.
    flatten_func: ``x -> (children, aux_data)``; ``children`` is an iterable of the node's
      child pytrees, ``aux_data`` hashable metadata compared when checking structures equal.
    unflatten_func: ``(aux_data, children) -> x``, the inverse of ``flatten_func``.
    flatten_with_keys_func: optional ``x -> (((key, child), ...), aux_data)`` used by the
      ``*_with_path`` functions; without it children get ``FlattenedIndexKey`` keys.

  Registering the same type twice raises ``ValueError``.
  """
  _check_new_registration(nodetype)
  _add_to_registry(nodetype, _NodeSpec(flatten_func, unflatten_func, flatten_with_keys_func))


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable, flatten_func: Callable | None = None):
  """Registers ``nodetype`` as a pytree node whose children have key-path entries.

  Args:
    nodetype: the class to register.
    flatten_with_keys: ``x -> (((key, child), ...), aux_data)``.
    unflatten_func: ``(aux_data, children) -> x``.
    flatten_func: optional faster ``x -> (children, aux_data)`` for paths that do not need keys;
      derived from ``flatten_with_keys`` when omitted.
  """
  if flatten_func is None:
    def flatten_func(x):
      key_children, aux = flatten_with_keys(x)
      return [child for _, child in key_children], aux
  register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
  """Class decorator: registers ``cls`` using its ``tree_flatten`` method and ``tree_unflatten``
  classmethod. Returns ``cls``."""
  register_pytree_node(cls, _call_tree_flatten, cls.tree_unflatten)
  return cls


def register_pytree_with_keys_class(cls):
  """Class decorator: registers ``cls`` using its ``tree_flatten_with_keys`` method (and
  ``tree_flatten`` if defined) and ``tree_unflatten`` classmethod. Returns ``cls``."""
  flatten_func = _call_tree_flatten if hasattr(cls, "tree_flatten") else None
  register_pytree_with_keys(cls, _call_tree_flatten_with_keys, cls.tree_unflatten, flatten_func)
  return cls


def _call_tree_flatten(x):
  return x.tree_flatten()


def _call_tree_flatten_with_keys(x):
  return x.tree_flatten_with_keys()


def register_dataclass(nodetype, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()):
  """Registers a dataclass-like type as a pytree node whose children are its data fields.

  Usable as a decorator on a ``dataclasses.dataclass`` (fields whose metadata has
  ``static=True``, e.g. from ``axle.tree.static()``, become meta fields, all others data
  fields) or called with explicit ``data_fields`` and ``meta_fields``. Data fields are the
  node's children (leaves or subtrees); meta fields are static metadata that is part of the
  tree structure and must be hashable. Unflattening calls ``nodetype(**fields)``. For a
  dataclass, every ``init=True`` field must be a data or meta field unless listed in
  ``drop_fields``. Returns ``nodetype``.
  """
  if data_fields is None and meta_fields is None:
    if not dataclasses.is_dataclass(nodetype):
      raise TypeError("register_dataclass: data_fields and meta_fields are required when "
                      f"nodetype is not a dataclass. Got nodetype={nodetype!r}.")
    data_fields = [f.name for f in dataclasses.fields(nodetype)
                   if not f.metadata.get("static", False)]
    meta_fields = [f.name for f in dataclasses.fields(nodetype)
                   if f.metadata.get("static", False)]
  elif data_fields is None or meta_fields is None:
    raise TypeError("register_dataclass: data_fields and meta_fields must both be specified "
                    f"when either is specified. Got data_fields={data_fields!r} "
                    f"meta_fields={meta_fields!r}.")
  data_fields = tuple(data_fields)
  meta_fields = tuple(meta_fields)
  if dataclasses.is_dataclass(nodetype):
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
    init_fields.difference_update(drop_fields)
    given = set(data_fields) | set(meta_fields)
    if given != init_fields:
      msg = ("data_fields and meta_fields must include all dataclass fields with ``init=True`` "
             "and only them.")
      if init_fields - given:
        msg += (f" Missing fields: {init_fields - given}. Add them to drop_fields to suppress "
                "this error.")
      if given - init_fields:
        msg += f" Unexpected fields: {given - init_fields}."
      raise ValueError(msg)
  _check_new_registration(nodetype, dataclass=True)

  def flatten(x):
    return ([getattr(x, name) for name in data_fields],
            tuple(getattr(x, name) for name in meta_fields))

  def flatten_with_keys(x):
    return ([(GetAttrKey(name), getattr(x, name)) for name in data_fields],
            tuple(getattr(x, name) for name in meta_fields))

  def unflatten(meta, data):
    kwargs = dict(zip(meta_fields, meta))
    kwargs.update(zip(data_fields, data))
    return nodetype(**kwargs)

  _add_to_registry(nodetype, _NodeSpec(flatten, unflatten, flatten_with_keys, is_dataclass=True,
                                       data_fields=data_fields))
  return nodetype


def static(**kwargs):
  """A ``dataclasses.field`` marked ``static=True``: a meta field for ``register_dataclass``.

  Takes the same arguments as ``dataclasses.field``.
  """
  metadata = {"static": True}
  metadata.update(kwargs.pop("metadata", None) or {})
  return dataclasses.field(metadata=metadata, **kwargs)


def register_static(cls):
  """Registers ``cls`` as a pytree node with no children whose instances are pure metadata.

  Instances must be hashable and comparable; they become part of the tree structure (so a
  ``jit``-compiled function retraces when they change). Returns ``cls``.
  """
  register_pytree_node(cls, _flatten_static, _unflatten_static)
  return cls


def _flatten_static(x):
  return (), x


def _unflatten_static(aux, children):
  return aux


def _flatten_ordereddict(x):
  return list(x.values()), tuple(x.keys())


def _flatten_ordereddict_with_keys(x):
  return [(DictKey(k), v) for k, v in x.items()], tuple(x.keys())


def _unflatten_ordereddict(keys, values):
  return _OrderedDict(zip(keys, values))


def _sorted_keys(d) -> list:
  try:
    return sorted(d)
  except Exception:
    raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from None


def _flatten_defaultdict(x):
  keys = _sorted_keys(x)
  return [x[k] for k in keys], (x.default_factory, tuple(keys))


def _flatten_defaultdict_with_keys(x):
  keys = _sorted_keys(x)
  return [(DictKey(k), x[k]) for k in keys], (x.default_factory, tuple(keys))


def _unflatten_defaultdict(data, values):
  default_factory, keys = data
  return _defaultdict(default_factory, zip(keys, values))


register_pytree_node(_OrderedDict, _flatten_ordereddict, _unflatten_ordereddict,
                     _flatten_ordereddict_with_keys)
register_pytree_node(_defaultdict, _flatten_defaultdict, _unflatten_defaultdict,
                     _flatten_defaultdict_with_keys)


# Trees deeper than the recursion limit are walked on a helper thread with this limit and stack
# (about 5 KiB of C stack per Python frame: a deeper tree raises RecursionError, never crashes).
_DEEP_RECURSION_LIMIT = 200_000
_DEEP_STACK_BYTES = 1 << 30
_deep_lock = threading.Lock()


def _deep(fn, *args):
  """``fn(*args)`` for a tree too deep for the interpreter's recursion limit (thousands of
  levels): run again on a thread with a large stack and a raised recursion limit.
  ``fn`` must be safe to run twice (the traversals here only read the tree)."""
  result, error = [], []

  def run():
    try:
      result.append(fn(*args))
    except BaseException as exc:  # re-raised in the caller's thread
      error.append(exc)

  with _deep_lock:
    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(max(old_limit, _DEEP_RECURSION_LIMIT))
    try:
      threading.stack_size(_DEEP_STACK_BYTES)
      thread = threading.Thread(target=run, name="axle-deep-pytree")
      thread.start()
      thread.join()
    finally:
      threading.stack_size(old_stack)
      sys.setrecursionlimit(old_limit)
  if error:
    raise error[0]
  return result[0]


def is_tree_node(typ: type) -> bool:
  """Whether instances of ``typ`` are pytree nodes (containers) rather than leaves."""
  return _kind_of_type(typ) != _LEAF


# ---------------------------------------------------------------------------
# Flattening


def _flatten(x, leaves: list):
  """Appends the leaves of ``x`` to ``leaves``; returns its node."""
  # Explicit loops, not comprehensions: on Python 3.11 a comprehension is a nested function
  # (a closure over ``leaves``), which costs more than the loop body here.
  t = type(x)
  kind = _kinds_get(t)
  if kind is None:
    kind = _kind_of_type(t)
  if kind == _LEAF:
    leaves.append(x)
    return None
  start = len(leaves)
  children = []
  if kind == _TUPLE or kind == _LIST:
    for c in x:
      if _kinds_get(type(c)) == _LEAF:  # known leaf type: skip the recursive call
        leaves.append(c)
        children.append(None)
      else:
        children.append(_flatten(c, leaves))
    return (t, None, tuple(children), len(leaves) - start)
  if kind == _DICT:
    try:
      keys = sorted(x)
    except Exception:
      raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from None
    for k in keys:
      c = x[k]
      if _kinds_get(type(c)) == _LEAF:
        leaves.append(c)
        children.append(None)
      else:
        children.append(_flatten(c, leaves))
    return (dict, tuple(keys), tuple(children), len(leaves) - start)
  if kind == _NONE:
    return _NONE_NODE
  if kind == _NAMEDTUPLE:
    child_values, aux = x, None
  else:
    child_values, aux = _registry[t].flatten(x)
  for c in child_values:
    children.append(_flatten(c, leaves))
  return (t, aux, tuple(children), len(leaves) - start)


def _flatten_is_leaf(x, leaves: list, is_leaf):
  """``_flatten`` where ``is_leaf(subtree)`` returning True stops the recursion."""
  if is_leaf(x):
    leaves.append(x)
    return None
  t = type(x)
  kind = _kinds.get(t)
  if kind is None:
    kind = _kind_of_type(t)
  if kind == _LEAF:
    leaves.append(x)
    return None
  start = len(leaves)
  if kind == _DICT:
    keys = _sorted_keys(x)
    return (dict, tuple(keys), tuple([_flatten_is_leaf(x[k], leaves, is_leaf) for k in keys]),
            len(leaves) - start)
  if kind == _NONE:
    return _NONE_NODE
  if kind == _CUSTOM:
    child_values, aux = _registry[t].flatten(x)
  else:
    child_values, aux = x, None
  return (t, aux, tuple([_flatten_is_leaf(c, leaves, is_leaf) for c in child_values]),
          len(leaves) - start)


_NONE_NODE = (_NoneType, None, (), 0)


def _children_with_keys(x, kind: int, t: type):
  """``(keys, children, node_data)`` of a node (not a leaf) ``x``."""
  if kind == _TUPLE or kind == _LIST:
    return [SequenceKey(i) for i in range(len(x))], x, None
  if kind == _DICT:
    keys = _sorted_keys(x)
    return [DictKey(k) for k in keys], [x[k] for k in keys], tuple(keys)
  if kind == _NONE:
    return (), (), None
  if kind == _NAMEDTUPLE:
    return [GetAttrKey(f) for f in t._fields], x, None
  spec = _registry[t]
  if spec.flatten_with_keys is not None:
    key_children, aux = spec.flatten_with_keys(x)
    key_children = list(key_children)
    return [k for k, _ in key_children], [c for _, c in key_children], aux
  children, aux = spec.flatten(x)
  children = list(children)
  return [FlattenedIndexKey(i) for i in range(len(children))], children, aux


def _flatten_with_path(x, path: tuple, out: list, is_leaf, is_leaf_takes_path: bool):
  """Appends ``(key_path, leaf)`` pairs of ``x`` to ``out``; returns its node."""
  if is_leaf is not None and (is_leaf(path, x) if is_leaf_takes_path else is_leaf(x)):
    out.append((path, x))
    return None
  t = type(x)
  kind = _kinds.get(t)
  if kind is None:
    kind = _kind_of_type(t)
  if kind == _LEAF:
    out.append((path, x))
    return None
  if kind == _NONE:
    return _NONE_NODE
  start = len(out)
  keys, children, aux = _children_with_keys(x, kind, t)
  nodes = tuple([_flatten_with_path(c, (*path, k), out, is_leaf, is_leaf_takes_path)
                 for k, c in zip(keys, children)])
  return (t, aux, nodes, len(out) - start)


# ---------------------------------------------------------------------------
# Unflattening


def _unflatten(node, leaves, pos: int):
  """Builds the subtree ``node`` from ``leaves[pos:]``; returns ``(subtree, next_pos)``."""
  t, data, children, n = node
  if n == len(children) and children.count(None) == n:  # every child is a leaf
    values = leaves[pos:pos + n]
  else:
    values = _unflatten_children(children, leaves, pos)
  kind = _kinds_get(t)
  if kind is None:
    kind = _kind_of_type(t)
  if kind == _TUPLE:
    return tuple(values), pos + n
  if kind == _LIST:
    return list(values), pos + n
  if kind == _DICT:
    return dict(zip(data, values)), pos + n
  if kind == _NONE:
    return None, pos
  if kind == _NAMEDTUPLE:
    return t(*values), pos + n
  if kind == _CUSTOM:
    return _registry[t].unflatten(data, tuple(values)), pos + n
  raise ValueError(f"{t} is no longer a registered pytree node type; cannot unflatten.")


# A structure unflattened this many times is compiled (see tree_unflatten): fewer uses do not
# repay the compile (the fresh treedefs of one grad or vmap call are used two or three times).
_COMPILE_AFTER_USES = 8
_NOT_COMPILABLE = object()
_MAX_COMPILED_DEPTH = 60  # the parser rejects deeper nesting of brackets
_MAX_COMPILED_NODES = 5000


def _compile_builder(node):
  """A function ``leaves -> pytree`` specialised to ``node``: one generated Python expression.

  Rebuilding a structure used again and again (a jit function's output tree) this way is
  several times faster than walking the node tree. Returns ``_NOT_COMPILABLE`` for trees too
  deep or too large to be worth it.
  """
  try:
    if _count_nodes(node) > _MAX_COMPILED_NODES:
      return _NOT_COMPILABLE
  except RecursionError:
    return _NOT_COMPILABLE
  namespace: dict = {}
  next_leaf = [0]

  def constant(value, prefix):
    name = f"{prefix}{len(namespace)}"
    namespace[name] = value
    return name

  def expr(node, depth):
    if depth > _MAX_COMPILED_DEPTH:
      raise RecursionError
    if node is None:
      next_leaf[0] += 1
      return f"l[{next_leaf[0] - 1}]"
    t, data, children, n = node
    kind = _kind_of_type(t)
    if n > 8 and n == len(children) and children.count(None) == n and kind <= _DICT:
      # Many leaf children: a C-level slice beats a long display of l[i] lookups.
      leaf_slice = f"l[{next_leaf[0]}:{next_leaf[0] + n}]"
      next_leaf[0] += n
      if kind == _DICT:
        return f"dict(zip({constant(data, 'k')}, {leaf_slice}))"
      return f"{'tuple' if kind == _TUPLE else 'list'}({leaf_slice})"
    parts = [expr(c, depth + 1) for c in children]
    if kind == _TUPLE:
      return "(" + "".join(p + ", " for p in parts) + ")"
    if kind == _LIST:
      return "[" + ", ".join(parts) + "]"
    if kind == _DICT:
      return "{" + ", ".join(f"{constant(k, 'k')}: {p}" for k, p in zip(data, parts)) + "}"
    if kind == _NONE:
      return "None"
    if kind == _NAMEDTUPLE:
      return f"{constant(t, 't')}({', '.join(parts)})"
    unflatten = constant(_registry[t].unflatten, "u")
    return f"{unflatten}({constant(data, 'd')}, (" + "".join(p + ", " for p in parts) + "))"

  try:
    source = f"lambda l: {expr(node, 0)}"
    return eval(compile(source, "<pytree builder>", "eval"), namespace)
  except (RecursionError, SyntaxError, MemoryError):
    return _NOT_COMPILABLE


def _compile_getter(node, check_leaves: bool):
  """A function ``tree -> leaves`` specialised to ``node`` (see ``treedef_leaf_getter``): straight
  generated code that checks each node's type, arity and metadata and reads the leaves out."""
  namespace: dict = {"_kind_of": _kind_of_type}
  lines: list = []
  leaf_vars: list = []
  counter = [0]

  def constant(value, prefix):
    name = f"{prefix}{len(namespace)}"
    namespace[name] = value
    return name

  def fresh():
    counter[0] += 1
    return f"v{counter[0]}"

  def unpack(var, count):
    names = [fresh() for _ in range(count)]
    if count:
      lines.append(f"({''.join(n + ', ' for n in names)}) = {var}")
    return names

  def visit(node, var):
    if node is None:
      leaf_vars.append(var)
      if check_leaves:
        lines.append(f"if _kind_of(type({var})): return None")
      return
    t, data, children, _ = node
    kind = _kind_of_type(t)
    n = len(children)
    if kind == _NONE:
      lines.append(f"if {var} is not None: return None")
      return
    if kind == _TUPLE or kind == _LIST or kind == _NAMEDTUPLE:
      lines.append(f"if type({var}) is not {constant(t, 't')} or len({var}) != {n}: return None")
      names = unpack(var, n)
    elif kind == _DICT:
      lines.append(f"if type({var}) is not dict or len({var}) != {n}: return None")
      names = [fresh() for _ in children]
      for name, key in zip(names, data):
        lines.append(f"{name} = {var}[{constant(key, 'k')}]")
    else:
      lines.append(f"if type({var}) is not {constant(t, 't')}: return None")
      values, aux = fresh(), fresh()
      lines.append(f"{values}, {aux} = {constant(_registry[t].flatten, 'f')}({var})")
      expected = constant(data, "d")
      lines.append(f"if {aux} is not {expected} and not ({aux} == {expected}): return None")
      names = unpack(values, n)
      if not n:
        lines.append(f"if len(tuple({values})): return None")
    for child, name in zip(children, names):
      visit(child, name)

  visit(node, "x")
  body = "".join(f"    {line}\n" for line in lines)
  source = (f"def get(x):\n  try:\n{body}  except Exception:\n    return None\n"
            f"  return [{', '.join(leaf_vars)}]\n")
  exec(compile(source, f"{__file__}:<pytree leaf getter>", "exec"), namespace)
  return namespace["get"]


def treedef_leaf_getter(treedef: PyTreeDef,
                        check_leaves: bool = True) -> Callable[[Any], list | None]:
  """A function ``tree -> leaves`` specialised to ``treedef``: for a tree with exactly this
  structure it returns the same list as ``tree_flatten(tree)[0]``, for any other tree ``None``
  (the caller then flattens it the general way, which also reports any error).

  The function is generated code with no loop over the structure, several times faster than
  ``tree_flatten`` for a structure seen again and again (a jitted function's arguments).
  ``check_leaves=False`` skips the check that each leaf position holds a leaf, for callers that
  check the leaves' types themselves.
  """
  node = treedef._node
  try:
    if node is None or _count_nodes(node) <= _MAX_COMPILED_NODES:
      return _compile_getter(node, check_leaves)
  except (RecursionError, SyntaxError, MemoryError):
    pass

  def get(tree):  # too large to generate: flatten and compare
    leaves, other = tree_flatten(tree)
    return leaves if other == treedef else None
  return get


def treedef_builder(treedef: PyTreeDef) -> Callable[[Sequence[Any]], Any]:
  """A function ``leaves -> tree`` specialised to ``treedef`` (``tree_unflatten`` without its
  argument checks: the caller passes exactly ``treedef.num_leaves`` leaves)."""
  node = treedef._node
  if node is None:
    return lambda leaves: leaves[0]
  builder = treedef._builder
  if builder is None or type(builder) is int:
    builder = treedef._builder = _compile_builder(node)
  if builder is _NOT_COMPILABLE:
    return lambda leaves: tree_unflatten(treedef, leaves)
  return builder


def _unflatten_children(children, leaves, pos):
  values = []
  for c in children:
    if c is None:
      values.append(leaves[pos])
      pos += 1
    else:
      v, pos = _unflatten(c, leaves, pos)
      values.append(v)
  return values


# ---------------------------------------------------------------------------
# PyTreeDef


class PyTreeDef:
  """The structure of a pytree: its node types, their metadata, and where the leaves go.

  Obtained from ``tree_flatten``/``tree_structure``; hashable and comparable, so usable as a
  cache key. ``treedef.unflatten(leaves)`` rebuilds a pytree with this structure.
  """
  __slots__ = ("_node", "_num_leaves", "_hash", "_builder", "__weakref__")

  def __init__(self, *args, **kwargs):
    raise TypeError("PyTreeDef has no public constructor; use tree_structure(tree), "
                    "tree_flatten(tree) or PyTreeDef.from_node_data_and_children(...).")

  @property
  def num_leaves(self) -> int:
    """The number of leaves."""
    return self._num_leaves

  @property
  def num_nodes(self) -> int:
    """The number of nodes, leaves and ``None`` included."""
    try:
      return _count_nodes(self._node)
    except RecursionError:
      return _deep(_count_nodes, self._node)

  def unflatten(self, leaves: Iterable[Any]) -> Any:
    """Builds the pytree with this structure whose leaves are ``leaves`` (in order)."""
    return tree_unflatten(self, leaves)

  def flatten_up_to(self, xs: Any) -> list:
    """The subtrees of ``xs`` at the positions of this structure's leaves.

    ``xs`` must have this structure down to this structure's leaves (this tree is a prefix of
    ``xs``); raises ``ValueError`` naming the first mismatching node otherwise.
    """
    out: list = []
    try:
      _flatten_up_to(self._node, xs, out)
    except RecursionError:
      out = []
      _deep(_flatten_up_to, self._node, xs, out)
    return out

  def children(self) -> list[PyTreeDef]:
    """The structures of the root node's children (empty for a leaf)."""
    node = self._node
    if node is None:
      return []
    return [_make_treedef(c) for c in node[2]]

  def node_data(self):
    """``(node_type, node_metadata)`` of the root node, or ``None`` for a leaf."""
    node = self._node
    if node is None:
      return None
    t, data, _, _ = node
    if t is dict:
      return (dict, list(data))
    return (t, data)

  @staticmethod
  def from_node_data_and_children(registry, node_data, children) -> PyTreeDef:
    """Builds a structure from a root's ``node_data()`` and its children's structures."""
    if not isinstance(registry, PyTreeRegistry):
      raise TypeError("from_node_data_and_children(registry, node_data, children): registry "
                      f"must be axle.tree_util.default_registry, got {type(registry).__name__}.")
    children = list(children)
    if node_data is None:
      if children:
        raise ValueError("A leaf structure (node_data None) has no children.")
      return _make_treedef(None)
    t, data = node_data
    if _kind_of_type(t) == _LEAF:
      raise ValueError(f"Unregistered pytree node type {t}.")
    if t is dict:
      data = tuple(data)
    nodes = tuple(c._node for c in children)
    return _make_treedef((t, data, nodes, sum(c._num_leaves for c in children)))

  def compose(self, inner: PyTreeDef) -> PyTreeDef:
    """The structure obtained by replacing every leaf of this structure with ``inner``."""
    return _make_treedef(_compose(self._node, inner._node))

  def __repr__(self):
    try:
      text = _node_str(self._node)
    except RecursionError:
      text = _deep(_node_str, self._node)
    return f"PyTreeDef({text})"

  __str__ = __repr__

  def __eq__(self, other):
    if type(other) is not PyTreeDef:
      return NotImplemented
    if self is other:
      return True
    if self._num_leaves != other._num_leaves:
      return False
    try:
      try:
        return bool(self._node == other._node)
      except RecursionError:
        return bool(_deep(lambda a, b: a == b, self._node, other._node))
    except Exception:
      raise ValueError("Exception raised while checking equality of metadata fields of pytree. "
                       "Make sure that metadata fields are hashable and have simple equality "
                       "semantics. (Note: arrays cannot be passed as metadata fields!)") from None

  def __ne__(self, other):
    eq = self.__eq__(other)
    return eq if eq is NotImplemented else not eq

  def __hash__(self):
    h = self._hash
    if h is None:
      try:
        h = hash(self._node)
      except TypeError:  # unhashable metadata: hash the shape of the tree only
        h = hash(_node_skeleton(self._node))
      self._hash = h
    return h

  def __reduce__(self):
    return _make_treedef, (self._node,)


def _make_treedef(node, num_leaves: int | None = None) -> PyTreeDef:
  treedef = object.__new__(PyTreeDef)
  treedef._node = node
  treedef._num_leaves = (1 if node is None else node[3]) if num_leaves is None else num_leaves
  treedef._hash = None
  treedef._builder = None
  return treedef


_LEAF_TREEDEF = _make_treedef(None)


def _count_nodes(node) -> int:
  if node is None:
    return 1
  return 1 + sum(_count_nodes(c) for c in node[2])


def _node_skeleton(node):
  if node is None:
    return None
  return (node[0], tuple(_node_skeleton(c) for c in node[2]))


def _compose(node, inner):
  if node is None:
    return inner
  t, data, children, _ = node
  new_children = tuple(_compose(c, inner) for c in children)
  return (t, data, new_children, sum(1 if c is None else c[3] for c in new_children))


def _node_str(node) -> str:
  if node is None:
    return "*"
  t, data, children, _ = node
  kind = _kind_of_type(t)
  parts = [_node_str(c) for c in children]
  if kind == _TUPLE:
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
  if kind == _LIST:
    return f"[{', '.join(parts)}]"
  if kind == _DICT:
    return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(data, parts)) + "}"
  if kind == _NONE:
    return "None"
  if kind == _NAMEDTUPLE:
    return f"CustomNode(namedtuple[{t.__name__}], [{', '.join(parts)}])"
  return f"CustomNode({t.__name__}[{data}], [{', '.join(parts)}])"


def _flatten_up_to(node, x, out: list):
  if node is None:
    out.append(x)
    return
  t, data, children, _ = node
  kind = _kind_of_type(t)
  xt = type(x)
  if kind == _TUPLE or kind == _LIST:
    if xt is not t:
      raise ValueError(f"Expected {t.__name__}, got {x!r}.")
    if len(x) != len(children):
      raise ValueError(f"{t.__name__.capitalize()} arity mismatch: {len(x)} != {len(children)}; "
                       f"{t.__name__}: {x!r}.")
    values = x
  elif kind == _DICT:
    if xt is not dict:
      raise ValueError(f"Expected dict, got {x!r}.")
    keys = _sorted_keys(x)
    if tuple(keys) != data:
      raise ValueError(f"Dict key mismatch; expected keys: {list(data)!r}; present keys: "
                       f"{keys!r}.")
    values = [x[k] for k in keys]
  elif kind == _NONE:
    if x is not None:
      raise ValueError(
          f"Expected None, got {x!r}.\n\nIn previous releases of JAX, flatten-up-to used to "
          "consider None to be a tree-prefix of non-None values. To obtain the previous "
          "behavior, you can usually write:\n  jax.tree.map(lambda x, y: None if x is None "
          "else f(x, y), a, b, is_leaf=lambda x: x is None)")
    return
  elif kind == _NAMEDTUPLE:
    if not isinstance(x, tuple) or not hasattr(xt, "_fields"):
      raise ValueError(f"Expected named tuple, got {x!r}.")
    if xt is not t:
      raise ValueError(f"Named tuple type mismatch: expected type: {t!r}, tuple: {x!r}.")
    if len(x) != len(children):
      raise ValueError(f"Named tuple arity mismatch: {len(x)} != {len(children)}; "
                       f"tuple: {x!r}.")
    values = x
  else:
    if xt is not t:
      raise ValueError(f"Custom node type mismatch: expected type: {t!r}, value: {x!r}.")
    values, x_data = _registry[t].flatten(x)
    values = list(values)
    try:
      same = bool(x_data == data)
    except Exception:
      raise ValueError("Exception raised while checking equality of metadata fields of pytree. "
                       "Make sure that metadata fields are hashable and have simple equality "
                       "semantics. (Note: arrays cannot be passed as metadata fields!)") from None
    if not same:
      raise ValueError(f"Mismatch custom node data: {data!r} != {x_data!r}; value: {x!r}.")
    if len(values) != len(children):
      raise ValueError(f"Custom node arity mismatch: {len(values)} != {len(children)}; "
                       f"value: {x!r}.")
  for c, v in zip(children, values):
    if c is None:
      out.append(v)
    else:
      _flatten_up_to(c, v, out)


# ---------------------------------------------------------------------------
# Core API


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list, PyTreeDef]:
  """Flattens a pytree into its leaves and its structure.

  Args:
    tree: a pytree.
    is_leaf: optional predicate called on every subtree (the root included); where it returns
      True the subtree is treated as a leaf and not traversed.

  Returns:
    ``(leaves, treedef)``: the leaves in order (dicts in sorted key order) and the ``PyTreeDef``.
    ``None`` is a node with no children, so it contributes no leaves.
  """
  leaves: list = []
  try:
    if is_leaf is None:
      node = _flatten(tree, leaves)
    else:
      node = _flatten_is_leaf(tree, leaves, is_leaf)
  except RecursionError:
    leaves = []
    node = (_deep(_flatten, tree, leaves) if is_leaf is None
            else _deep(_flatten_is_leaf, tree, leaves, is_leaf))
  treedef = object.__new__(PyTreeDef)
  treedef._node = node
  treedef._num_leaves = len(leaves)
  treedef._hash = None
  treedef._builder = None
  return leaves, treedef


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
  """Builds the pytree with structure ``treedef`` whose leaves are ``leaves``.

  ``leaves`` must hold exactly ``treedef.num_leaves`` values; ``ValueError`` otherwise.
  """
  if type(treedef) is not PyTreeDef:
    raise TypeError(f"tree_unflatten(treedef, leaves): treedef must be a PyTreeDef (from "
                    f"tree_structure or tree_flatten), got {type(treedef).__name__}.")
  if type(leaves) is not list and type(leaves) is not tuple:
    leaves = list(leaves)
  n = treedef._num_leaves
  if len(leaves) != n:
    if len(leaves) > n:
      raise ValueError(f"Too many leaves for PyTreeDef; expected {n}.")
    raise ValueError(f"Too few leaves for PyTreeDef; expected {n}, got {len(leaves)}")
  builder = treedef._builder
  if builder is None:  # first use: interpret, and count the uses
    treedef._builder = 1
  elif type(builder) is int:
    if builder < _COMPILE_AFTER_USES:
      treedef._builder = builder + 1
    else:  # this structure is reused again and again: compile it
      treedef._builder = builder = _compile_builder(treedef._node)
      if builder is not _NOT_COMPILABLE:
        return builder(leaves)
  elif builder is not _NOT_COMPILABLE:
    return builder(leaves)
  node = treedef._node
  if node is None:
    return leaves[0]
  try:
    return _unflatten(node, leaves, 0)[0]
  except RecursionError:
    return _deep(_unflatten, node, leaves, 0)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
  """The ``PyTreeDef`` of ``tree`` (see ``tree_flatten``)."""
  return tree_flatten(tree, is_leaf)[1]


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
  """The leaves of ``tree`` in flattening order (see ``tree_flatten``)."""
  leaves: list = []
  try:
    if is_leaf is None:
      _flatten(tree, leaves)
    else:
      _flatten_is_leaf(tree, leaves, is_leaf)
  except RecursionError:
    return tree_flatten(tree, is_leaf)[0]
  return leaves


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
  """The structure of a tuple whose elements have the structures ``treedefs``."""
  treedefs = list(treedefs)
  for i, t in enumerate(treedefs):
    if type(t) is not PyTreeDef:
      raise TypeError(f"treedef_tuple(treedefs): element {i} is a {type(t).__name__}, not a "
                      "PyTreeDef.")
  return _make_treedef((tuple, None, tuple(t._node for t in treedefs),
                        sum(t._num_leaves for t in treedefs)))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
  """The structures of the root node's children (``[]`` for a leaf)."""
  return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  """Whether ``treedef`` has a single node: a leaf, ``None``, or an empty container."""
  node = treedef._node
  return node is None or not node[2]


def _treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
  return treedef._node is None


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
  """Whether every element of ``iterable`` is a leaf (``None`` is not a leaf).

  With ``is_leaf``, whether ``list(iterable) == tree_leaves(list(iterable), is_leaf)``.
  """
  if is_leaf is None:
    kinds = _kinds
    for x in iterable:
      kind = kinds.get(type(x))
      if kind is None:
        kind = _kind_of_type(type(x))
      if kind != _LEAF:
        return False
    return True
  items = list(iterable)
  return items == tree_leaves(items, is_leaf)


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
  """``(children, metadata)`` of the pytree node ``tree``; ``ValueError`` for a leaf."""
  t = type(tree)
  kind = _kind_of_type(t)
  if kind == _LEAF:
    raise ValueError(f"can't tree-flatten type: {t}")
  if kind == _TUPLE or kind == _LIST:
    return tree, None
  if kind == _DICT:
    keys = _sorted_keys(tree)
    return tuple(tree[k] for k in keys), tuple(keys)
  if kind == _NONE:
    return (), None
  if kind == _NAMEDTUPLE:
    return list(tree), t
  return _registry[t].flatten(tree)


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[KeyEntry, Any]], Hashable]:
  """``(((key, child), ...), metadata)`` of the pytree node ``tree``; ``ValueError`` for a leaf."""
  t = type(tree)
  kind = _kind_of_type(t)
  if kind == _LEAF:
    raise ValueError(f"can't tree-flatten type: {t}")
  if kind == _CUSTOM and _registry[t].flatten_with_keys is not None:
    key_children, aux = _registry[t].flatten_with_keys(tree)
    return list(key_children), aux
  keys, children, aux = _children_with_keys(tree, kind, t)
  pairs = tuple(zip(keys, children))
  if kind == _NAMEDTUPLE:
    return list(pairs), t
  if kind == _CUSTOM:
    return list(pairs), aux
  return pairs, aux


class PyTreeRegistry:
  """The pytree type registry (``default_registry``): flattening entry points over it."""

  def flatten(self, tree, leaf_predicate=None):
    """``(leaves, treedef)`` of ``tree``, like ``tree_flatten``."""
    return tree_flatten(tree, leaf_predicate)

  def flatten_one_level(self, tree):
    """``(children, metadata)`` of a node, or ``None`` for a leaf."""
    return None if _kind_of_type(type(tree)) == _LEAF else flatten_one_level(tree)

  def flatten_one_level_with_keys(self, tree):
    """``(((key, child), ...), metadata)`` of a node, or ``None`` for a leaf."""
    return None if _kind_of_type(type(tree)) == _LEAF else flatten_one_level_with_keys(tree)

  def flatten_with_path(self, tree, leaf_predicate=None):
    """``([(key_path, leaf), ...], treedef)`` of ``tree``, like ``tree_flatten_with_path``."""
    return tree_flatten_with_path(tree, leaf_predicate)

  def is_node(self, typ) -> bool:
    """Whether instances of ``typ`` are pytree nodes."""
    return is_tree_node(typ)

  def __repr__(self):
    return "<axle.tree_util.PyTreeRegistry (the default registry)>"


default_registry = PyTreeRegistry()


# ---------------------------------------------------------------------------
# Structure-mismatch errors (prefix errors)


def _child_keys(tree) -> tuple:
  return tuple(k for k, _ in flatten_one_level_with_keys(tree)[0])


def _prefix_error(key_path: tuple, prefix_tree, full_tree, is_leaf=None):
  """Yields ``name -> ValueError`` makers describing why ``prefix_tree`` is not a prefix of
  ``full_tree``, naming the key path of the first differing node."""
  if is_leaf is not None and is_leaf(prefix_tree):
    return
  if _kind_of_type(type(prefix_tree)) == _LEAF:
    return
  if type(prefix_tree) != type(full_tree):
    def make(name, ptype=type(prefix_tree), ftype=type(full_tree)):
      return ValueError(
          "pytree structure error: different types at key path\n"
          f"    {name}{keystr(key_path)}\n"
          f"At that key path, the prefix pytree {name} has a subtree of type\n"
          f"    {ptype}\n"
          "but at the same key path the full pytree has a subtree of different type\n"
          f"    {ftype}.")
    yield make
    return
  prefix_children, prefix_meta = flatten_one_level(prefix_tree)
  full_children, full_meta = flatten_one_level(full_tree)
  prefix_children, full_children = tuple(prefix_children), tuple(full_children)
  prefix_keys, full_keys = _child_keys(prefix_tree), _child_keys(full_tree)
  if isinstance(prefix_tree, (list, tuple)):
    if len(prefix_tree) != len(full_tree):
      def make(name, ty=type(prefix_tree).__name__, n1=len(prefix_tree), n2=len(full_tree)):
        return ValueError(
            f"pytree structure error: different lengths of {ty} at key path\n"
            f"    {name}{keystr(key_path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type {ty} of length "
            f"{n1}, but the full pytree has a subtree of the same type but of length {n2}.")
      yield make
      return
  else:
    try:
      diff = set(prefix_keys).symmetric_difference(set(full_keys))
    except Exception:
      diff = None
    if len(prefix_children) != len(full_children):
      def make(name, ptype=type(prefix_tree)):
        return ValueError(
            "pytree structure error: different numbers of pytree children at key path\n"
            f"    {name}{keystr(key_path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {ptype}\n"
            f"with {len(prefix_children)} child keys\n"
            f"    {' '.join(str(k.key) for k in prefix_keys)}\n"
            "but at the same key path the full pytree has a subtree of the same type but with "
            f"{len(full_children)} child keys\n"
            f"    {' '.join(str(k.key) for k in full_keys)}\n"
            + ("" if diff is None else
               "so the symmetric difference on key sets is\n"
               f"    {' '.join(str(k.key) for k in diff)}"))
      yield make
      return
  try:
    same_meta = bool(prefix_meta == full_meta)
  except Exception:
    same_meta = False
  if not same_meta:
    prefix_str, full_str = str(prefix_meta), str(full_meta)
    meta_diff = textwrap.indent(
        "\n".join(difflib.ndiff(prefix_str.splitlines(), full_str.splitlines())), prefix="    ")

    def make(name, ptype=type(prefix_tree)):
      return ValueError(
          "pytree structure error: different pytree metadata at key path\n"
          f"    {name}{keystr(key_path)}\n"
          f"At that key path, the prefix pytree {name} has a subtree of type\n"
          f"    {ptype}\n"
          "with metadata\n"
          f"    {prefix_str}\n"
          "but at the same key path the full pytree has a subtree of the same type but with "
          "metadata\n"
          f"    {full_str}\n"
          "so the diff in the metadata at these pytree nodes is\n"
          f"{meta_diff}")
    yield make
    return
  for k, c1, c2 in zip(prefix_keys, prefix_children, full_children):
    yield from _prefix_error((*key_path, k), c1, c2, is_leaf)


def _raise_prefix_error(name: str, prefix_tree, full_tree, is_leaf, original: Exception):
  maker = next(_prefix_error((), prefix_tree, full_tree, is_leaf), None)
  if maker is None:
    raise original
  raise maker(name) from None


# ---------------------------------------------------------------------------
# Mapping, reducing, transposing


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Applies ``f`` to each leaf of ``tree`` (and the corresponding subtrees of ``rest``).

  Args:
    f: called as ``f(leaf, *corresponding_subtrees_of_rest)`` once per leaf of ``tree``.
    tree: the pytree whose structure the result has.
    *rest: pytrees that each have ``tree``'s structure, or ``tree``'s structure as a prefix (a
      leaf of ``tree`` may correspond to a whole subtree of a ``rest`` tree).
    is_leaf: optional predicate marking subtrees of ``tree`` to treat as leaves.

  Returns:
    A pytree with ``tree``'s structure holding ``f``'s results. Raises ``ValueError`` naming the
    key path of the first difference when a ``rest`` tree does not match.
  """
  leaves, treedef = tree_flatten(tree, is_leaf)
  if not rest:
    return tree_unflatten(treedef, [f(x) for x in leaves])
  all_leaves = [leaves]
  for r in rest:
    try:
      all_leaves.append(treedef.flatten_up_to(r))
    except (ValueError, TypeError) as e:
      _raise_prefix_error("tree_map tree", tree, r, is_leaf, e)
  return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


class _Unspecified:
  def __repr__(self):
    return "<unspecified>"


_UNSPECIFIED = _Unspecified()


def tree_reduce(function: Callable[[T, Any], T], tree: Any,
                initializer: Any = _UNSPECIFIED,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
  """Folds ``function`` over the leaves of ``tree`` from the left, like ``functools.reduce``.

  Without ``initializer`` an empty tree raises ``TypeError``.
  """
  if initializer is _UNSPECIFIED:
    return functools.reduce(function, tree_leaves(tree, is_leaf=is_leaf))
  return functools.reduce(function, tree_leaves(tree, is_leaf=is_leaf), initializer)


def _reduce_halves(values: list, operation, identity):
  n = len(values)
  if n == 0:
    if identity is _UNSPECIFIED:
      raise TypeError("Must specify identity for parallel reduction of empty sequence.")
    return identity
  if n == 1:
    return values[0]
  mid = n // 2
  return operation(_reduce_halves(values[:mid], operation, identity),
                   _reduce_halves(values[mid:], operation, identity))


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: Any = _UNSPECIFIED,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
  """Reduces the leaves of ``tree`` with an associative ``operation`` as a balanced tree of calls.

  ``identity`` is returned for an empty tree (``TypeError`` if it is not given).
  """
  return _reduce_halves(tree_leaves(tree, is_leaf=is_leaf), operation, identity)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
  """Whether every leaf of ``tree`` is truthy (True for a tree without leaves)."""
  return all(tree_leaves(tree, is_leaf=is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
  """Turns a tree of trees (outer structure of inner structures) into an inner tree of outer trees.

  Args:
    outer_treedef: the structure of the outer tree.
    inner_treedef: the structure of each inner tree; ``None`` infers it from the first.
    pytree_to_transpose: a pytree with structure ``outer_treedef.compose(inner_treedef)``.

  Raises ``TypeError`` (printing both structures) when the leaf counts do not match.
  """
  flat, treedef = tree_flatten(pytree_to_transpose)
  if inner_treedef is None:
    inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
  inner_size = inner_treedef.num_leaves
  outer_size = outer_treedef.num_leaves
  if treedef.num_leaves != inner_size * outer_size:
    expected = outer_treedef.compose(inner_treedef)
    raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
  rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
  columns = [tree_unflatten(outer_treedef, column) for column in zip(*rows)]
  if not rows:  # no outer leaves: every inner position maps to an empty outer tree
    columns = [tree_unflatten(outer_treedef, []) for _ in range(inner_size)]
  return tree_unflatten(inner_treedef, columns)


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Broadcasts each leaf of ``prefix_tree`` over the matching subtree of ``full_tree``.

  ``prefix_tree`` must be a prefix of ``full_tree``'s structure; the result has
  ``full_tree``'s structure, each of its leaves being the prefix leaf above it.
  """
  prefix_leaves, prefix_treedef = tree_flatten(prefix_tree, is_leaf)
  try:
    subtrees = prefix_treedef.flatten_up_to(full_tree)
  except (ValueError, TypeError) as e:
    _raise_prefix_error("broadcast_prefix prefix_tree", prefix_tree, full_tree, None, e)
  result = []
  for leaf, subtree in zip(prefix_leaves, subtrees):
    result.extend([leaf] * tree_structure(subtree).num_leaves)
  return tree_structure(full_tree).unflatten(result)


# ---------------------------------------------------------------------------
# Key paths


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False) -> tuple[list, PyTreeDef]:
  """Like ``tree_flatten`` but each leaf comes with its key path: ``([(path, leaf), ...], treedef)``.

  A key path is a tuple of ``SequenceKey``/``DictKey``/``GetAttrKey``/``FlattenedIndexKey``
  entries; ``keystr`` formats it. With ``is_leaf_takes_path``, ``is_leaf`` is called as
  ``is_leaf(path, subtree)``.
  """
  out: list = []
  try:
    node = _flatten_with_path(tree, (), out, is_leaf, is_leaf_takes_path)
  except RecursionError:
    out = []
    node = _deep(_flatten_with_path, tree, (), out, is_leaf, is_leaf_takes_path)
  return out, _make_treedef(node, len(out))


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list:
  """The ``(key_path, leaf)`` pairs of ``tree`` (see ``tree_flatten_with_path``)."""
  return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
  """Like ``tree_map`` but ``f`` is called as ``f(key_path, leaf, *rest_subtrees)``."""
  path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
  paths = [p for p, _ in path_leaves]
  all_leaves = [[x for _, x in path_leaves]]
  for r in rest:
    try:
      all_leaves.append(treedef.flatten_up_to(r))
    except (ValueError, TypeError) as e:
      prefix_is_leaf = None
      if is_leaf is not None and not is_leaf_takes_path:
        prefix_is_leaf = is_leaf
      _raise_prefix_error("tree_map_with_path tree", tree, r, prefix_is_leaf, e)
  return treedef.unflatten(f(p, *xs) for p, *xs in zip(paths, *all_leaves))


# ---------------------------------------------------------------------------
# Partial


class _HashableCallableShim:
  """Wraps a callable with value equality/hash so a Partial of a partial can be pytree metadata."""
  __slots__ = ("fun",)

  def __init__(self, fun):
    self.fun = fun

  def __call__(self, *args, **kwargs):
    return self.fun(*args, **kwargs)

  def __hash__(self):
    return hash(self.fun)

  def __eq__(self, other):
    if isinstance(other, _HashableCallableShim):
      return self.fun == other.fun
    return self.fun == other

  def __repr__(self):
    return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
  """A ``functools.partial`` that is a pytree: its bound args and kwargs are the children.

  The wrapped function is static metadata, so ``Partial`` objects can be passed to and returned
  from transformed functions; the function itself is compared by equality when structures are
  compared, so prefer module-level functions to fresh lambdas.

  >>> add_one = Partial(operator.add, 1)
  >>> add_one(2)
  3
  """

  def __new__(cls, func, *args, **kwargs):
    if isinstance(func, functools.partial):
      # Keep the given partial intact (its args are not pytree children of this Partial), but
      # give it value equality so structures holding it compare sensibly.
      original = func
      func = _HashableCallableShim(original)
      out = super().__new__(cls, func, *args, **kwargs)
      func.fun = original
      return out
    return super().__new__(cls, func, *args, **kwargs)


Partial.__module__ = "axle.tree_util"
register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)
