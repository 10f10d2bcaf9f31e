"""Headless Chromium opens the `livepush serve` dashboard and waits until the camera card's live
preview (WHEP, through web/whep.js) is playing; prints the video's size, play time and the slot's
label as one JSON line, and saves a screenshot. Usage: chromium_dashboard.py URL SECONDS SCREENSHOT"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url, seconds, screenshot = sys.argv[1], float(sys.argv[2]), sys.argv[3]
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
             "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.set_page_load_timeout(15)
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
