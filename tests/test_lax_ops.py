"""Every primitive's op records: eager vs NumPy reference, jit vs eager, jaxpr avals vs eager."""
import importlib
import pkgutil

import numpy as np
import pytest

import axle
from tests import records as records_pkg
from tests.op_record import OpRecord

ALL_RECORDS: list[OpRecord] = []
for module_info in pkgutil.iter_modules(records_pkg.__path__):
  module = importlib.import_module(f"tests.records.{module_info.name}")
  ALL_RECORDS.extend(getattr(module, "RECORDS", []))


def _as_list(x):
  return list(x) if isinstance(x, (tuple, list)) else [x]


def _assert_close(actual, expected, record: OpRecord, what: str):
  actual = np.asarray(actual)
  expected = np.asarray(expected)
  assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
  if record.check_dtype:
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
  if actual.dtype.kind in "biu" or expected.dtype.kind in "biu":
    np.testing.assert_array_equal(actual, expected, err_msg=what)
  else:
    with np.errstate(invalid="ignore"):  # NaN bit patterns from bitcasts widen with a warning
      actual = actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
      expected = expected.astype(np.complex128 if expected.dtype.kind == "c" else np.float64)
    np.testing.assert_allclose(actual, expected, rtol=record.rtol, atol=record.atol, equal_nan=record.nan_ok, err_msg=what)


@pytest.mark.parametrize("record", ALL_RECORDS, ids=[r.name for r in ALL_RECORDS])
def test_eager_matches_reference(record: OpRecord):
  rng = np.random.default_rng(0)
  for _ in range(record.trials):
    args = record.make_args(rng)
    expected = _as_list(record.reference(*[np.copy(a) for a in args]))
    actual = _as_list(record.fun(*args))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
      _assert_close(a, e, record, f"{record.name} eager")


@pytest.mark.parametrize("record", ALL_RECORDS, ids=[r.name for r in ALL_RECORDS])
def test_jit_matches_eager_and_avals(record: OpRecord):
  rng = np.random.default_rng(1)
  args = record.make_args(rng)
  eager = _as_list(record.fun(*args))
  jitted = _as_list(axle.jit(record.fun)(*args))
  closed = axle.make_jaxpr(record.fun)(*args)
  for e, j, aval in zip(eager, jitted, closed.out_avals):
    _assert_close(j, e, record, f"{record.name} jit")
    assert aval.shape == np.shape(e) and aval.dtype == e.dtype, (
        f"{record.name}: jaxpr says {aval}, eager gave {e.dtype}{np.shape(e)}")
