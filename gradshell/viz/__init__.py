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
