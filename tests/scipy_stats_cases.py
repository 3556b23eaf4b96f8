"""Inputs and cases shared by tools/record_scipy_stats_reference.py (run under real JAX) and
tests/test_scipy_stats.py (run under axle). NumPy only: no jax/axle here.

A case is ``(case_id, argnames, body, scipy_body)``: ``lambda <argnames>: <body>`` is evaluated
with ``stats`` bound to ``jax.scipy.stats`` or ``axle.scipy.stats`` and called on the named
inputs; ``scipy_body`` (default: ``body`` with ``stats.`` replaced by ``ss.``) is the same
quantity from ``scipy.stats`` (``None``: not compared with SciPy).
"""
import numpy as np

N = 16


def inputs() -> dict:
  rng = np.random.default_rng(20240610)

  def f32(a):
    return np.asarray(a, np.float32)

  unit = rng.uniform(0.02, 0.98, N)
  ta = rng.uniform(-2.0, 0.0, N)
  tb = rng.uniform(0.2, 2.0, N)
  simplex = rng.dirichlet([1.0, 2.0, 3.0], N).T  # (3, N): components along axis 0
  counts = np.stack([rng.multinomial(9, [0.2, 0.3, 0.5]) for _ in range(N)])
  return {
      "x": f32(rng.normal(size=N) * 2.5),
      "loc": f32(rng.normal(size=N) * 0.5),
      "scale": f32(rng.uniform(0.5, 2.0, N)),
      "pos": f32(rng.uniform(0.05, 6.0, N)),
      "above1": f32(1.0 + rng.uniform(0.01, 5.0, N)),
      "unit": f32(unit),
      "a": f32(rng.uniform(0.5, 5.0, N)),
      "b": f32(rng.uniform(0.5, 5.0, N)),
      "df": f32(rng.uniform(1.0, 10.0, N)),
      "k": f32(rng.integers(0, 9, N)),
      "n": f32(rng.integers(8, 16, N)),
      "p": f32(rng.uniform(0.1, 0.9, N)),
      "mu": f32(rng.uniform(0.5, 8.0, N)),
      "mu_wide": f32([0.0, 0.3, 1.0, 4.5, 9.9, 10.0, 25.0, 60.0, 99.0, 100.0, 150.0, 1e3, 1e4,
                      2.5, 7.0, 42.0]),
      "kb": f32(rng.integers(0, 2, N)),
      "kgrid": f32([-1.0, 0.0, 0.5, 1.0, 2.0, -0.5, 0.99, 1.01, 0.0, 1.0, 3.0, -2.0, 0.25,
                    0.75, 1.5, 0.0]),
      "kappa": f32(rng.uniform(0.1, 5.0, N)),
      "angle": f32(rng.uniform(-np.pi, np.pi, N)),
      "angle2pi": f32(rng.uniform(0.0, 2 * np.pi, N)),
      "c": f32(rng.uniform(0.05, 0.95, N)),
      "ta": f32(ta), "tb": f32(tb),
      "xt": f32(rng.uniform(-2.5, 2.5, N)),
      "gbeta": f32(rng.uniform(0.5, 3.0, N)),
      "simplex": f32(simplex),
      "alpha": f32([1.5, 2.0, 3.5]),
      "X": f32(rng.normal(size=(N, 3))),
      "mean": f32([0.5, -0.3, 1.0]),
      "cov": f32([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]]),
      "counts": np.asarray(counts, np.int32),
      "ntrials": np.int32(9),
      "pvec": f32([0.2, 0.3, 0.5]),
      "ints": np.asarray(rng.integers(0, 5, (4, 9)), np.int32),
      "ties": f32([3.0, 1.0, 2.0, 2.0, 5.0, 1.0, 7.0, 2.0, 0.5, 3.0]),
      "data2d": f32(rng.normal(size=(2, 30))),
      "points2d": f32(rng.normal(size=(2, 5))),
      "data1d": f32(rng.normal(size=30) * 1.5 + 0.5),
      "points1d": f32(np.linspace(-3.0, 3.0, 7)),
      # Edge points: compared with JAX only.
      "edge": f32([-np.inf, -40.0, -10.0, -1.0, 0.0, 0.5, 1.0, 2.0, 10.0, 40.0, np.inf, np.nan]),
      "edge_unit": f32([-0.1, 0.0, 1e-7, 0.001, 0.5, 0.999, 1.0, 1.1, np.nan, 0.25, 0.75, 1e-30]),
  }


_LS = "x, loc, scale"
CASES = []


def _add(case_id, argnames, body, scipy_body="default"):
  if scipy_body == "default":
    scipy_body = body.replace("stats.", "ss.")
  CASES.append((case_id, argnames, body, scipy_body))


def _all(dist, funs, argnames, suffix=""):
  for fun in funs:
    _add(f"{dist}.{fun}{suffix}", argnames, f"stats.{dist}.{fun}({argnames})")


_CONT = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
_all("norm", _CONT, _LS)
_all("norm", ("ppf", "isf"), "unit, loc, scale")
_add("norm.logcdf.edge", "edge", "stats.norm.logcdf(edge)", None)
_add("norm.logsf.edge", "edge", "stats.norm.logsf(edge)", None)
_add("norm.ppf.edge", "edge_unit", "stats.norm.ppf(edge_unit)", None)
_all("uniform", ("logpdf", "pdf", "cdf"), _LS)
_all("uniform", ("ppf",), "unit, loc, scale")
_add("uniform.ppf.edge", "edge_unit", "stats.uniform.ppf(edge_unit)", None)
_all("beta", _CONT, "unit, a, b")
_all("beta", ("logpdf", "cdf", "sf"), "x, a, b, loc, scale", ".loc_scale")
_all("gamma", _CONT, "pos, a")
_all("gamma", ("logpdf", "cdf", "sf"), "x, a, loc, scale", ".loc_scale")
_all("chi2", _CONT, "pos, df")
_all("chi2", ("logpdf", "cdf", "sf"), "x, df, loc, scale", ".loc_scale")
_all("expon", _CONT, _LS)
_all("expon", ("ppf",), "unit, loc, scale")
_all("t", ("logpdf", "pdf"), "x, df, loc, scale")
_all("cauchy", _CONT, _LS)
_all("cauchy", ("ppf", "isf"), "unit, loc, scale")
_all("laplace", ("logpdf", "pdf", "cdf"), _LS)
_all("logistic", ("logpdf", "pdf", "cdf", "sf"), _LS)
_all("logistic", ("ppf", "isf"), "unit, loc, scale")
_all("bernoulli", ("logpmf", "pmf"), "kb, p")
_all("bernoulli", ("cdf",), "kgrid, p")
_all("bernoulli", ("ppf",), "unit, p")
# JAX does not check that k is an integer (SciPy gives -inf for k = 0.5): JAX only.
_add("bernoulli.logpmf.grid", "kgrid, p", "stats.bernoulli.logpmf(kgrid, p)", None)
_all("binom", ("logpmf", "pmf"), "k, n, p")
_all("poisson", ("logpmf", "pmf", "cdf"), "k, mu")
_add("poisson.logpmf.grid", "kgrid, mu", "stats.poisson.logpmf(kgrid, mu)")
_add("poisson.entropy", "mu_wide", "stats.poisson.entropy(mu_wide)",
     "ss.poisson(mu_wide).entropy()")
_all("geom", ("logpmf", "pmf"), "k, p")
_all("nbinom", ("logpmf", "pmf"), "k, n, p")
_all("betabinom", ("logpmf", "pmf"), "k, n, a, b")
_all("vonmises", ("logpdf", "pdf"), "angle, kappa")
_all("wrapcauchy", ("logpdf", "pdf"), "angle2pi, c")
_all("pareto", _CONT, "above1, a")
_all("pareto", ("logpdf", "cdf", "logsf"), "x, a, loc, scale", ".loc_scale")
_all("pareto", ("ppf",), "unit, a")
for _g in ("gumbel_l", "gumbel_r"):
  _all(_g, _CONT, _LS)
  _all(_g, ("ppf",), "unit, loc, scale")
_all("gennorm", ("logpdf", "pdf", "cdf"), "x, gbeta")
_all("truncnorm", _CONT, "xt, ta, tb")
_all("truncnorm", ("logpdf", "cdf", "logsf"), "x, ta, tb, loc, scale", ".loc_scale")
# SciPy checks the simplex in float64: renormalise the float32 points there.
for _fun in ("logpdf", "pdf"):
  _add(f"dirichlet.{_fun}", "simplex, alpha", f"stats.dirichlet.{_fun}(simplex, alpha)",
       f"ss.dirichlet.{_fun}(simplex / simplex.sum(0), alpha)")
_add("dirichlet.logpdf.short", "simplex, alpha", "stats.dirichlet.logpdf(simplex[:2], alpha)",
     "ss.dirichlet.logpdf(simplex / simplex.sum(0), alpha)")
_all("multivariate_normal", ("logpdf", "pdf"), "X, mean, cov")
_add("multivariate_normal.logpdf.iso", "X, mean", "stats.multivariate_normal.logpdf(X, mean, 1.7)",
     "ss.multivariate_normal.logpdf(X, mean, 1.7)")
_add("multivariate_normal.logpdf.1d", "x, loc",
     "stats.multivariate_normal.logpdf(x, loc[0], 2.0)",
     "ss.norm.logpdf(x, loc[0], 2.0 ** 0.5)")
for _fun in ("logpmf", "pmf"):
  _add(f"multinomial.{_fun}", "counts, ntrials, pvec",
       f"stats.multinomial.{_fun}(counts[0], ntrials, pvec)")
# JAX compares the total of all of x with n, so a batch of count vectors gives -inf.
_add("multinomial.logpmf.batch", "counts, ntrials, pvec",
     "stats.multinomial.logpmf(counts, ntrials, pvec)", None)
_add("mode", "ints", "stats.mode(ints, axis=1)", "tuple(ss.mode(ints, axis=1))")
_add("mode.none", "ints", "stats.mode(ints, axis=None)", "tuple(ss.mode(ints, axis=None))")
for _m in ("average", "min", "max", "dense", "ordinal"):
  _add(f"rankdata.{_m}", "ties", f"stats.rankdata(ties, method={_m!r})")
_add("rankdata.axis", "ints", "stats.rankdata(ints, axis=1)")
_add("sem", "X", "stats.sem(X)")
_add("sem.axis1", "X", "stats.sem(X, axis=1, ddof=0)")
_add("gaussian_kde.evaluate", "data2d, points2d", "stats.gaussian_kde(data2d).evaluate(points2d)")
_add("gaussian_kde.logpdf", "data2d, points2d", "stats.gaussian_kde(data2d).logpdf(points2d)")
_add("gaussian_kde.silverman", "data1d, points1d",
     "stats.gaussian_kde(data1d, bw_method='silverman')(points1d)")
_add("gaussian_kde.integrate_box_1d", "data1d",
     "stats.gaussian_kde(data1d).integrate_box_1d(-1.0, 0.5)")
_add("gaussian_kde.integrate_gaussian", "data1d",
     "stats.gaussian_kde(data1d).integrate_gaussian(0.3, 1.2)")
_add("gaussian_kde.integrate_kde", "data2d",
     "stats.gaussian_kde(data2d).integrate_kde(stats.gaussian_kde(data2d[:, :20]))")

assert len({c[0] for c in CASES}) == len(CASES), "case ids must be unique"

# Results' dtypes and weak types for Python-scalar, integer and float32 arguments.
DTYPE_CASES = [
    ("norm.logpdf.scalar", "", "stats.norm.logpdf(1.0)"),
    ("norm.logpdf.int", "", "stats.norm.logpdf(1)"),
    ("norm.cdf.int32", "", "stats.norm.cdf(np.arange(3, dtype=np.int32))"),
    ("norm.ppf.scalar", "", "stats.norm.ppf(0.3)"),
    ("norm.isf.scalar", "", "stats.norm.isf(0.3)"),
    ("expon.logpdf.scalar", "", "stats.expon.logpdf(1.0)"),
    ("gamma.logpdf.scalar", "", "stats.gamma.logpdf(1.0, 2.0)"),
    ("beta.cdf.scalar", "", "stats.beta.cdf(0.5, 2.0, 3.0)"),
    ("poisson.logpmf.int", "", "stats.poisson.logpmf(np.int32(3), 2.0)"),
    ("binom.pmf.int", "", "stats.binom.pmf(np.arange(3, dtype=np.int32), 5, 0.5)"),
    ("bernoulli.cdf.scalar", "", "stats.bernoulli.cdf(1.0, 0.3)"),
    ("uniform.cdf.scalar", "", "stats.uniform.cdf(0.5)"),
    ("t.logpdf.f32", "", "stats.t.logpdf(np.float32(0.5), 3.0)"),
    ("laplace.cdf.scalar", "", "stats.laplace.cdf(0.5)"),
    ("logistic.ppf.scalar", "", "stats.logistic.ppf(0.5)"),
    ("truncnorm.logpdf.scalar", "", "stats.truncnorm.logpdf(0.5, -1.0, 1.0)"),
    ("vonmises.logpdf.scalar", "", "stats.vonmises.logpdf(0.5, 1.0)"),
    ("cauchy.isf.scalar", "", "stats.cauchy.isf(0.3)"),
    ("rankdata.int", "", "stats.rankdata(np.array([3, 1, 2], np.int32))"),
    ("sem.int", "", "stats.sem(np.arange(5, dtype=np.int32))"),
    ("mode.float", "", "stats.mode(np.array([1.0, 2.0, 2.0], np.float32))"),
    ("poisson.entropy.scalar", "", "stats.poisson.entropy(3.0)"),
]
