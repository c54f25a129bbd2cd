"""A lesson's progress store inside the kernel: the front end reads and writes the file.

The kernel may not write outside its one writable directory, and a learner's progress
lives in their data directory. `RemoteProgressStore` keeps the progress in memory as
`ProgressStore` does and asks the front end, which holds the real store, to load it
and to save it (atomically, merged with what other shells saved).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gradshell.learn.progress import Notice, Progress, ProgressStore, parse


class RemoteProgressStore(ProgressStore):
    """ProgressStore whose file I/O happens in the front end."""

    def __init__(self, channel: Any) -> None:
        super().__init__(path=Path("progress.json"))
        self.channel = channel

    def _take(self, reply: dict[str, Any]) -> None:
        path = reply.get("path")
        if isinstance(path, str):
            self.path = Path(path)
        for item in reply.get("notices", []):
            if isinstance(item, dict) and isinstance(item.get("fields"), dict):
                self.notices.append(Notice(str(item.get("kind")), dict(item["fields"])))
        self.writable = bool(reply.get("writable", True))

    def load(self) -> Progress:
        """The learner's progress, as the front end read it."""
        reply = self.channel.ask("progress", action="load")
        self._take(reply)
        try:
            self.progress = parse(json.dumps(reply.get("progress") or {"lessons": {}}))
        except ValueError:
            self.progress = Progress()
        return self.progress

    def save(self, touched: list[str] | None = None) -> bool:
        """Have the front end save the progress (only `touched` lessons replace disk's)."""
        reply = self.channel.ask(
            "progress", action="save", progress=self.progress.to_json(), touched=touched
        )
        self._take(reply)
        return bool(reply.get("ok"))


def serve_progress(store: ProgressStore, message: dict[str, Any]) -> dict[str, Any]:
    """The front end's answer to a kernel's `progress` request, using the real store."""
    action = message.get("action")
    if action == "load":
        progress = store.load()
        ok = True
    elif action == "save":
        try:
            incoming = parse(json.dumps(message.get("progress") or {}))
        except ValueError as exc:
            return {"type": "reply", "ok": False, "error": f"bad progress: {exc}"}
        touched = message.get("touched")
        keep = [str(t) for t in touched] if isinstance(touched, list) else None
        store.progress = incoming
        ok = store.save(keep)
        progress = store.progress
    else:
        return {"type": "reply", "ok": False, "error": f"unknown progress action {action!r}"}
    return {
        "type": "reply",
        "ok": ok,
        "path": str(store.path),
        "writable": store.writable,
        "progress": progress.to_json(),
        "notices": [{"kind": n.kind, "fields": n.fields} for n in store.take_notices()],
    }


__all__ = ["RemoteProgressStore", "serve_progress"]
