"""Records real JAX's answers for tests/lax_extra_snippets.py into tests/data/lax_extra_reference.json.

    python tools/record_lax_extra_reference.py --jax-python /path/to/jax-venv/bin/python
    JAX_PYTHON=/path/to/jax-venv/bin/python python tools/record_lax_extra_reference.py

The script re-runs itself under the JAX interpreter (``--jax-python`` or ``$JAX_PYTHON``).
"""
from snippet_reference import main

if __name__ == "__main__":
  main(__file__, __doc__.splitlines()[0], "lax_extra_snippets", "lax_extra_reference.json")
