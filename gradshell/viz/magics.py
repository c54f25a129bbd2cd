"""The visualisation magics and the per-session wiring.

`%viz on|off|compact`, `%ledger [x] [--all]`, `%explain out [GRADIENT] [--preview]`,
`%step out [GRADIENT]`, `%graph out [--dot FILE] [--svg FILE]`, `%predict
d(EXPR)/dx = VALUES`, `%xmode plain|explain`, `%lang en|zh`.

Each session with visualisation on gets a `VizState`: a recorder that listens to the
core's events only while the session runs learner code, and an after-cell hook that
renders the `.grad` panels and (in explain mode) error explanations to the visual
channel.
"""

from __future__ import annotations

import ast
import sys
import weakref
from typing import TYPE_CHECKING, Any

from gradshell.viz import host
from gradshell.viz.common import ExpressionError, evaluate, lookup_tensor, namer_for, render

if TYPE_CHECKING:
    from gradshell.shell.session import CellResult, Session

MODES = ("on", "off", "compact")
XMODES = ("plain", "explain")
LANGS = ("en", "zh")


class VizState:
    """A session's visualisation settings, recorder and hooks."""

    def __init__(self, session: Session) -> None:
        from gradshell.viz.recorder import Recorder

        self._session = weakref.ref(session)
        self.mode = "on"
        self.xmode = "plain"
        self.lang = "en"
        self.width: int | None = None  # None: the terminal's width
        self.color: bool | None = None  # None: colour on a terminal unless NO_COLOR
        self.recorder = Recorder(session) if session.viz else None

    # -- hooks ---------------------------------------------------------------------------
    def before_cell(self, session: Session) -> None:
        """Start listening to the core's events."""
        if self.recorder is not None and self.mode != "off":
            self.recorder.start()

    def after_cell(self, session: Session, result: CellResult) -> str | None:
        """Stop listening; the panels for changed `.grad`s and any error explanation."""
        parts: list[Any] = []
        rec = self.recorder
        try:
            if rec is not None and self.mode != "off" and rec._depth <= 1:
                try:
                    from gradshell.viz.words import use_lang

                    rec.check_unseen()
                    if rec.pending:
                        from gradshell.viz.panels import changes_view

                        namer = namer_for(session)
                        with use_lang(self.lang):
                            items = rec.take_pending(namer)
                            view = changes_view(items, namer, self.mode, self.lang)
                        if view is not None:
                            parts.append(view)
                except Exception as exc:  # noqa: BLE001 - a panel's bug must show, not hide
                    rec.pending = []
                    parts.append(self._failed(exc))
            if self.xmode == "explain" and session.viz:
                from gradshell.viz.errors import explain_result

                try:
                    view = explain_result(session, result, self.lang)
                except Exception as exc:  # noqa: BLE001 - as above
                    view = self._failed(exc)
                if view is not None:
                    parts.append(view)
        finally:
            if rec is not None:
                rec.stop()
        if not parts:
            return None
        from rich.console import Group

        return self.render(Group(*parts))

    def _failed(self, exc: BaseException) -> Any:
        """A one-line note that a panel could not be drawn (never a silent gap)."""
        from rich.text import Text

        from gradshell.viz.words import word

        error = f"{type(exc).__name__}: {exc}"
        return Text(word(self.lang, "panel_failed", error=error[:200]), style="red")

    def render(self, renderable: Any) -> str:
        """Text for the visual channel, at this session's width and colour."""
        return render(renderable, self.width, self.color)

    def set_mode(self, mode: str) -> None:
        """`%viz on|off|compact`."""
        self.mode = mode
        if self.recorder is not None:
            self.recorder.set_enabled(mode != "off")


_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def install(session: Session) -> None:
    """Give a session its VizState's hooks (only when visualisation is on); settings made
    earlier through `state_of` (width, colour, modes) are kept."""
    state = state_of(session)
    if session.viz and state.before_cell not in session.before_cell:
        session.before_cell.append(state.before_cell)
        session.after_cell.append(state.after_cell)


def state_of(session: Session) -> VizState:
    """The session's VizState (made on first use for sessions created before viz loaded)."""
    state = _STATES.get(session)
    if state is None:
        state = VizState(session)
        _STATES[session] = state
    return state


def _show(session: Session, renderable: Any) -> str | None:
    """Send a view to the visual channel (or say why it is not shown)."""
    if not session.viz:
        return "gradshell: visualisation is off in this session (--no-viz)"
    session.show_visual(state_of(session).render(renderable))
    return None


def _usage(text: str) -> None:
    host.usage(text)


# --- %viz ----------------------------------------------------------------------------------


def viz_magic(session: Session, arg: str) -> str | None:
    """%viz on|off|compact."""
    state = state_of(session)
    if not arg:
        if not session.viz:
            return "visualisation: off (--no-viz)"
        broken = state.recorder.broken if state.recorder is not None else None
        extra = f" (recording stopped after an internal error: {broken})" if broken else ""
        return f"visualisation: {state.mode}{extra}"
    if arg not in MODES:
        _usage("usage: %viz on|off|compact")
    if not session.viz:
        return "gradshell: visualisation is off in this session (--no-viz)"
    was = state.mode
    state.set_mode(arg)
    rec = state.recorder
    if was == "off" and arg != "off" and rec is not None:
        # what changed while recording was off shows now, not after some later statement
        from gradshell.viz.panels import changes_view

        rec.check_unseen()
        namer = namer_for(session)
        view = changes_view(rec.take_pending(namer), namer, state.mode, state.lang)
        if view is not None:
            return _show(session, view)
    return None


# --- %ledger -------------------------------------------------------------------------------


def ledger_magic(session: Session, arg: str) -> str | None:
    """%ledger [NAME] [--all]: the history of NAME.grad (every tensor without a name)."""
    from gradshell.viz.ledger import ledger_table, summary_table

    state = state_of(session)
    if state.recorder is None:
        return "gradshell: visualisation is off in this session (--no-viz)"
    words = arg.split()
    everything = "--all" in words
    words = [w for w in words if w != "--all"]
    namer = namer_for(session)
    ledger = state.recorder.ledger
    if not words:
        rows = []
        for t, book in ledger.live():
            rows.append((namer.label(t), book, t._grad))
        if not rows:
            return _show(session, _text("no .grad has changed yet in this session"))
        return _show(session, summary_table(rows, state.lang))
    try:
        t = lookup_tensor(session, " ".join(words))
    except ExpressionError as exc:
        _usage(str(exc))
    name = namer.label(t)
    book = ledger.find(t)
    if book is None or not book.entries:
        live = t._grad
        msg = f"{name}.grad has no recorded changes"
        if live is not None:
            msg += " (it changed while recording was off)"
        return _show(session, _text(msg))
    return _show(session, ledger_table(name, book, t._grad, everything=everything, lang=state.lang))


def _text(s: str) -> Any:
    from rich.text import Text

    return Text(s)


# --- %explain and %step --------------------------------------------------------------------


def _split_target(arg: str) -> tuple[str, str | None, bool]:
    """'out', 'y torch.ones(3)', 'y, v' (and --preview) -> (tensor, gradient, preview)."""
    words = arg.replace("--preview", " ").strip()
    preview = "--preview" in arg
    try:
        tree = ast.parse(words, mode="eval")
        if isinstance(tree.body, ast.Tuple) and len(tree.body.elts) == 2:
            a, b = tree.body.elts
            return ast.get_source_segment(words, a), ast.get_source_segment(words, b), preview
        return words, None, preview
    except SyntaxError:
        first, _, rest = words.partition(" ")
        return first, rest.strip() or None, preview


def build_explanation(session: Session, arg: str) -> Any:
    """The Explanation `%explain`/`%step` show for `arg`."""
    from gradshell.core.tensor import Tensor
    from gradshell.viz.explain import ExplainError, build

    target, grad_text, preview = _split_target(arg)
    if not target:
        _usage("usage: %explain OUT [GRADIENT] [--preview]")
    try:
        root = lookup_tensor(session, target)
    except ExpressionError as exc:
        _usage(str(exc))
    namer = namer_for(session)
    if namer.tensor(root) is None:
        # an expression such as `w.sum()`: call the root by what the learner typed
        namer.add(target.strip(), root)
    label = namer.label(root)
    if not root.requires_grad:
        _usage(f"{label} does not require grad: it has no backward pass to explain")
    state = state_of(session)
    trace = None
    if state.recorder is not None and not preview and grad_text is None:
        trace = state.recorder.trace_for(root)
    grad = None
    if trace is None:
        if grad_text is not None:
            try:
                grad = evaluate(session, grad_text)
            except ExpressionError as exc:
                _usage(str(exc))
            if not isinstance(grad, Tensor) or grad.shape != root.shape:
                _usage(f"the gradient must be a tensor of {label}'s shape {list(root.shape)}")
        elif root.numel() == 1:
            from gradshell.core.tensor import wrap

            grad = wrap(root._data * 0 + 1, root.dtype)
        else:
            _usage(
                f"{label} is not a scalar: give the gradient backward() would get, e.g. "
                f"%explain {target} torch.ones({', '.join(str(s) for s in root.shape)})"
            )
    try:
        return build(root, namer, trace=trace, grad=grad)
    except ExplainError as exc:
        msg = str(exc)
        if "second time" in msg or "freed" in msg:
            msg = (
                f"{label}'s graph was already used by backward() and its saved values were "
                f"freed, so the pass cannot be replayed. Run %explain {target} before "
                f"{target}.backward() (with visualisation on, a pass that ran can be explained "
                "afterwards), pass retain_graph=True, or compute it again."
            )
        _usage(msg)


def explain_magic(session: Session, arg: str) -> str | None:
    """%explain OUT [GRADIENT] [--preview]."""
    from gradshell.viz.explain import explanation_view

    if not session.viz:
        return "gradshell: visualisation is off in this session (--no-viz)"
    ex = build_explanation(session, arg)
    return _show(session, explanation_view(ex))


def _interactive() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def step_magic(session: Session, arg: str) -> str | None:
    """%step OUT [GRADIENT]: one node at a time (Enter: next, q: stop)."""
    from gradshell.viz.explain import explanation_view, header_text, step_view

    if not session.viz:
        return "gradshell: visualisation is off in this session (--no-viz)"
    ex = build_explanation(session, arg)
    state = state_of(session)
    if not (session.interactive or _interactive()):
        return _show(session, explanation_view(ex))
    # Written live on the session's channel and answered through it, so that it works
    # the same in this process and in the sandboxed kernel.
    # (styled: a front end in another process re-colours what it shows)
    session.write_styled(state.render(_text(f"%step {ex.root_label}: {header_text(ex)}")))
    for i in range(len(ex.steps)):
        session.write_styled(state.render(step_view(ex, i)))
        if i == len(ex.steps) - 1:
            break
        try:
            answer = session.read_input("Enter: next step, q: stop › ")
        except (EOFError, KeyboardInterrupt):
            session.write("\n")
            break
        if answer.strip().lower() in ("q", "quit", "stop"):
            break
        if answer.strip():  # an input, not an Enter: never swallow it silently
            session.write(
                f"(stepping stopped after step {i + 1} of {len(ex.steps)}; "
                f"`{answer.strip()[:80]}` did not run: type it again at the prompt)\n"
            )
            break
    return None


# --- %graph, %predict, %xmode, %lang ------------------------------------------------------


def graph_magic(session: Session, arg: str) -> str | None:
    """%graph OUT [--dot FILE] [--svg FILE] [--force]."""
    from gradshell.viz import dot as dotmod
    from gradshell.viz.graph import graph_view

    words = arg.split()
    dot_file = svg_file = None
    force = False
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-f", "--force"):  # write over a file gradshell did not write
            force = True
            i += 1
            continue
        if w in ("--dot", "--svg"):
            if i + 1 >= len(words):
                _usage(f"usage: %graph OUT {w} FILE")
            if w == "--dot":
                dot_file = words[i + 1]
            else:
                svg_file = words[i + 1]
            i += 2
            continue
        rest.append(w)
        i += 1
    if not rest:
        _usage("usage: %graph OUT [--dot FILE] [--svg FILE] [--force]")
    try:
        root = lookup_tensor(session, " ".join(rest))
    except ExpressionError as exc:
        _usage(str(exc))
    namer = namer_for(session)
    messages = []
    if dot_file is not None or svg_file is not None:
        text = dotmod.to_dot(root, namer, session.namespace)
        if dot_file is not None:
            messages.append(dotmod.write_dot(text, dot_file, session.files, force=force))
        if svg_file is not None:
            messages.append(dotmod.write_svg(text, svg_file, session.files, force=force))
        return "\n".join(messages)
    if session.rich_display:  # a notebook also draws the graph (SVG, with Graphviz)
        session.files.show_graph(dotmod.to_dot(root, namer, session.namespace))
    return _show(session, graph_view(root, namer, session.namespace))


def predict_magic(session: Session, arg: str) -> str | None:
    """%predict d(EXPR)/dNAME = VALUES: compare a predicted gradient with the real one."""
    from gradshell.viz.predict import PredictError, parse_predict, reveal_view

    try:
        expr, name, values = parse_predict(arg)
    except PredictError as exc:
        _usage(str(exc))
    state = state_of(session)
    try:
        result = reveal_in_session(session, expr, name, values)
    except (PredictError, ExpressionError) as exc:
        _usage(str(exc))
    return _show(session, reveal_view(result, state.lang))


def reveal_in_session(session: Session, expr: str, name: str, values: Any) -> Any:
    """Run the predict-then-reveal check for an expression typed in the shell."""
    from gradshell.core.tensor import Tensor
    from gradshell.viz.predict import PredictError, reveal, reveal_named

    leaf = session.namespace.get(name)
    if not isinstance(leaf, Tensor):
        raise PredictError(f"{name} is not a tensor in this session")

    def fn(x: Tensor) -> Tensor:
        return evaluate(session, expr, {name: x})

    try:
        return reveal(fn, leaf, values, expr=expr, name=name)
    except PredictError as exc:
        if "does not depend on" not in str(exc):
            raise
        # written with an output computed from the leaf earlier (`y`): use its graph
        return reveal_named(evaluate(session, expr), leaf, values, expr=expr, name=name)


def xmode_magic(session: Session, arg: str) -> str | None:
    """%xmode plain|explain: explain autograd errors after PyTorch's message."""
    state = state_of(session)
    if not arg:
        return f"exception mode: {state.xmode}"
    if arg not in XMODES:
        _usage("usage: %xmode plain|explain")
    state.xmode = arg
    return None


def lang_magic(session: Session, arg: str) -> str | None:
    """%lang en|zh: the language of explanations."""
    state = state_of(session)
    if not arg:
        return f"language: {state.lang}"
    if arg not in LANGS:
        _usage("usage: %lang en|zh")
    state.lang = arg
    return None


def _in_lang(fn: Any) -> Any:
    """`fn` drawing its view in the session's `%lang`."""
    from gradshell.viz.words import use_lang

    def run(session: Session, arg: str) -> str | None:
        with use_lang(state_of(session).lang):
            return fn(session, arg)

    run.__doc__ = fn.__doc__
    run.__name__ = fn.__name__
    return run


def magic_table() -> list[tuple[str, Any, str, bool]]:
    """The visualisation magics for the shell to register: (name, function, help,
    whether the magic is recorded in transcripts)."""
    return [
        (name, _in_lang(fn), help_text, record)
        for name, fn, help_text, record in (
            ("viz", viz_magic, "on|off|compact: panels after each .grad change", False),
            ("ledger", ledger_magic, "[NAME] [--all]: every change of NAME.grad", False),
            (
                "explain",
                explain_magic,
                "OUT [GRADIENT]: the backward pass from OUT, node by node",
                False,
            ),
            ("step", step_magic, "OUT [GRADIENT]: the backward pass one node at a time", False),
            (
                "graph",
                graph_magic,
                "OUT [--dot FILE] [--svg FILE] [--force]: the grad_fn graph",
                False,
            ),
            ("predict", predict_magic, "d(EXPR)/dX = VALUES: check a predicted gradient", False),
            ("xmode", xmode_magic, "plain|explain: explain autograd errors", True),
            ("lang", lang_magic, "en|zh: language of explanations", True),
        )
    ]
