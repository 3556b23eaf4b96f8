#!/usr/bin/env bash
# Creates the reference JAX environment (once) and re-records every reference file in tests/data
# with it. The test process never imports JAX; these scripts run under JAX's own interpreter.
#
#   tools/record_all.sh [VENV]      (default VENV: ../jax-reference-venv, beside the clone)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-../jax-reference-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "jax==0.10.2" "jaxlib==0.10.2" numpy scipy ml_dtypes opt_einsum
fi
export JAX_PYTHON="$venv/bin/python"
for script in tools/record_*.py; do
  echo "== $script"
  "$JAX_PYTHON" "$script"
done
