"""One request to an OpenAI-compatible endpoint (vLLM, llama.cpp server, Ollama, TGI, OpenAI).

Standard library only (`http.client`): a POST to `/completions` or `/chat/completions`, plain
JSON or server-sent events. A failed attempt raises `AttemptFailed`, which says whether a retry can
help; the caller owns retries and backoff. The API key is sent in the Authorization header and
appears nowhere else: error texts are redacted before they leave this module.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from passgate.core.errors import ConfigError
from passgate.core.record.redact import redact

# Statuses where the same request may succeed later; other 4xx are about this request or the setup.
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
# Statuses that mean the setup is wrong (key, URL, model name): no candidate can succeed.
FATAL_STATUS = {401, 403, 404}
MAX_ERROR_BODY = 500


class AttemptFailed(Exception):
    """One request attempt failed. `status` is the HTTP status (None for transport errors)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = True,
                 retry_after_s: float | None = None, elapsed_ms: float = 0.0):
        super().__init__(redact(message))
        self.status, self.retryable, self.retry_after_s, self.elapsed_ms = status, retryable, retry_after_s, elapsed_ms

    @property
    def fatal(self) -> bool:
        return self.status in FATAL_STATUS


@dataclass
class Reply:
    """What one successful request returned, as the server reported it."""

    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    model: str | None
    system_fingerprint: str | None
    logprobs: list[float] | None
    response_id: str | None
    latency_ms: float
    first_token_ms: float | None = None


def api_url(endpoint: str, api: str) -> str:
    """`endpoint` is the base URL (with `/v1`); a URL already ending in the route is used as given."""
    route = "/chat/completions" if api == "chat" else "/completions"
    base = endpoint.rstrip("/")
    return base if base.endswith(route) else base + route


def check_endpoint(endpoint: str) -> None:
    """Refuse URLs that cannot work or would store a secret in the manifest."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"must be an http(s) URL such as http://127.0.0.1:8000/v1, got {endpoint!r}",
                          field="generation.endpoint")
    if parts.username or parts.password or parts.query:
        raise ConfigError("must not carry credentials or a query string; name the environment variable "
                          "holding the key in generation.api_key_env", field="generation.endpoint")


def request_body(gen, prompt_text: str, messages: list[dict] | None, seed: int | None, *,
                 extra: dict | None = None, stop: tuple[str, ...] = ()) -> dict:
    """The JSON body for one candidate: n=1, every sampling parameter of the contract stated.

    `extra` adds fields (a local edit's `suffix`); `stop` adds stop sequences (a template's end tokens)."""
    body: dict = {"model": gen.model, "temperature": gen.temperature, "top_p": gen.top_p,
                  "max_tokens": gen.max_tokens, "n": 1, "stream": gen.streaming}
    if gen.api == "chat":
        body["messages"] = messages
        if gen.logprobs:
            body["logprobs"] = True
    else:
        body["prompt"] = prompt_text
        if gen.logprobs:
            body["logprobs"] = 1       # the sampled token's logprob (+1 alternative; some servers reject 0)
    body.update(extra or {})
    stops = list(dict.fromkeys((*gen.stop, *stop)))
    if stops:
        body["stop"] = stops
    if seed is not None:
        body["seed"] = seed
    if gen.streaming:
        body["stream_options"] = {"include_usage": True}
    return body


def post(url: str, body: dict, *, api_key: str | None, timeout_s: float, chat: bool,
         open_connections: set | None = None) -> Reply:
    """Send one request and parse the answer; raises AttemptFailed on any failure.

    The connection sits in `open_connections` while in use, so a canceller can `abort()` it.
    """
    parts = urlsplit(url)
    start = time.monotonic()
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if body.get("stream")
               else "application/json", "User-Agent": "passgate"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout_s,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout_s)
    path = parts.path or "/"
    if open_connections is not None:
        open_connections.add(conn)

    def failed(msg: str, **kw) -> AttemptFailed:
        return AttemptFailed(msg, elapsed_ms=(time.monotonic() - start) * 1000, **kw)

    try:
        conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            text = resp.read(MAX_ERROR_BODY * 4).decode("utf-8", errors="replace")[:MAX_ERROR_BODY]
            raise failed(f"HTTP {resp.status}: {text.strip() or resp.reason}", status=resp.status,
                         retryable=resp.status in RETRYABLE_STATUS or resp.status >= 500,
                         retry_after_s=_retry_after(resp.getheader("Retry-After")))
        if body.get("stream"):
            reply = _read_stream(resp, chat, start, timeout_s, failed)
        else:
            reply = _parse_whole(_json(resp.read(), failed), chat, failed)
        reply.latency_ms = (time.monotonic() - start) * 1000
        return reply
    except AttemptFailed:
        raise
    except (TimeoutError, socket.timeout):
        raise failed(f"no answer within {timeout_s:g}s (request_timeout_s)") from None
    except (OSError, http.client.HTTPException) as exc:
        raise failed(f"{type(exc).__name__}: {exc}") from None
    finally:
        if open_connections is not None:
            open_connections.discard(conn)
        conn.close()


def abort(conn: http.client.HTTPConnection) -> None:
    """Wake a thread blocked reading this connection (its read fails at once)."""
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass    # already closed: nothing is blocked on it


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None     # an HTTP date: use our own backoff


def _json(raw: bytes, failed) -> dict:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise failed(f"the answer is not JSON: {raw[:200]!r}") from None
    if not isinstance(data, dict):
        raise failed("the answer is not a JSON object")
    if "error" in data and not data.get("choices"):
        raise failed(f"the server returned an error: {json.dumps(data['error'])[:MAX_ERROR_BODY]}")
    return data


def _parse_whole(data: dict, chat: bool, failed) -> Reply:
    choices = data.get("choices") or []
    if not choices:
        raise failed("the answer has no choices")
    choice = choices[0]
    text = ((choice.get("message") or {}).get("content") if chat else choice.get("text")) or ""
    usage = data.get("usage") or {}
    return Reply(text=text, finish_reason=choice.get("finish_reason"), prompt_tokens=usage.get("prompt_tokens"),
                 completion_tokens=usage.get("completion_tokens"), model=data.get("model"),
                 system_fingerprint=data.get("system_fingerprint"),
                 logprobs=_logprobs(choice.get("logprobs"), chat), response_id=data.get("id"), latency_ms=0.0)


def _logprobs(block, chat: bool) -> list[float] | None:
    """Sampled-token logprobs: chat `logprobs.content[].logprob`, completion `logprobs.token_logprobs`."""
    if not isinstance(block, dict):
        return None
    if chat:
        values = [item.get("logprob") for item in block.get("content") or []]
    else:
        values = list(block.get("token_logprobs") or [])
    return [float(v) for v in values if isinstance(v, (int, float))]


def _read_stream(resp, chat: bool, start: float, timeout_s: float, failed) -> Reply:
    """Server-sent events until `data: [DONE]`; a stream that ends early is a failed attempt."""
    parts: list[str] = []
    logprobs: list[float] | None = None
    reply = Reply("", None, None, None, None, None, None, None, 0.0)
    done = False
    for raw in resp:
        if time.monotonic() - start > timeout_s:
            raise failed(f"stream still running after {timeout_s:g}s (request_timeout_s)")
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            done = True
            break
        event = _json(payload.encode(), failed)
        reply.model = event.get("model") or reply.model
        reply.system_fingerprint = event.get("system_fingerprint") or reply.system_fingerprint
        reply.response_id = event.get("id") or reply.response_id
        usage = event.get("usage") or {}
        if usage:
            reply.prompt_tokens = usage.get("prompt_tokens", reply.prompt_tokens)
            reply.completion_tokens = usage.get("completion_tokens", reply.completion_tokens)
        for choice in event.get("choices") or []:
            piece = ((choice.get("delta") or {}).get("content") if chat else choice.get("text")) or ""
            if piece and reply.first_token_ms is None:
                reply.first_token_ms = (time.monotonic() - start) * 1000
            parts.append(piece)
            reply.finish_reason = choice.get("finish_reason") or reply.finish_reason
            chunk_lp = _logprobs(choice.get("logprobs"), chat)
            if chunk_lp is not None:
                logprobs = (logprobs or []) + chunk_lp
    if not done:
        raise failed(f"the stream ended before [DONE] after {len(''.join(parts))} characters")
    reply.text, reply.logprobs = "".join(parts), logprobs
    return reply
