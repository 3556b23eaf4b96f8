"""Records real JAX's answers for tests/ufunc_parity_snippets.py into tests/data/ufunc_parity_reference.json.

    python tools/record_ufunc_parity_reference.py --jax-python /path/to/jax-venv/bin/python
    JAX_PYTHON=/path/to/jax-venv/bin/python python tools/record_ufunc_parity_reference.py

The script re-runs itself under the JAX interpreter (``--jax-python`` or ``$JAX_PYTHON``).
"""
from snippet_reference import main

if __name__ == "__main__":
  main(__file__, __doc__.splitlines()[0], "ufunc_parity_snippets", "ufunc_parity_reference.json")
