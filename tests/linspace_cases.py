"""jnp.linspace cases (start, stop, num, endpoint, dtype name or None), shared by
tools/record_linspace_reference.py (real JAX) and tests/test_linspace_bits.py (axle)."""
CASES = [
    (-1.0, 1.0, 20, True, None),
    (0.0, 1.0, 7, False, None),
    (-3.5, 2.25, 33, True, None),
    (1.0, 1000.0, 50, True, None),
    (0.0, 10.0, 11, True, "int32"),
    (-1.0, 1.0, 20, True, "bfloat16"),
    ([0.0, 1.0], [2.0, -5.0], 9, True, None),
]
