"""The one way the WHIP endpoints the tests run answer a request: status, headers and a body with
its Content-Length (so a keep-alive client knows where the answer ends)."""


def reply(handler, status, body="", headers=()):
    """Writes the answer to `handler`, a BaseHTTPRequestHandler; `body` is text."""
    data = body.encode()
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
