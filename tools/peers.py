"""The comparison's peer servers on free loopback ports: the ASP.NET Core minimal API under Kestrel
(examples/peers/aspnet, built with the .NET SDK), FastAPI under Debian's uvicorn
(examples/peers/fastapi) and Flask (examples/peers/flask). Each start waits for the port within
a bound; each stop signals the PID it started. Kestrel and uvicorn also serve https, with a PEM
certificate make_certificate() makes. Used by tools/compare-stacks and tests/peers."""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"  # Debian's, with python3-fastapi, python3-uvicorn, python3-flask


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certificate(folder):
    """A self-signed certificate for 127.0.0.1 and localhost, made by openssl in `folder`: (cert, key)."""
    cert, key = str(pathlib.Path(folder) / "peer-cert.pem"), str(pathlib.Path(folder) / "peer-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True,
                   capture_output=True)
    return cert, key


class Peer:
    """A started server: `url(n)` is its factorial URL for n; stop() ends the process it started."""

    def __init__(self, name, proc, port, path, scheme="http"):
        self.name, self.proc, self.port, self.path, self.scheme = name, proc, port, path, scheme

    def url(self, n):
        return f"{self.scheme}://127.0.0.1:{self.port}{self.path.format(n=n)}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _wait_for(name, proc, port, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} before listening on port {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{name} did not listen on port {port} within {seconds} s")


def have_dotnet():
    return shutil.which("dotnet") is not None


def build_aspnet(out_dir):
    """Builds the ASP.NET Core peer in Release into out_dir; returns the path of its dll."""
    env = dict(os.environ, DOTNET_NOLOGO="1", DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_SKIP_FIRST_TIME_EXPERIENCE="1")
    subprocess.run(["dotnet", "build", str(ROOT / "examples" / "peers" / "aspnet"), "-c", "Release",
                    "--artifacts-path", str(out_dir), "--nologo", "-v", "quiet"], check=True, env=env, timeout=600,
                   stdout=subprocess.DEVNULL)
    return pathlib.Path(out_dir) / "bin" / "FactorialApi" / "release" / "factorial-api.dll"


def start_aspnet(dll, seconds=60, tls=None):
    """Kestrel on http, or with tls=(cert, key) on https with that PEM certificate."""
    port, scheme = free_port(), "https" if tls else "http"
    env = dict(os.environ, ASPNETCORE_URLS=f"{scheme}://127.0.0.1:{port}", Logging__LogLevel__Default="Warning",
               DOTNET_NOLOGO="1", DOTNET_gcServer="0")
    if tls:
        env.update(Kestrel__Certificates__Default__Path=tls[0], Kestrel__Certificates__Default__KeyPath=tls[1])
    proc = subprocess.Popen(["dotnet", str(dll)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for("Kestrel", proc, port, seconds)
    return Peer("ASP.NET Core (Kestrel)", proc, port, "/factorial?n={n}", scheme)


def start_fastapi(seconds=60, tls=None):
    """uvicorn on http, or with tls=(cert, key) on https."""
    port = free_port()
    proc = subprocess.Popen([PYTHON, "-m", "uvicorn", "app:app", "--app-dir", str(ROOT / "examples" / "peers" / "fastapi"),
                             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log"] +
                            (["--ssl-certfile", tls[0], "--ssl-keyfile", tls[1]] if tls else []),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for("uvicorn", proc, port, seconds)
    return Peer("FastAPI (uvicorn)", proc, port, "/factorial/{n}", "https" if tls else "http")


def start_flask(seconds=60):
    port = free_port()
    proc = subprocess.Popen([PYTHON, str(ROOT / "examples" / "peers" / "flask" / "app.py"), str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for("Flask", proc, port, seconds)
    return Peer("Flask", proc, port, "/sleep?seconds={n}")
