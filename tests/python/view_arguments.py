"""Arrays passed to generated kernels as views of larger arrays: every
second or third element, backwards, or a column of a 2-D array, the
elements around them holding sentinels that must survive the call (a
kernel reads and writes its arguments' elements, nothing else)."""

from dataclasses import dataclass

import numpy as np


@dataclass
class View:
    """How an array is passed as a view of a larger one: every `step`-th
    element (negative: backwards) from `offset`, or column `column` of a
    (n, columns) array, the other elements holding sentinels; or (a 2-D
    array) as the transpose of its transpose's storage."""
    step: int = 1
    offset: int = 0
    columns: int = 0
    column: int = 0
    transposed: bool = False

    def __str__(self):
        if self.transposed:
            return "transposed"
        if self.columns:
            return f"column {self.column} of {self.columns}"
        return f"every {self.step} from {self.offset}" if self.step > 0 else f"every {self.step} to {self.offset}"

    def place(self, data):
        """(the larger NumPy array, with data (n elements along its first
        axis) at the view and random bytes elsewhere; the key that views
        it)."""
        if self.transposed:
            return np.ascontiguousarray(data.swapaxes(0, 1)), None
        n = len(data)
        rng = np.random.default_rng(n * 31 + self.offset)
        if self.columns:
            base = np.empty((n, self.columns, *data.shape[1:]), data.dtype)
            key = (slice(None), self.column)
        else:
            base = np.empty((self.offset + n * abs(self.step) + 1, *data.shape[1:]), data.dtype)
            if self.step > 0:
                key = slice(self.offset, self.offset + n * self.step, self.step)
            else:  # backwards from the view's first element, the last in memory
                last = self.offset + (n - 1) * -self.step
                key = slice(last, None if last + self.step * n < 0 else last + self.step * n, self.step)
        raw = base.reshape(-1).view(np.uint8)
        raw[:] = rng.integers(0, 256, raw.size, dtype=np.uint8)
        base[key] = data
        return base, key

    def make(self, data, to_tack):
        """A Viewed of data placed as this view says, `to_tack` making the
        tack array of the larger NumPy array."""
        base, key = self.place(data)
        whole = to_tack(base)
        return Viewed(whole.T if self.transposed else whole[key], whole, base, key)


class Viewed:
    """A view passed to a kernel, with what it views: `sentinels_kept()`
    says whether every element outside the view still holds its
    sentinel."""

    def __init__(self, view, whole, base, key):
        self.view, self.whole, self.base, self.key = view, whole, base, key

    def sentinels_kept(self):
        if self.key is None:  # a transpose: every element is the view's
            return True
        outside = np.ones(self.base.shape[:2] if isinstance(self.key, tuple) else self.base.shape[:1], bool)
        outside[self.key] = False
        return self.whole.numpy()[outside].tobytes() == self.base[outside].tobytes()


def choose_views(rng, names):
    """How each of `names` is passed: as itself (None), or for about a
    third of calls some of them as views (View), drawn from `rng`."""
    if rng.random() >= 0.35:
        return {name: None for name in names}
    views = {}
    for name in names:
        pick = rng.random()
        if pick < 0.4:
            views[name] = None
        elif pick < 0.8:
            views[name] = View(step=rng.choice([2, 3, -1, -2]), offset=rng.randint(0, 3))
        else:
            columns = rng.randint(2, 4)
            views[name] = View(columns=columns, column=rng.randrange(columns))
    return views
