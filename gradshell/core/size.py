"""torch.Size (a tuple of dimension sizes) and the torch.strided layout."""

from __future__ import annotations


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints as `torch.Size([2, 3])`."""

    __slots__ = ()
    __module__ = "torch"

    def __new__(cls, sizes=()):
        return tuple.__new__(cls, (int(s) for s in sizes))

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))


class Layout:
    """A memory layout; gradshell only has torch.strided."""

    __slots__ = ("name",)
    __module__ = "torch"

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


Layout.__name__ = Layout.__qualname__ = "layout"  # type(torch.strided) is torch.layout
strided = Layout("strided")
