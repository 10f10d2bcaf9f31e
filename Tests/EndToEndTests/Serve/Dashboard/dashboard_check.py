"""Drives the livepush dashboard in headless Chromium (Selenium + /usr/bin/chromedriver).

usage: dashboard_check.py URL SCREENSHOT_DIR
Prints one JSON object: what the page showed, and whether pressing an output's Stop button
reached the API (the server's own /api/status says 'stopped' afterwards, the badge's title says why),
and whether its Start button starts it again. Every wait is bounded.
"""
import json
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium

url, shots = sys.argv[1], sys.argv[2]
driver = chromium("--window-size=1280,900")
result = {}
try:
    driver.get(url)
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.execute_script("return !!(window.livepushStatus && document.querySelector('.camera [data-field=fps]').textContent)"))
    wait.until(lambda d: d.execute_script("return window.livepushStatus.cameras[0].framesEncoded > 5"))
    result["cameras"] = driver.execute_script("return document.querySelectorAll('section.camera').length")
    result["fpsText"] = driver.find_element(By.CSS_SELECTOR, ".camera [data-field=fps]").text
    result["graph"] = driver.execute_script("return !!document.querySelector('.camera canvas.graph')")
    result["previewSlot"] = driver.execute_script("return document.querySelector('video.whep-preview').dataset.whepUrl")
    result["connection"] = driver.find_element(By.ID, "connection").text
    result["renditionRows"] = driver.execute_script(
        "return [...document.querySelectorAll('.renditions tbody tr')].map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)")
    result["recordRowText"] = driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] td").text
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] td").get_attribute("title"))
    result["recordRowTitle"] = driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] td").get_attribute("title")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").text == "running")
    driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] button.output-stop").click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").text == "stopped")
    result["outputStateAfterClick"] = driver.execute_script(
        "return fetch('/api/status').then(r => r.json()).then(s => s.cameras[0].outputs[0].state)")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").get_attribute("title"))
    result["stoppedBadgeTitle"] = driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").get_attribute("title")
    driver.find_element(By.CSS_SELECTOR, "tr[data-output=record] button.output-start").click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-output=record] .output-state").text == "running")
    result["outputStateAfterStart"] = driver.execute_script(
        "return fetch('/api/status').then(r => r.json()).then(s => s.cameras[0].outputs[0].state)")
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(shots + "/dashboard-desktop.png")
    driver.set_window_size(390, 844)
    driver.execute_script("return new Promise(r => setTimeout(r, 1500))")
    result["phoneOverflow"] = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    driver.save_screenshot(shots + "/dashboard-phone.png")
    result["ok"] = True
except Exception as error:  # reported, and the Swift test fails on it
    result["ok"] = False
    result["error"] = repr(error)
    try:
        driver.save_screenshot(shots + "/dashboard-failure.png")
    except Exception:
        pass
finally:
    driver.quit()
print(json.dumps(result))
