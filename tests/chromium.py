"""Headless Chromium for the browser tests: Debian's chromium and chromium-driver (``make browser``).

One way to start it for every test that looks at a page (the hand-out's JupyterLab, the practice
service's reply, the report and feedback pages): the same flags, the same error when it is missing
(``make test`` installs it, so a missing browser fails rather than skips), and the browser quit
whatever the test does.
"""

from __future__ import annotations

import contextlib
import shutil

import pytest

FLAGS = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
         "--disable-extensions")
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"  # no name resolves but this machine's loopback


def browser_tools() -> tuple:
    """(chromium, chromedriver) paths; the test fails, saying what to install, when either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.fail("headless Chromium is missing: run `make browser` (Debian's chromium and "
                    "chromium-driver; `make test` does it)")
    return chromium, driver


@contextlib.contextmanager
def headless_chromium(width: int = 1400, height: int = 1000, *, offline: bool = False, page_timeout: float = 60):
    """A Selenium driver of headless Chromium with a window of ``width`` x ``height`` pixels."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = browser_tools()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (*FLAGS, f"--window-size={width},{height}", *((OFFLINE,) if offline else ())):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(page_timeout)
    try:
        yield driver
    finally:
        driver.quit()
