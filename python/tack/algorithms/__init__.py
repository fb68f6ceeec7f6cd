"""Algorithms built from Tack kernels and array reductions.

    from tack.algorithms import stats
    stats.variance(x)
"""

from . import stats

__all__ = ["stats"]
