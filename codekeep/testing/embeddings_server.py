"""A real OpenAI-compatible ``/embeddings`` endpoint on 127.0.0.1 with a known geometry.

Each text's vector counts the words it has from each *concept* (``{"car", "automobile"}``
…) on that concept's axis, and spreads every other word thinly over a few spare axes,
so a test knows which texts are close without a model: "car" and "automobile" are, "car"
and "invoice" are not. ``fail = True`` answers 500, as an endpoint that is down;
``delay`` seconds are slept before answering, as a slow one; :meth:`hold` keeps the
requests that embed a given word unanswered until the test lets them go, so it can look
while one certainly waits, however loaded the machine. Requests are recorded (path,
auth header, body) as they arrive; ``answered`` counts those answered, so a test can tell
what happened while the endpoint still sat on a request.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SPARE_AXES = 6


class ConceptEmbeddingServer:
    def __init__(self, concepts: Iterable[Iterable[str]]) -> None:
        self.concepts = [frozenset(concept) for concept in concepts]
        self.requests: list[dict[str, Any]] = []
        self.fail = False
        self.delay = 0.0
        self._held: dict[str, threading.Event] = {}
        self.answered = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        daemon=True, name="concept-embeddings")

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def vector(self, text: str) -> list[float]:
        vector = [0.0] * (len(self.concepts) + SPARE_AXES)
        for word in re.findall(r"[a-z]+", text.lower()):
            for index, concept in enumerate(self.concepts):
                if word in concept:
                    vector[index] += 1.0
                    break
            else:
                vector[len(self.concepts) + sum(map(ord, word)) % SPARE_AXES] += 0.1
        return vector

    def hold(self, word: str) -> threading.Event:
        """Requests embedding a text with ``word`` wait (up to a minute) for the returned
        event to be set."""
        release = self._held[word] = threading.Event()
        return release

    def embeddings(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector(text) for text in texts]

    def __enter__(self) -> ConceptEmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler_for(server: ConceptEmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append(
                {"path": self.path, "auth": self.headers.get("Authorization"), **body})
            time.sleep(server.delay)
            for word, release in list(server._held.items()):
                if any(word in text for text in body["input"]):
                    release.wait(60)
            server.answered += 1
            if server.fail:
                self.send_response(500)
                self.end_headers()
                return
            payload = {"object": "list", "model": body["model"], "data": [
                {"object": "embedding", "index": i, "embedding": vector}
                for i, vector in enumerate(server.embeddings(body["input"]))]}
            raw = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

    return Handler
