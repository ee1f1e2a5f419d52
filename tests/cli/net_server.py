#!/usr/bin/env python3
"""A loopback HTTPS server for tests/cli/net.bats (never a real network).

    net_server.py DOCROOT CERT KEY PORTFILE

Binds 127.0.0.1 port 0, writes the port to PORTFILE once it listens, and
serves DOCROOT.  The first path segment picks a behaviour, the rest names a
file of DOCROOT:

  /files/P              the file
  /O/R/releases/latest/download/A   302 to /O/R/releases/download/v1/A
  /O/R/releases/download/v1/A       the file A
  /status500/P          HTTP 500
  /tohttp/P             302 to http://127.0.0.1:PORT/files/P
  /loop/P               302 to itself
  /longer/P             the file, then junk past its Content-Length
  /stall/P              the headers and a few bytes, then silence
  /cut/P                half the file, then the connection closes
  /more/P               the file, then 4096 more bytes, all within its
                        Content-Length (the right bytes, then more)
  /flip/N/P             the file with one byte of its 1 MiB chunk N changed
  /stream/P             the file, read and sent 1 MiB at a time (never held
                        whole: the benchmark's 1 GiB archives, bench/run.py)
"""
import http.server
import os
import shutil
import ssl
import sys
import time

DOCROOT, CERT, KEY, PORTFILE = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def path_of(self, rel):
        """DOCROOT/rel when it is a file below DOCROOT, else None."""
        path = os.path.join(DOCROOT, rel)
        if ".." in rel.split("/") or not os.path.isfile(path):
            return None
        return path

    def body(self, rel):
        path = self.path_of(rel)
        if path is None:
            return None
        with open(path, "rb") as f:
            return f.read()

    def send(self, status, data=b"", length=None, close=False):
        self.send_response(status)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        return data

    def stream(self, rel):
        path = self.path_of(rel)
        if path is None:
            return self.wfile.write(self.send(404, b"not found\n"))
        with open(path, "rb") as f:
            self.send(200, length=os.fstat(f.fileno()).st_size)
            shutil.copyfileobj(f, self.wfile, 1 << 20)

    def redirect(self, to):
        self.send_response(302)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        parts = self.path.split("?", 1)[0].lstrip("/").split("/")
        mode, rel = parts[0], "/".join(parts[1:])
        if len(parts) >= 6 and parts[2:5] == ["releases", "latest", "download"]:
            return self.redirect("/%s/%s/releases/download/v1/%s" % (parts[0], parts[1], parts[5]))
        if len(parts) >= 6 and parts[2:4] == ["releases", "download"]:
            mode, rel = "files", parts[5]
        flip = None
        if mode == "flip" and len(parts) >= 3:
            flip, rel = int(parts[1]) * 1048576 + 100, "/".join(parts[2:])
        if mode == "status500":
            return self.wfile.write(self.send(500, b"broken\n"))
        if mode == "tohttp":
            return self.redirect("http://127.0.0.1:%d/files/%s" % (self.server.server_port, rel))
        if mode == "loop":
            return self.redirect(self.path)
        if mode == "stream":
            return self.stream(rel)
        data = self.body(rel)
        if data is None:
            return self.wfile.write(self.send(404, b"not found\n"))
        if mode == "files":
            self.wfile.write(self.send(200, data))
        elif mode == "more":
            self.wfile.write(self.send(200, data + b"M" * 4096))
        elif mode == "flip" and flip < len(data):
            data = data[:flip] + bytes([data[flip] ^ 1]) + data[flip + 1:]
            self.wfile.write(self.send(200, data))
        elif mode == "longer":
            self.wfile.write(self.send(200, data, close=True) + b"JUNK" * 4096)
            self.close_connection = True
        elif mode == "stall":
            self.wfile.write(self.send(200, data[:10], length=len(data)))
            self.wfile.flush()
            time.sleep(30)
            self.close_connection = True
        elif mode == "cut":
            self.wfile.write(self.send(200, data[: len(data) // 2], length=len(data), close=True))
            self.close_connection = True
        else:
            self.wfile.write(self.send(404, b"no such mode\n"))


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
