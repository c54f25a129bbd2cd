"""gradshell.viz: what PyTorch does not show, rendered with rich on the visual channel.

The accumulation ledger and its panels (old + new = result, `→ zeros`), `%ledger`,
`%viz`, `%explain`/`%step` (the backward pass node by node), `%graph` (with DOT/SVG
export), `%predict` (predict-then-reveal), and explained autograd errors (`%xmode`,
`%lang`). The shell's plugin (`gradshell.shell.viz_plugin`) registers the magics and
hands over what they need from the shell (`gradshell.viz.host`); neither the core nor
this package imports the shell.
"""

from __future__ import annotations


def configure(
    session: object,
    *,
    mode: str | None = None,
    xmode: str | None = None,
    lang: str | None = None,
) -> None:
    """Set a session's visualisation (`on|off|compact`), exception mode (`plain|explain`)
    and language (`en|zh`) — what lessons use to turn explanations on by default."""
    from gradshell.viz import magics

    state = magics.state_of(session)  # type: ignore[arg-type]
    if mode is not None:
        if mode not in magics.MODES:
            raise ValueError(f"mode must be one of {magics.MODES}")
        state.set_mode(mode)
    if xmode is not None:
        if xmode not in magics.XMODES:
            raise ValueError(f"xmode must be one of {magics.XMODES}")
        state.xmode = xmode
    if lang is not None:
        if lang not in magics.LANGS:
            raise ValueError(f"lang must be one of {magics.LANGS}")
        state.lang = lang
