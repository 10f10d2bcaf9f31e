"""Headless Chromium opens livepush's player page, watches over WHEP, and prints window.whepStats
as one JSON line once frames with readable frame codes have decoded for a while (or on timeout).
Usage: chromium_whep.py PLAYER_URL SECONDS"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url, seconds = sys.argv[1], float(sys.argv[2])
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
             "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.set_page_load_timeout(15)
    driver.get(url)
    started = time.time()
    first_frame = None
    stats = {}
    while time.time() - started < seconds:
        stats = driver.execute_script("return window.whepStats || {}") or {}
        if first_frame is None and stats.get("framesDecoded", 0) > 0:
            first_frame = time.time() - started
        if stats.get("latencySamples", 0) >= 150 and stats.get("fps", 0) > 0:
            break
        time.sleep(0.25)
    stats["secondsToFirstFrame"] = first_frame
    stats["dom"] = {key: driver.find_element("id", key).text for key in ["resolution", "fps", "latency", "rtt", "packetsLost"]}
    # Leave through the page's Stop button: the player sends the WHEP DELETE.
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
    print(json.dumps(stats), flush=True)
finally:
    driver.quit()
