"""Which PyTorch era the core imitates where the eras behave differently.

The legacy (0.2/0.3) print style also selects legacy behaviour: a second backward through
nodes that saved only constants succeeds, freed-buffer errors use 0.3's wording, and
reading `.grad` of a non-leaf is silent (the warning arrived in PyTorch 1.x).
"""

STYLES = ("modern", "legacy")
"""The print styles: today's `tensor(...)` and 0.2/0.3's `Variable containing:`."""


class Settings:
    """Era-dependent behaviour; `legacy` is set by the print style."""

    legacy = False


settings = Settings()
