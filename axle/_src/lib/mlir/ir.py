"""JAX's ``jax._src.lib.mlir.ir``: jaxlib's MLIR IR bindings (``ir.RankedTensorType``,
``ir.Value``, ...), for lowering rules. Listed in ``axle._src.jax_names``; the bindings are
imported on first attribute access."""
from axle._src.xla import client as _client


def __getattr__(name: str):
  if name.startswith("__"):
    raise AttributeError(name)
  return getattr(_client.mlir_bindings().ir, name)


def __dir__():
  return dir(_client.mlir_bindings().ir)
