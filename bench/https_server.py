#!/usr/bin/env python3
"""The benchmark's loopback HTTPS file server (bench/run.py, the issue-30
`install URL` rows): GET /NAME sends DOCROOT/NAME with its length, read
and sent 1 MiB at a time, so that neither the server's memory nor a
whole-file read before the first byte weighs on the client measured.
packsign and the curl pipeline fetch from the same server.

usage: https_server.py DOCROOT CERT KEY PORTFILE
PORTFILE gets the port once the server listens (written, then renamed).
"""
import http.server
import os
import ssl
import sys

DOCROOT, CERT, KEY, PORTFILE = sys.argv[1:5]
BLOCK = 1 << 20


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        name = self.path.split("?", 1)[0].lstrip("/")
        path = os.path.join(DOCROOT, name)
        if "/" in name or not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            self.send_response(200)
            self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
            self.end_headers()
            while True:
                block = f.read(BLOCK)
                if not block:
                    break
                self.wfile.write(block)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    with open(PORTFILE + ".part", "w") as f:
        f.write("%d\n" % server.server_port)
    os.rename(PORTFILE + ".part", PORTFILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
