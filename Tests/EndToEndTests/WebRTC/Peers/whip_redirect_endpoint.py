"""A WHIP endpoint that only moves the client elsewhere, for the tests of where the bearer token
may go (follow_redirects). It records every request it gets and never sets up media.

usage: whip_redirect_endpoint.py RECORD_FILE MODE TARGET [--tls CERT KEY]
  MODE redirect: POST answers 307 with Location TARGET
  MODE location: POST answers 201 with a minimal SDP answer and Location TARGET (the session's place)
  MODE record:   every request answers 404 (a place the client should not have come to)
Prints "listening PORT" once it listens on 127.0.0.1 (a free port). Every request appends one JSON
line to RECORD_FILE: {"method", "path", "host", "authorization"}.
"""
import http.server
import json
import ssl
import sys

from http_reply import reply

record_file, mode, target = sys.argv[1], sys.argv[2], sys.argv[3]
tls = sys.argv[sys.argv.index("--tls") + 1:sys.argv.index("--tls") + 3] if "--tls" in sys.argv else None

ANSWER = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"


class Endpoint(http.server.BaseHTTPRequestHandler):
    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with open(record_file, "a") as out:
            out.write(json.dumps({"method": self.command, "path": self.path, "host": self.headers.get("Host"),
                                  "authorization": self.headers.get("Authorization")}) + "\n")
        if mode == "redirect" and self.command == "POST":
            reply(self, 307, headers=[("Location", target)])
        elif mode == "location" and self.command == "POST":
            reply(self, 201, ANSWER, [("Location", target), ("Content-Type", "application/sdp")])
        else:
            reply(self, 404)

    do_POST = do_DELETE = do_PATCH = do_GET = handle_any

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
if tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls[0], tls[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening %d" % server.server_address[1], flush=True)
server.serve_forever()
