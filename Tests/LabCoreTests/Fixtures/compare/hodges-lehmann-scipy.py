"""Writes hodges-lehmann-scipy.json, the golden cases of HodgesLehmannTests.

The reference intervals are computed here from first principles (every Walsh average or pairwise difference,
sorted with NumPy) with the order statistic k taken from SciPy's exact null distributions, read through its public
tests: P(T+ <= t) from scipy.stats.wilcoxon(d, alternative='less', method='exact') on differences whose positive
ranks sum to t, and P(U <= u) from scipy.stats.mannwhitneyu(x, y, alternative='less', method='exact') on samples
with u pairs x > y. k is the largest with P(T <= k - 1) <= (1 - confidence) / 2. Run: python3 hodges-lehmann-scipy.py
"""
import json

import numpy as np
import scipy
from scipy.stats import mannwhitneyu, wilcoxon


def signrank_cdf(n, t):
    positive, rest = set(), t
    for r in range(n, 0, -1):
        if r <= rest:
            positive.add(r)
            rest -= r
    assert rest == 0
    d = [float(r) if r in positive else -float(r) for r in range(1, n + 1)]
    return float(wilcoxon(d, alternative="less", method="exact").pvalue)


def ranksum_cdf(n, m, u):
    y = [2.0 * j for j in range(m)]
    counts, rest = [], u
    for _ in range(n):
        c = min(m, rest)
        counts.append(c)
        rest -= c
    assert rest == 0
    x = [2.0 * c - 1.0 for c in counts]
    return float(mannwhitneyu(x, y, alternative="less", method="exact").pvalue)


def order(cdf, count, confidence):
    tail = (1 - confidence) / 2
    k = 0
    while k + 1 <= (count + 1) // 2 and cdf(k) <= tail * (1 + 1e-12):
        k += 1
    return k


def interval(sorted_values, k, cdf):
    if k == 0:
        return None, None, None
    return float(sorted_values[k - 1]), float(sorted_values[len(sorted_values) - k]), 1 - 2 * cdf(k - 1)


def paired(d, confidence):
    n = len(d)
    w = np.sort([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)])
    k = order(lambda t: signrank_cdf(n, t), len(w), confidence)
    low, high, coverage = interval(w, k, lambda t: signrank_cdf(n, t))
    return {"estimate": float(np.median(w)), "low": low, "high": high, "coverage": coverage}


def two_sample(x, y, confidence):
    n, m = len(x), len(y)
    dif = np.sort([b - a for a in x for b in y])
    k = order(lambda u: ranksum_cdf(n, m, u), len(dif), confidence)
    low, high, coverage = interval(dif, k, lambda u: ranksum_cdf(n, m, u))
    return {"estimate": float(np.median(dif)), "low": low, "high": high, "coverage": coverage}


rng = np.random.default_rng(20261201)
cases = []
for n in list(range(1, 21)) + [25, 30, 40, 50]:
    for confidence in [0.95, 0.90]:
        d = [float(v) for v in rng.normal(0.05, 0.1, n)]
        cases.append({"name": f"paired n={n} confidence={confidence}", "design": "paired", "confidence": confidence,
                      "first": d, "second": [], **paired(d, confidence)})
for n, m in [(1, 1), (2, 3), (3, 3), (3, 4), (3, 5), (4, 4), (4, 6), (5, 5), (6, 6), (5, 9), (8, 8), (10, 10),
             (7, 12), (12, 12), (20, 15), (25, 25)]:
    for confidence in [0.95, 0.99]:
        x = [float(v) for v in rng.lognormal(0, 0.2, n)]
        y = [float(v) for v in rng.lognormal(0.1, 0.2, m)]
        cases.append({"name": f"two-sample {n} and {m} confidence={confidence}", "design": "two-sample",
                      "confidence": confidence, "first": x, "second": y, **two_sample(x, y, confidence)})
distributions = {
    "signed_rank": [{"n": n, "cdf": [signrank_cdf(n, t) for t in range(0, min(30, n * (n + 1) // 2 + 1))]}
                    for n in [1, 5, 6, 10, 20]],
    "rank_sum": [{"n": n, "m": m, "cdf": [ranksum_cdf(n, m, u) for u in range(0, min(30, n * m + 1))]}
                 for n, m in [(1, 1), (3, 3), (4, 4), (3, 7), (10, 12)]],
}
with open("hodges-lehmann-scipy.json", "w") as out:
    json.dump({"produced_by": f"scipy {scipy.__version__}, numpy {np.__version__}: hodges-lehmann-scipy.py",
               "cases": cases, "distributions": distributions}, out, indent=1)
