"""The sandboxed kernel: the child process that runs a learner's code.

The front end (REPL, panels, replay, lessons) never runs learner code. It starts a
kernel (`gradshell.kernel.client.KernelSession`), sends it cells over a pipe
(`protocol`), and shows what comes back. The kernel (`server`) confines itself with
the operating system's tools (`confine`) before the first cell, and can be
interrupted, killed and restarted without the front end losing the session.
"""
