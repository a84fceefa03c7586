"""Headless Chromium for the e2e tests: Debian's chromium driven by its chromedriver through Selenium, and a
static page server of another origin (a third-party page)."""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from typing import Optional

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def unavailable() -> Optional[str]:
    """Why no browser test can run here, or None."""
    if os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER):
        return None
    return "chromium or chromedriver is not installed"


def headless_chromium(workdir: Path, window: str = "1000,700", browser_log: bool = False):
    """A Selenium driver on headless Chromium that plays media without a gesture; chromedriver logs into `workdir`."""
    os.environ["SE_AVOID_STATS"] = "true"  # Selenium must not try the network
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--autoplay-policy=no-user-gesture-required", "--no-sandbox",
                 f"--window-size={window}"):
        opts.add_argument(flag)
    if browser_log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER, log_output=str(workdir / "chromedriver.log")), options=opts)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class PageServer:
    """Serves `directory` on a free loopback port: a page of another origin than the gateway's."""

    def __init__(self, directory: Path):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(_Quiet, directory=str(directory)))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
