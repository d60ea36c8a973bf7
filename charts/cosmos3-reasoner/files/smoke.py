#!/usr/bin/env python3
"""Smoke test of a live Cosmos3 Reasoner frontend: the checks NVIDIA's documentation walks through by
hand after an install, automated. Each check prints `ok` or `FAIL` as it runs; a failure says what to
look at. Standard library only: the chart's `helm test` pods run this very file with the NIM image's
Python, and `dgdlint smoke` loads the same file, so there is one client and one set of tests.

    smoke.py --url URL [--streaming] [--timeout S] [--frame FILE] [--wait SECONDS]

Exit codes: 0 healthy; 1 a check failed; 2 usage (bad URL, unreadable frame, bad flags); 3 the client
itself broke (a bug: please report it).
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import math
import re
import socket
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

EXIT_HEALTHY, EXIT_UNHEALTHY, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
MAX_FRAME_BYTES = 8 * 1024 * 1024  # the NIM's documented limit for one frame
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
FIRST_RETRY_S, LONGEST_RETRY_S = 0.25, 5.0
SESSION_REQUEST = {
    "system_prompt": "You are a smoke test of a video assistant. Answer in a few words.",
    "question": "Which colours do you see?",
    "fps": 1,
    "sampling": {"max_tokens": 16},
}

# What a 503 says about itself. The NIM documents the three causes, not the wording, so these match
# loosely, and a 503 that names neither capacity nor a lost owner counts as "still loading".
_CAPACITY = re.compile(r"capacity|max(imum)?[ _-]?sessions|too many|limit|\bfull\b|busy")
_OWNER_GONE = re.compile(r"owner|owning|\bgone\b|no longer|\blost\b")
_LOADING = re.compile(r"load|start|warm|initiali[sz]|not ready|no (ready |available )?(instances|workers|endpoints)")

LOOK_LOADING = ("workers are still loading: look at the ReasonerWorker pods and the model-download Job "
                "(--wait SECONDS waits for them)")
LOOK_CAPACITY = ("capacity full: every worker holds NIM_STREAMING_MAX_SESSIONS sessions; end idle sessions, "
                 "raise streaming.maxSessions or add workers")
LOOK_OWNER_GONE = ("the worker that owned the session is gone (sessions do not move between workers): "
                   "look at ReasonerWorker restarts and scale-downs")
LOOK_NO_SESSION_ROUTES = ("the frontend has no streaming session routes: an old NIM image, the stock Dynamo "
                          "frontend instead of the NIM streaming adapter (mode: streaming), or streaming "
                          "disabled on the worker (NIM_ENABLE_STREAMING=1)")
LOOK_SESSION_UNKNOWN = ("the session is unknown: it expired (idle longer than NIM_STREAMING_REST_IDLE_TIMEOUT_S), "
                        "or streaming is disabled on the worker, or the NIM image is too old")
LOOK_NOT_FRONTEND = "is --url the Dynamo frontend (port 8000 of the Service named after the deployment + -frontend)?"


class UsageError(Exception):
    """Bad flags, URL or frame file: exit 2."""


class CheckFailed(Exception):
    """A check did not pass; the message is the one-line diagnosis."""


class Unreachable(Exception):
    """No HTTP answer at all (refused, unknown host, reset)."""


class TimedOut(Exception):
    """No complete answer within --timeout."""


class Reply:
    """One HTTP answer, whatever its status."""

    def __init__(self, status: int, body: bytes, content_type: str):
        self.status, self.body, self.content_type = status, body, content_type or ""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self):
        """The parsed body; CheckFailed when it is not JSON (a proxy's error page, the wrong port...)."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            kind = self.content_type.split(";")[0].strip() or "no content type"
            raise CheckFailed(f"HTTP {self.status} but the reply is not JSON ({kind}, {len(self.body)} bytes): "
                              f"{LOOK_NOT_FRONTEND}") from None

    def json_object(self) -> dict:
        data = self.json()
        if not isinstance(data, dict):
            raise CheckFailed(f"HTTP {self.status} but the reply is a JSON {type(data).__name__}, not an object: "
                              f"{LOOK_NOT_FRONTEND}")
        return data

    def server_says(self) -> str:
        """A short, single-line excerpt of what the server said, for diagnoses ('' when nothing useful)."""
        text = ""
        try:
            data = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if "html" not in self.content_type.lower():
                text = self.body[:300].decode("utf-8", "replace")
        else:
            if isinstance(data, dict):
                for key in ("detail", "error", "message"):
                    value = data.get(key)
                    if isinstance(value, dict):
                        value = value.get("message") or value.get("detail")
                    if isinstance(value, str):
                        text = value
                        break
            elif isinstance(data, str):
                text = data
        text = " ".join(text.split())
        return text[:120] + ("..." if len(text) > 120 else "")

    def unavailable_cause(self) -> str:
        """For a 503: 'capacity', 'owner-gone', 'loading' or 'unknown'."""
        said = self.body[:2000].decode("utf-8", "replace").lower()
        if _CAPACITY.search(said):
            return "capacity"
        if _OWNER_GONE.search(said):
            return "owner-gone"
        return "loading" if _LOADING.search(said) else "unknown"


def send(url: str, method: str, timeout: float, body: bytes | None = None, content_type: str | None = None,
         authorization: str = "") -> Reply:
    """One HTTP exchange. Raises TimedOut or Unreachable when there is no complete answer."""
    request = urllib.request.Request(url, data=body, method=method, headers={"Accept": "application/json"})
    if content_type:
        request.add_header("Content-Type", content_type)
    if authorization:
        request.add_header("Authorization", authorization)
    try:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return Reply(response.status, response.read(), response.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as error:
            with error:
                return Reply(error.code, error.read(), error.headers.get("Content-Type", ""))
    except (socket.timeout, TimeoutError):  # noqa: UP041 (distinct classes before Python 3.10)
        raise TimedOut() from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, (socket.timeout, TimeoutError)):
            raise TimedOut() from None
        raise Unreachable(_describe_network_error(error.reason)) from None
    except (OSError, http.client.HTTPException) as error:
        raise Unreachable(_describe_network_error(error)) from None


def _describe_network_error(reason) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return "unknown host"
    if isinstance(reason, (ConnectionResetError, http.client.RemoteDisconnected)):
        return "the connection was closed without a reply"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return str(reason) or type(reason).__name__


def _loading(reply: Reply) -> str:
    """Why a reply is worth waiting for with --wait ('' when it is not): a 503 that is not about capacity
    or a lost session owner."""
    if reply.status == 503 and reply.unavailable_cause() in ("loading", "unknown"):
        return "HTTP 503, workers loading"
    return ""


def _no_model_yet(reply: Reply) -> str:
    """As _loading, plus an empty model list: the frontend is up but no worker has registered yet."""
    if reply.ok:
        try:
            data = json.loads(reply.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return ""
        return "no model listed yet" if isinstance(data, dict) and not _model_ids(data) else ""
    return _loading(reply)


def _model_ids(data: dict) -> list[str]:
    entries = data.get("data")
    if not isinstance(entries, list):
        return []
    return [entry["id"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("id"), str)
            and entry["id"]]


def diagnose(reply: Reply, route: str) -> str:
    """One line: the status, what the server said, and what to look at. route: health, models, config,
    create, frame or delete."""
    said = reply.server_says()
    head = f"HTTP {reply.status}" + (f' ("{said}")' if said else "")
    session_route = route in ("config", "create", "frame", "delete")
    if reply.status == 404:
        if not session_route:
            return f"{head}: {LOOK_NOT_FRONTEND}"
        return f"{head}: {LOOK_NO_SESSION_ROUTES if route in ('config', 'create') else LOOK_SESSION_UNKNOWN}"
    if reply.status == 503:
        cause = reply.unavailable_cause()
        if cause == "capacity":
            return f"{head}: {LOOK_CAPACITY}"
        if cause == "owner-gone":
            return f"{head}: {LOOK_OWNER_GONE}"
        if cause == "loading" or route in ("health", "models", "config"):
            return f"{head}: {LOOK_LOADING}"
        return (f"{head}: workers loading, capacity full or the session's worker gone; look at the ReasonerWorker "
                "pods, NIM_STREAMING_MAX_SESSIONS and worker restarts (--wait SECONDS waits for loading workers)")
    if route == "create" and 400 <= reply.status < 500:
        return f"{head}: the frontend refused the session request; compare it with the NIM's streaming API"
    if reply.status >= 500:
        return f"{head}: the frontend or a worker failed; look at their logs"
    return f"{head}: unexpected reply"


class Run:
    """The checks of one invocation: the shared --wait budget, the counts, and the printed lines."""

    def __init__(self, base_url: str, timeout: float, wait: float):
        parts = urllib.parse.urlsplit(base_url)
        # user:password@ in --url becomes basic authentication (for a gateway in front of the frontend).
        self.authorization = ""
        if parts.username is not None:
            pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self.authorization = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        self.base_url, self.timeout = shown_url(base_url), timeout
        self.deadline = time.monotonic() + wait
        self.passed = self.failed = self.skipped = 0
        self.unreachable = ""

    def say(self, word: str, check: str, detail: str) -> None:
        print(f"{word:<4} {check}: {detail}", flush=True)

    def check(self, name: str, step, *, even_if_unreachable: bool = False):
        """Run one step: it returns (value, detail) or raises CheckFailed. Returns the value, None on failure."""
        if self.unreachable and not even_if_unreachable:
            self.skip(name, f"not attempted: {self.unreachable}")
            return None
        try:
            value, detail = step()
        except CheckFailed as failure:
            self.failed += 1
            self.say("FAIL", name, str(failure))
            return None
        self.passed += 1
        self.say("ok", name, detail)
        return value

    def skip(self, name: str, why: str) -> None:
        self.skipped += 1
        self.say("skip", name, why)

    def call(self, method: str, path: str, *, body: bytes | None = None, content_type: str | None = None,
             wait_while=None, on_timeout: str = "") -> Reply:
        """One request; while `wait_while(reply)` names a reason and --wait time is left, sleep and ask
        again (backing off). Transport failures become CheckFailed with a diagnosis."""
        delay = FIRST_RETRY_S
        while True:
            try:
                reply = send(self.base_url + path, method, self.timeout, body, content_type, self.authorization)
            except TimedOut:
                raise CheckFailed(f"no reply within {self.timeout:g} s (--timeout)"
                                  + (on_timeout or ": the frontend is overloaded or hung; look at its pod and logs")
                                  ) from None
            except Unreachable as error:
                where = urllib.parse.urlsplit(self.base_url).netloc
                self.unreachable = f"{where} is unreachable"
                raise CheckFailed(f"{error} at {where}: is the frontend Service up and --url right? "
                                  "Look at the Frontend pod and its Service") from None
            reason = wait_while(reply) if wait_while else ""
            left = self.deadline - time.monotonic()
            if not reason or left <= 0:
                return reply
            pause = min(delay, left)
            self.say("wait", f"{method} {path}",
                     f"{reason}; asking again in {pause:.1f} s ({left:.0f} s of --wait left)")
            time.sleep(pause)
            delay = min(delay * 2, LONGEST_RETRY_S)


def check_health(run: Run):
    reply = run.call("GET", "/health", wait_while=_loading)
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "health"))
    return True, f"HTTP {reply.status}"


def check_models(run: Run):
    reply = run.call("GET", "/v1/models", wait_while=_no_model_yet)
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "models"))
    ids = _model_ids(reply.json_object())
    if not ids:
        raise CheckFailed("the frontend lists no model: no worker has registered; " + LOOK_LOADING)
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    return ids, f"{len(ids)} model(s): {shown}"


def check_streaming_config(run: Run):
    reply = run.call("GET", "/v1/streaming/config", wait_while=_loading)
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "config"))
    model = reply.json_object().get("model")
    if not isinstance(model, str) or not model:
        raise CheckFailed(f"HTTP {reply.status} but the config names no `model`: the streaming adapter does not "
                          "match this client; look at the NIM image version")
    return model, f"model {model}"


def create_session(run: Run, model: str):
    body = json.dumps(dict(SESSION_REQUEST, model=model)).encode("utf-8")
    reply = run.call("POST", "/v1/streaming/sessions", body=body, content_type="application/json",
                     wait_while=_loading)
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "create"))
    session_id = reply.json_object().get("session_id")
    if isinstance(session_id, int) and not isinstance(session_id, bool):
        session_id = str(session_id)
    if not isinstance(session_id, str) or not session_id:
        raise CheckFailed(f"HTTP {reply.status} but the reply has no `session_id`: look at the NIM image version")
    return session_id, f"session {session_id} ({len(body)}-byte request)"


def send_frame(run: Run, path: str, frame: bytes, frame_type: str):
    started = time.monotonic()
    # Never re-sent: the worker may still be working on a frame whose reply timed out.
    reply = run.call("POST", path, body=frame, content_type=frame_type,
                     on_timeout="; the frame was not re-sent (a timed-out frame is never retried): look at the "
                                "ReasonerWorker logs and NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S, or raise --timeout")
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "frame"))
    reply.json()
    took = time.monotonic() - started
    return True, f"HTTP {reply.status} in {took:.1f} s ({frame_type}, {len(frame)} bytes sent)"


def delete_session(run: Run, path: str):
    reply = run.call("DELETE", path)
    if not reply.ok:
        raise CheckFailed(diagnose(reply, "delete"))
    return True, f"HTTP {reply.status}"


def streaming_round_trip(run: Run, frame: bytes, frame_type: str) -> None:
    sessions = "POST /v1/streaming/sessions"
    model = run.check("GET /v1/streaming/config", lambda: check_streaming_config(run))
    if model is None:
        run.skip(sessions, f"not attempted: {run.unreachable}" if run.unreachable
                 else "needs the model that the streaming config names")
        return
    session_id = run.check(sessions, lambda: create_session(run, model))
    if session_id is None:
        run.skip(sessions + "/{id}/frame", "needs a session")
        return
    path = f"/v1/streaming/sessions/{urllib.parse.quote(session_id, safe='')}"
    try:
        run.check(f"POST {path}/frame", lambda: send_frame(run, path + "/frame", frame, frame_type))
    finally:
        # The session this run created is always ended, whatever happened to the frame.
        run.check(f"DELETE {path}", lambda: delete_session(run, path), even_if_unreachable=True)


def generated_png(width: int = 224, height: int = 224) -> bytes:
    """A valid PNG made in memory: four coloured quadrants (red, green / blue, white), a few hundred bytes."""
    half = width // 2
    top = b"\x00" + b"\xff\x00\x00" * half + b"\x00\xff\x00" * (width - half)  # filter byte, then RGB
    bottom = b"\x00" + b"\x00\x00\xff" * half + b"\xff\xff\xff" * (width - half)
    rows = top * (height // 2) + bottom * (height - height // 2)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return PNG_MAGIC + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def load_frame(path: str) -> tuple[bytes, str]:
    """A JPEG or PNG file and its content type, told by its first bytes."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FRAME_BYTES + 1)
    except OSError as error:
        raise UsageError(f"--frame {path}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_FRAME_BYTES:
        raise UsageError(f"--frame {path}: larger than the NIM's 8 MiB frame limit")
    if data.startswith(PNG_MAGIC):
        return data, "image/png"
    if data.startswith(JPEG_MAGIC):
        return data, "image/jpeg"
    raise UsageError(f"--frame {path}: neither a PNG nor a JPEG (judged by its first bytes)")


def base_url(text: str) -> str:
    """The frontend's base URL without a trailing slash; UsageError unless http(s)://host[:port][/prefix]."""
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 (parses the port, raising ValueError when it is not a number)
    except ValueError:
        raise UsageError("--url: not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError("--url must look like http://HOST:PORT (for example http://localhost:8000)")
    if parts.query or parts.fragment:
        raise UsageError("--url must be the frontend's base URL, without a query or fragment")
    return text.rstrip("/")


def shown_url(url: str) -> str:
    """The URL as printed: any user:password@ part left out."""
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _seconds(minimum_exclusive: bool):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not math.isfinite(value) or value < 0 or (minimum_exclusive and value == 0):
            raise argparse.ArgumentTypeError(f"{text} is not a {'positive' if minimum_exclusive else 'non-negative'} "
                                             "number of seconds")
        return value
    return parse


def parse_arguments(argv: list[str] | None, prog: str) -> argparse.Namespace:
    parser = _Parser(prog=prog, description="Check a live Cosmos3 Reasoner frontend: health, models and, with "
                                            "--streaming, one REST session round trip.",
                     epilog=f"example:\n  {prog} --url http://localhost:8000 --streaming --wait 600",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="frontend base URL, e.g. http://localhost:8000")
    parser.add_argument("--streaming", action="store_true",
                        help="also create a session, send one frame and delete the session")
    parser.add_argument("--timeout", type=_seconds(True), default=60.0, metavar="S",
                        help="seconds each request may take (default: %(default)g)")
    parser.add_argument("--frame", metavar="FILE", help="JPEG or PNG to send instead of a generated PNG")
    parser.add_argument("--wait", type=_seconds(False), default=0.0, metavar="SECONDS",
                        help="keep asking for up to SECONDS while workers are loading (HTTP 503); default: "
                             "fail at once")
    options = parser.parse_args(argv)
    options.url = base_url(options.url)
    if options.frame and not options.streaming:
        raise UsageError("--frame needs --streaming")
    return options


def run_checks(options: argparse.Namespace, frame: bytes, frame_type: str) -> int:
    run = Run(options.url, options.timeout, options.wait)
    print(f"smoke test of {shown_url(options.url)} ({'streaming' if options.streaming else 'regular'} checks, "
          f"timeout {options.timeout:g} s, wait {options.wait:g} s)", flush=True)
    run.check("GET /health", lambda: check_health(run))
    run.check("GET /v1/models", lambda: check_models(run))
    if options.streaming:
        streaming_round_trip(run, frame, frame_type)
    total = run.passed + run.failed
    skipped = f", {run.skipped} skipped" if run.skipped else ""
    if run.failed:
        print(f"unhealthy: {run.failed} of {total} checks failed{skipped}", flush=True)
        return EXIT_UNHEALTHY
    print(f"healthy: {run.passed} checks passed", flush=True)
    return EXIT_HEALTHY


def main(argv: list[str] | None = None, prog: str = "smoke.py") -> int:
    try:
        options = parse_arguments(argv, prog)
        frame, frame_type = b"", ""
        if options.streaming:
            frame, frame_type = load_frame(options.frame) if options.frame else (generated_png(), "image/png")
        return run_checks(options, frame, frame_type)
    except UsageError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # never a traceback
        print(f"{prog}: internal error ({type(error).__name__}: {error}); please report it", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
