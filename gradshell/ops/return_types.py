"""`torch.return_types`: the named tuples some ops return (`x.max(dim)` gives
`torch.return_types.max(values=..., indices=...)`).

Each is a tuple subclass, so `values, indices = x.max(1)` unpacks, with the fields as
attributes and PyTorch's multi-line repr (printed by gradshell.printing).
"""

from __future__ import annotations

from operator import itemgetter


class _ReturnType(tuple):
    """Base of the named result tuples; subclasses set `_name` and `_fields`."""

    __slots__ = ()
    _name = ""
    _fields: tuple = ()

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(cls._fields):
            raise TypeError(
                f"torch.return_types.{cls._name} takes a {len(cls._fields)}-sequence "
                f"({len(values)}-sequence given)"
            )
        return tuple.__new__(cls, values)

    @property
    def n_fields(self) -> int:
        """The number of fields (as PyTorch's structseq reports it)."""
        return len(self._fields)

    def __repr__(self) -> str:
        from gradshell.printing.reprs import return_types_repr

        return return_types_repr(self._name, zip(self._fields, self, strict=True))

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _make(name: str, fields: tuple) -> type:
    ns = {"__slots__": (), "_name": name, "_fields": fields, "__module__": "torch.return_types"}
    for i, f in enumerate(fields):
        ns[f] = property(itemgetter(i), doc=f"The {f} field.")
    ns["__doc__"] = f"The result of torch.{name}: ({', '.join(fields)})."
    return type(name, (_ReturnType,), ns)


max = _make("max", ("values", "indices"))  # noqa: A001 - PyTorch's name
min = _make("min", ("values", "indices"))  # noqa: A001 - PyTorch's name
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))

cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
slogdet = _make("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
histogram = _make("histogram", ("hist", "bin_edges"))

__all__ = [
    "cummax",
    "cummin",
    "histogram",
    "kthvalue",
    "linalg_slogdet",
    "max",
    "min",
    "slogdet",
    "sort",
    "topk",
]
