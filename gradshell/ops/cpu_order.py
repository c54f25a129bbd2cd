"""The order PyTorch's CPU kernels leave equal elements in.

`sort(stable=False)`, `topk` and `kthvalue` do not promise an order for ties, but their
CPU kernels are deterministic: sort runs GCC's `std::sort` (an introsort), topk runs
`std::partial_sort` when `k * 64 <= n` and otherwise `std::nth_element` followed by
`std::sort` of the first k - 1, and kthvalue runs a median-of-three quickselect. The
functions here replay those algorithms step for step on a list of `(key, index)` pairs,
comparing keys only, so the indices they leave for equal keys are PyTorch's. Keys are
anything with `<` (ranks, where equal values share a rank and NaN ranks above all).

Each is pure Python: callers use them only for slices that hold equal keys, where the
order is not already fixed by the values.
"""

from __future__ import annotations

_THRESHOLD = 16  # libstdc++'s _S_threshold: shorter runs are left to insertion sort


def _half(x: int) -> int:
    """C++'s `x / 2` (rounds towards zero, also for -1)."""
    return -((-x) // 2) if x < 0 else x // 2


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _push_heap(a: list, base: int, hole: int, top: int, val) -> None:
    parent = _half(hole - 1)
    while hole > top and a[base + parent][0] < val[0]:
        a[base + hole] = a[base + parent]
        hole = parent
        parent = _half(hole - 1)
    a[base + hole] = val


def _adjust_heap(a: list, base: int, hole: int, length: int, val) -> None:
    top = hole
    child = hole
    while child < _half(length - 1):
        child = 2 * (child + 1)
        if a[base + child][0] < a[base + child - 1][0]:
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if (length & 1) == 0 and child == _half(length - 2):
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    _push_heap(a, base, hole, top, val)


def _make_heap(a: list, first: int, last: int) -> None:
    length = last - first
    if length < 2:
        return
    parent = _half(length - 2)
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, first: int, last: int, result: int) -> None:
    val = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, val)


def _heap_select(a: list, first: int, middle: int, last: int) -> None:
    _make_heap(a, first, middle)
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            _pop_heap(a, first, middle, i)


def _sort_heap(a: list, first: int, last: int) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last)


def partial_sort(a: list, first: int, middle: int, last: int) -> None:
    """std::partial_sort: the smallest `middle - first` keys, sorted, at the front."""
    _heap_select(a, first, middle, last)
    _sort_heap(a, first, middle)


def _median_to_first(a: list, result: int, x: int, y: int, z: int) -> None:
    kx, ky, kz = a[x][0], a[y][0], a[z][0]
    if kx < ky:
        pick = y if ky < kz else (z if kx < kz else x)
    elif kx < kz:
        pick = x
    else:
        pick = z if ky < kz else y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int) -> int:
    p = a[pivot][0]
    while True:
        while a[first][0] < p:
            first += 1
        last -= 1
        while p < a[last][0]:
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a: list, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1)
    return _unguarded_partition(a, first + 1, last, first)


def _linear_insert(a: list, last: int) -> None:
    val = a[last]
    prev = last - 1
    while val[0] < a[prev][0]:
        a[last] = a[prev]
        last = prev
        prev -= 1
    a[last] = val


def _insertion_sort(a: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if a[i][0] < a[first][0]:
            val = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i)


def _introsort_loop(a: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(a, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort_loop(a, cut, last, depth)
        last = cut


def std_sort(a: list, first: int, last: int) -> None:
    """std::sort of a[first:last] by key (not stable)."""
    if last - first < 2:
        return
    _introsort_loop(a, first, last, _lg(last - first) * 2)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i)
    else:
        _insertion_sort(a, first, last)


def nth_element(a: list, first: int, nth: int, last: int) -> None:
    """std::nth_element: a[nth] is the key a full sort would put there, smaller keys
    before it and larger after, in introselect's order."""
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


def quickselect(a: list, k: int) -> None:
    """PyTorch's kthvalue quickselect (Sedgewick's median of three): a[k] is the key of
    rank k, in the order the partitions leave the rest."""

    def swap(i: int, j: int) -> None:
        a[i], a[j] = a[j], a[i]

    lo, hi = 0, len(a) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if a[hi][0] < a[lo][0]:
                swap(lo, hi)
            return
        swap((lo + hi) >> 1, lo + 1)
        if a[hi][0] < a[lo + 1][0]:
            swap(lo + 1, hi)
        if a[hi][0] < a[lo][0]:
            swap(lo, hi)
        if a[lo][0] < a[lo + 1][0]:
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, a[lo][0]
        while True:
            i += 1
            while a[i][0] < piv:
                i += 1
            j -= 1
            while piv < a[j][0]:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
