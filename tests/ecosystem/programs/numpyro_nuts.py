import jax, jax.numpy as jnp
import numpyro, numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS
from _show import show
def model(x, y=None):
  a = numpyro.sample("a", dist.Normal(0., 1.))
  b = numpyro.sample("b", dist.Normal(0., 1.))
  s = numpyro.sample("s", dist.HalfNormal(1.))
  numpyro.sample("y", dist.Normal(a * x + b, s), obs=y)
x = jnp.linspace(-1., 1., 20)
y = 0.7 * x - 0.3 + 0.1 * jax.random.normal(jax.random.PRNGKey(1), (20,))
mcmc = MCMC(NUTS(model), num_warmup=100, num_samples=50, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0), x, y)
s = mcmc.get_samples()
for k in sorted(s):
  show(k + "_mean", s[k].mean()); show(k + "_last5", s[k][-5:])
