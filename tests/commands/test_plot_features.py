"""The plot's features: the typical magnitude that sets its y-range is np.median's."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.commands.plot_features import _typical


@pytest.mark.parametrize("values", [
    [3.0], [3.0, -1.0], [0.1, -7.5, 2.25], [1e-300, 1e300, -4.0, 0.5],
    [np.inf, 2.0, np.nan, -3.0, 5.0], [1.0, 1.0, 1.0, 2.0], list(np.linspace(-3, 8, 101)),
    list(np.linspace(-3, 8, 100) ** 3),
])
def test_the_typical_magnitude_is_the_median_of_the_finite_magnitudes(values):
    v = np.array(values)
    assert _typical(v) == float(np.median(np.abs(v[np.isfinite(v)])))


def test_no_finite_value_has_magnitude_zero():
    assert _typical(np.array([np.nan, np.inf])) == 0.0
