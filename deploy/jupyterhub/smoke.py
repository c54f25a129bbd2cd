"""Start a JupyterHub on 127.0.0.1 with jupyterhub_config.py, spawn two learners' servers,
start a gradshell kernel in each, run a cell in each, and check what it printed.

Run it with the hub's Python (see run-smoke.sh, which builds that environment):
    python deploy/jupyterhub/smoke.py
Exit status 0 when both learners' cells printed what PyTorch prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
USERS = ("alice", "bob")
CELL = "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\nx.grad"
EXPECTED = "tensor([3., 3.])\n"


def api(base: str, token: str, method: str, path: str, body: dict | None = None) -> object:
    """One call to a Jupyter REST API; the decoded JSON answer (or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode() or "null"
    return json.loads(text)


def wait_for(check, what: str, timeout: float = 120.0) -> object:
    """Poll `check()` until it returns a true value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = check()
        except (urllib.error.URLError, ConnectionError, OSError):
            value = None
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(f"timed out waiting for {what}")


async def run_cell(ws_url: str, token: str, code: str) -> str:
    """Execute `code` over the kernel's websocket; the text it showed (printed text and
    the cell's value)."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    conn = await websocket_connect(
        HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}, connect_timeout=30)
    )
    msg_id = uuid.uuid4().hex
    conn.write_message(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "username": "smoke",
                    "session": uuid.uuid4().hex,
                    "msg_type": "execute_request",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "content": {"code": code, "silent": False, "allow_stdin": False},
                "channel": "shell",
                "buffers": [],
            }
        )
    )
    printed = []
    while True:
        raw = await asyncio.wait_for(conn.read_message(), timeout=120)
        if raw is None:
            raise ConnectionError("the kernel's websocket closed")
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "stream":
            printed.append(msg["content"]["text"])
        if kind == "execute_result":  # the cell's value, shown as Out[n]
            printed.append(msg["content"]["data"]["text/plain"] + "\n")
        if kind == "execute_reply":
            conn.close()
            if msg["content"]["status"] != "ok":
                raise RuntimeError(f"the cell failed: {msg['content']}")
            return "".join(printed)


def main() -> int:
    """Start the hub, exercise two learners, stop everything; the exit status."""
    if shutil.which("jupyterhub") is None or shutil.which("configurable-http-proxy") is None:
        print("smoke: jupyterhub and configurable-http-proxy must be on PATH", file=sys.stderr)
        return 2
    port = int(os.environ.get("GRADSHELL_HUB_PORT", "18000"))
    token = secrets.token_hex(16)
    base = f"http://127.0.0.1:{port}"
    workdir = Path(tempfile.mkdtemp(prefix="gradshell-hub-"))
    env = dict(
        os.environ,
        GRADSHELL_HUB_DIR=str(workdir),
        GRADSHELL_HUB_PORT=str(port),
        GRADSHELL_HUB_TOKEN=token,
    )
    log = open(workdir / "hub.log", "w")  # noqa: SIM115 - closed below
    hub = subprocess.Popen(
        ["jupyterhub", "-f", str(HERE / "jupyterhub_config.py")],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    status = 1
    try:
        wait_for(lambda: api(base, token, "GET", "/hub/api/"), "the hub to answer")
        print(f"smoke: hub up on {base}")
        for user in USERS:
            api(base, token, "POST", f"/hub/api/users/{user}")
            api(base, token, "POST", f"/hub/api/users/{user}/server")
        for user in USERS:

            def ready(user: str = user) -> bool:
                model = api(base, token, "GET", f"/hub/api/users/{user}")
                server = (model.get("servers") or {}).get("", {})  # type: ignore[union-attr]
                return bool(server.get("ready"))

            wait_for(ready, f"{user}'s server")
            kernel = api(base, token, "POST", f"/user/{user}/api/kernels", {"name": "gradshell"})
            kernel_id = kernel["id"]  # type: ignore[index]
            ws = f"ws://127.0.0.1:{port}/user/{user}/api/kernels/{kernel_id}/channels"
            printed = asyncio.run(run_cell(ws, token, CELL))
            print(f"smoke: {user}'s gradshell kernel printed {printed!r}")
            if printed != EXPECTED:
                print(f"smoke: expected {EXPECTED!r}", file=sys.stderr)
                return 1
        status = 0
        print("smoke: passed: two learners, two gradshell kernels, one cell each")
    except Exception as exc:  # report, then show the hub's log
        import traceback

        traceback.print_exc()
        print(f"smoke: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        log.flush()
        sys.stderr.write((workdir / "hub.log").read_text()[-4000:])
    finally:
        for user in USERS:
            try:
                api(base, token, "DELETE", f"/hub/api/users/{user}/server")
            except Exception:
                pass
        try:
            os.killpg(hub.pid, signal.SIGTERM)
            hub.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(hub.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
