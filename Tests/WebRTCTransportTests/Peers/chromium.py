"""Headless Chromium for the Python peers, with the flags WebRTC needs in a loopback-only network
namespace (../shared/peers/README.md): 127.0.0.1 host candidates instead of mDNS names, and
autoplay without a gesture."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(extra_flags=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
                 "--autoplay-policy=no-user-gesture-required", *extra_flags]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(15)
    return driver
