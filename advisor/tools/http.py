"""One JSON-over-HTTP client for every data API: timeouts, retries with backoff (honouring
Retry-After) on 429/5xx and network errors, a TTL cache, and a mock mode that reads fixtures.

When every attempt fails, an expired cache entry is served if there is one (marked stale),
so the advisor can degrade with a disclaimer instead of inventing numbers (EC-001).
API keys travel in the `X-Api-Key` header (accepted by NREL's API gateway, which also serves
OpenEI), never in a URL, so they cannot leak through request logs or cache keys.

Slow or failing APIs cannot stall a turn (issue 12), when the client has `limits`:

* A turn's data calls share one time budget (`TurnBudget`): each request's timeout is the
  smaller of its own and the time left, the whole answer (headers and a body that trickles in)
  must arrive by then - the caller stops waiting at that deadline and the socket is shut down -, and
  with no time left a call fails at once ("no time left ...") so the tool falls back and says so.
  The budget is the turn's: calls inside `data_budget(...)` share it, and calls made while a
  turn's trace is recording share one per trace (each turn has exactly one).
* A circuit breaker per API: after `breaker_failures` failures in a row (timeouts, network
  errors, HTTP 429/5xx, or running out of the turn's time while retrying one) the API is not
  asked again for `breaker_open_seconds` (by the client's clock); then one request tries it
  again (half-open) and a failure opens it again at once.
* A Retry-After longer than `max_retry_after_seconds` or than the time left is not waited for:
  the call fails at once and the breaker stays open until then.

Error reasons never carry keys or tokens: `ApiError` redacts them (`config/redact.py`), so a
key an API echoes back cannot reach a reply, a session or a trace.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import json
import logging
import socket
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError

from config.clock import Clock, utc_now
from config.files import DataLimitsConfig, ProviderConfig
from config.redact import clip, redact, register_secret
from traces.recorder import current_trace

logger = logging.getLogger(__name__)

MAX_BACKOFF_SECONDS = 30.0
CACHE_ENTRIES = 256
MIN_ATTEMPT_SECONDS = 0.1  # less time left than this: no request is started
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_BREAKER_SECONDS = 24 * 3600.0  # a Retry-After beyond a day is read as a day
READER_THREADS = 32  # requests in flight at once across all turns (more wait their turn)
SERVICE_NAMES = {
    "open_meteo": "The forecast service (Open-Meteo)",
    "open_meteo_geocoding": "The place lookup (Open-Meteo)",
    "pvwatts": "NREL's PVWatts",
    "openei": "OpenEI's rate database",
}
PUBLIC_KEYS = frozenset({"DEMO_KEY"})  # NREL's documented demo key is not a secret


class ApiError(Exception):
    """A data API could not give an answer (after retries, with no cached copy). The reason is
    redacted: it may be shown to the user and is saved in sessions and traces."""

    def __init__(self, provider: str, reason: str) -> None:
        self.provider = provider
        self.reason = redact(reason)
        super().__init__(f"{provider}: {self.reason}")

    @property
    def said(self) -> str:
        """The reason with the service named, for a reply: "Open-Meteo could not be reached; ..."."""
        return f"{SERVICE_NAMES.get(self.provider, self.provider)}: {self.reason}."


class TurnBudget:
    """The time left for the data calls of one turn (shared by every API client)."""

    def __init__(self, seconds: float, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._monotonic = monotonic
        self.deadline = monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.deadline - self._monotonic())


_BUDGET: ContextVar[TurnBudget | None] = ContextVar("energy_advisor_data_budget", default=None)
_TURN_BUDGETS: weakref.WeakKeyDictionary[Any, TurnBudget] = weakref.WeakKeyDictionary()
_TURN_BUDGETS_LOCK = threading.Lock()


@contextmanager
def data_budget(seconds: float) -> Iterator[TurnBudget]:
    """Every data call inside the block (and in threads started from its context) shares
    `seconds`: one turn's worth of waiting."""
    budget = TurnBudget(seconds)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def current_budget(seconds: float | None) -> TurnBudget | None:
    """The budget the current call counts against: the enclosing `data_budget`, else the running
    turn's (one per trace recorder, started by its first data call), else a budget of `seconds`
    for this call alone. None when there is neither a scope nor a configured budget."""
    scoped = _BUDGET.get()
    if scoped is not None or seconds is None:
        return scoped
    turn = current_trace()
    if turn is None:
        return TurnBudget(seconds)
    with _TURN_BUDGETS_LOCK:
        budget = _TURN_BUDGETS.get(turn)
        if budget is None:
            budget = _TURN_BUDGETS[turn] = TurnBudget(seconds)
    return budget


class _TooSlow(Exception):
    """The body did not arrive by the attempt's deadline (a server trickling bytes)."""


class _TooLarge(Exception):
    pass


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
        limits: DataLimitsConfig | None = None,
    ) -> None:
        """`limits` None: no turn budget, breaker or Retry-After ceiling (each call on its own)."""
        self.name = name
        self.config = config
        self.mode = mode
        self._http = http
        self._fixtures_dir = fixtures_dir
        self._api_key = api_key
        if api_key is not None and api_key.get_secret_value() not in PUBLIC_KEYS:
            register_secret(api_key)
        self._api_key_header = api_key_header
        self._key_in_query = False  # set once an API refuses the header
        self._clock = clock
        self._sleep = sleep
        self._limits = limits
        self._cache: OrderedDict[str, tuple[float, ApiResult]] = OrderedDict()
        self._lock = threading.Lock()
        # circuit breaker (by the client's clock, so tests can move time)
        self._failures = 0
        self._open_until: datetime | None = None
        self._open_reason = ""

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

    # --- circuit breaker --------------------------------------------------------------------

    def _check_breaker(self) -> None:
        """Fail at once while the breaker is open; past its time, let a request try (half-open)."""
        if self._limits is None:
            return
        with self._lock:
            until, why = self._open_until, self._open_reason
        if until is None:
            return
        left = (until - self._clock()).total_seconds()
        if left > 0:
            raise ApiError(self.name, f"{why}; I'll try it again in {_duration(left)}")

    def _failed_attempt(self, reason: str, *, at_once: bool = False) -> None:
        """One more failure in a row; enough of them (or one while half-open, or one that is
        `at_once`: no answer in all the time a request may have) open the breaker."""
        if self._limits is None:
            return
        with self._lock:
            self._failures += 1
            if self._failures < self._limits.breaker_failures and not at_once:
                return
            self._open_until = self._clock() + timedelta(seconds=self._limits.breaker_open_seconds)
            in_a_row = f", {self._failures} failures in a row" if self._failures > 1 else ""
            self._open_reason = reason  # said to users; the count is for the log
        logger.warning(
            "%s: %s%s; skipping it for %s",
            self.name,
            redact(reason),
            in_a_row,
            _duration(self._limits.breaker_open_seconds),
        )

    def _open_for(self, seconds: float, reason: str) -> None:
        """The API asked us to come back later (Retry-After): skip it until then."""
        with self._lock:
            until = self._clock() + timedelta(seconds=min(seconds, MAX_BREAKER_SECONDS))
            if self._open_until is None or until > self._open_until:
                self._open_until = until
            self._open_reason = reason
        logger.warning("%s %s; skipping it for %s", self.name, redact(reason), _duration(seconds))

    def _succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._open_until = None
            self._open_reason = ""

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

    def _budget(self) -> TurnBudget | None:
        return current_budget(self._limits.turn_budget_seconds if self._limits is not None else None)

    def _out_of_time(self, budget: TurnBudget, last_reason: str | None) -> ApiError:
        """No time left in the turn. After a failed attempt this API used the time up: that counts
        as one more failure (a slow API opens its breaker instead of stalling the next turn)."""
        spent = f"this turn's {budget.seconds:g} s for data were used up"
        if last_reason is None:
            return ApiError(self.name, f"not asked: {spent}")
        self._failed_attempt(last_reason)
        return ApiError(self.name, f"{last_reason}, and {spent}")

    def _fetch(self, path: str, params: dict[str, Any]) -> ApiResult:
        url = self.config.base_url + path
        headers, params = self._with_key(params)
        attempts = self.config.retries + 1
        budget = self._budget()
        last_reason = "no attempt made"
        failed = False  # an attempt of this call failed (timeout, network, 429/5xx)
        for attempt in range(1, attempts + 1):
            self._check_breaker()
            wait = min(MAX_BACKOFF_SECONDS, 0.5 * 2 ** (attempt - 1))
            timeout = self.config.timeout_seconds
            full_wait = False  # the request may wait all it is ever allowed in a turn
            if budget is not None and self._limits is not None:
                left = budget.left()
                if left < MIN_ATTEMPT_SECONDS:
                    raise self._out_of_time(budget, last_reason if failed else None)
                allowed = min(timeout, self._limits.slow_request_seconds)
                timeout = min(allowed, left)
                full_wait = timeout >= allowed
            try:
                status, body, response = self._get(url, params, headers, timeout)
            except (httpx.TimeoutException, _TooSlow):
                last_reason = f"timed out after {_seconds(timeout)} s"
                failed = True
                # No answer in all the time a request may have in a turn: skip the API at once
                # (it would stall the next turn too); a wait the budget cut short counts once.
                self._failed_attempt(last_reason, at_once=full_wait)
            except httpx.HTTPError as exc:  # transport errors, and a body that cannot be decoded
                # said to users, so in words; the exception's name goes to the log
                last_reason = (
                    "could not be reached" if isinstance(exc, httpx.ConnectError) else "the connection failed"
                )
                logger.info("%s: %s (%s)", self.name, last_reason, type(exc).__name__)
                failed = True
                self._failed_attempt(last_reason)
            except _TooLarge:
                raise ApiError(self.name, f"answered with more than {MAX_BODY_BYTES // 2**20} MB") from None
            else:
                if status == 200:
                    try:
                        data = json.loads(body)
                    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                        raise ApiError(self.name, "answered with malformed JSON") from None
                    self._succeeded()
                    return ApiResult(data=data, fetched_at=self._clock())
                if status == 429 or status >= 500:
                    last_reason = f"HTTP {status}"
                    failed = True
                    self._failed_attempt(last_reason)
                    asked = _retry_after(response, now=self._clock())
                    if asked is not None and self._limits is not None:
                        ceiling = self._limits.max_retry_after_seconds
                        if budget is not None:
                            ceiling = min(ceiling, budget.left())
                        if asked > ceiling:
                            reason = f"asked to wait {_duration(asked)} (HTTP {status}, Retry-After)"
                            self._open_for(asked, reason)
                            raise ApiError(self.name, f"{reason}; I'll try it again then")
                    if asked is not None:
                        wait = max(0.0, min(MAX_BACKOFF_SECONDS, asked))
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
                    hint = " (the API key was refused)" if status in (401, 403) else ""
                    raise ApiError(self.name, f"HTTP {status}{hint}: {_short_body(body)}")
            if attempt < attempts:
                self._check_breaker()  # these failures opened it: no more waiting
                if budget is not None and wait >= budget.left():
                    raise self._out_of_time(budget, last_reason)
                logger.info(
                    "%s %s (attempt %d/%d); retrying in %.1f s",
                    self.name,
                    last_reason,
                    attempt,
                    attempts,
                    wait,
                )
                self._sleep(wait)
        self._check_breaker()  # opened by these failures: say so (and for how long)
        raise ApiError(self.name, f"{last_reason} after {attempts} attempt(s)")

    def _get(
        self, url: str, params: dict[str, Any], headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes, httpx.Response]:
        """One request whose whole answer must arrive within `timeout`. httpx's timeouts are per
        read, so a server trickling bytes could hold a read past any deadline: the request runs on
        a reader thread and the caller waits for it at most `timeout`; at the deadline the socket
        is shut down, which wakes the blocked read (closing the response does not), and the
        request fails as too slow. The turn never waits past the deadline."""
        deadline = time.monotonic() + timeout
        opened: list[httpx.Response] = []
        context = contextvars.copy_context()
        future = _readers().submit(context.run, self._read, url, params, headers, timeout, deadline, opened)
        try:
            return future.result(timeout=max(0.0, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:
            future.cancel()  # still queued behind busy readers: never sent
            if opened:
                _hang_up(opened[0])
            raise _TooSlow from None

    def _read(
        self,
        url: str,
        params: dict[str, Any],
        headers: dict[str, str],
        timeout: float,
        deadline: float,
        opened: list[httpx.Response],
    ) -> tuple[int, bytes, httpx.Response]:
        if time.monotonic() >= deadline:  # waited for a reader past the caller's deadline: don't send it
            raise _TooSlow
        with self._http.stream("GET", url, params=params, headers=headers, timeout=timeout) as response:
            opened.append(response)
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise _TooLarge
                if time.monotonic() > deadline:
                    raise _TooSlow
            return response.status_code, b"".join(chunks), response

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


def shape_check(model: type[BaseModel], provider: str, what: str = "response") -> Callable[[Any], None]:
    """A `validate` for `get_json`: the answer must fit `model`, else an ApiError naming the first
    problem (where, and what was wrong; never the value itself), so the tool falls back."""

    def check(data: Any) -> None:
        try:
            model.model_validate(data)
        except ValidationError as exc:
            raise ApiError(
                provider, f"{what} did not match the expected shape: {_first_error(exc)}"
            ) from None

    return check


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "invalid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "(top level)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return clip(f"{where}: {first.get('msg', 'invalid')}{more}", 160)


@lru_cache(maxsize=1)
def _readers() -> concurrent.futures.ThreadPoolExecutor:
    """Threads that run data requests, so a caller can stop waiting at its deadline. A reader
    left behind ends at its next read: its socket is shut down, or httpx's own read timeout."""
    return concurrent.futures.ThreadPoolExecutor(max_workers=READER_THREADS, thread_name_prefix="api-reader")


def _hang_up(response: httpx.Response) -> None:
    """Shut down the response's socket: a read blocked on it returns at once (and fails)."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is None:
        return
    with contextlib.suppress(OSError):  # already closed: nothing left to wake
        sock.shutdown(socket.SHUT_RDWR)


@lru_cache(maxsize=32)
def _fixture_text(path: Path) -> str:
    """Fixtures are read once per process (mock mode serves them on every call)."""
    return path.read_text(encoding="utf-8")


def _retry_after(response: httpx.Response, *, now: datetime) -> float | None:
    """Seconds the API asks us to wait (Retry-After as delta-seconds or an HTTP date), or None."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - now).total_seconds()
        except (TypeError, ValueError, OverflowError):
            return None
    if seconds != seconds:  # NaN
        return None
    return min(max(0.0, seconds), 86_400.0)  # "inf" or 1e999 means "a long time", not a crash


def _seconds(value: float) -> str:
    return f"{round(value, 1):g}"


def _duration(seconds: float) -> str:
    """'40 s', '5 min', '24 h'."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"


def _short_body(body: bytes) -> str:
    """The start of an error body, keys removed before it is cut (so half a key cannot stay)."""
    text = body[:4000].decode("utf-8", errors="replace")
    return clip(redact(text), 120)
