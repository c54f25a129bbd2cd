"""``topk`` on one row exactly as PyTorch's CPU kernel returns it, ties included.

PyTorch's CPU ``topk(k, largest=True, sorted=True)`` copies (value, index) pairs into a
vector and runs ``std::partial_sort`` when ``k * 64 <= n``, else ``std::nth_element`` followed
by ``std::sort`` of the first ``k - 1`` pairs, comparing values only (NaN counts as largest).
With distinct values any correct selection gives the same answer, and NumPy computes it
directly.  With ties (``multinomial`` without replacement over zero probabilities, for
instance) the order of equal values is whatever those libstdc++ algorithms leave behind, so
this module re-enacts them step by step: introsort/introselect with median-of-three pivots,
the 16-element insertion-sort threshold, and the binary-heap helpers.
"""

from __future__ import annotations

import math

import numpy as np

_THRESHOLD = 16


def topk_indices(row: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries of ``row``, in PyTorch's order."""
    n = row.shape[0]
    keyed = np.where(np.isnan(row), np.inf, row.astype(np.float64))
    order = np.argsort(-keyed, kind="stable")
    top = keyed[order[: min(k + 1, n)]]
    nan_count = int(np.isnan(row).sum())
    if nan_count == 0 and (top.size < 2 or bool(np.all(top[1:] < top[:-1]))):
        return order[:k].copy()
    return np.array(_stl_topk([float(v) for v in row.tolist()], k), dtype=np.int64)


def _stl_topk(values: list[float], k: int) -> list[int]:
    q = [(v, i) for i, v in enumerate(values)]
    n = len(q)
    if k * 64 <= n:
        _partial_sort(q, 0, k, n)
    else:
        _nth_element(q, 0, k - 1, n)
        _sort(q, 0, k - 1)
    return [i for _, i in q[:k]]


def _less(x: tuple[float, int], y: tuple[float, int]) -> bool:
    # the "comes first" predicate: larger value first, NaN before any number
    a, b = x[0], y[0]
    return (math.isnan(a) and not math.isnan(b)) or a > b


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- std::sort ----------------------------------------------------------------------------
def _sort(q: list, first: int, last: int) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * _lg(last - first))
    _final_insertion_sort(q, first, last)


def _introsort_loop(q: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(q, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last)
        _introsort_loop(q, cut, last, depth)
        last = cut


def _move_median_to_first(q: list, result: int, a: int, b: int, c: int) -> None:
    if _less(q[a], q[b]):
        if _less(q[b], q[c]):
            q[result], q[b] = q[b], q[result]
        elif _less(q[a], q[c]):
            q[result], q[c] = q[c], q[result]
        else:
            q[result], q[a] = q[a], q[result]
    elif _less(q[a], q[c]):
        q[result], q[a] = q[a], q[result]
    elif _less(q[b], q[c]):
        q[result], q[c] = q[c], q[result]
    else:
        q[result], q[b] = q[b], q[result]


def _unguarded_partition(q: list, first: int, last: int, pivot: int) -> int:
    while True:
        while _less(q[first], q[pivot]):
            first += 1
        last -= 1
        while _less(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q: list, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1)
    return _unguarded_partition(q, first + 1, last, first)


def _insertion_sort(q: list, first: int, last: int) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if _less(q[i], q[first]):
            val = q[i]
            q[first + 1 : i + 1] = q[first:i]
            q[first] = val
        else:
            _unguarded_linear_insert(q, i)


def _unguarded_linear_insert(q: list, last: int) -> None:
    val = q[last]
    nxt = last - 1
    while _less(val, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = val


def _final_insertion_sort(q: list, first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i)
    else:
        _insertion_sort(q, first, last)


# -- std::nth_element ---------------------------------------------------------------------
def _nth_element(q: list, first: int, nth: int, last: int) -> None:
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last)


# -- heaps and std::partial_sort ----------------------------------------------------------
def _partial_sort(q: list, first: int, middle: int, last: int) -> None:
    _heap_select(q, first, middle, last)
    while middle - first > 1:
        middle -= 1
        _pop_heap(q, first, middle, middle)


def _heap_select(q: list, first: int, middle: int, last: int) -> None:
    _make_heap(q, first, middle)
    for i in range(middle, last):
        if _less(q[i], q[first]):
            _pop_heap(q, first, middle, i)


def _make_heap(q: list, first: int, last: int) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: list, first: int, last: int, result: int) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value)


def _adjust_heap(q: list, first: int, hole: int, length: int, value) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length & 1 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value
