"""Records JAX's dtype behaviour (promotion table, casts, finfo/iinfo, ...) for tests/test_dtypes.py.

Runs under real JAX (never inside the axle test process):

  $JAX_PYTHON tools/record_promotion_table.py

and writes tests/data/promotion_table.json. Results are recorded with
jax_enable_x64 off ("x32") and on ("x64").

Operands are named by strings the test decodes:
  "<dtype>"        the dtype object np.dtype(<dtype>) (strongly typed)
  "weak:<dtype>"   a weakly typed array of that dtype
  "py:bool|int|float|complex"    the Python values True, 1, 1.0, 1j
  "type:bool|int|float|complex"  the Python types themselves
  "None"           None (result_type treats it as the default float dtype)
A result cell is "<dtype>" or "<dtype>*" (weak), suffixed with "!" when a
warning was raised, or "E<n>" for an exception whose (type, message) is errors[n];
in promotion error messages the operand tuple is replaced by "{nodes}".
"""
import json
import os
import random
import re
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax._src import dtypes as jax_dtypes
from jax._src.lax import lax as lax_internal

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "promotion_table.json")

MAIN_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
NARROW_DTYPES = ["int1", "int2", "int4", "uint1", "uint2", "uint4", "float4_e2m1fn",
                 "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
                 "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                 "float8_e5m2fnuz"]
ALL_DTYPES = MAIN_DTYPES + [n for n in NARROW_DTYPES if hasattr(ml_dtypes, n)]
PY_VALUES = {"bool": True, "int": 1, "float": 1.0, "complex": 1j}
PY_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}

errors: list = []


def _error_index(err) -> str:
  # The operand tuple in promotion errors is replaced by {nodes}: JAX builds it from a
  # set, so its order is not reproducible. Tests compare messages normalised the same way.
  entry = [type(err).__name__, re.sub(r"^Input dtypes \(.*?\) have", "Input dtypes {nodes} have",
                                      str(err))]
  if entry not in errors:
    errors.append(entry)
  return f"E{errors.index(entry)}"


def _dt(name):
  return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


def operand(name):
  if name == "None":
    return None
  if name.startswith("py:"):
    return PY_VALUES[name[3:]]
  if name.startswith("type:"):
    return PY_TYPES[name[5:]]
  if name.startswith("weak:"):
    return WeakArray(_dt(name[5:]))
  return _dt(name)


class WeakArray:
  """Stands for a weakly typed array: JAX's dtype functions read ``.dtype`` and
  ``.aval.weak_type``. (Real arrays of the 1-bit types cannot be made on CPU.)"""

  def __init__(self, dt):
    self.dtype = dt
    self.aval = jax.core.ShapedArray((), dt, weak_type=True)


def operand_names(x64: bool):
  names = list(ALL_DTYPES)
  for n in ALL_DTYPES:
    # Without x64 a weakly typed 64-bit array cannot be made: creation canonicalises it.
    if x64 or jax.dtypes.canonicalize_dtype(_dt(n)) == _dt(n):
      names.append("weak:" + n)
  names += [f"py:{k}" for k in PY_VALUES] + [f"type:{k}" for k in PY_TYPES] + ["None"]
  return names


def call(fn, *args):
  """fn(*args) encoded as a result cell."""
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
      out = fn(*args)
    except Exception as err:  # noqa: BLE001  (recording the error is the point)
      return _error_index(err)
  if isinstance(out, tuple):
    cell = out[0].name + ("*" if out[1] else "")
  else:
    cell = out.name
  return cell + ("!" if caught else "")


def promotion_records(x64: bool) -> dict:
  jax.config.update("jax_enable_x64", x64)
  names = operand_names(x64)
  ops = {n: operand(n) for n in names}
  result_type = [[call(lambda a, b: jax.dtypes.result_type(a, b, return_weak_type_flag=True),
                       ops[a], ops[b]) for b in names] for a in names]
  single = {n: call(lambda a: jax.dtypes.result_type(a, return_weak_type_flag=True), ops[n])
            for n in names}
  pt_names = ALL_DTYPES + [f"type:{k}" for k in PY_TYPES]
  promote = [[call(jnp.promote_types, operand(a), operand(b)) for b in pt_names] for a in pt_names]
  rng = random.Random(0)
  nary = []
  for _ in range(300):
    picked = [rng.choice(names) for _ in range(rng.choice([3, 3, 4]))]
    nary.append([picked, call(lambda *a: jax.dtypes.result_type(*a, return_weak_type_flag=True),
                              *[ops[n] for n in picked])])
  # Weak-only combinations exercise the "all weak" rule (e.g. weak uint8 + weak uint32).
  weak_names = [n for n in names if n.startswith(("weak:", "py:"))]
  for a in weak_names:
    for b in weak_names:
      picked = [a, b, "py:int"]
      nary.append([picked, call(lambda *a: jax.dtypes.result_type(*a, return_weak_type_flag=True),
                                *[ops[n] for n in picked])])

  def check(x, fun_name):
    return [fun_name, call(lambda: jax_dtypes.check_and_canonicalize_user_dtype(x, fun_name))]

  user_dtypes = {n: check(_dt(n), "array") for n in ALL_DTYPES}
  user_dtypes.update({f"type:{k}": check(t, "zeros") for k, t in PY_TYPES.items()})
  user_dtypes.update({f"str:{n}": check(n, None) for n in MAIN_DTYPES})
  user_dtypes.update({f"jnp:{n}": check(getattr(jnp, n), "astype") for n in MAIN_DTYPES})
  for bad in ["object", "U", "V", "float0"]:
    user_dtypes[f"str:{bad}"] = check(bad, "foo")
  user_dtypes["float0"] = check(jax.dtypes.float0, "foo")
  user_dtypes["None"] = check(None, "foo")

  warning_texts = {}
  for n in ["float64", "int64", "uint64", "complex128"]:
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      jax_dtypes.check_and_canonicalize_user_dtype(n, "array")
      jax_dtypes.check_and_canonicalize_user_dtype(np.dtype(n))
    warning_texts[n] = [[w.category.__name__, str(w.message)] for w in caught]

  canonical = {n: call(jax.dtypes.canonicalize_dtype, _dt(n)) for n in ALL_DTYPES}
  canonical.update({f"type:{k}": call(jax.dtypes.canonicalize_dtype, t) for k, t in PY_TYPES.items()})
  canonical.update({f"jnp:{n}": call(jax.dtypes.canonicalize_dtype, getattr(jnp, n))
                    for n in MAIN_DTYPES})
  defaults = {"int": jax_dtypes.default_int_dtype().name,
              "uint": jax_dtypes.default_uint_dtype().name,
              "float": jax_dtypes.default_float_dtype().name,
              "complex": jax_dtypes.default_complex_dtype().name}
  scalar_type_of = {n: call(lambda x: np.dtype(jax.dtypes.scalar_type_of(x)), ops[n])
                    for n in names if not n.startswith("type:") and n != "None"}
  return {"operands": names, "result_type": result_type, "result_type_single": single,
          "promote_types_operands": pt_names, "promote_types": promote, "result_type_nary": nary,
          "check_user_dtype": user_dtypes, "warnings": warning_texts, "canonicalize_dtype": canonical,
          "defaults": defaults, "scalar_type_of": scalar_type_of}


def static_records() -> dict:
  jax.config.update("jax_enable_x64", False)
  categories = {"generic": np.generic, "number": np.number, "integer": np.integer,
                "signedinteger": np.signedinteger, "unsignedinteger": np.unsignedinteger,
                "inexact": np.inexact, "floating": np.floating,
                "complexfloating": np.complexfloating, "bool_": np.bool_,
                "extended": jax.dtypes.extended, "prng_key": jax.dtypes.prng_key}
  issub = {}
  rows = ALL_DTYPES + ["float0"] + [f"type:{k}" for k in PY_TYPES] + [f"jnp:{n}" for n in MAIN_DTYPES]

  def as_dtype_like(name):
    if name == "float0":
      return jax.dtypes.float0
    if name.startswith("type:"):
      return PY_TYPES[name[5:]]
    if name.startswith("jnp:"):
      return getattr(jnp, name[4:])
    return _dt(name)

  for a in rows:
    for cname, cat in categories.items():
      issub[f"{a}|{cname}"] = bool(jax.dtypes.issubdtype(as_dtype_like(a), cat))
    for b in ALL_DTYPES:
      issub[f"{a}|{b}"] = bool(jax.dtypes.issubdtype(as_dtype_like(a), _dt(b)))

  cast = {}
  for a in MAIN_DTYPES:
    for b in MAIN_DTYPES:
      for casting in ["no", "equiv", "safe", "same_kind", "unsafe"]:
        cast[f"{a}|{b}|{casting}"] = bool(jnp.can_cast(_dt(a), _dt(b), casting=casting))

  finfo = {}
  float_like = [n for n in ALL_DTYPES if jax.dtypes.issubdtype(_dt(n), np.inexact)]
  for n in float_like:
    info = jax.dtypes.finfo(_dt(n))
    finfo[n] = {"type": f"{type(info).__module__}.{type(info).__qualname__}",
                "dtype": info.dtype.name, "bits": int(info.bits),
                **{f: float(getattr(info, f)) for f in ["eps", "epsneg", "max", "min", "tiny",
                                                        "resolution", "smallest_normal",
                                                        "smallest_subnormal"]},
                **{f: int(getattr(info, f)) for f in ["nmant", "nexp", "precision", "machep",
                                                      "negep", "minexp", "maxexp"]}}
  iinfo = {}
  for n in ALL_DTYPES:
    if jax.dtypes.issubdtype(_dt(n), np.integer):
      info = jax.dtypes.iinfo(_dt(n))
      iinfo[n] = {"type": f"{type(info).__module__}.{type(info).__qualname__}",
                  "dtype": info.dtype.name, "bits": int(info.bits), "min": int(info.min),
                  "max": int(info.max)}

  short = {n: jax_dtypes.short_dtype_name(_dt(n)) for n in ALL_DTYPES}
  inexact = {n: jax_dtypes.to_inexact_dtype(_dt(n)).name for n in ALL_DTYPES}
  complex_ = {n: jax_dtypes.to_complex_dtype(_dt(n)).name for n in ALL_DTYPES}
  itemsize_bits = {n: int(jax.dtypes.itemsize_bits(_dt(n))) for n in ALL_DTYPES}
  isdtype = {}
  for n in ALL_DTYPES:
    for kind in ["bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric"]:
      isdtype[f"{n}|{kind}"] = bool(jax_dtypes.isdtype(_dt(n), kind))

  scalar_types = {}
  jnp_names = ["bool", "bool_", "int_", "uint", "float_", "complex_", "single", "double",
               "csingle", "cdouble"] + MAIN_DTYPES + [n for n in NARROW_DTYPES if hasattr(jnp, n)]
  for n in jnp_names:
    t = getattr(jnp, n)
    scalar_types[n] = {"repr": repr(t), "name": t.__name__, "dtype": t.dtype.name,
                       "eq_numpy": bool(t == t.dtype.type)}
  weakly = {"py:bool": jax_dtypes.is_weakly_typed(True), "py:int": jax_dtypes.is_weakly_typed(1),
            "py:float": jax_dtypes.is_weakly_typed(1.0), "py:complex": jax_dtypes.is_weakly_typed(1j),
            "np:float32": jax_dtypes.is_weakly_typed(np.float32(1)),
            "np:float64": jax_dtypes.is_weakly_typed(np.float64(1)),
            "np:array": jax_dtypes.is_weakly_typed(np.zeros(2)),
            "weak:float32": jax_dtypes.is_weakly_typed(
                lax_internal._convert_element_type(1.0, np.dtype("float32"), weak_type=True)),
            "strong:float32": jax_dtypes.is_weakly_typed(jnp.zeros((), jnp.float32))}
  rt = lambda *a: jax.dtypes.result_type(*a, return_weak_type_flag=True)  # noqa: E731
  bad_inputs = {
      "no_args": call(rt),
      "list": call(rt, [1, 2]),
      "str_value": call(rt, "str"),
      "object_array": call(rt, np.zeros(2, object)),
      "float0_and_int8": call(rt, jax.dtypes.float0, np.dtype("int8")),
      "promote_object": call(jnp.promote_types, "object", "int8"),
      "promote_float0": call(jnp.promote_types, jax.dtypes.float0, "int8"),
  }
  public = sorted(n for n in dir(jax.dtypes) if not n.startswith("_"))
  return {"issubdtype": issub, "can_cast": cast, "finfo": finfo, "iinfo": iinfo,
          "short_dtype_name": short, "to_inexact_dtype": inexact, "to_complex_dtype": complex_,
          "itemsize_bits": itemsize_bits, "isdtype": isdtype, "scalar_types": scalar_types,
          "is_weakly_typed": weakly, "float0": repr(jax.dtypes.float0),
          "jax_dtypes_public_names": public, "bad_inputs": bad_inputs}


def main():
  record = {"jax_version": jax.__version__, "ml_dtypes_version": ml_dtypes.__version__,
            "dtypes": ALL_DTYPES, "main_dtypes": MAIN_DTYPES,
            "x32": promotion_records(False), "x64": promotion_records(True)}
  record.update(static_records())
  record["errors"] = errors
  with open(OUT, "w") as f:
    json.dump(record, f, separators=(",", ":"), sort_keys=True)
    f.write("\n")
  print(f"wrote {os.path.normpath(OUT)} ({os.path.getsize(OUT)} bytes, {len(errors)} distinct errors)")


if __name__ == "__main__":
  main()
