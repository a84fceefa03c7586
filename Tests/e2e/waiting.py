"""One way for the e2e suite to wait: poll a probe until its value is good, or time runs out.

Every test that waits for the gateway, a player or a peer goes through `eventually`, so a wait always has a timeout,
always returns what it saw last (for the assertion that follows to show), and never hides a real error.
"""
import time


def eventually(probe, timeout: float, until=bool, period: float = 0.1, ignoring=()):
    """Calls `probe()` every `period` seconds until `until(value)` accepts its value or `timeout` seconds pass; returns
    that value, or the last one seen. The probe runs at least once. A probe raising one of `ignoring` (such as
    `requests.RequestException` while a server starts) reads as None; anything else it raises propagates (a probe may
    `pytest.fail` when the process it waits for died)."""
    end = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except ignoring:
            value = None
        if until(value) or time.monotonic() >= end:
            return value
        time.sleep(period)


def eventually_in_page(driver, script: str, until, timeout: float, period: float = 0.25):
    """`eventually` for a page: the value of `script` run by the Selenium `driver`, polled until `until` accepts it."""
    return eventually(lambda: driver.execute_script(script), timeout, until=until, period=period)
