"""Every primitive axle defines, by JAX's variable name (``exp_p``, ``scatter_add_p``,
``pjit_p``, ...), for ``jax.extend.core.primitives``. Imports every family that defines
primitives, so it sits at the top layer (L7)."""
from __future__ import annotations

from axle._src import core
from axle._src import api as _api  # noqa: F401  (jit_p)
from axle._src import checkpoint as _checkpoint  # noqa: F401
from axle._src import custom_derivatives as _custom_derivatives  # noqa: F401
from axle._src.lax import control_flow as _control_flow  # noqa: F401
from axle._src.lax import fourier as _fft  # noqa: F401
from axle._src.lax import linalg as _linalg  # noqa: F401
from axle._src.lax import parallel as _parallel  # noqa: F401
from axle._src.random import distributions as _distributions  # noqa: F401  (random_gamma_p)
from axle._src.random import prng as _prng  # noqa: F401


# JAX's variable names where they are not ``<name>_p``.
_RENAMED = {"add_any": "add_jaxvals_p", "jit": "pjit_p", "remat2": "remat_p",
            "while": "while_p", "name": "name_p"}


def _variable_name(primitive) -> str:
  return _RENAMED.get(primitive.name, primitive.name.replace("-", "_") + "_p")



def _never_staged(name: str):
  """JAX's ``call_p``/``closed_call_p``: axle inlines calls and never stages these, so no jaxpr
  of axle's contains them. They exist so that libraries that key rule tables by them (numpyro's
  provenance) import; binding one says so instead of guessing."""
  primitive = core.Primitive.__new__(core.Primitive)
  primitive.name = name
  primitive.multiple_results = True
  primitive.impl = primitive.abstract_eval = None
  primitive.memoise_abstract_eval = primitive.impl_takes_arrays = False

  def bind(*args, **params):
    raise NotImplementedError(f"axle does not stage `{name}` (it inlines calls); call the "
                              "function directly, or use jax.jit for a staged call")
  primitive.bind = bind
  return primitive


call_p = _never_staged("call")
closed_call_p = _never_staged("closed_call")
primitives_by_variable_name = {_variable_name(p): p for p in core.all_primitives}
primitives_by_variable_name.update(call_p=call_p, closed_call_p=closed_call_p)
globals().update(primitives_by_variable_name)
if "jit_p" not in globals() and "pjit_p" in primitives_by_variable_name:
  jit_p = primitives_by_variable_name["pjit_p"]
__all__ = sorted(primitives_by_variable_name) + (["jit_p"] if "jit_p" in globals() else [])
