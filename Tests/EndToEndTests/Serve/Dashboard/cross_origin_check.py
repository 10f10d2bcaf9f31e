"""A page on another origin attacks livepush serve in headless Chromium; the dashboard on its own
origin keeps working with the viewer's and the admin's tokens.

usage: cross_origin_check.py LIVEPUSH_URL ADMIN_TOKEN|- VIEWER_TOKEN|- SCREENSHOT_DIR
With tokens ("-" for an open server): log in as viewer (read-only views, snapshot, WHEP preview,
no admin controls), then as admin; with the admin's session cookie in the browser, open the attack
page, served by a second local HTTP server on another port, which tries fetch (no-cors, text/plain
body), sendBeacon, a form POST and a CORS read against the API, and frames the dashboard (clickjacking). Then the dashboard reports what the
camera's state is, and the admin stops an output from the dashboard. Prints one JSON object.
Every wait is bounded.
"""
import json
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium, serve_page

base, admin, viewer, shots = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
has_tokens = admin != "-"

ATTACK = """<!doctype html><meta charset=utf-8><title>attack</title>
<form id=f method=POST action="%(base)s/api/cameras/cam0/outputs/record/stop" target=sink><input name=a value=b></form>
<iframe name=sink></iframe>
<iframe id=framed src="%(base)s/" width=600 height=400></iframe>
<script>
window.results = {};
(async () => {
  const api = "%(base)s/api/cameras/cam0";
  const attempt = async (name, promise) => {
    try { const r = await promise; window.results[name] = r.type === "opaque" ? "opaque" : r.status; }
    catch (e) { window.results[name] = "blocked"; }
  };
  await attempt("noCorsStop", fetch(api + "/outputs/record/stop", {method: "POST", mode: "no-cors", credentials: "include"}));
  await attempt("noCorsBitrate", fetch(api + "/bitrate", {method: "POST", mode: "no-cors", credentials: "include",
      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({bitrate: "100k"})}));
  window.results.beacon = navigator.sendBeacon(api + "/outputs/record/stop", JSON.stringify({x: 1})) ? "queued" : "refused";
  document.getElementById("f").submit();
  await attempt("corsRead", fetch("%(base)s/api/status", {credentials: "include"}).then(r => r.json()).then(() => ({status: "read"})));
  await attempt("whepOffer", fetch("%(base)s/whep/cam0", {method: "POST", headers: {"Content-Type": "application/sdp"}, body: "v=0"}));
  setTimeout(() => { window.results.done = true; }, 1500);
})();
</script>"""


attacker = serve_page(ATTACK % {"base": base})
attack_url = "http://127.0.0.1:%d/attack.html" % attacker.server_address[1]
driver = chromium("--window-size=1280,900", "--autoplay-policy=no-user-gesture-required", browser_log=True)
wait = WebDriverWait(driver, 20)
result = {}


def dashboard_live():
    wait.until(lambda d: d.execute_script("return !!(window.livepushStatus && window.livepushStatus.cameras[0].framesEncoded > 3)"))


def log_in(token):
    wait.until(lambda d: d.find_element(By.ID, "token-form").is_displayed())
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
    dashboard_live()
    wait.until(lambda d: d.execute_script("return !!document.body.dataset.role"))
    return driver.execute_script("return document.body.dataset.role")


def framed_dashboard():
    """What the attack page's frame of the dashboard shows: "loaded", or "blocked" (Chromium's error page)."""
    driver.switch_to.frame(driver.find_element(By.ID, "framed"))
    try:
        wait.until(lambda d: d.execute_script("return location.href !== 'about:blank' && document.readyState === 'complete'"))
        return "loaded" if driver.execute_script("return !!document.querySelector('#cameras')") else "blocked"
    finally:
        driver.switch_to.default_content()


def policy_violations():
    """Console messages about the Content-Security-Policy since the last call (the log empties as it is read)."""
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def visible(selector):
    return driver.execute_script("const e = document.querySelector(arguments[0]); return !!e && getComputedStyle(e).display !== 'none'", selector)


try:
    driver.get(base + "/")
    if has_tokens:
        result["viewerRole"] = log_in(viewer)
        result["viewerSeesKeyframe"] = visible(".camera .keyframe")
        result["viewerSnapshot"] = driver.execute_script("return fetch('/api/cameras/cam0/snapshot.jpg').then(r => r.status)")
        result["viewerKeyframePost"] = driver.execute_script(
            "return fetch('/api/cameras/cam0/keyframe', {method: 'POST'}).then(r => r.status)")
        try:
            wait.until(lambda d: d.execute_script("const v = document.querySelector('video.whep-preview'); return v && v.videoWidth > 0"))
            result["viewerPreviewWidth"] = driver.execute_script("return document.querySelector('video.whep-preview').videoWidth")
        except Exception as error:
            result["viewerPreviewWidth"] = 0
        driver.save_screenshot(shots + "/dashboard-viewer.png")
        driver.execute_script("return fetch('/api/logout', {method: 'POST'}).then(r => r.status)")
        driver.get(base + "/")
        result["adminRole"] = log_in(admin)
        result["adminSeesKeyframe"] = visible(".camera .keyframe")
    else:
        dashboard_live()
    # The dashboard's own pages ran under the policy without breaking it.
    result["policyViolations"] = policy_violations()
    # The operator, logged in, opens another site in the same browser.
    driver.get(attack_url)
    wait.until(lambda d: d.execute_script("return !!(window.results && window.results.done)"))
    result["attack"] = driver.execute_script("return window.results")
    result["attack"]["framed"] = framed_dashboard()
    driver.get(base + "/")
    dashboard_live()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").text != "")
    camera = driver.execute_script("return fetch('/api/status').then(r => r.json()).then(s => s.cameras[0])")
    result["recordStateAfterAttack"] = camera["outputs"][0]["state"]
    result["targetBitrateAfterAttack"] = camera["targetBitrateBitsPerSecond"]
    driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] button.output-stop").click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").text == "stopped")
    result["recordStateAfterAdminClick"] = "stopped"
    result["ok"] = True
except Exception as error:  # reported, and the Swift test fails on it
    result["ok"] = False
    result["error"] = repr(error)
    try:
        driver.save_screenshot(shots + "/cross-origin-failure.png")
    except Exception:
        pass
finally:
    driver.quit()
    attacker.shutdown()
print(json.dumps(result))
