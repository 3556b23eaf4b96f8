"""Records what real JAX prints for the pytree snippets below (run with an interpreter that has JAX).

    $JAX_PYTHON tools/record_tree_util_reference.py

Writes tests/data/tree_util_reference.json: for each snippet its source and either ``out``
(``repr`` of the variable ``out``) or ``error``/``message``. tests/test_tree_util.py runs the
same sources against axle.tree_util (``tu``) and axle.tree (``tree``) and compares.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Names every snippet can use; classes defined in snippets live in module "snippet".
PRELUDE = """
import collections, dataclasses, functools, operator, pickle
import numpy as np
Params = collections.namedtuple('Params', ['a', 'b'])

class Foo:
  def __init__(self, a, b): self.a = a; self.b = b
  def __repr__(self): return f'Foo({self.a!r}, {self.b!r})'
tu.register_pytree_node(Foo, lambda f: ((f.a,), f.b), lambda b, c: Foo(c[0], b))

class WithKeys:
  def __init__(self, a, b): self.a = a; self.b = b
  def __repr__(self): return f'WithKeys({self.a!r}, {self.b!r})'
tu.register_pytree_with_keys(
    WithKeys, lambda w: (((tu.GetAttrKey('a'), w.a), (tu.DictKey('bee'), w.b)), 'aux'),
    lambda aux, c: WithKeys(*c))

@dataclasses.dataclass
class DC:
  x: int
  y: int
  z: str = 'hi'
tu.register_dataclass(DC, data_fields=['x', 'y'], meta_fields=['z'])

@tu.register_dataclass
@dataclasses.dataclass
class DCStatic:
  x: int
  y: int = 3
  op: str = tree.static(default='add')

@tu.register_pytree_node_class
class NodeClass:
  def __init__(self, a, meta): self.a = a; self.meta = meta
  def __repr__(self): return f'NodeClass({self.a!r}, {self.meta!r})'
  def tree_flatten(self): return (self.a,), self.meta
  @classmethod
  def tree_unflatten(cls, meta, children): return cls(children[0], meta)

@tu.register_pytree_with_keys_class
class KeysClass:
  def __init__(self, a, b): self.a = a; self.b = b
  def __repr__(self): return f'KeysClass({self.a!r}, {self.b!r})'
  def tree_flatten_with_keys(self):
    return ((tu.GetAttrKey('a'), self.a), (tu.GetAttrKey('b'), self.b)), None
  @classmethod
  def tree_unflatten(cls, aux, children): return cls(*children)

@tu.register_static
class StaticThing:
  def __init__(self, v): self.v = v
  def __hash__(self): return hash(self.v)
  def __eq__(self, other): return isinstance(other, StaticThing) and other.v == self.v
  def __repr__(self): return f'StaticThing({self.v!r})'

def f3(a, b, c=0): return a + b + c
add = lambda a, b: a + b
pair = lambda *xs: xs
"""

SNIPPETS = {
    # --- structures and reprs
    "repr_list": "out = tu.tree_structure([1, 2, (3, 4)])",
    "repr_dict": "out = tu.tree_structure({'W': 1, 'b': 2, 'n': 3})",
    "repr_dict_sorted": "out = tu.tree_flatten({'b': 1, 'a': 2, 'c': {'y': 1, 'x': 2}})",
    "repr_dict_nonstr_keys": "out = tu.tree_flatten({1: 'a', 0.5: 'b', True: 'c'})",
    "repr_dict_tuple_keys": "out = tu.tree_flatten({(1, 2): 1, (0, 3): 2})",
    "repr_namedtuple": "out = tu.tree_flatten(Params(1, 2))",
    "repr_none": "out = tu.tree_flatten(None)",
    "repr_none_in_tuple": "out = tu.tree_flatten((None,))",
    "repr_none_in_list": "out = tu.tree_flatten([None, 1])",
    "repr_ordereddict": "out = tu.tree_flatten(collections.OrderedDict([('z', 1), ('a', 2)]))",
    "repr_defaultdict": "out = tu.tree_flatten(collections.defaultdict(list, {'b': 1, 'a': 2}))",
    "repr_defaultdict_none": "out = tu.tree_flatten(collections.defaultdict(None, {'b': 1}))",
    "repr_leaf": "out = tu.tree_flatten(1)",
    "repr_empty": "out = [tu.tree_structure(()), tu.tree_structure([]), tu.tree_structure({})]",
    "repr_single_tuple": "out = tu.tree_structure(((1,),))",
    "repr_dataclass": "out = tu.tree_flatten(DC(1, 2))",
    "repr_dataclass_static": "out = tu.tree_flatten(DCStatic(1))",
    "repr_custom": "out = tu.tree_flatten(Foo(1, 'meta'))",
    "repr_custom_dict_meta": "out = tu.tree_structure(Foo(1, {'k': [1, 2]}))",
    "repr_custom_none_meta": "out = tu.tree_structure(Foo(1, None))",
    "repr_custom_multiline_meta": "out = str(tu.tree_structure(Foo(1, 'two\\nlines')))",
    "repr_nested_custom": "out = tu.tree_flatten([Foo(Foo(3, None), 2), {'a': (1,)}])",
    "repr_with_keys": "out = tu.tree_flatten(WithKeys(1, 2))",
    "repr_node_class": "out = tu.tree_flatten(NodeClass([1, 2], 'm'))",
    "repr_keys_class": "out = tu.tree_flatten(KeysClass(1, (2, 3)))",
    "repr_static": "out = tu.tree_flatten([StaticThing(4), 1])",
    "repr_partial": "out = tu.tree_structure(tu.Partial(max, 1, k=2))",
    "repr_partial_obj": "out = tu.Partial(max, 1, k=2)",
    "repr_nested_mix": ("out = tu.tree_structure({'a': [1, (2, None)], 'b': Params(3, 4), "
                        "'c': collections.OrderedDict([('z', 5), ('y', 6)]), "
                        "'d': collections.defaultdict(int, {'q': 7}), 'e': DC(8, 9), "
                        "'f': Foo(10, 11), 'g': WithKeys(12, 13)})"),
    "repr_str": "out = str(tu.tree_structure({'a': 'x', 'b': [None]}))",
    "repr_nested_class_name": ("class Outer:\n  class Inner:\n    def __init__(s, a): s.a = a\n"
                               "tu.register_pytree_node(Outer.Inner, lambda s: ((s.a,), ('x', 1)), "
                               "lambda d, c: Outer.Inner(*c))\n"
                               "out = tu.tree_structure([Outer.Inner(1), {'a': (None, ())}])"),
    "leaf_subclasses": ("class MyDict(dict): pass\nclass MyList(list): pass\n"
                        "class PSub(Params): pass\n"
                        "out = [tu.tree_structure(MyDict(a=1)), tu.tree_structure(MyList([1])), "
                        "tu.tree_structure(PSub(1, 2))]"),
    "empty_namedtuple": "E = collections.namedtuple('E', [])\nout = tu.tree_flatten(E())",
    "ndarray_leaf": "out = tu.tree_flatten([np.arange(3)])",
    # --- PyTreeDef methods
    "num_leaves_nodes": ("ts = [tu.tree_structure(x) for x in ([1, 2, (3, 4)], None, 1, (), "
                         "[None, 1], {'a': [1, Foo(2, 'm')]})]\n"
                         "out = [(t.num_leaves, t.num_nodes) for t in ts]"),
    "children": "out = tu.tree_structure({'a': [1, 2], 'b': (3, None)}).children()",
    "children_leaf_none": "out = [tu.tree_structure(None).children(), tu.tree_structure(1).children()]",
    "node_data": ("out = [tu.tree_structure(x).node_data() for x in ({'a': [1, 2], 'b': 3}, [1], (1,), "
                  "None, 1, Foo(1, 'm'), collections.OrderedDict(a=1), "
                  "collections.defaultdict(int, a=1), DC(1, 2))]"),
    "node_data_namedtuple": "out = tu.tree_structure(Params(1, 2)).node_data()[0] is Params",
    "eq_hash": ("a = tu.tree_structure({'a': [1, 2], 'b': (3, None)})\n"
                "b = tu.tree_structure({'a': [5, 6], 'b': (7, None)})\n"
                "out = [a == b, hash(a) == hash(b), a != b, a == 1, "
                "tu.tree_structure([1]) == tu.tree_structure((1,)), "
                "tu.tree_structure(Foo(1, 'm')) == tu.tree_structure(Foo(2, 'm')), "
                "tu.tree_structure(Foo(1, 'm')) == tu.tree_structure(Foo(1, 'n')), "
                "tu.tree_structure(None) == tu.tree_structure(()), "
                "tu.tree_structure([1, None], is_leaf=lambda x: x is None) == tu.tree_structure([1, 2])]"),
    "eq_array_meta": ("out = tu.tree_structure(Foo(1, np.array([1, 2]))) == "
                      "tu.tree_structure(Foo(1, np.array([1, 2])))"),
    "hash_unhashable_meta": "out = isinstance(hash(tu.tree_structure(Foo(1, [1]))), int)",
    "lt": "out = tu.tree_structure(1) < tu.tree_structure(1)",
    "pickle": ("ts = [tu.tree_structure(x) for x in ({'a': [1, (2, None)]}, tu.Partial(max, 1), "
               "collections.OrderedDict(z=1, a=2), collections.defaultdict(list, a=1), None, 1)]\n"
               "out = [pickle.loads(pickle.dumps(t)) == t for t in ts]"),
    "compose": "out = tu.tree_structure([1, (2, 3)]).compose(tu.tree_structure((1, 2)))",
    "from_node_data_and_children": (
        "l = tu.tree_structure(1)\n"
        "out = [tu.PyTreeDef.from_node_data_and_children(tu.default_registry, (list, None), [l, tu.tree_structure(None)]),\n"
        "       tu.PyTreeDef.from_node_data_and_children(tu.default_registry, (Params, None), [l, l]),\n"
        "       tu.PyTreeDef.from_node_data_and_children(tu.default_registry, (Foo, 'm'), [l]),\n"
        "       tu.PyTreeDef.from_node_data_and_children(tu.default_registry, (dict, ['a', 'b']), [l, l]),\n"
        "       tu.PyTreeDef.from_node_data_and_children(tu.default_registry, None, [])]"),
    "treedef_tuple": "out = tu.treedef_tuple([tu.tree_structure({'a': [1, 2]}), tu.tree_structure(1)])",
    "treedef_children": "out = tu.treedef_children(tu.tree_structure([1, (2, None)]))",
    "treedef_is_leaf": ("out = [tu.treedef_is_leaf(tu.tree_structure(x)) for x in "
                        "(1, None, (), [None], [1], Foo(1, 'm'))]"),
    "unflatten_roundtrip": ("t = {'a': [1, (2, None)], 'b': Params(3, 4), 'c': collections.OrderedDict([('z', 5), ('y', 6)]), "
                            "'d': collections.defaultdict(int, {'q': 7}), 'e': DC(8, 9), 'f': Foo(10, 11), "
                            "'g': WithKeys(12, 13), 'h': tu.Partial(max, 14, k=15), 'i': DCStatic(16)}\n"
                            "leaves, td = tu.tree_flatten(t)\nout = (leaves, tu.tree_unflatten(td, range(100, 100 + len(leaves))))"),
    "unflatten_method": "out = tu.tree_structure(Params(1, 2)).unflatten(['x', 'y'])",
    "unflatten_iterator": "out = tu.tree_unflatten(tu.tree_structure([1, 2]), iter([7, 8]))",
    "unflatten_leaf": "out = tu.tree_unflatten(tu.tree_structure(1), ['x'])",
    "unflatten_dict_sorted": "out = list(tu.tree_unflatten(tu.tree_structure({'b': 1, 'a': 2}), [1, 2]).items())",
    "unflatten_too_many": "out = tu.tree_unflatten(tu.tree_structure([1, 2]), [1, 2, 3])",
    "unflatten_too_few": "out = tu.tree_unflatten(tu.tree_structure({'a': 1, 'b': [1, 2]}), [1])",
    "unflatten_none_too_many": "out = tu.tree_unflatten(tu.tree_structure(None), [1])",
    "unflatten_leaf_too_few": "out = tu.tree_unflatten(tu.tree_structure(1), [])",
    "unflatten_dataclass_calls_init": (
        "@dataclasses.dataclass\nclass DI:\n  x: int\n  y: int = 0\n  w: int = dataclasses.field(default=5, init=False)\n"
        "tu.register_dataclass(DI, ['x'], ['y'], drop_fields=['w'])\n"
        "out = tu.tree_unflatten(tu.tree_structure(DI(1, 2)), [7])"),
    # --- flatten_up_to
    "flatten_up_to_ok": "out = tu.tree_structure([1, (2, 3)]).flatten_up_to([[9], ('a', {'b': 1})])",
    "flatten_up_to_type": "out = tu.tree_structure([1, (2, 3)]).flatten_up_to([1, [2, 3]])",
    "flatten_up_to_tuple_arity": "out = tu.tree_structure([1, (2, 3)]).flatten_up_to([1, (2, 3, 4)])",
    "flatten_up_to_list_arity": "out = tu.tree_structure([1, (2, 3)]).flatten_up_to([1, 2, 3])",
    "flatten_up_to_none": "out = tu.tree_structure([1, None]).flatten_up_to([1, 2])",
    "flatten_up_to_dict_keys": "out = tu.tree_structure({'a': 1, 'b': 2}).flatten_up_to({'a': 1, 'c': 2})",
    "flatten_up_to_dict_type": "out = tu.tree_structure({'a': 1}).flatten_up_to(collections.OrderedDict(a=1))",
    "flatten_up_to_namedtuple": "out = tu.tree_structure(Params(1, 2)).flatten_up_to((1, 2))",
    "flatten_up_to_namedtuple_type": ("Q = collections.namedtuple('Q', ['a', 'b'])\n"
                                      "out = tu.tree_structure(Params(1, 2)).flatten_up_to(Q(1, 2))"),
    "flatten_up_to_custom_meta": "out = tu.tree_structure(Foo(1, 'm')).flatten_up_to(Foo(1, 'n'))",
    "flatten_up_to_custom_type": "out = tu.tree_structure(Foo(1, 'm')).flatten_up_to(3)",
    "flatten_up_to_ordereddict": ("out = tu.tree_structure(collections.OrderedDict(a=1, b=2))"
                                  ".flatten_up_to(collections.OrderedDict(b=1, a=2))"),
    # --- is_leaf
    "is_leaf_tuple": "out = tu.tree_flatten([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple))",
    "is_leaf_none": "out = tu.tree_flatten([1, None], is_leaf=lambda x: x is None)",
    "is_leaf_root": "out = tu.tree_flatten([1], is_leaf=lambda x: True)",
    "leaves_none": "out = [tu.tree_leaves([1, None, 2]), tu.tree_leaves([1, None, 2], is_leaf=lambda x: x is None)]",
    # --- tree_map and mismatch errors
    "map_basic": "out = tu.tree_map(lambda x: x * 2, [1, None, (2,), {'a': 3}])",
    "map_multi": "out = tu.tree_map(add, {'a': 1, 'b': [2, 3]}, {'a': 10, 'b': [20, 30]})",
    "map_prefix": "out = tu.tree_map(pair, [1, 2], [[1, 2], [3]])",
    "map_leaf_vs_tree": "out = tu.tree_map(pair, 3, [1, 2])",
    "map_none_vs_value": "out = tu.tree_map(pair, [1, 2], [1, None])",
    "map_is_leaf": "out = tu.tree_map(pair, [1, (2, 3)], [1, [2, 3]], is_leaf=lambda x: isinstance(x, tuple))",
    "map_namespace": "out = tree.map(lambda x: -x, (1, [2]))",
    "map_err_list_len": "out = tu.tree_map(add, [1, 2], [1, 2, 3])",
    "map_err_type": "out = tu.tree_map(add, [1, 2], (1, 2))",
    "map_err_nested_len": "out = tu.tree_map(add, {'a': 1, 'b': [1, 2]}, {'a': 1, 'b': [1, 2, 3]})",
    "map_err_dict_keys_same_count": "out = tu.tree_map(add, {'a': 1, 'b': [1, 2]}, {'a': 1, 'c': [1, 2]})",
    "map_err_deep": "out = tu.tree_map(add, {'a': 1, 'b': {'x': [1, (2, 3)]}}, {'a': 1, 'b': {'x': [1, (2,)]}})",
    "map_err_tree_vs_leaf": "out = tu.tree_map(add, [1, 2], 3)",
    "map_err_none": "out = tu.tree_map(pair, [1, None], [1, 2])",
    "map_err_namedtuple": "out = tu.tree_map(pair, Params(1, 2), (1, 2))",
    "map_err_third_tree": "out = tu.tree_map(lambda a, b, c: a, [1, 2], [1, 2], [1, 2, 3])",
    "map_err_dict_vs_ordereddict": "out = tu.tree_map(pair, {'a': 1}, collections.OrderedDict(a=1))",
    "map_err_ordereddict_order": "out = tu.tree_map(pair, collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2))",
    "map_err_defaultdict_factory": "out = tu.tree_map(pair, collections.defaultdict(int, {'a': 1}), collections.defaultdict(list, {'a': 1}))",
    "map_err_list_vs_int": "out = tu.tree_map(pair, [[1, 2], [3]], [1, 2])",
    "map_err_dict_fewer_keys": "out = tu.tree_map(pair, {'a': 1, 'b': 2}, {'a': 1})",
    "map_err_custom_meta": "out = tu.tree_map(pair, Foo(1, 'm'), Foo(1, 'n'))",
    "map_err_partial_func": "out = tu.tree_map(pair, tu.Partial(max, 1), tu.Partial(min, 1))",
    "map_err_arity": "out = tu.tree_map(lambda x: x, 5, 6)",
    "map_with_path": "out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), {'a': 1, 'b': [2]}, {'a': 3, 'b': [4]})",
    "map_with_path_err": "out = tu.tree_map_with_path(lambda p, x, y: x, {'a': 1, 'b': [2]}, {'a': 3, 'b': [4, 5]})",
    "map_with_path_is_leaf_path": "out = tu.tree_map_with_path(lambda p, x: p, [1, (2, 3)], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)",
    "unsortable_keys": "out = tu.tree_flatten({1: 'a', 'x': 2})",
    "unsortable_keys_with_path": "out = tu.tree_flatten_with_path({1: 'a', 'x': 2})",
    # --- key paths
    "key_reprs": ("ks = [tu.SequenceKey(0), tu.DictKey('a'), tu.DictKey(1), tu.DictKey((1, 'x')), "
                  "tu.GetAttrKey('w'), tu.FlattenedIndexKey(3)]\n"
                  "out = [(repr(k), str(k), tu.keystr((k,)), tu.keystr((k,), simple=True)) for k in ks]"),
    "key_eq_hash": ("out = [tu.SequenceKey(0) == tu.SequenceKey(0), hash(tu.DictKey('a')) == hash(tu.DictKey('a')), "
                    "tu.SequenceKey(0) == tu.DictKey(0), tu.SequenceKey(0) == 0, tu.GetAttrKey('a') != tu.GetAttrKey('b'), "
                    "tu.FlattenedIndexKey(1) == tu.FlattenedIndexKey(1)]"),
    "key_fields": "out = [tu.SequenceKey(2).idx, tu.DictKey('k').key, tu.GetAttrKey('n').name, tu.FlattenedIndexKey(4).key]",
    "key_match": ("def name(k):\n  match k:\n    case tu.SequenceKey(idx=i): return ('seq', i)\n"
                  "    case tu.DictKey(key=kk): return ('dict', kk)\n    case tu.GetAttrKey(name=n): return ('attr', n)\n"
                  "    case tu.FlattenedIndexKey(key=i): return ('flat', i)\n"
                  "out = [name(k) for k in (tu.SequenceKey(1), tu.DictKey('a'), tu.GetAttrKey('b'), tu.FlattenedIndexKey(2))]"),
    "key_pickle": "out = [pickle.loads(pickle.dumps(k)) for k in (tu.SequenceKey(1), tu.DictKey('a'), tu.GetAttrKey('b'), tu.FlattenedIndexKey(2))]",
    "key_readonly": "k = tu.GetAttrKey('a')\nk.name = 'b'\nout = k",
    "key_unhashable": "out = hash(tu.DictKey([1]))",
    "key_lt": "out = tu.SequenceKey(1) < tu.SequenceKey(2)",
    "keystr_separator": ("p = (tu.SequenceKey(0), tu.DictKey('a'), tu.GetAttrKey('x'))\n"
                         "out = [tu.keystr(p), tu.keystr(p, simple=True, separator='/'), tu.keystr(p, separator='/'), "
                         "tu.keystr(('raw', 3)), tu.keystr(()), tu.keystr(('a', 1), simple=True, separator='/'), "
                         "tu.keystr([tu.SequenceKey(1)])]"),
    "keystr_docs_example": ("params = {'foo': {'bar': {'baz': 1, 'bat': [2, 3]}}}\n"
                            "out = [(tu.keystr(p), tu.keystr(p, simple=True, separator='/')) "
                            "for p, _ in tu.tree_leaves_with_path(params)]"),
    "flatten_with_path_all_kinds": (
        "t = {'a': [1, (2, None)], 'b': Params(3, 4), 'c': collections.OrderedDict([('z', 5), ('y', 6)]), "
        "'d': collections.defaultdict(int, {'q': 7}), 'e': DC(8, 9), 'f': Foo(10, 11), "
        "'g': WithKeys(12, 13), 'h': tu.Partial(max, 14, k=15), 'i': KeysClass(16, 17), 'j': NodeClass(18, 'm'), "
        "'k': DCStatic(19)}\n"
        "pl, td = tu.tree_flatten_with_path(t)\n"
        "out = ([(p, tu.keystr(p), tu.keystr(p, simple=True, separator='.'), l) for p, l in pl], td)"),
    "flatten_with_path_leaf_none": "out = [tu.tree_flatten_with_path(None), tu.tree_flatten_with_path(5), tu.tree_leaves_with_path({'a': None, 'b': 1})]",
    "flatten_with_path_is_leaf": ("out = [tu.tree_flatten_with_path([1, (2, 3)], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True), "
                                  "tu.tree_flatten_with_path([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple))]"),
    "leaves_with_path_namespace": "out = tree.leaves_with_path([1, [2]])",
    # --- reduce, all, transpose, broadcast
    "reduce": "out = [tu.tree_reduce(add, [1, 2, 3]), tu.tree_reduce(add, [1, 2, 3], 10), tu.tree_reduce(add, [], 0), tree.reduce(add, {'a': 1, 'b': (2,)})]",
    "reduce_empty": "out = tu.tree_reduce(add, [])",
    "reduce_associative": "out = [tu.tree_reduce_associative(pair, [1, 2, 3, 4, 5]), tu.tree_reduce_associative(add, [], identity=0), tree.reduce_associative(add, [1, 2])]",
    "reduce_associative_empty": "out = tu.tree_reduce_associative(add, [])",
    "all": "out = [tu.tree_all([1, True, [0]]), tu.tree_all([]), tu.tree_all({'a': 1, 'b': (True,)}), tree.all([None])]",
    "all_is_leaf": "out = tu.tree_all([[], 1], is_leaf=lambda x: x == [])",
    "transpose": "out = tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)), [(1, 2), (3, 4)])",
    "transpose_infer": "out = tu.tree_transpose(tu.tree_structure([0, 0]), None, [{'a': 1, 'b': 2}, {'a': 3, 'b': 4}])",
    "transpose_namespace": "out = tree.transpose(tree.structure({'x': 0, 'y': 0}), tree.structure([0, 0, 0]), {'x': [1, 2, 3], 'y': [4, 5, 6]})",
    "transpose_err_inner": "out = tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0)), [(1, 2), (3, 4)])",
    "transpose_err_ragged": "out = tu.tree_transpose(tu.tree_structure([0, 0]), None, [(1, 2), (3, 4, 5)])",
    "transpose_err_outer": "out = tu.tree_transpose(tu.tree_structure([0, 0, 0]), None, [(1, 2), (3, 4)])",
    "broadcast": "out = [tu.tree_broadcast([1, 2], [[3, 4], (5, 6)]), tu.tree_broadcast([1, {'a': 2}], [[3, 4], {'a': [5, 6]}]), tree.broadcast(7, {'a': [1, 2]})]",
    "broadcast_err_len": "out = tu.tree_broadcast([1, 2, 3], [[3, 4], (5, 6)])",
    "broadcast_err_none": "out = tu.tree_broadcast([1, None], [[3, 4], (5, 6)])",
    "broadcast_err_keys": "out = tu.tree_broadcast({'a': 1}, {'b': 2})",
    # --- misc API
    "all_leaves": ("out = [tu.all_leaves([1, 2]), tu.all_leaves([1, [2]]), tu.all_leaves([None]), "
                   "tu.all_leaves([1, [2]], is_leaf=lambda x: isinstance(x, list)), "
                   "tu.all_leaves([1, None], is_leaf=lambda x: x is None), tu.all_leaves(iter([1, 2]))]"),
    "is_tree_node": ("out = [tu.is_tree_node(t) for t in (list, int, type(None), Foo, Params, "
                     "collections.OrderedDict, tu.Partial, np.ndarray, DC)]"),
    "flatten_one_level": ("out = [tu.flatten_one_level([1, [2]]), tu.flatten_one_level({'b': 1, 'a': 2}), "
                          "tu.flatten_one_level(Params(1, 2))[0], tu.flatten_one_level(None), tu.flatten_one_level((1, 2)), "
                          "tu.flatten_one_level(collections.OrderedDict([('z', 1), ('a', 2)])), "
                          "tu.flatten_one_level(collections.defaultdict(int, {'z': 1, 'a': 2})), tu.flatten_one_level(Foo(1, 'm'))]"),
    "flatten_one_level_leaf": "out = tu.flatten_one_level(1)",
    "flatten_one_level_with_keys": ("out = [tu.flatten_one_level_with_keys({'b': 1, 'a': 2}), tu.flatten_one_level_with_keys(Foo(1, 2)), "
                                    "tu.flatten_one_level_with_keys((1, 2)), tu.flatten_one_level_with_keys([1, 2]), "
                                    "tu.flatten_one_level_with_keys(None), "
                                    "tu.flatten_one_level_with_keys(WithKeys(1, 2))]"),
    "static_field": "out = dict(tree.static(default=1, metadata={'a': 2}).metadata)",
    # --- registration
    "register_duplicate": "tu.register_pytree_node(Foo, lambda f: ((), None), lambda a, c: None)",
    "register_duplicate_builtin": "tu.register_pytree_node(list, lambda f: ((), None), lambda a, c: None)",
    "register_duplicate_none": "tu.register_pytree_node(type(None), lambda f: ((), None), lambda a, c: None)",
    "register_duplicate_ordereddict": "tu.register_pytree_node(collections.OrderedDict, lambda f: ((), None), lambda a, c: None)",
    "register_duplicate_dataclass": "tu.register_dataclass(DC, data_fields=['x', 'y'], meta_fields=['z'])",
    "register_duplicate_static": "tu.register_static(Foo)",
    "register_duplicate_partial": "tu.register_pytree_node(tu.Partial, lambda f: ((), None), lambda a, c: None)",
    "register_namedtuple_override": ("P2 = collections.namedtuple('P2', ['a', 'b'])\n"
                                     "tu.register_pytree_node(P2, lambda p: ((p.a,), p.b), lambda b, c: P2(c[0], b))\n"
                                     "out = tu.tree_flatten(P2(1, 2))"),
    "register_node_class_bad": "tu.register_pytree_node_class(int)",
    "register_dataclass_not_dc": "class NoDC: pass\nout = tu.register_dataclass(NoDC)",
    "register_dataclass_not_dc_fields": (
        "class NoDC:\n  def __init__(self, a, b): self.a = a; self.b = b\n  def __repr__(self): return f'NoDC({self.a}, {self.b})'\n"
        "tu.register_dataclass(NoDC, data_fields=['a'], meta_fields=['b'])\n"
        "l, t = tu.tree_flatten(NoDC(1, 2))\nout = (l, t, tu.tree_unflatten(t, [5]))"),
    "register_dataclass_missing": ("@dataclasses.dataclass\nclass D3:\n  x: int\n  y: int\n"
                                   "out = tu.register_dataclass(D3, data_fields=['x'], meta_fields=[])"),
    "register_dataclass_unexpected": ("@dataclasses.dataclass\nclass D3:\n  x: int\n"
                                      "out = tu.register_dataclass(D3, data_fields=['x', 'q'], meta_fields=[])"),
    "register_dataclass_both": ("@dataclasses.dataclass\nclass D3:\n  x: int\n  y: int\n"
                                "out = tu.register_dataclass(D3, data_fields=['x', 'q'], meta_fields=[])"),
    "register_dataclass_one_none": ("@dataclasses.dataclass\nclass D3:\n  x: int\n"
                                    "out = tu.register_dataclass(D3, data_fields=['x'], meta_fields=None)"),
    "register_dataclass_init_false": ("@dataclasses.dataclass\nclass D4:\n  x: int\n  w: int = dataclasses.field(default=0, init=False)\n"
                                      "out = tu.register_dataclass(D4)"),
    "register_dataclass_drop": ("@dataclasses.dataclass\nclass D5:\n  x: int\n  y: int\n  w: int = dataclasses.field(default=0, init=False)\n"
                                "tu.register_dataclass(D5, data_fields=['x'], meta_fields=['y'], drop_fields=['w'])\n"
                                "out = [tu.tree_flatten(D5(1, 2)), tu.tree_flatten_with_path(D5(1, 2))]"),
    "register_dataclass_metadata_static": ("@tu.register_dataclass\n@dataclasses.dataclass\nclass D6:\n  x: int\n"
                                           "  z: int = dataclasses.field(default=0, metadata=dict(static=True))\n"
                                           "out = [tu.tree_flatten(D6(1, 2)), tu.tree_flatten_with_path(D6(1, 2))]"),
    "register_pytree_node_returns": "class R: pass\nout = tu.register_pytree_node(R, lambda r: ((), None), lambda a, c: R())",
    # --- Partial
    "partial_call": "p = tu.Partial(f3, 1)\nout = (p(2), p(2, c=3), tu.tree_flatten(p)[0])",
    "partial_map": "out = tu.tree_map(lambda x: x * 10, tu.Partial(f3, 1, c=2))(3)",
    "partial_of_partial": ("q = tu.Partial(tu.Partial(f3, 1), 2)\n"
                           "out = (q.args, tu.tree_flatten(q)[0], q(c=3), type(q.func).__name__)"),
    "partial_of_functools_partial": ("fp = functools.partial(f3, 1)\nr = tu.Partial(fp, 2)\n"
                                     "out = (r.args, tu.tree_flatten(r)[0], r(), tu.tree_structure(r) == tu.tree_structure(tu.Partial(fp, 3)), "
                                     "tu.tree_structure(r) == tu.tree_structure(tu.Partial(functools.partial(f3, 1), 3)))"),
    "partial_isinstance": "out = (isinstance(tu.Partial(f3), functools.partial), tu.Partial(f3, 1) == tu.Partial(f3, 1))",
    "partial_structure_eq": "out = tu.tree_structure(tu.Partial(f3)) == tu.tree_structure(tu.Partial(f3))",
    "partial_not_callable": "out = tu.Partial(3)",
    "partial_pickle": "out = pickle.loads(pickle.dumps(tu.Partial(max, 1)))",
    "partial_children": "out = tu.treedef_children(tu.tree_structure(tu.Partial(f3, 1)))",
}


def normalize(text: str) -> str:
  """Masks what legitimately differs between runs and libraries: addresses, module names."""
  text = re.sub(r"0x[0-9a-f]+", "0x?", text)
  text = text.replace("axle.tree_util", "jax.tree_util")
  return text


def run(source: str, tu, tree) -> dict:
  namespace = {"tu": tu, "tree": tree, "__name__": "snippet"}
  exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
  try:
    exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:  # recorded, compared by type and message
    return {"error": type(e).__name__, "message": normalize(str(e))}
  return {"out": normalize(repr(namespace.get("out")))}


def main():
  import jax.tree  # noqa: E402  (this script runs under real JAX, never under pytest)
  import jax.tree_util
  import jax
  results = {name: dict(source=source, **run(source, jax.tree_util, jax.tree))
             for name, source in SNIPPETS.items()}
  path = os.path.join(HERE, "..", "tests", "data", "tree_util_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "prelude": PRELUDE, "snippets": results}, f,
              indent=1, sort_keys=True)
  print(f"wrote {len(results)} snippets to {os.path.normpath(path)}")


if __name__ == "__main__":
  sys.exit(main())
