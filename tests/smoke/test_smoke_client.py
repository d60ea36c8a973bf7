"""`dgdlint smoke` against the stand-in NIM (fake_nim.py; the real one needs a GPU): each check printed as
it runs, the documented diagnoses for 404 and 503, --wait only for loading workers, a timed-out frame
never re-sent, the session always deleted, and exit codes 0 healthy, 1 unhealthy, 2 usage."""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import time

import pytest
from fake_nim import MODEL_ALIAS, MODEL_PATH, Behaviour, FakeNim

from dgdlint import cli
from dgdlint.smoke import client, main

SESSIONS = "/v1/streaming/sessions"
ROUND_TRIP = ["GET /health", "GET /v1/models", "GET /v1/streaming/config", f"POST {SESSIONS}",
              f"POST {SESSIONS}/{{id}}/frame", f"DELETE {SESSIONS}/{{id}}"]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """urllib honours proxy variables; the stand-in is on 127.0.0.1."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def smoke(capsys, *args: str, nim: FakeNim | None = None) -> tuple[int, list[str], str]:
    """Run `dgdlint smoke`; return the exit code, stdout lines (session ids shown as {id}, durations as
    {t}) and stderr. No run may print a traceback."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if nim is not None:
        for session_id in [*nim.sessions, *nim.deleted, *nim.expired]:
            out = out.replace(session_id, "{id}")
    out = re.sub(r"(HTTP \d+) in \d+\.\d s ", r"\1 in {t} s ", out)
    return code, out.splitlines(), err


def header(url: str, mode: str = "streaming", timeout: str = "5", wait: str = "0") -> str:
    return f"smoke test of {url} ({mode} checks, timeout {timeout} s, wait {wait} s)"


def session_request_size() -> int:
    return len(json.dumps(dict(client().SESSION_REQUEST, model=MODEL_PATH)).encode())


# --- healthy -------------------------------------------------------------------------------------

def test_a_healthy_regular_deployment_passes_health_and_models_and_exits_0(capsys):
    with FakeNim() as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--timeout", "5")
    assert code == 0
    assert lines == [
        header(nim.url, "regular"),
        "ok   GET /health: HTTP 200",
        f"ok   GET /v1/models: 1 model(s): {MODEL_ALIAS}",
        "healthy: 2 checks passed",
    ]
    assert nim.routes == ["GET /health", "GET /v1/models"]


def test_streaming_round_trip_uses_the_config_model_sends_one_png_and_deletes_the_session(capsys):
    with FakeNim() as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url + "/", "--streaming", "--timeout", "5", nim=nim)
    png = client().generated_png()
    assert code == 0
    assert lines == [
        header(nim.url),
        "ok   GET /health: HTTP 200",
        f"ok   GET /v1/models: 1 model(s): {MODEL_ALIAS}",
        f"ok   GET /v1/streaming/config: model {MODEL_PATH}",
        f"ok   POST {SESSIONS}: session {{id}} ({session_request_size()}-byte request)",
        f"ok   POST {SESSIONS}/{{id}}/frame: HTTP 200 in {{t}} s (image/png, {len(png)} bytes sent)",
        f"ok   DELETE {SESSIONS}/{{id}}: HTTP 200",
        "healthy: 6 checks passed",
    ]
    assert nim.routes == ROUND_TRIP
    assert not nim.sessions and len(nim.deleted) == 1
    create, frame = nim.requests[3], nim.requests[4]
    request = json.loads(create.body)
    # The config's model (a path) is what the session names, not the /v1/models alias.
    assert request["model"] == MODEL_PATH != MODEL_ALIAS
    assert request["system_prompt"] and request["question"] and request["fps"] == 1
    assert 0 < request["sampling"]["max_tokens"] <= 32
    assert (frame.content_type, frame.body) == ("image/png", png)


def test_a_jpeg_given_with_frame_is_sent_as_image_jpeg(capsys, tmp_path):
    jpeg = tmp_path / "frame.jpg"
    jpeg.write_bytes(b"\xff\xd8\xff\xe0" + bytes(200) + b"\xff\xd9")
    with FakeNim() as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--frame", str(jpeg), nim=nim)
    assert code == 0
    assert f"ok   POST {SESSIONS}/{{id}}/frame: HTTP 200 in {{t}} s (image/jpeg, 206 bytes sent)" in lines
    assert (nim.requests[4].content_type, nim.requests[4].body) == ("image/jpeg", jpeg.read_bytes())


def test_the_dgdlint_command_delegates_to_the_same_client(capsys):
    with FakeNim() as nim:
        assert cli.main(["smoke", "--url", nim.url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "healthy: 2 checks passed"


# --- 404 on the session routes -------------------------------------------------------------------

def test_404_on_the_streaming_config_names_old_image_stock_frontend_or_streaming_disabled(capsys):
    with FakeNim(Behaviour(streaming=False)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--timeout", "5")
    assert code == 1
    assert lines[3:] == [
        'FAIL GET /v1/streaming/config: HTTP 404 ("Not Found"): the frontend has no streaming session routes: an old '
        "NIM image, the stock Dynamo frontend instead of the NIM streaming adapter (mode: streaming), or streaming "
        "disabled on the worker (NIM_ENABLE_STREAMING=1)",
        f"skip POST {SESSIONS}: needs the model that the streaming config names",
        "unhealthy: 1 of 3 checks failed, 1 skipped",
    ]
    assert nim.routes == ["GET /health", "GET /v1/models", "GET /v1/streaming/config"]


def test_404_on_the_frame_means_an_expired_session_and_the_delete_is_still_attempted(capsys):
    with FakeNim(Behaviour(frame_failure="expired")) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", nim=nim)
    unknown = ("the session is unknown: it expired (idle longer than NIM_STREAMING_REST_IDLE_TIMEOUT_S), or "
               "streaming is disabled on the worker, or the NIM image is too old")
    assert code == 1
    assert lines[5:] == [
        f'FAIL POST {SESSIONS}/{{id}}/frame: HTTP 404 ("session {{id}} not found"): {unknown}',
        f'FAIL DELETE {SESSIONS}/{{id}}: HTTP 404 ("session {{id}} not found"): {unknown}',
        "unhealthy: 2 of 6 checks failed",
    ]
    assert nim.routes == ROUND_TRIP


# --- 503 -----------------------------------------------------------------------------------------

LOADING = ('HTTP 503 ("Service unavailable: workers are still loading the model"): workers are still loading: look '
           "at the ReasonerWorker pods and the model-download Job (--wait SECONDS waits for them)")


def test_by_default_a_503_fails_at_once_without_asking_again(capsys):
    with FakeNim(Behaviour(loading_replies=2)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url)
    assert code == 1
    assert lines[1:] == [f"FAIL GET /health: {LOADING}", f"FAIL GET /v1/models: {LOADING}",
                         "unhealthy: 2 of 2 checks failed"]
    assert nim.routes == ["GET /health", "GET /v1/models"]


def test_wait_asks_again_while_workers_load_then_passes(capsys):
    with FakeNim(Behaviour(loading_replies=2)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--wait", "20", nim=nim)
    assert code == 0
    waits = [line for line in lines if line.startswith("wait ")]
    assert [line.split(";")[0] for line in waits] == ["wait GET /health: HTTP 503, workers loading"] * 2
    assert re.fullmatch(r"wait GET /health: HTTP 503, workers loading; asking again in 0\.2 s "
                        r"\(\d+ s of --wait left\)", waits[0])
    assert re.fullmatch(r"wait GET /health: HTTP 503, workers loading; asking again in 0\.5 s "
                        r"\(\d+ s of --wait left\)", waits[1])  # backing off
    assert nim.count("GET", "/health") == 3
    assert lines[-1] == "healthy: 6 checks passed"


def test_wait_is_bounded_and_then_reports_the_loading_workers(capsys):
    started = time.monotonic()
    with FakeNim(Behaviour(loading_replies=10_000)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--wait", "1")
    assert code == 1
    assert time.monotonic() - started < 3
    assert f"FAIL GET /health: {LOADING}" in lines
    assert 2 <= nim.count("GET", "/health") <= 5


def test_capacity_full_fails_at_once_even_with_wait_and_no_session_is_left(capsys):
    with FakeNim(Behaviour(capacity_full=True)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--wait", "20")
    assert code == 1
    assert lines[4:] == [
        f'FAIL POST {SESSIONS}: HTTP 503 ("capacity full: maximum sessions reached on every worker"): capacity full: '
        "every worker holds NIM_STREAMING_MAX_SESSIONS sessions; end idle sessions, raise streaming.maxSessions or "
        "add workers",
        f"skip POST {SESSIONS}/{{id}}/frame: needs a session",
        "unhealthy: 1 of 4 checks failed, 1 skipped",
    ]
    assert nim.count("POST", SESSIONS) == 1 and not nim.sessions


def test_a_frame_503_names_the_lost_worker_and_the_session_is_still_deleted(capsys):
    with FakeNim(Behaviour(frame_failure="owner-gone")) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--wait", "20", nim=nim)
    assert code == 1
    assert lines[5:] == [
        f'FAIL POST {SESSIONS}/{{id}}/frame: HTTP 503 ("the worker owning this session is gone"): the worker that '
        "owned the session is gone (sessions do not move between workers): look at ReasonerWorker restarts and "
        "scale-downs",
        f"ok   DELETE {SESSIONS}/{{id}}: HTTP 200",
        "unhealthy: 1 of 6 checks failed",
    ]
    assert nim.count("POST", f"{SESSIONS}/{nim.deleted[0]}/frame") == 1  # never re-sent, --wait or not
    assert not nim.sessions


# --- timeouts, broken replies, no server ---------------------------------------------------------

def test_a_timed_out_frame_is_sent_once_and_the_session_is_deleted(capsys):
    with FakeNim(Behaviour(frame_delay=2.0)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--streaming", "--timeout", "0.5", "--wait", "20", nim=nim)
        frames = nim.count("POST", f"{SESSIONS}/{nim.deleted[0]}/frame")
    assert code == 1
    assert lines[5:] == [
        f"FAIL POST {SESSIONS}/{{id}}/frame: no reply within 0.5 s (--timeout); the frame was not re-sent (a "
        "timed-out frame is never retried): look at the ReasonerWorker logs and "
        "NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S, or raise --timeout",
        f"ok   DELETE {SESSIONS}/{{id}}: HTTP 200",
        "unhealthy: 1 of 6 checks failed",
    ]
    assert frames == 1 and not nim.sessions


def test_a_reply_that_is_not_json_is_explained(capsys):
    with FakeNim(Behaviour(models_reply_html=True)) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url)
    assert code == 1
    assert lines[2] == ("FAIL GET /v1/models: HTTP 200 but the reply is not JSON (text/html, 46 bytes): is --url "
                        "the Dynamo frontend (port 8000 of the Service named after the deployment + -frontend)?")


def test_an_empty_model_list_fails_and_wait_treats_it_as_loading(capsys):
    with FakeNim(Behaviour(models=())) as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url, "--wait", "0.5")
    assert code == 1
    assert lines[-2] == ("FAIL GET /v1/models: the frontend lists no model: no worker has registered; workers are "
                         "still loading: look at the ReasonerWorker pods and the model-download Job (--wait SECONDS "
                         "waits for them)")
    assert nim.count("GET", "/v1/models") >= 2


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_connection_refused_is_explained_once_and_the_rest_is_skipped(capsys):
    url = f"http://127.0.0.1:{_free_port()}"
    code, lines, _ = smoke(capsys, "--url", url, "--streaming")
    where = url.removeprefix("http://")
    assert code == 1
    assert lines[1:] == [
        f"FAIL GET /health: connection refused at {where}: is the frontend Service up and --url right? Look at the "
        "Frontend pod and its Service",
        f"skip GET /v1/models: not attempted: {where} is unreachable",
        f"skip GET /v1/streaming/config: not attempted: {where} is unreachable",
        f"skip POST {SESSIONS}: not attempted: {where} is unreachable",
        "unhealthy: 1 of 1 checks failed, 3 skipped",
    ]


def test_a_connection_closed_without_a_reply_is_explained(capsys):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"

        def hang_up():
            for _ in range(2):  # smoke may retry once; when it does not, the listener closes under accept()
                try:
                    connection, _address = listener.accept()
                except OSError:
                    return
                connection.recv(4096)
                connection.close()

        closer = threading.Thread(target=hang_up, daemon=True)
        closer.start()
        code, lines, _ = smoke(capsys, "--url", url, "--timeout", "5")
    assert code == 1
    assert lines[1].startswith("FAIL GET /health: the connection was closed without a reply at 127.0.0.1:")


def test_credentials_in_the_url_become_basic_authentication_and_are_never_printed(capsys):
    with FakeNim() as nim:
        code, lines, _ = smoke(capsys, "--url", nim.url.replace("://", "://user:s3cret@"))
    assert code == 0
    assert "s3cret" not in "\n".join(lines)
    assert lines[0] == header(nim.url, "regular", timeout="60")
    assert {seen.authorization for seen in nim.requests} == {"Basic " + base64.b64encode(b"user:s3cret").decode()}


# --- usage ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--url", "localhost:8000"], "--url must look like http://HOST:PORT (for example http://localhost:8000)"),
    (["--url", "ftp://host:21"], "--url must look like http://HOST:PORT (for example http://localhost:8000)"),
    (["--url", "http://host:port"], "--url: not a valid URL"),
    (["--url", "http://host:8000/?x=1"], "--url must be the frontend's base URL, without a query or fragment"),
    (["--url", "http://host:8000", "--timeout", "0"], "argument --timeout: 0 is not a positive number of seconds"),
    (["--url", "http://host:8000", "--wait", "-1"], "argument --wait: -1 is not a non-negative number of seconds"),
    (["--url", "http://host:8000", "--wait", "soon"], "argument --wait: not a number of seconds: 'soon'"),
    (["--url", "http://host:8000", "--frame", "x.png"], "--frame needs --streaming"),
    (["--url", "http://host:8000", "--streaming", "--frame", "/nonexistent/x.png"],
     "--frame /nonexistent/x.png: cannot read it (No such file or directory)"),
    (["--url", "http://host:8000", "--verbose"], "unrecognized arguments: --verbose"),
    ([], "the following arguments are required: --url"),
])
def test_usage_errors_exit_2_with_one_message_and_no_request(capsys, args, message):
    code, lines, err = smoke(capsys, *args)
    assert code == 2
    assert lines == []
    assert err.splitlines()[-1] == f"dgdlint smoke: error: {message}"


def test_a_frame_that_is_neither_png_nor_jpeg_is_a_usage_error(capsys, tmp_path):
    text = tmp_path / "frame.png"
    text.write_text("not an image")
    code, _, err = smoke(capsys, "--url", "http://host:8000", "--streaming", "--frame", str(text))
    assert code == 2
    assert err.strip() == f"dgdlint smoke: error: --frame {text}: neither a PNG nor a JPEG (judged by its first bytes)"


def test_help_exits_0(capsys):
    code, lines, _ = smoke(capsys, "--help")
    assert code == 0
    assert lines[0].startswith("usage: dgdlint smoke [-h] --url URL [--streaming]")
