"""A JupyterHub whose learners get gradshell as their notebook kernel (see
docs/jupyterhub.md). Settings that a real deployment replaces are marked DEMO.

Environment it reads (all optional):
  GRADSHELL_HUB_DIR      where the hub keeps its database, cookie secret and users'
                         home directories (default: ./hub-data)
  GRADSHELL_HUB_PORT     the public port on 127.0.0.1 (default 8000)
  GRADSHELL_HUB_TOKEN    an API token for an admin service (used by smoke.py)
  GRADSHELL_USER_MEMORY  each learner's kernel address-space cap (default 2G)
"""

import os
import secrets
from pathlib import Path

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

data = Path(os.environ.get("GRADSHELL_HUB_DIR", "hub-data")).resolve()
data.mkdir(parents=True, exist_ok=True)
port = int(os.environ.get("GRADSHELL_HUB_PORT", "8000"))

# Where the hub listens: loopback only (put TLS and a real host name in front of it).
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = port
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = port + 1
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{port + 2}"
c.JupyterHub.db_url = f"sqlite:///{data / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(data / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(data / "proxy.pid")

# DEMO: anyone may log in with the shared password. Use a real authenticator
# (OAuthenticator for the school's single sign-on, LDAPAuthenticator, NativeAuthenticator).
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("GRADSHELL_HUB_PASSWORD") or secrets.token_hex(8)
c.Authenticator.allow_all = True

# DEMO: every learner's server runs as the hub's own system user, each in a home
# directory of its own. Use SystemdSpawner (one Unix user each, cgroup limits),
# DockerSpawner or KubeSpawner on a shared server.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(data / "home" / "{username}")

# gradshell is every notebook's kernel; the kernel runs learner code in its own sandboxed
# process (resource limits, no network, no writes outside the learner's directory).
c.Spawner.default_url = "/tree"
c.Spawner.args = ["--MappingKernelManager.default_kernel_name=gradshell"]
if os.geteuid() == 0:  # DEMO: a hub started as root runs the learners' servers as root too
    c.Spawner.args.append("--allow-root")
c.Spawner.environment = {"GRADSHELL_KERNEL_MEMORY": os.environ.get("GRADSHELL_USER_MEMORY", "2G")}
# Per-learner limits for the whole server, enforced by spawners that can (SystemdSpawner,
# DockerSpawner, KubeSpawner); the local spawner above ignores them, and the memory cap
# of each gradshell kernel (GRADSHELL_KERNEL_MEMORY) is what holds there.
c.Spawner.mem_limit = "3G"
c.Spawner.cpu_limit = 1.0
# A class of hundreds: stop idle servers (pip install jupyterhub-idle-culler and add it as
# a service), and let the hub start many at once.
c.JupyterHub.concurrent_spawn_limit = 50
c.Spawner.start_timeout = 120

# An admin service with an API token, for scripts such as smoke.py.
token = os.environ.get("GRADSHELL_HUB_TOKEN")
if token:
    c.JupyterHub.services = [{"name": "gradshell-admin", "api_token": token}]
    c.JupyterHub.load_roles = [
        {
            "name": "gradshell-admin",
            "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"],
            "services": ["gradshell-admin"],
        }
    ]
