"""Fixtures and hooks shared by every test: the PyTorch oracle (real PyTorch when it is
installed, its recorded answers in tests/oracle when it is not), and a clean print style
and grad mode around each test."""

from __future__ import annotations

import sys

import pytest
from support import oracle
from support.oracle import ORACLE, fresh

_LOG = pytest.StashKey()
_PASSED = pytest.StashKey()
_last_file: list = [None]
_shared_logs: dict = {}
_fixture_log_of: dict = {}  # a shared fixture (FixtureDef) -> the log of its current value


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow", action="store_true", help="also run the slow tiers (marked slow)"
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a slow fuzz tier, run with --run-slow (CI does)")
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU with CuPy")
    mode = oracle.configure()
    if mode == "live":
        return
    if mode == "record":
        fresh.take(ORACLE.module("torch")._o_real, threads=fresh.RECORD_THREADS)
    # The recorded cases are the ones Hypothesis generates from a fixed seed.
    from hypothesis import HealthCheck, Phase, settings

    settings.register_profile(
        "gradshell-oracle",
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        suppress_health_check=list(HealthCheck),
        # a failing case is reported as generated: shrinking would ask PyTorch about
        # cases a replay (where the failure may be gone) never asks
        phases=[Phase.explicit, Phase.generate],
    )
    settings.load_profile("gradshell-oracle")
    # Hypothesis also draws numbers it finds written in the project's source: any edit to
    # gradshell would change the recorded cases. Recorded cases use its own pools only.
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants

        # (not by calling the original once: that scans every imported module's source)
        providers._get_local_constants = lambda: Constants(
            integers=providers.SortedSet(),
            floats=providers.SortedSet(key=providers.float_to_int),
            bytes=providers.SortedSet(),
            strings=providers.SortedSet(),
        )
    except (ImportError, AttributeError, TypeError):
        pass


def pytest_collection_modifyitems(config, items):
    """The slow tiers are left out (deselected, not skipped) unless --run-slow."""
    if config.getoption("--run-slow"):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if "slow" not in item.keywords]


def pytest_terminal_summary(terminalreporter):
    if ORACLE.mode == "replay":
        terminalreporter.write_line(
            "gradshell: PyTorch is not installed; differential tests compared against "
            f"recordings of PyTorch {ORACLE.torch_version} (tests/oracle)"
        )
    elif ORACLE.mode == "record":
        saved = ORACLE.save()
        terminalreporter.write_line(
            f"gradshell: recorded PyTorch's answers into {len(saved)} files under {ORACLE.root}"
        )


def _shared_log(key: str, prefix: str, parents=()):
    if key not in _shared_logs:
        _shared_logs[key] = ORACLE.open_log(key, prefix, parents)
    return _shared_logs[key]


def _collect_key(nodeid: str) -> str:
    return nodeid.split("::", 1)[0] + "::<collect>"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    if ORACLE.mode == "live" or not isinstance(collector, (pytest.Module, pytest.Class)):
        return (yield)
    previous = ORACLE.current
    ORACLE.current = _shared_log(_collect_key(collector.nodeid), "m")
    try:
        return (yield)
    finally:
        ORACLE.current = previous


def _fixture_logs(item, names) -> tuple:
    """The logs of the shared fixtures among `names` (and the fixtures they request), as
    `item` resolves them: what a test or fixture that requests `names` may refer to.

    Only these, never every shared fixture this process has set up: a test's recording
    must not depend on which test files ran before it on the same worker."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    logs, seen, todo = [], set(), list(names)
    while todo:
        name = todo.pop(0)
        if name in seen or not defs.get(name):
            continue
        seen.add(name)
        fixturedef = defs[name][-1]  # the one that applies to `item` (overrides last)
        todo.extend(fixturedef.argnames)
        log = _fixture_log_of.get(fixturedef)
        if log is not None:
            logs.append(log)
    return tuple(logs)


def _collect_logs(nodeid: str) -> tuple:
    key = _collect_key(nodeid)
    return (_shared_logs[key],) if key in _shared_logs else ()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if ORACLE.mode == "live" or fixturedef.scope == "function":
        return (yield)
    node = request.node.nodeid or "tests/conftest.py"
    key = f"{node}::<fixture {fixturedef.argname}[{getattr(request, 'param_index', 0)}]>"
    item = getattr(request, "_pyfuncitem", None)

    def parents() -> tuple:
        return _collect_logs(node) + _fixture_logs(item, fixturedef.argnames)

    log = _shared_log(key, f"f{fixturedef.argname}:", parents)
    _fixture_log_of[fixturedef] = log  # the log of the value it now holds
    previous = ORACLE.current
    ORACLE.current = log
    try:
        return (yield)
    finally:
        ORACLE.current = previous


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if item.path != _last_file[0]:  # each test file starts from PyTorch's fresh settings
        _last_file[0] = item.path
        real = sys.modules.get("torch")
        if ORACLE.mode == "live" and hasattr(real, "_C"):  # real PyTorch, once imported
            fresh.take(real)
        fresh.restore()
    if ORACLE.mode == "live":
        return (yield)

    def parents() -> tuple:
        # asked when needed: the test's shared fixtures are set up after its log opens
        return _collect_logs(item.nodeid) + _fixture_logs(item, item.fixturenames)

    log = ORACLE.open_log(item.nodeid, "t", parents)
    oracle.replay_failing_examples(getattr(item, "obj", None))
    item.stash[_LOG] = log
    ORACLE.current = log
    try:
        return (yield)
    finally:
        ORACLE.current = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.stash[_PASSED] = report.passed
    return report


@pytest.fixture(autouse=True)
def _oracle_log(request):
    """After each test: with recordings, the test must have asked PyTorch all it was
    recorded asking (otherwise the recording is stale)."""
    yield
    log = request.node.stash.get(_LOG, None)
    if log is None:
        return
    problem = ORACLE.finish(log)
    if problem and request.node.stash.get(_PASSED, False):
        pytest.fail(problem)


@pytest.fixture
def real_torch():
    """PyTorch, the oracle: the real module, or its recorded answers without it."""
    return oracle.torch()


@pytest.fixture(autouse=True)
def _clean_global_state():
    """Each test starts in the modern style with grad mode on."""
    from gradshell.core import grad_mode

    yield
    grad_mode.state.enabled = True
    grad_mode.state.inference = False
    try:
        from gradshell.printing import set_print_style

        set_print_style("modern")
    except ImportError:
        pass
