"""gradshell.viz: what PyTorch does not show, rendered with rich on the visual channel.

The accumulation ledger and its panels (old + new = result, `→ zeros`), `%ledger`,
`%viz`, `%explain`/`%step` (the backward pass node by node), `%graph` (with DOT/SVG
export), `%predict` (predict-then-reveal), and explained autograd errors (`%xmode`,
`%lang`). The shell calls `setup_shell()` once; the core never imports this package.
"""

from __future__ import annotations

_INSTALLED = False


def setup_shell() -> None:
    """Register the magics and give every new session its visualisation state."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from gradshell.shell.session import register_session_hook
    from gradshell.viz import magics

    magics.register_all()
    register_session_hook(magics.install)


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
