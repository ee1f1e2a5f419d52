"""A loopback https server in front of one LocalSigstore: the skeleton
issue 29's tests will start and stop.  Every route is one call into the
service modules; this file only moves bytes and maps errors to statuses.

    GET  /.well-known/openid-configuration   oidc.Issuer.discovery()
    GET  /.well-known/jwks                   oidc.Issuer.jwks()
    POST /api/v2/signingCert                 fulcio.Fulcio.signing_cert()
    GET  /api/v2/trustBundle                 the CA chain as PEM
    POST /api/v1/log/entries                 rekor.create_entry_v1()
    POST /api/v2/log/entries                 rekor.create_entry_v2()
    POST /api/v1/timestamp                   tsa.TimestampAuthority.respond()

It listens on 127.0.0.1 only, with a TLS certificate for 127.0.0.1 and
localhost from its own CA (ca_pem() is what a client passes as --ca-file),
bounds request bodies, and stops when told.  Times come from the clock
function it is given, so a test can sign "in the past" against it.
"""

import datetime
import http.server
import ipaddress
import json
import ssl
import tempfile
import threading

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID

from . import ca, fulcio, oidc, rekor, util
from .keys import SigningKey

MAX_BODY = 1 << 20


class LoopbackSigstore:
    def __init__(self, instance, issuer_url=None, clock=util.now):
        self.instance = instance
        self.clock = clock
        self.issuer = oidc.Issuer(instance.seed, issuer_url or "https://127.0.0.1")
        self.fulcio = fulcio.Fulcio(instance.ca, [instance.ctlog], [self.issuer])
        self._serial = 0
        self._lock = threading.Lock()
        self._tls = _TLSMaterial(instance.seed)
        self._httpd = None
        self._thread = None

    def ca_pem(self):
        return self._tls.ca_pem

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self._httpd.server_address[1]

    def start(self):
        handler = getattr(self, "_handler", None) or _handler_for(self)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.socket = self._tls.context().wrap_socket(self._httpd.socket,
                                                             server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- routes: (status, content type, body) ------------------------------

    def get(self, path):
        if path == "/.well-known/openid-configuration":
            return _json(200, self.issuer.discovery())
        if path == "/.well-known/jwks":
            return _json(200, self.issuer.jwks())
        if path == "/api/v2/trustBundle":
            pems = [c.public_bytes(serialization.Encoding.PEM).decode()
                    for c in self.instance.ca.chain]
            return _json(200, {"chains": [{"certificates": pems}]})
        return _json(404, {"message": "no such route"})

    def post(self, path, content_type, body):
        with self._lock:
            try:
                if path == "/api/v1/timestamp":
                    if content_type != "application/timestamp-query":
                        return _json(415, {"message": "expected application/timestamp-query"})
                    self._serial += 1
                    resp = self.instance.tsa.respond(body, self.clock(), self._serial)
                    return 201, "application/timestamp-reply", resp
                request = json.loads(body)
                if path == "/api/v2/signingCert":
                    return _json(201, self.fulcio.signing_cert(request, self.clock()))
                if path == "/api/v1/log/entries":
                    return _json(201, rekor.create_entry_v1(self.instance.rekor1, request,
                                                            self.clock()))
                if path == "/api/v2/log/entries":
                    return _json(201, rekor.create_entry_v2(self.instance.rekor2, request))
            except (fulcio.FulcioError, rekor.RekorError) as e:
                return _json(e.status, {"message": str(e)})
            except (ValueError, RuntimeError) as e:
                return _json(400, {"message": "bad request: %s" % e})
        return _json(404, {"message": "no such route"})


def _json(status, obj):
    return status, "application/json", json.dumps(obj).encode()


def _handler_for(server):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _send(self, status, ctype, body):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._send(*server.get(self.path))

        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._send(*_json(411, {"message": "Content-Length required"}))
            if not 0 <= length <= MAX_BODY:
                return self._send(*_json(413, {"message": "body over %d bytes" % MAX_BODY}))
            body = self.rfile.read(length)
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
            self._send(*server.post(self.path, ctype, body))
    return Handler


class _TLSMaterial:
    """A CA and a server certificate for 127.0.0.1 and localhost."""

    def __init__(self, seed):
        start = util.utc(2024, 1, 1)
        end = util.now() + datetime.timedelta(days=30)
        ca_key = SigningKey.from_seed(seed, "tls:ca", "p256")
        self.key = SigningKey.from_seed(seed, "tls:server", "p256")
        ca_name = ca.name("local sigstore TLS CA", "sigstore.local")
        ca_cert = ca.build(ca_name, ca_name, ca_key.public, ca_key,
                           ca.serial_from(seed, "tls:ca"), start, end,
                           ca.ca_extensions(ca_key.public, None, 0))
        self.cert = ca.build(
            ca.name("127.0.0.1"), ca_name, self.key.public, ca_key,
            ca.serial_from(seed, "tls:server"), start, end,
            [(x509.SubjectAlternativeName([
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.DNSName("localhost")]), False),
             (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
             (x509.BasicConstraints(ca=False, path_length=None), True)])
        self.ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)

    def context(self):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        with tempfile.NamedTemporaryFile() as cert, tempfile.NamedTemporaryFile() as key:
            cert.write(self.cert.public_bytes(serialization.Encoding.PEM))
            cert.flush()
            key.write(self.key.private_pem())
            key.flush()
            ctx.load_cert_chain(cert.name, key.name)
        return ctx
