"""StableHLO operation builders for lowering rules written against JAX's MLIR bindings
(``jax._src.lib.mlir.dialects.hlo``): ``hlo.AddOp(x, y).result``.

Each builder emits one StableHLO operation into the function of the lowering rule running now
(see ``axle._src.interpreters.mlir``). Elementwise operations only: their result has the
shape of their first operand (comparisons give booleans)."""
from __future__ import annotations

import numpy as np

from axle._src.core import ShapedArray
from axle._src.interpreters import lowering
from axle._src.interpreters import mlir


def _as_value(x):
  """An operand: a value, or an operation with one result (as MLIR's builders accept)."""
  if isinstance(x, (_ElementwiseOp, ConstantOp)):
    return x.result
  return x


class _ElementwiseOp:
  """One emitted elementwise operation; ``.result`` is its value (``.results`` the list)."""
  op_name = ""

  def __init__(self, *operands):
    ctx = mlir.current_rule_context()
    operands = [_as_value(x) for x in operands]
    for x in operands:
      if not isinstance(x, lowering.Value):
        raise TypeError(f"hlo.{type(self).__name__} takes lowering values (the operands a "
                        f"lowering rule receives), got {type(x).__name__}.")
    aval = operands[0].aval
    self.result = lowering.op(ctx, self.op_name, list(operands), self._result_aval(aval))
    self.results = [self.result]

  @staticmethod
  def _result_aval(aval):
    return ShapedArray(aval.shape, aval.dtype)


def _elementwise(class_name: str, op_name: str):
  return type(class_name, (_ElementwiseOp,), {"op_name": f"stablehlo.{op_name}",
                                              "__module__": __name__})


_OPS = {
    "AddOp": "add", "SubtractOp": "subtract", "MulOp": "multiply", "DivOp": "divide",
    "RemOp": "remainder", "MaxOp": "maximum", "MinOp": "minimum", "PowOp": "power",
    "Atan2Op": "atan2", "AndOp": "and", "OrOp": "or", "XorOp": "xor",
    "NegOp": "negate", "AbsOp": "abs", "ExpOp": "exponential", "Expm1Op": "exponential_minus_one",
    "LogOp": "log", "Log1pOp": "log_plus_one", "SqrtOp": "sqrt", "RsqrtOp": "rsqrt",
    "CbrtOp": "cbrt", "SineOp": "sine", "CosineOp": "cosine", "TanOp": "tan",
    "TanhOp": "tanh", "LogisticOp": "logistic", "FloorOp": "floor", "CeilOp": "ceil",
    "SignOp": "sign", "NotOp": "not",
}
for _class_name, _op_name in _OPS.items():
  globals()[_class_name] = _elementwise(_class_name, _op_name)


class ConstantOp:
  """A constant holding a NumPy value: ``hlo.ConstantOp(np.float32(2)).result``."""

  def __init__(self, value):
    self.result = lowering.constant(mlir.current_rule_context(), np.asarray(value))
    self.results = [self.result]


__all__ = sorted(_OPS) + ["ConstantOp"]
