"""Every primitive's op records: eager vs NumPy reference, jit vs eager, jaxpr avals vs eager;
check_grads for records with "grad" in their transforms, vmap vs a loop for "vmap"."""
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
  if record.reference is None:
    pytest.skip(f"{record.name}: no independent NumPy reference (its gradients and vmap are "
                "checked; eager values are compared with jit in test_jit_matches_eager_and_avals)")
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


GRAD_RECORDS = [r for r in ALL_RECORDS if "grad" in r.transforms]
VMAP_RECORDS = [r for r in ALL_RECORDS if "vmap" in r.transforms]


@pytest.mark.parametrize("record", GRAD_RECORDS, ids=[r.name for r in GRAD_RECORDS])
def test_grads_match_finite_differences(record: OpRecord):
  from axle.test_util import check_grads
  rng = np.random.default_rng(2)
  make_args = record.grad_make_args or record.make_args
  args = make_args(rng)
  check_grads(record.fun, args, order=record.grad_order, modes=record.grad_modes,
              atol=record.grad_tol, rtol=record.grad_tol)


def _batch_of_examples(record: OpRecord, size: int):
  """``size`` argument sets of equal shapes: independent draws when the record's shapes are
  fixed, else the first draw with its float arguments scaled per example."""
  draws = [record.make_args(np.random.default_rng(10 + i)) for i in range(size)]
  signature = lambda args: [(np.shape(a), np.asarray(a).dtype) for a in args]
  if all(signature(d) == signature(draws[0]) for d in draws):
    return draws
  first = draws[0]
  scaled = []
  for i in range(size):
    scaled.append([np.asarray(a * (1 + 0.25 * i)).astype(np.asarray(a).dtype)
                   if np.asarray(a).dtype.kind in "fc" else a for a in first])
  return scaled


def _stack(examples, axis):
  return np.stack([np.asarray(e) for e in examples], axis=axis)


@pytest.mark.parametrize("record", VMAP_RECORDS, ids=[r.name for r in VMAP_RECORDS])
def test_vmap_matches_loop(record: OpRecord):
  size = 3
  examples = _batch_of_examples(record, size)
  n_args = len(examples[0])
  expected = [_as_list(record.fun(*ex)) for ex in examples]
  expected = [np.stack([np.asarray(e[k]) for e in expected]) for k in range(len(expected[0]))]

  # every argument batched along axis 0, then along its last axis
  for where in ("front", "back"):
    axes = [0 if where == "front" else np.ndim(examples[0][i]) for i in range(n_args)]
    batched = [_stack([ex[i] for ex in examples], axis) for i, axis in enumerate(axes)]
    actual = _as_list(axle.vmap(record.fun, in_axes=tuple(axes))(*batched))
    for a, e in zip(actual, expected):
      _assert_close(a, e, record, f"{record.name} vmap in_axes={axes}")

  # only the first argument batched, the others shared
  if n_args > 1:
    shared = list(examples[0][1:])
    loop = [_as_list(record.fun(ex[0], *shared)) for ex in examples]
    loop = [np.stack([np.asarray(e[k]) for e in loop]) for k in range(len(loop[0]))]
    batched = _stack([ex[0] for ex in examples], 0)
    in_axes = (0,) + (None,) * (n_args - 1)
    actual = _as_list(axle.vmap(record.fun, in_axes=in_axes)(batched, *shared))
    for a, e in zip(actual, loop):
      _assert_close(a, e, record, f"{record.name} vmap in_axes={in_axes}")

  # under jit too
  batched = [_stack([ex[i] for ex in examples], 0) for i in range(n_args)]
  actual = _as_list(axle.jit(axle.vmap(record.fun))(*batched))
  for a, e in zip(actual, expected):
    _assert_close(a, e, record, f"{record.name} jit(vmap)")
