"""Running jaxprs on XLA: compiling (with the executable caches), transferring arguments,
executing, and the eager fallback that runs one primitive as a cached executable."""
from __future__ import annotations

import weakref

import numpy as np

from axle._src.core import ShapedArray
from axle._src.interpreters import lowering
from axle._src.ir import ClosedJaxpr
from axle._src.xla import client

# ClosedJaxpr -> Executable, for jit equations evaluated eagerly (e.g. inside eval_jaxpr).
_jaxpr_executables: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def compile_jaxpr(closed: ClosedJaxpr, name: str = "main", donated=()) -> client.Executable:
  """Lowers and compiles ``closed``."""
  text = lowering.lower_jaxpr_to_module(closed, name, donated)
  return client.compile(text, closed.out_avals)


def executable_for(closed: ClosedJaxpr, name: str = "main") -> client.Executable:
  executable = _jaxpr_executables.get(closed)
  if executable is None:
    executable = _jaxpr_executables[closed] = compile_jaxpr(closed, name)
  return executable


def run_primitive(primitive, values, avals, params):
  """Eager fallback: runs one primitive as a cached single-primitive executable (host values in,
  host values out)."""
  executable = lowering.primitive_executable(primitive, avals, params)
  buffers = [client.put(np.asarray(v), a) for v, a in zip(values, avals)]
  outs = executable.execute(buffers)
  results = [client.to_host(o, a) for o, a in zip(outs, executable.out_avals)]
  return results if primitive.multiple_results else results[0]
