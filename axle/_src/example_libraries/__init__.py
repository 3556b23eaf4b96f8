"""Code of ``axle.example_libraries`` (stax and optimizers)."""
