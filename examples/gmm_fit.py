"""Fitting a Gaussian mixture by gradient: ADBench's GMM objective (log-likelihood with a
Wishart prior, ``math.lgamma`` included), minimized with SciPy's L-BFGS-B.

The mixture uses diagonal covariances: each component has weight logits ``alphas``,
means ``means`` and log standard deviations ``log_sd``.

    python examples/gmm_fit.py
"""

import math

import numpy as np
from scipy.optimize import minimize

import sourcediff as sd


def log_sum_exp(v):
    m = np.max(v)
    return m + math.log(np.sum(np.exp(v - m)))


def gmm_objective(alphas, means, log_sd, x, gamma, m_dof):
    n, d = x.shape
    k = alphas.shape[0]
    total = 0.0
    for i in range(n):
        terms = np.zeros(k)
        for c in range(k):
            z = (x[i] - means[c]) * np.exp(-log_sd[c])
            terms[c] = alphas[c] + np.sum(-log_sd[c]) - 0.5 * np.sum(z * z)
        total += log_sum_exp(terms)
    prior = 0.0
    for c in range(k):
        prior += 0.5 * gamma * gamma * np.sum(np.exp(-2.0 * log_sd[c])) - m_dof * np.sum(-log_sd[c])
    constant = n * d * -0.5 * math.log(2.0 * math.pi)
    wishart = k * math.lgamma(0.5 * (m_dof + d + 1.0))
    return -(constant + total - n * log_sum_exp(alphas)) + prior - wishart


def pack(alphas, means, log_sd):
    return np.concatenate((alphas, means.ravel(), log_sd.ravel()))


def fit(n=200, k=3, d=2, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [3.0, 3.0], [-3.0, 2.0]])
    x = centers[rng.integers(0, k, n)] + 0.5 * rng.standard_normal((n, d))
    value_and_grad = sd.value_and_grad(gmm_objective, argnums=(0, 1, 2))

    def objective(theta):
        alphas, means, log_sd = theta[:k], theta[k : k + k * d], theta[k + k * d :]
        value, grads = value_and_grad(
            alphas, means.reshape(k, d), log_sd.reshape(k, d), x, 1.0, 0.0
        )
        return value, pack(*grads)

    start = pack(np.zeros(k), rng.standard_normal((k, d)), np.zeros((k, d)))
    return centers, minimize(objective, start, jac=True, method="L-BFGS-B"), k, d


def main():
    centers, result, k, d = fit()
    means = result.x[k : k + k * d].reshape(k, d)
    print(f"L-BFGS-B: {result.nit} iterations, objective {result.fun:.3f}")
    print("fitted means:\n", np.round(means[np.argsort(means[:, 0])], 2))
    print("true centers:\n", centers[np.argsort(centers[:, 0])])


if __name__ == "__main__":
    main()
