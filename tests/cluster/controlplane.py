"""A real Kubernetes control plane for the tests: etcd and kube-apiserver (built by `make tools`) on
127.0.0.1, on free ports, with a throwaway data folder and certificates made here. Modelled on envtest:
one CA signs the serving certificate and a `system:masters` client certificate; RBAC on; the
ServiceAccount admission plugin off (there is no controller manager to create service accounts).

There is no controller manager, scheduler or kubelet: objects are stored and validated, nothing runs,
nothing is garbage-collected, and a deleted namespace never finishes terminating."""

from __future__ import annotations

import base64
import contextlib
import datetime
import json
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import yaml


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _pem_key(key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def make_certificates(folder: Path) -> dict[str, Path]:
    """ca.crt; apiserver.crt/.key (127.0.0.1, localhost); admin.crt/.key (O=system:masters); sa.key/.pub."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dgdlint-test-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))

    def leaf(subject: x509.Name, usage, sans=None):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return builder.sign(ca_key, hashes.SHA256()), key

    import ipaddress

    server, server_key = leaf(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]),
                              ExtendedKeyUsageOID.SERVER_AUTH,
                              [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")])
    admin, admin_key = leaf(x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters"),
                                       x509.NameAttribute(NameOID.COMMON_NAME, "dgdlint-test-admin")]),
                            ExtendedKeyUsageOID.CLIENT_AUTH)
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    files = {
        "ca.crt": ca.public_bytes(serialization.Encoding.PEM),
        "apiserver.crt": server.public_bytes(serialization.Encoding.PEM),
        "apiserver.key": _pem_key(server_key),
        "admin.crt": admin.public_bytes(serialization.Encoding.PEM),
        "admin.key": _pem_key(admin_key),
        "sa.key": _pem_key(sa_key),
        "sa.pub": sa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo),
    }
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return {name: folder / name for name in files}


class ApiError(Exception):
    def __init__(self, status: int, body: dict):
        super().__init__(f"{status}: {body.get('message', body)}")
        self.status, self.body = status, body


@dataclass
class ControlPlane:
    etcd: str
    apiserver: str
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="dgdlint-cluster-")))
    port: int = 0
    kubeconfig: Path | None = None
    extra_args: list = field(default_factory=list)  # more kube-apiserver flags (a test's own cluster settings)
    _processes: list = field(default_factory=list)
    _context: ssl.SSLContext | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180) -> ControlPlane:
        certs = make_certificates(self.folder)
        etcd_port, peer_port, self.port = free_port(), free_port(), free_port()
        logs = self.folder / "logs"
        logs.mkdir()
        etcd_url = f"http://127.0.0.1:{etcd_port}"
        self._spawn([self.etcd, "--data-dir", str(self.folder / "etcd"), "--name", "test",
                     "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
                     "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                     "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                     "--initial-cluster", f"test=http://127.0.0.1:{peer_port}",
                     "--unsafe-no-fsync", "--log-level", "warn"], logs / "etcd.log")
        self._spawn([self.apiserver, "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
                     "--secure-port", str(self.port), "--etcd-servers", etcd_url,
                     "--tls-cert-file", str(certs["apiserver.crt"]),
                     "--tls-private-key-file", str(certs["apiserver.key"]),
                     "--client-ca-file", str(certs["ca.crt"]),
                     "--service-account-issuer", f"{self.url}/", "--service-account-key-file", str(certs["sa.pub"]),
                     "--service-account-signing-key-file", str(certs["sa.key"]),
                     "--service-cluster-ip-range", "10.0.0.0/24", "--authorization-mode", "RBAC",
                     "--disable-admission-plugins", "ServiceAccount", "--allow-privileged=true",
                     "--endpoint-reconciler-type", "none",  # no kubernetes Service endpoint on a loopback address
                     "--cert-dir", str(self.folder / "certs"), *self.extra_args], logs / "kube-apiserver.log")
        self._context = ssl.create_default_context(cafile=str(certs["ca.crt"]))
        self._context.load_cert_chain(str(certs["admin.crt"]), str(certs["admin.key"]))
        self.kubeconfig = self.folder / "kubeconfig"
        self.kubeconfig.write_text(self._kubeconfig(certs), encoding="utf-8")
        self._wait_ready(timeout)
        return self

    def _spawn(self, command: list[str], log: Path) -> None:
        handle = log.open("wb")
        self._processes.append(subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL))

    def _kubeconfig(self, certs: dict[str, Path]) -> str:
        def b64(name: str) -> str:
            return base64.b64encode(certs[name].read_bytes()).decode()

        return json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "test",
            "clusters": [{"name": "test",
                          "cluster": {"server": self.url, "certificate-authority-data": b64("ca.crt")}}],
            "users": [{"name": "admin", "user": {"client-certificate-data": b64("admin.crt"),
                                                 "client-key-data": b64("admin.key")}}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": "admin", "namespace": "default"}}],
        }, indent=1)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            for process in self._processes:
                if process.poll() is not None:
                    raise RuntimeError(f"{process.args[0]} exited with {process.returncode}: {self.log_tail()}")
            try:
                self.request("GET", "/readyz")
                self.request("GET", "/api/v1/namespaces/default")
                return
            except (ApiError, OSError) as error:
                last = str(error)
            time.sleep(0.5)
        raise RuntimeError(f"the API server was not ready within {timeout:.0f} s ({last}): {self.log_tail()}")

    def log_tail(self, lines: int = 15) -> str:
        tails = []
        for log in sorted((self.folder / "logs").glob("*.log")):
            tails.append(f"--- {log.name}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(tails)

    def request(self, method: str, path: str, body: object = None, content_type: str = "application/json") -> dict:
        """One API call; the decoded JSON answer, or ApiError with the server's Status."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": content_type, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self._context, timeout=60) as answer:
                text = answer.read()
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                status = json.loads(raw)
            except ValueError:
                status = {"message": raw.decode(errors="replace")}
            raise ApiError(error.code, status) from None
        try:
            return json.loads(text) if text else {}
        except ValueError:
            return {"text": text.decode(errors="replace")}

    def apply(self, obj: dict) -> dict:
        """Server-side apply of one object (created or updated), as `kubectl apply --server-side` does."""
        path = resource_path(self, obj["apiVersion"], obj["kind"], obj["metadata"].get("namespace"),
                             obj["metadata"]["name"])
        return self.request("PATCH", f"{path}?fieldManager=dgdlint-tests&force=true", json.dumps(obj).encode(),
                            content_type="application/apply-patch+yaml")

    def stop(self) -> None:
        for process in reversed(self._processes):
            process.terminate()
        for process in reversed(self._processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


_PLURALS: dict[tuple[str, str], tuple[str, bool]] = {}


def resource_path(plane: ControlPlane, api_version: str, kind: str, namespace: str | None, name: str | None = None):
    """The REST path of a kind, found through discovery (plural name and whether it is namespaced)."""
    key = (api_version, kind)
    if key not in _PLURALS:
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        for resource in plane.request("GET", base)["resources"]:
            if resource["kind"] == kind and "/" not in resource["name"]:
                _PLURALS[key] = (resource["name"], resource["namespaced"])
                break
        else:
            raise KeyError(f"the server serves no {kind} in {api_version}")
    plural, namespaced = _PLURALS[key]
    base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    path = f"{base}/namespaces/{namespace or 'default'}/{plural}" if namespaced else f"{base}/{plural}"
    return f"{path}/{name}" if name else path


def install_crd(plane: ControlPlane, crd: dict, folder: Path, timeout: float = 60) -> str:
    """Create a test's own CRD and wait until the server serves its kind (its group may be served already,
    by another test's CRD); its file in `folder`, for `--crd`."""
    plane.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    group, names = crd["spec"]["group"], crd["spec"]["names"]
    version = next(v["name"] for v in crd["spec"]["versions"] if v.get("served"))
    deadline = time.monotonic() + timeout
    while True:
        try:
            resource_path(plane, f"{group}/{version}", names["kind"], None)
            break
        except (ApiError, KeyError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    path = folder / f"{names['plural']}.yaml"
    path.write_text(yaml.safe_dump(crd), encoding="utf-8")
    return str(path)


def refused_fields(plane: ControlPlane, namespace: str, body: dict | str) -> list[str]:
    """The fields the API server names in refusing to create `body` in `namespace` (a server-side dry run,
    strict field validation): a dict sent as JSON, or YAML text sent as kubectl sends a file. [] when it
    would create it; a refusal that names no field is given by its message."""
    head = yaml.safe_load(body) if isinstance(body, str) else body
    path = resource_path(plane, head["apiVersion"], head["kind"], namespace) + "?dryRun=All&fieldValidation=Strict"
    try:
        if isinstance(body, str):
            plane.request("POST", path, body.encode(), content_type="application/yaml")
        else:
            plane.request("POST", path, dict(body, metadata=dict(body["metadata"], namespace=namespace)))
    except ApiError as error:
        causes = [cause.get("field", "") for cause in error.body.get("details", {}).get("causes", [])]
        return causes or [error.body.get("message", "") or str(error.body)]
    return []


@contextlib.contextmanager
def storage_version(plane: ControlPlane, version: str, crd: str = "dynamographdeployments.nvidia.com"):
    """Store the kind at `version` for a while. With no operator there is no conversion webhook (the CRDs
    are applied with conversion None), so an object written in the other version would be stored pruned
    to that version's schema; a test that writes for real (not a dry run) stores its own version."""
    def switch(to: str) -> None:
        current = plane.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}")
        if [v["name"] for v in current["spec"]["versions"] if v.get("storage")] == [to]:
            return
        for entry in current["spec"]["versions"]:
            entry["storage"] = entry["name"] == to
        plane.request("PUT", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}", current)
        time.sleep(3)  # the API server re-reads a changed CRD asynchronously

    stored = plane.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}")
    before = [v["name"] for v in stored["spec"]["versions"] if v.get("storage")]
    switch(version)
    try:
        yield
    finally:
        switch(before[0])
