"""A page on an origin in livepush's cors_origins plays the camera over WHEP with the viewer's token,
in headless Chromium: the browser's CORS preflight (which carries no token) must pass the server's
role check, the offer and the DELETE carry the token.

usage: cors_whep_check.py LIVEPUSH_URL PAGE_PORT VIEWER_TOKEN SCREENSHOT_DIR
The page is served on 127.0.0.1:PAGE_PORT (the origin the config allows), loads livepush's whep.js
and plays /whep/cam0. Prints one JSON object. Every wait is bounded.
"""
import json
import sys

from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium, serve_page

base, page_port, viewer, shots = sys.argv[1].rstrip("/"), int(sys.argv[2]), sys.argv[3], sys.argv[4]

PAGE = """<!doctype html><meta charset=utf-8><title>player elsewhere</title>
<video id=v muted autoplay playsinline></video>
<script src="%(base)s/whep.js"></script>
<script>
window.result = {};
const player = new WHEPPlayer(document.getElementById("v"), "%(base)s/whep/cam0", "%(token)s");
player.start().then(() => { window.result.started = true; })
  .catch((e) => { window.result.error = String(e); });
window.leave = () => player.stop().then(() => { window.result.left = true; });
</script>"""


server = serve_page(PAGE % {"base": base, "token": viewer}, page_port)
driver = chromium("--autoplay-policy=no-user-gesture-required")
wait = WebDriverWait(driver, 30)
result = {}
try:
    driver.get("http://127.0.0.1:%d/player.html" % page_port)
    wait.until(lambda d: d.execute_script("return !!(window.result.started || window.result.error)"))
    result.update(driver.execute_script("return window.result"))
    if result.get("started"):
        wait.until(lambda d: d.execute_script("return document.getElementById('v').videoWidth > 0"))
        result["videoWidth"] = driver.execute_script("return document.getElementById('v').videoWidth")
        driver.save_screenshot(shots + "/cors-whep-player.png")
        driver.execute_script("window.leave()")
        wait.until(lambda d: d.execute_script("return !!window.result.left"))
        result["left"] = True
    result["ok"] = True
except Exception as error:  # reported, and the Swift test fails on it
    result["ok"] = False
    result["error"] = result.get("error") or repr(error)
finally:
    driver.quit()
    server.shutdown()
print(json.dumps(result))
