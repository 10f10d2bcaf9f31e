"""What the dashboard checks share: headless Chromium driven through /usr/bin/chromedriver, and a
one-page HTTP server on 127.0.0.1 standing for another origin. Imported by the check scripts
beside it (Python puts a script's own folder on its path)."""
import http.server
import threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def chromium(*extra_flags, browser_log=False):
    """A headless Chromium whose page loads give up after 20 s; `browser_log` keeps the console."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in FLAGS + list(extra_flags):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


def serve_page(html, port=0):
    """Serves `html` at every path of http://127.0.0.1:PORT (0: any free port) from a daemon
    thread; returns the server, whose `server_address[1]` is the port and `shutdown()` stops it."""
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
