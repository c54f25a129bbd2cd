#!/usr/bin/env bash
# Build a JupyterHub environment with this checkout's gradshell, then run smoke.py:
# a hub on 127.0.0.1, two learners, a gradshell kernel and one cell each.
# Usage: deploy/jupyterhub/run-smoke.sh [VENV_DIR]   (default: a fresh temporary one)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$(mktemp -d)/hub-venv}"
# configurable-http-proxy from PyPI is the hub's proxy without Node.js.
packages=(jupyterhub jupyter_server configurable-http-proxy "$root[jupyter]")
if command -v uv >/dev/null 2>&1; then
    [ -x "$venv/bin/python" ] || uv venv --quiet "$venv"
    uv pip install --quiet --python "$venv/bin/python" "${packages[@]}"
else
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
fi
"$venv/bin/gradshell" kernel install --prefix "$venv" >/dev/null
PATH="$venv/bin:$PATH" "$venv/bin/python" "$here/smoke.py"
