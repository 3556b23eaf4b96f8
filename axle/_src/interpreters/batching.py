"""vmap's batching rules (filled in by the vmap issue).

``primitive_batchers[p]`` is a function ``(batched_args, batch_dims, **params) -> (out, out_dim)``.
"""
primitive_batchers: dict = {}
