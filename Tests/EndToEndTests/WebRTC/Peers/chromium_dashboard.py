"""Headless Chromium opens the `livepush serve` dashboard and waits until the camera card's live
preview (WHEP, through web/whep.js) is playing; prints the video's size, play time and the slot's
label as one JSON line, and saves a screenshot. Usage: chromium_dashboard.py URL SECONDS SCREENSHOT"""
import json
import sys
import time

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
    driver.save_screenshot(screenshot)
    print(json.dumps(preview), flush=True)
finally:
    driver.quit()
