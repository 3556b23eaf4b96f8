import jax, jax.numpy as jnp
import diffrax
from _show import show
def vf(t, y, args):
  k, = args
  return jnp.stack([y[1], -k * y[0] - 0.1 * y[1]])
def solve(k):
  sol = diffrax.diffeqsolve(diffrax.ODETerm(vf), diffrax.Tsit5(), t0=0., t1=2., dt0=0.1,
                            y0=jnp.array([1., 0.]), args=(k,), saveat=diffrax.SaveAt(ts=jnp.linspace(0., 2., 5)),
                            stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-6))
  return sol.ys, sol.stats["num_steps"]
ys, n = jax.jit(solve)(2.0)
show("ys", ys); show("num_steps", n)
show("grad", jax.jit(jax.grad(lambda k: solve(k)[0][-1, 0]))(2.0))
