"""Records real JAX's answers for tests/special_jaxpr_snippets.py into tests/data/special_jaxpr_reference.json.

    python tools/record_special_jaxpr_reference.py --jax-python /path/to/jax-venv/bin/python
    JAX_PYTHON=/path/to/jax-venv/bin/python python tools/record_special_jaxpr_reference.py

The script re-runs itself under the JAX interpreter (``--jax-python`` or ``$JAX_PYTHON``).
"""
from snippet_reference import main

if __name__ == "__main__":
  main(__file__, __doc__.splitlines()[0], "special_jaxpr_snippets", "special_jaxpr_reference.json")
