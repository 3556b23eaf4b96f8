"""The matrix of primitives x rules. Fails when a primitive lacks a shape rule, an eager
implementation (a NumPy kernel, or a lowering that the eager XLA fallback runs) or a lowering.

Also fails when a primitive that can produce inexact values has no JVP rule, a linear primitive
has no transpose rule, or any primitive has no batching rule. Run with ``-s`` to see the matrix.
"""
import axle  # noqa: F401  (registers every primitive)
import axle.lax  # noqa: F401
from axle._src import core
from axle._src.interpreters import ad, batching, lowering

# Every primitive the core issue names (JAX's names).
REQUIRED = """
add sub mul div rem pow integer_pow neg sign abs max min exp exp2 log log1p expm1 sin cos tan asin acos
atan atan2 sinh cosh tanh asinh acosh atanh sqrt rsqrt cbrt logistic erf erfc erf_inv lgamma digamma
igamma igammac bessel_i0e bessel_i1e floor ceil round is_finite nextafter real imag conj complex clamp
eq ne lt le gt ge and or xor not shift_left shift_right_logical shift_right_arithmetic population_count
clz select_n convert_element_type bitcast_convert_type reduce_precision copy
broadcast_in_dim reshape squeeze transpose rev concatenate pad slice dynamic_slice
dynamic_update_slice gather scatter scatter-add scatter-mul scatter-min scatter-max iota
reduce_sum reduce_prod reduce_max reduce_min reduce_and reduce_or reduce_xor argmax argmin cumsum
cumprod cummax cummin cumlogsumexp reduce_window_sum reduce_window_max reduce_window_min
dot_general conv_general_dilated sort top_k jit
""".split()


def _matrix():
  rows = []
  for p in core.all_primitives:
    rows.append((p.name, p.abstract_eval is not None, p.impl is not None, p in ad.primitive_jvps,
                 p in ad.primitive_transposes, p in batching.primitive_batchers,
                 p in lowering.lowering_rules))
  return rows


def test_print_matrix():
  header = f"{'primitive':28s} shape eager jvp  transpose batch lowering"
  lines = [header]
  for name, shape, eager, jvp, transpose, batch, lower in sorted(_matrix()):
    marks = ["x" if v else "." for v in (shape, eager, jvp, transpose, batch, lower)]
    lines.append(f"{name:28s} {marks[0]:5s} {marks[1]:5s} {marks[2]:4s} {marks[3]:9s} {marks[4]:5s} {marks[5]}")
  print("\n".join(lines))
  assert len(lines) > len(REQUIRED)


def test_every_required_primitive_exists():
  names = {p.name for p in core.all_primitives}
  missing = [n for n in REQUIRED if n not in names]
  assert not missing, f"primitives missing: {missing}"


def test_every_primitive_has_shape_rule_and_eager_implementation():
  missing = [(name, "shape rule" if not shape else "eager kernel or lowering")
             for name, shape, eager, _, _, _, lower in _matrix() if not (shape and (eager or lower))]
  assert not missing, f"primitives without a rule: {missing}"


def test_every_primitive_has_a_lowering_rule():
  missing = [name for name, *_, lower in _matrix() if not lower]
  assert not missing, f"primitives without a lowering rule (jit cannot compile them): {missing}"


def test_primitive_names_unique():
  names = [p.name for p in core.all_primitives]
  assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


# Primitives whose outputs are only ever integer or boolean: their tangents are float0 zeros,
# which the JVP trace supplies without a rule.
INTEGER_OUTPUT_ONLY = set("""
eq ne lt le gt ge and or xor not shift_left shift_right_logical shift_right_arithmetic
population_count clz is_finite argmax argmin reduce_and reduce_or reduce_xor
random_bits random_seed random_wrap random_unwrap threefry2x32 lu_pivots_to_permutation
axis_index platform_index
""".split())

# Primitives linear in (some of) their operands: they need a transpose rule.
LINEAR = set("""
add sub neg mul div dot_general conv_general_dilated reshape broadcast_in_dim transpose squeeze
reduce_sum slice pad concatenate gather scatter-add dynamic_slice dynamic_update_slice select_n
convert_element_type cumsum reduce_window_sum copy rev real imag conj complex add_any
triangular_solve fft jit cond scan while custom_lin psum all_gather ppermute psum_scatter
all_to_all reduce_precision split expand_dims mul
""".split())


def _names(table):
  return {p.name for p in table}


def test_every_inexact_primitive_has_a_jvp_rule():
  missing = sorted(p.name for p in core.all_primitives
                   if p not in ad.primitive_jvps and p.name not in INTEGER_OUTPUT_ONLY)
  assert not missing, f"primitives without a JVP rule: {missing}"


def test_every_linear_primitive_has_a_transpose_rule():
  present = {p.name: p for p in core.all_primitives}
  missing = sorted(n for n in LINEAR if n in present and present[n] not in ad.primitive_transposes)
  assert not missing, f"linear primitives without a transpose rule: {missing}"


def test_every_primitive_has_a_batching_rule():
  missing = sorted(p.name for p in core.all_primitives
                   if p not in batching.primitive_batchers
                   and p not in batching.collective_batchers)
  assert not missing, f"primitives without a batching rule: {missing}"
