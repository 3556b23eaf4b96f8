"""Experimental APIs (``jax.experimental``)."""
