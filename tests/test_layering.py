"""The layer order of ``docs/architecture.md``, enforced.

Every module under ``axle/`` is parsed (never imported). A module may import, at its top, only
modules of its own layer or below; inside L5 (lax) and L6 (numpy) the order is a total one,
listed below, and a module may import only modules listed before it. Function-local imports of
axle modules are allowed only where ``LOCAL_IMPORTS_ALLOWED`` names them, with the reason.
No ``axle._src`` module imports a public namespace (``axle.numpy``, ``axle.lax``, ...), and no
module fetches a module at call time (``importlib.import_module``, ``__import__``).

Each failure prints the offending edge as ``file:line: importer -> imported``.
"""
import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "axle"

# Bottom up. Names are relative to ``axle._src``. Modules of one layer may import each other
# (without cycles) unless the layer is ordered (L5, L6), where each may import only earlier ones.
LAYERS = [
    ("L0", False, ["dtypes", "errors", "config", "tree_util", "pretty_printer", "cache_misses",
                   "source_info", "traceback_util", "version", "util",
                   "monitoring", "linear_util", "layout", "_host_kernels"]),
    ("L1", False, ["core", "ir", "ref_frames"]),
    ("L2", False, ["xla.client", "array", "basearray", "devices", "sharding", "sharded_array",
                   "sharding_impls"]),
    ("L3", False, ["interpreters.eval", "interpreters.staging", "interpreters.lowering",
                   "interpreters.batching", "interpreters.ad", "interpreters.partial_eval",
                   "interpreters.mlir", "interpreters.spmd", "interpreters",
                   "xla.cache", "xla.spmd_jit", "xla.host_calls", "xla.execution",
                   "xla.deferred", "xla"]),
    ("L4", False, ["api", "vmap", "differentiation", "custom_derivatives", "checkpoint",
                   "shard_map_eager", "shard_map", "multihost_utils", "distributed"]),
    ("L5", True, ["lax.utils", "lax.elementwise_convert", "lax.elementwise", "lax.structural",
                  "lax.special_lowering", "lax.special", "lax.reductions", "lax.slicing",
                  "lax.contractions", "lax.ragged", "lax.convolution", "lax.windowed",
                  "lax.sorting", "lax.linalg", "lax.fourier", "lax.parallel", "lax.parallel_spmd",
                  "lax.control_flow_common", "lax.conditionals", "lax.loops", "lax.control_flow",
                  "lax.custom_solvers", "lax.structural_extra", "lax.special_loops", "lax.lax",
                  "lax.callback", "lax.debugging", "lax"]),
    ("L6", True, ["numpy.util", "numpy.creation", "numpy.scalar_types", "numpy.ufuncs",
                  "numpy.lax_numpy", "numpy.reductions", "numpy.indexing", "numpy.selection",
                  "numpy.statistics", "numpy.shape_ops", "numpy.products", "numpy.linalg",
                  "numpy.fft", "numpy.polynomial", "numpy.misc", "numpy.array_methods",
                  "numpy"]),
]
# Everything else is L7: ``axle._src`` packages on top of numpy, and the public namespaces.
L7_SRC_PREFIXES = ["random", "nn", "scipy", "example_libraries", "test_util", "checkify",
                   "flatten_util", "primitive_table", "typing", "lib", "jax_names", "sparse",
                   "state", "hijax"]

# Modules that may load modules by name at run time, and why.
MODULE_FETCHES_ALLOWED = {
    "axle._src.jax_names": "the import hook that serves ``jax.*`` module names with axle's modules",
}

# (importer, imported): why the import cannot be at the top. Keep this list short.
LOCAL_IMPORTS_ALLOWED = {
    ("axle._src.differentiation", "axle._src.lax.structural"):
        "the Jacobian helpers slice and reshape with lax, which sits above the transformation API",
    ("axle._src.differentiation", "axle._src.lax.elementwise_convert"):
        "the Jacobian helpers cast the basis and the blocks as JAX does, with lax",
    ("axle._src.differentiation", "axle._src.numpy.creation"):
        "the standard basis of jacfwd/jacrev is jnp.eye, traced, as in JAX",
    ("axle._src.custom_derivatives", "axle._src.lax.elementwise_convert"):
        "a custom JVP rule's tangents are cast to the primal's tangent dtype with lax",
    ("axle._src.lax.elementwise", "axle._src.lax.structural"):
        "elementwise's JVP/transpose/batching rules fill, broadcast and reshape with structural "
        "ops, and structural is built on elementwise (one module in JAX)",
    ("axle._src.lax.elementwise", "axle._src.lax.reductions"):
        "elementwise's transposes sum cotangents back to an operand's shape (reduce_sum), and "
        "reductions is built on elementwise",
    ("axle._src.lax.structural", "axle._src.lax.reductions"):
        "the transposes of broadcast_in_dim and pad sum cotangents (reduce_sum), and reduce_sum's "
        "transpose is broadcast_in_dim",
}


def _module_name(path):
  parts = list(path.relative_to(ROOT).with_suffix("").parts)
  if parts[-1] == "__init__":
    parts.pop()
  return ".".join(parts)


@functools.lru_cache(maxsize=None)
def _modules():
  """Every module: the Python files, and the C extension modules (by their source file)."""
  return {_module_name(p): p for p in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")])}


def _rank(name):
  """(layer index, position) of a module; position orders modules only in ordered layers."""
  if not name.startswith("axle._src"):
    return (7, 0)
  short = name[len("axle._src."):] if name != "axle._src" else ""
  for index, (_, ordered, names) in enumerate(LAYERS):
    if short in names:
      return (index, names.index(short) if ordered else 0)
  if short == "" or any(short == p or short.startswith(p + ".") for p in L7_SRC_PREFIXES):
    return (7, 0)
  return None


def _imported_modules(importer, node, is_package, modules):
  """The axle modules an import statement loads (``from m import name`` loads m.name when that
  is a module, else m)."""
  if isinstance(node, ast.Import):
    targets = [alias.name for alias in node.names]
  else:
    if node.level:
      base = importer.split(".")
      if not is_package:
        base = base[:-1]
      base = base[:len(base) - (node.level - 1)]
      module = ".".join(base + ([node.module] if node.module else []))
    else:
      module = node.module
    targets = [f"{module}.{alias.name}" for alias in node.names]
  found = []
  for target in targets:
    while target and target not in modules:
      target = target.rpartition(".")[0]
    if target.startswith("axle") and target != importer:
      found.append(target)
  return found


@functools.lru_cache(maxsize=None)
def _edges():
  """(importer, imported, path, line, local) for every import of an axle module, and the list of
  call-time module fetches."""
  modules = _modules()
  edges, fetches = [], []
  for name, path in modules.items():
    if path.suffix != ".py":
      continue  # (a C extension imports no axle module)
    tree = ast.parse(path.read_text(), str(path))
    local_nodes = set()
    for function in ast.walk(tree):
      if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        for node in ast.walk(function):
          local_nodes.add(id(node))
    for node in ast.walk(tree):
      if isinstance(node, (ast.Import, ast.ImportFrom)):
        for imported in _imported_modules(name, node, path.name == "__init__.py", modules):
          edges.append((name, imported, path, node.lineno, id(node) in local_nodes))
      elif isinstance(node, ast.Call):
        function = node.func
        called = (function.attr if isinstance(function, ast.Attribute) else
                  function.id if isinstance(function, ast.Name) else None)
        if called in ("import_module", "__import__") and name not in MODULE_FETCHES_ALLOWED:
          fetches.append((path, node.lineno, called))
  return edges, fetches


def _where(path, line):
  return f"{path.relative_to(ROOT)}:{line}"


def test_every_module_has_a_layer():
  missing = [name for name in _modules() if _rank(name) is None]
  assert not missing, ("modules with no layer (add them to LAYERS in tests/test_layering.py and "
                       f"to docs/architecture.md): {missing}")


def test_no_upward_import():
  bad = []
  for importer, imported, path, line, local in _edges()[0]:
    have, want = _rank(importer), _rank(imported)
    if have is None or want is None or (local and (importer, imported) in LOCAL_IMPORTS_ALLOWED):
      continue
    if imported.startswith("axle._src") or not importer.startswith("axle._src"):
      ordered = LAYERS[have[0]][1] if have[0] < len(LAYERS) else False
      upward = want[0] > have[0] or (ordered and want[0] == have[0] and want[1] >= have[1])
      # A package's __init__ may import its own submodules (they are below it in the order).
      if upward and not imported.startswith(importer + "."):
        bad.append(f"{_where(path, line)}: {importer} ({LAYERS[have[0]][0] if have[0] < len(LAYERS) else 'L7'})"
                   f" -> {imported} ({LAYERS[want[0]][0] if want[0] < len(LAYERS) else 'L7'})")
  assert not bad, "imports that point up the layer order:\n" + "\n".join(bad)


def test_no_src_module_imports_a_public_namespace():
  bad = [f"{_where(path, line)}: {importer} -> {imported}"
         for importer, imported, path, line, _ in _edges()[0]
         if importer.startswith("axle._src") and not imported.startswith("axle._src")]
  assert not bad, "axle._src modules must import axle._src modules only:\n" + "\n".join(bad)


def test_function_local_imports_only_where_allowed():
  edges, fetches = _edges()
  bad = [f"{_where(path, line)}: {importer} -> {imported}"
         for importer, imported, path, line, local in edges
         if local and (importer, imported) not in LOCAL_IMPORTS_ALLOWED]
  bad += [f"{_where(path, line)}: {called}(...) fetches a module at call time" for path, line, called in fetches]
  assert not bad, ("function-local imports outside the allow-list (move them to the top of the module, "
                   "in layer order, or register the value from above):\n" + "\n".join(bad))


def test_top_level_imports_have_no_cycle():
  graph = {}
  for importer, imported, _, _, local in _edges()[0]:
    if not local and not imported.startswith(importer + "."):
      graph.setdefault(importer, set()).add(imported)
  state, stack, cycles = {}, [], []

  def visit(node):
    state[node] = 1
    stack.append(node)
    for nxt in sorted(graph.get(node, ())):
      if state.get(nxt) == 1:
        cycles.append(stack[stack.index(nxt):] + [nxt])
      elif nxt not in state:
        visit(nxt)
    stack.pop()
    state[node] = 2

  for node in sorted(graph):
    if node not in state:
      visit(node)
  assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_allow_list_entries_are_used():
  used = {(importer, imported) for importer, imported, _, _, local in _edges()[0] if local}
  stale = [edge for edge in LOCAL_IMPORTS_ALLOWED if edge not in used]
  assert not stale, f"allow-list entries that no import uses any more: {stale}"


def test_the_checker_sees_an_upward_import(tmp_path):
  """The rank function orders what the rules say: lax is above the API, numpy above lax."""
  assert _rank("axle._src.lax.elementwise") > _rank("axle._src.api")
  assert _rank("axle._src.numpy.util") > _rank("axle._src.lax.control_flow")
  assert _rank("axle._src.lax.structural") > _rank("axle._src.lax.elementwise")
  assert _rank("axle.numpy") > _rank("axle._src.numpy.misc")
