"""JAX's ``jax._src.lib.mlir.dialects.hlo``: the StableHLO dialect of jaxlib's MLIR bindings
(``hlo.AddOp(x, y).result``), for lowering rules registered with
``jax.interpreters.mlir.register_lowering``. Listed in ``axle._src.jax_names``; the bindings
are imported on first attribute access."""
from axle._src.xla import client as _client


def __getattr__(name: str):
  if name.startswith("__"):
    raise AttributeError(name)
  return getattr(_client.mlir_bindings().stablehlo, name)


def __dir__():
  return dir(_client.mlir_bindings().stablehlo)
