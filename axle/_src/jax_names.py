"""Running JAX programs and libraries on axle: axle registered under the name ``jax``.

``alias_as_jax()`` makes ``import jax`` and ``import jax.<anything public>`` resolve to axle's
modules (``jax.numpy`` is ``axle.numpy``, ``jax.extend.core`` is ``axle.extend.core``, ...),
so that libraries written for JAX (optax, flax, equinox, chex, ...) imported afterwards run on
axle. ``python -m axle.run script.py [args]`` (or ``-m module [args]``) does this and then runs
the program as ``__main__``.

Real jax is never imported in that process, even if it is installed: every ``jax`` and
``jax.*`` name is answered here, and a name axle does not provide raises ModuleNotFoundError.

JAX-internal module names (``jax._src.*``) that libraries import at module level resolve only
through the table ``JAX_INTERNAL_MODULES`` below: each is a thin alias of an axle module that
provides the same names with the same meaning. That table is the complete list.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
import types

# jax._src.<name> -> the axle module serving it.
JAX_INTERNAL_MODULES = {
    "jax._src": "axle._src",
    "jax._src.ad_util": "axle._src.differentiation",  # stop_gradient_p (lineax/diffrax)
    "jax._src.api": "axle._src.api",  # grad, jit, vmap, jvp, ... (as jax._src.api holds them)
    "jax._src.compiler": "axle._src.xla.client",  # axle's compile entry point
    "jax._src.core": "axle.core",
    "jax._src.custom_derivatives": "axle._src.custom_derivatives",
    "jax._src.dispatch": "axle._src.xla.execution",  # wait_for_tokens
    "jax._src.dtypes": "axle._src.dtypes",
    "jax._src.flatten_util": "axle._src.flatten_util",
    "jax._src.lax": "axle._src.lax",
    "jax._src.lax.lax": "axle._src.lax.lax",
    "jax._src.lib": "axle._src.lib",
    "jax._src.lib.mlir": "axle._src.lib.mlir",
    "jax._src.lib.mlir.dialects": "axle._src.lib.mlir.dialects",
    "jax._src.lib.mlir.dialects.hlo": "axle._src.lib.mlir.dialects.hlo",
    "jax._src.lib.mlir.ir": "axle._src.lib.mlir.ir",
    "jax._src.linear_util": "axle._src.linear_util",
    "jax._src.numpy": "axle._src.numpy",
    "jax._src.random": "axle._src.random",
    "jax._src.state": "axle._src.state",
    "jax._src.state.types": "axle._src.state.types",  # AbstractRef (flax.nnx)
    "jax._src.traceback_util": "axle._src.traceback_util",
    "jax._src.tree_util": "axle._src.tree_util",
    "jax._src.typing": "axle._src.typing",
    "jax._src.util": "axle._src.util",
    # Looked up by jaxlib's C++ side when it splits multi-device results (see the
    # multi-device notes): make_single_device_sharding and the sharding classes.
    "jax._src.sharding_impls": "axle._src.sharding_impls",
}


def _target_module_name(fullname: str) -> str | None:
  """The axle module that serves ``fullname`` (``jax`` or ``jax.*``), or None."""
  if fullname == "jax":
    return "axle"
  if fullname in JAX_INTERNAL_MODULES:
    return JAX_INTERNAL_MODULES[fullname]
  if fullname.startswith("jax._src"):
    return None
  return "axle" + fullname[len("jax"):]


class _AliasLoader(importlib.abc.Loader):
  def __init__(self, module: types.ModuleType):
    self.module = module

  def create_module(self, spec):
    return self.module

  def exec_module(self, module):
    pass  # already executed under its axle name


class _JaxAliasFinder(importlib.abc.MetaPathFinder):
  """Answers every ``jax``/``jax.*`` import with an axle module (or ModuleNotFoundError)."""

  def find_spec(self, fullname, path=None, target=None):
    if fullname != "jax" and not fullname.startswith("jax."):
      return None
    target_name = _target_module_name(fullname)
    if target_name is None:
      raise ModuleNotFoundError(f"No module named {fullname!r} (axle does not provide this "
                                "JAX-internal module)", name=fullname)
    try:
      module = importlib.import_module(target_name)
    except ModuleNotFoundError as e:
      if e.name is not None and target_name.startswith(e.name):
        raise ModuleNotFoundError(f"No module named {fullname!r} (axle has no {target_name})",
                                  name=fullname) from None
      raise
    spec = importlib.util.spec_from_loader(fullname, _AliasLoader(module))
    return spec


_finder = _JaxAliasFinder()


def alias_as_jax() -> None:
  """Registers axle as ``jax`` in this process: afterwards ``import jax``, ``import
  jax.numpy as jnp``, ``from jax.extend import core`` and the libraries built on them use axle.
  Call it before importing those libraries. Raises RuntimeError if real jax is already loaded."""
  existing = sys.modules.get("jax")
  axle = importlib.import_module("axle")
  if existing is not None and existing is not axle:
    raise RuntimeError("alias_as_jax: the real jax module is already imported in this process; "
                       "call axle.alias_as_jax() (or use `python -m axle.run`) before anything "
                       "imports jax.")
  if _finder not in sys.meta_path:
    sys.meta_path.insert(0, _finder)
  sys.modules["jax"] = axle
  # Submodules already imported under their axle names become visible under jax.* too.
  for name, module in list(sys.modules.items()):
    if name.startswith("axle.") and module is not None and not name.startswith("axle._src"):
      sys.modules.setdefault("jax" + name[len("axle"):], module)
  # Each JAX-internal name is bound in sys.modules and as an attribute of its parent, so that
  # ``from jax._src import dispatch`` works too (it looks the name up on the parent module).
  for jax_name in sorted(JAX_INTERNAL_MODULES, key=lambda n: n.count(".")):
    try:
      module = importlib.import_module(JAX_INTERNAL_MODULES[jax_name])
    except ImportError:
      continue  # not provided (yet): importing the jax name raises ModuleNotFoundError
    sys.modules.setdefault(jax_name, module)
    parent = sys.modules.get(jax_name.rpartition(".")[0])
    child = jax_name.rpartition(".")[2]
    if parent is not None and not hasattr(parent, child):
      setattr(parent, child, module)


_USAGE = ("usage: python -m axle.run script.py [args ...]\n"
          "       python -m axle.run -m module [args ...]\n"
          "Runs a JAX program with axle registered as `jax`.")


def main(argv: list[str] | None = None) -> None:
  """``python -m axle.run``: runs a script or module with axle registered as ``jax``."""
  argv = list(sys.argv[1:] if argv is None else argv)
  if not argv or argv[0] in ("-h", "--help"):
    print(_USAGE, file=sys.stderr if not argv else sys.stdout)
    raise SystemExit(0 if argv else 2)
  alias_as_jax()
  if argv[0] == "-m":
    if len(argv) < 2:
      print(_USAGE, file=sys.stderr)
      raise SystemExit(2)
    module_name = argv[1]
    sys.argv = [module_name] + argv[2:]
    runpy.run_module(module_name, run_name="__main__", alter_sys=True)
  else:
    script = argv[0]
    if not os.path.exists(script):
      print(f"axle.run: can't open file {script!r}: No such file", file=sys.stderr)
      raise SystemExit(2)
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
