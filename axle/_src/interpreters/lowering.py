"""Lowering of jaxprs to StableHLO text (filled in by the jit issue).

``lowering_rules[p]`` emits the StableHLO for one equation of primitive ``p``.
"""
lowering_rules: dict = {}
