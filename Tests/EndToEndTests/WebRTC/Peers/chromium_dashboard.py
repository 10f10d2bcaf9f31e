"""Headless Chromium opens the `livepush serve` dashboard and waits until the camera card's live
preview (WHEP, through web/whep.js) is playing; prints the video's size, play time and the slot's
label as one JSON line, and saves a screenshot. With --report it then ticks the preview's consent box,
waits for two of its latency reports and adds the preview's latency line and the camera outputs'
viewerLatency from /api/status. Usage: chromium_dashboard.py URL SECONDS SCREENSHOT [--report]"""
import json
import sys
import time
import urllib.request
from urllib.parse import urljoin

import chromium

url, seconds, screenshot = sys.argv[1], float(sys.argv[2]), sys.argv[3]
driver = chromium.start(["--window-size=1280,900"])
try:
    driver.get(url)
    started = time.time()
    preview = {}
    while time.time() - started < seconds:
        preview = driver.execute_script(
            "const v = document.querySelector('video.whep-preview');"
            "const l = document.querySelector('.preview-label');"
            "return v ? {width: v.videoWidth, height: v.videoHeight, playedSeconds: v.currentTime,"
            " label: l ? l.textContent : null} : {}") or {}
        if preview.get("width", 0) > 0 and preview.get("playedSeconds", 0) > 2:
            break
        time.sleep(0.25)
    if "--report" in sys.argv[4:]:
        driver.find_element("css selector", "input.latency-consent").click()
        time.sleep(11)
        preview["latency"] = driver.execute_script("return document.querySelector('.preview-latency').textContent")
        with urllib.request.urlopen(urljoin(url, "api/status"), timeout=5) as response:
            status = json.loads(response.read().decode())
        preview["viewerLatency"] = {output["id"]: output.get("viewerLatency") for camera in status["cameras"] for output in camera["outputs"]}
    driver.save_screenshot(screenshot)
    print(json.dumps(preview), flush=True)
finally:
    driver.quit()
