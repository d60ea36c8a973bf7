"""A container's probes, lifecycle hooks and pull policy as the API server validates them, after its
defaulting (written from Kubernetes' core validation): one handler each, an exec command, ports in range
or valid port names, a known HTTP scheme, header names of letters, digits and '-', no negative counts, a
success threshold of 1 for liveness and startup probes, no termination grace period on a readiness probe
or one below 1 on another. Left unset (0), a probe's counts and an HTTP path and scheme take defaults."""

from __future__ import annotations

import re

from dgdlint.go_merge import go_zero, merged
from dgdlint.model import as_list, as_map, as_str
from dgdlint.rules.syntax import as_int, port_problem

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_COUNTS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")
_HEADER_NAME = re.compile(r"[-A-Za-z0-9]+", re.ASCII)


def _handler_problems(handler: dict, path: tuple, kinds: tuple[str, ...], what: str, grace: int | None = None,
                      grace_source: str = ""):
    given = [kind for kind in kinds if handler.get(kind) is not None]
    if not given:
        yield path, f"{what} has no handler (one of {', '.join(kinds)})"
    for extra in given[1:]:
        yield path + (extra,), f"{what} has a second handler, {extra} beside {given[0]} (one at most)"
    if not given:
        return
    kind, action = given[0], as_map(handler.get(given[0]))
    where = path + (kind,)
    if kind == "exec" and not as_list(action.get("command")):
        yield where + ("command",), f"{what} runs an exec handler without a command"
    elif kind == "sleep":
        seconds = as_int(action.get("seconds"))
        if seconds is not None and (seconds < 0 or (grace is not None and seconds > grace)):
            bound = f" and not more than the pod's terminationGracePeriodSeconds ({grace}{grace_source})" \
                if grace is not None else ""
            yield where + ("seconds",), f"{what} sleeps {seconds} seconds; it must be 0 or more{bound}"
    elif kind in ("httpGet", "tcpSocket", "grpc"):
        problem = port_problem(action.get("port"))
        if problem:
            yield where + ("port",), f"{what} {problem}"
    if kind == "httpGet":
        scheme = as_str(action.get("scheme"))
        if scheme and scheme not in ("HTTP", "HTTPS"):
            yield where + ("scheme",), f"{what} has scheme {scheme!r} (HTTP or HTTPS)"
        for index, header in enumerate(as_list(action.get("httpHeaders"))):
            name = as_str(as_map(header).get("name")) or ""
            if not _HEADER_NAME.fullmatch(name):
                yield where + ("httpHeaders", index, "name"), \
                    f"{what} has header name {name!r} (letters, digits and '-' only)"


def probe_problems(kind: str, probe: dict, path: tuple):
    yield from _handler_problems(probe, path, PROBE_HANDLERS, kind)
    for name in _COUNTS:
        value = as_int(probe.get(name))
        if value is not None and value < 0:
            yield path + (name,), f"{kind} has {name} {value}; it must not be negative"
    success = as_int(probe.get("successThreshold"))
    if kind != "readinessProbe" and success not in (None, 0, 1):  # 0 is unset: defaulted to 1
        yield path + ("successThreshold",), f"{kind} has successThreshold {success}; it must be 1"
    grace = probe.get("terminationGracePeriodSeconds")
    if kind == "readinessProbe" and grace is not None:
        yield path + ("terminationGracePeriodSeconds",), "readinessProbe may not set terminationGracePeriodSeconds"
    elif as_int(grace) is not None and grace <= 0:
        yield path + ("terminationGracePeriodSeconds",), \
            f"{kind} has terminationGracePeriodSeconds {grace}; it must be above 0"


def container_behaviour_problems(raw: dict, path: tuple, grace: int | None = None, init: bool = False,
                                 set_elsewhere: tuple[str, ...] = (), grace_source: str = ""):
    """(path, problem) for a container's probes, lifecycle hooks and image pull policy. `grace`: the pod's
    terminationGracePeriodSeconds when known (a sleep hook lasts no longer), `grace_source` what gave it when
    the spec does not (", the API server's default"); `init`: an init container, which
    takes probes and hooks only as a sidecar (restartPolicy: Always); `set_elsewhere`: probe kinds read
    elsewhere (a v1alpha1 service's own, with the main container's merged over: merged_probe_problems)."""
    if init and as_str(raw.get("restartPolicy")) != "Always":
        for kind in (*PROBES, "lifecycle"):
            if raw.get(kind) is not None:
                yield path + (kind,), f"{kind} is set on an init container, which takes it only as a sidecar " \
                                      "(restartPolicy: Always)"
    else:
        for kind in PROBES:
            if isinstance(raw.get(kind), dict) and kind not in set_elsewhere:
                yield from probe_problems(kind, raw[kind], path + (kind,))
        lifecycle = as_map(raw.get("lifecycle"))
        for hook in ("postStart", "preStop"):
            if isinstance(lifecycle.get(hook), dict):
                yield from _handler_problems(lifecycle[hook], path + ("lifecycle", hook), HOOK_HANDLERS, hook, grace,
                                             grace_source)
    policy = as_str(raw.get("imagePullPolicy"))
    if policy and policy not in PULL_POLICIES:  # left empty, it is defaulted
        yield path + ("imagePullPolicy",), f"imagePullPolicy {policy!r} is not one of {', '.join(PULL_POLICIES)}"


def merged_probe_problems(kind: str, own: dict, own_path: tuple, written: object, written_path: tuple):
    """(path, problem) for a v1alpha1 service's own probe as its pod gets it: the main container's probe of
    that kind (`written`) merged over it field by field, as the conversion merges extraPodSpec.mainContainer
    (mergo, WithOverride: a field set there wins); each problem at the probe that sets the field it names."""
    if not isinstance(written, dict):
        yield from probe_problems(kind, own, own_path)
        return
    for path, problem in probe_problems(kind, merged(own, written), ()):
        value = written
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        yield (written_path if not path or not go_zero(value) else own_path) + path, problem
