"""Forward- and reverse-mode differentiation (filled in by the autodiff issue).

``primitive_jvps[p]`` is a function ``(primals, tangents, **params) -> (primal_out, tangent_out)``;
``primitive_transposes[p]`` transposes a linear primitive. The tables exist now so each
primitive's block can register its rules beside its shape rule and kernel.
"""
primitive_jvps: dict = {}
primitive_transposes: dict = {}
