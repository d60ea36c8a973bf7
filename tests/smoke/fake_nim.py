"""A stand-in for the Cosmos3 Reasoner NIM behind its Dynamo frontend, for the smoke-client tests: the
real NIM needs a GPU and cannot run here. It serves the REST behaviour documented for the NIM (DOMAIN
section 2) on 127.0.0.1 from a thread: /health and /v1/models, and in streaming mode
/v1/streaming/config and the session routes (create, one frame at a time, delete). Switches reproduce
each documented failure: 404 on the session routes (old image, streaming disabled, expired session),
503 while workers load, when capacity is full or when a session's worker is gone, a slow frame, a
reply that is not JSON. Every request is recorded, so tests can count retries."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_ALIAS = "nvidia/cosmos3-reasoner-nano"
MODEL_PATH = "/opt/nim/.cache/ngc/hub/models--nvidia--cosmos3-nano-fp8"  # what /v1/streaming/config names
MAX_FRAME_BYTES = 8 * 1024 * 1024
IMAGE_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}


@dataclass
class Behaviour:
    """How the stand-in answers; the defaults are a healthy streaming deployment."""

    streaming: bool = True          # False: no session routes (404), as an old image or NIM_ENABLE_STREAMING=0
    loading_replies: int = 0        # the first N requests to health, models, config or create get 503 "loading"
    models: tuple[str, ...] = (MODEL_ALIAS,)
    capacity_full: bool = False     # session creation answers 503: every worker holds its maximum sessions
    frame_delay: float = 0.0        # seconds the worker takes before answering a frame
    frame_failure: str = ""         # "owner-gone": 503, the session's worker is gone; "expired": 404
    models_reply_html: bool = False  # /v1/models answers a proxy's HTML page


@dataclass
class Seen:
    method: str
    path: str
    content_type: str
    body: bytes
    authorization: str = ""


@dataclass
class FakeNim:
    behaviour: Behaviour = field(default_factory=Behaviour)
    requests: list[Seen] = field(default_factory=list)
    sessions: dict[str, dict] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)   # by a DELETE
    expired: list[str] = field(default_factory=list)   # on their own (idle timeout)

    def __post_init__(self):
        self._lock = threading.Lock()
        self._loading_left = self.behaviour.loading_replies
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._server.handle_error = lambda request, address: None  # a client that gave up is not an error here
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeNim:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def count(self, method: str, path: str) -> int:
        return sum(1 for seen in self.requests if seen.method == method and seen.path == path)

    @property
    def routes(self) -> list[str]:
        """The requests received, as "METHOD /path", session ids replaced by {id}."""
        shown = []
        for seen in self.requests:
            path = seen.path
            for session_id in [*self.sessions, *self.deleted, *self.expired]:
                path = path.replace(session_id, "{id}")
            shown.append(f"{seen.method} {path}")
        return shown

    # --- the documented behaviour -------------------------------------------------------------------

    def answer(self, method: str, path: str, content_type: str, body: bytes,
               authorization: str = "") -> tuple[int, str, bytes]:
        with self._lock:
            self.requests.append(Seen(method, path, content_type, body, authorization))
            loading = self._loading_left > 0 and (method, path) in (
                ("GET", "/health"), ("GET", "/v1/models"), ("GET", "/v1/streaming/config"),
                ("POST", "/v1/streaming/sessions"))
            if loading:
                self._loading_left -= 1
        if loading:
            return _json(503, {"detail": "Service unavailable: workers are still loading the model"})
        if (method, path) == ("GET", "/health"):
            return _json(200, {"status": "healthy"})
        if (method, path) == ("GET", "/v1/models"):
            if self.behaviour.models_reply_html:
                return 200, "text/html", b"<html><body>Welcome to the proxy</body></html>"
            return _json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.behaviour.models]})
        if not path.startswith("/v1/streaming/") or not self.behaviour.streaming:
            return _json(404, {"detail": "Not Found"})
        if (method, path) == ("GET", "/v1/streaming/config"):
            return _json(200, {"model": MODEL_PATH, "retention": {"max_video_segments": 8},
                               "sampling": {"max_tokens": 256, "temperature": 0.2}})
        if (method, path) == ("POST", "/v1/streaming/sessions"):
            return self._create(content_type, body)
        parts = path.split("/")  # ["", "v1", "streaming", "sessions", id, ("frame")]
        if len(parts) == 6 and parts[3] == "sessions" and method == "POST" and parts[5] == "frame":
            return self._frame(parts[4], content_type, body)
        if len(parts) == 5 and parts[3] == "sessions" and method == "DELETE":
            return self._delete(parts[4])
        return _json(404, {"detail": "Not Found"})

    def _create(self, content_type: str, body: bytes):
        if self.behaviour.capacity_full:
            return _json(503, {"detail": "capacity full: maximum sessions reached on every worker"})
        try:
            request = json.loads(body)
        except ValueError:
            return _json(422, {"detail": "body is not JSON"})
        if content_type != "application/json" or not isinstance(request.get("system_prompt"), str):
            return _json(422, {"detail": "system_prompt is required"})
        if request.get("model") != MODEL_PATH:
            return _json(400, {"detail": "model must be the one /v1/streaming/config names"})
        session_id = uuid.uuid4().hex
        with self._lock:
            self.sessions[session_id] = {"request": request, "frames": 0}
        if self.behaviour.frame_failure == "expired":
            with self._lock:
                self.sessions.pop(session_id)
                self.expired.append(session_id)
        return _json(200, {"session_id": session_id})

    def _frame(self, session_id: str, content_type: str, body: bytes):
        if session_id not in self.sessions:
            return _json(404, {"detail": f"session {session_id} not found"})
        if self.behaviour.frame_failure == "owner-gone":
            return _json(503, {"detail": "the worker owning this session is gone"})
        magic = IMAGE_MAGIC.get(content_type)
        if magic is None or not body.startswith(magic):
            return _json(415, {"detail": "send image/jpeg or image/png"})
        if len(body) > MAX_FRAME_BYTES:
            return _json(413, {"detail": "frame too large"})
        time.sleep(self.behaviour.frame_delay)
        with self._lock:
            self.sessions[session_id]["frames"] += 1
        return _json(200, {"session_id": session_id, "text": "red and green"})

    def _delete(self, session_id: str):
        with self._lock:
            if session_id not in self.sessions:
                return _json(404, {"detail": f"session {session_id} not found"})
            self.sessions.pop(session_id)
            self.deleted.append(session_id)
        return _json(200, {"deleted": True})


def _json(status: int, data) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(data).encode()


def _handler_for(nim: FakeNim):
    class Handler(BaseHTTPRequestHandler):
        def _serve(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, content_type, reply = nim.answer(self.command, self.path, self.headers.get("Content-Type", ""),
                                                     body, self.headers.get("Authorization", ""))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, *args):  # keep test output clean
            pass

    return Handler
