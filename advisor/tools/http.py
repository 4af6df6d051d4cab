"""One JSON-over-HTTP client for every data API: timeouts, retries with backoff (honouring
Retry-After) on 429/5xx and network errors, a TTL cache, and a mock mode that reads fixtures.

When every attempt fails, an expired cache entry is served if there is one (marked stale),
so the advisor can degrade with a disclaimer instead of inventing numbers (EC-001).
API keys travel in the `X-Api-Key` header (accepted by NREL's API gateway, which also serves
OpenEI), never in a URL, so they cannot leak through request logs or cache keys.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr

from config.clock import Clock, utc_now
from config.files import ProviderConfig

logger = logging.getLogger(__name__)

MAX_BACKOFF_SECONDS = 30.0
CACHE_ENTRIES = 256


class ApiError(Exception):
    """A data API could not give an answer (after retries, with no cached copy)."""

    def __init__(self, provider: str, reason: str) -> None:
        self.provider = provider
        self.reason = reason
        super().__init__(f"{provider}: {reason}")


class ApiResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    data: Any
    fetched_at: datetime
    is_mock: bool = False
    from_cache: bool = False
    stale: bool = False  # served from an expired cache entry because the API failed


class ApiClient:
    def __init__(
        self,
        *,
        name: str,
        config: ProviderConfig,
        mode: str,
        http: httpx.Client,
        fixtures_dir: Path,
        api_key: SecretStr | None = None,
        api_key_header: str = "X-Api-Key",
        clock: Clock = utc_now,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = name
        self.config = config
        self.mode = mode
        self._http = http
        self._fixtures_dir = fixtures_dir
        self._api_key = api_key
        self._api_key_header = api_key_header
        self._key_in_query = False  # set once an API refuses the header
        self._clock = clock
        self._sleep = sleep
        self._cache: OrderedDict[str, tuple[float, ApiResult]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def is_mock(self) -> bool:
        return self.mode == "mock"

    def get_json(
        self,
        path: str,
        params: dict[str, Any],
        *,
        fixture: str,
        validate: Callable[[Any], None] | None = None,
    ) -> ApiResult:
        """GET JSON. `validate` raises ApiError for an answer that is not usable (checked before
        caching, so an error body is never served again from the cache)."""
        if self.is_mock:
            result = self._from_fixture(fixture)
            if validate is not None:
                validate(result.data)
            return result
        key = path + "?" + "&".join(f"{k}={params[k]}" for k in sorted(params))
        cached = self._cached(key, fresh_only=True)
        if cached is not None:
            return cached
        try:
            result = self._fetch(path, params)
            if validate is not None:
                validate(result.data)
        except ApiError:
            stale = self._cached(key, fresh_only=False)
            if stale is not None:
                logger.warning(
                    "%s failed; serving cached data from %s", self.name, stale.fetched_at.isoformat()
                )
                return stale.model_copy(update={"stale": True, "from_cache": True})
            raise
        with self._lock:
            self._cache[key] = (time.monotonic() + self.config.cache_ttl_seconds, result)
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return result

    # --- internals ------------------------------------------------------------------------

    def _cached(self, key: str, *, fresh_only: bool) -> ApiResult | None:
        with self._lock:
            entry = self._cache.get(key)
        if entry is None:
            return None
        expires, result = entry
        if fresh_only and time.monotonic() >= expires:
            return None
        return result.model_copy(update={"from_cache": True})

    def _fetch(self, path: str, params: dict[str, Any]) -> ApiResult:
        url = self.config.base_url + path
        headers, params = self._with_key(params)
        attempts = self.config.retries + 1
        last_reason = "no attempt made"
        for attempt in range(1, attempts + 1):
            wait = min(MAX_BACKOFF_SECONDS, 0.5 * 2 ** (attempt - 1))
            try:
                response = self._http.get(
                    url, params=params, headers=headers, timeout=self.config.timeout_seconds
                )
            except httpx.TimeoutException:
                last_reason = f"timed out after {self.config.timeout_seconds:g} s"
            except httpx.TransportError as exc:
                last_reason = f"network error ({type(exc).__name__})"
            else:
                status = response.status_code
                if status == 200:
                    try:
                        data = response.json()
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        raise ApiError(self.name, "answered with malformed JSON") from None
                    return ApiResult(data=data, fetched_at=self._clock())
                if status == 429 or status >= 500:
                    last_reason = f"HTTP {status}"
                    wait = _retry_after(response, default=wait, now=self._clock())
                elif status in (401, 403) and self._api_key is not None and not self._key_in_query:
                    # Header auth refused: use the documented `api_key` query parameter from now on
                    # (request logs stay at WARNING and key values are redacted from every record).
                    logger.info(
                        "%s refused the key in a header (HTTP %d); sending it as api_key", self.name, status
                    )
                    self._key_in_query = True
                    headers, params = self._with_key(params)
                    last_reason = f"HTTP {status} with the key in a header"
                    continue
                else:
                    raise ApiError(self.name, f"HTTP {status}: {_short_body(response)}")
            if attempt < attempts:
                logger.info(
                    "%s %s (attempt %d/%d); retrying in %.1f s",
                    self.name,
                    last_reason,
                    attempt,
                    attempts,
                    wait,
                )
                self._sleep(wait)
        raise ApiError(self.name, f"{last_reason} after {attempts} attempt(s)")

    def _with_key(self, params: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
        """The key as `X-Api-Key` (never in a URL), or as `api_key` if this API refused the header."""
        params = {k: v for k, v in params.items() if k != "api_key"}
        if self._api_key is None:
            return {}, params
        if self._key_in_query:
            return {}, {**params, "api_key": self._api_key.get_secret_value()}
        return {self._api_key_header: self._api_key.get_secret_value()}, params

    def _from_fixture(self, fixture: str) -> ApiResult:
        path = self._fixtures_dir / f"{fixture}.json"
        try:
            data = json.loads(_fixture_text(path))
        except FileNotFoundError:
            raise ApiError(self.name, f"mock mode has no fixture {path.name}") from None
        except json.JSONDecodeError as exc:
            raise ApiError(self.name, f"fixture {path.name} is not valid JSON ({exc})") from None
        return ApiResult(data=data, fetched_at=self._clock(), is_mock=True)


@lru_cache(maxsize=32)
def _fixture_text(path: Path) -> str:
    """Fixtures are read once per process (mock mode serves them on every call)."""
    return path.read_text(encoding="utf-8")


def _retry_after(response: httpx.Response, *, default: float, now: datetime) -> float:
    """Seconds to wait per Retry-After (delta-seconds or an HTTP date), capped."""
    value = response.headers.get("Retry-After")
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - now).total_seconds()
        except (TypeError, ValueError):
            return default
    return max(0.0, min(MAX_BACKOFF_SECONDS, seconds))


def _short_body(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    return text[:120] + ("..." if len(text) > 120 else "")
