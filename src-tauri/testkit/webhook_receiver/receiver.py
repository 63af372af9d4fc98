"""A webhook receiver for the tests: verifies each delivery with the
Standard Webhooks reference library and reports what it found.

Prints the port it listens on (127.0.0.1, chosen by the OS), then reads the
hook's signing secret as one line on standard input (it is known only once
the hook exists, and never goes on a command line). For every POST it
prints one JSON line:

- `error`: why the delivery does not verify now (null: it verifies);
- `replayError`: why the same delivery, presented six minutes later, does
  not verify (the library's clock moved on; its tolerance is five minutes);
- `tamperedError`: the same for the body with one byte added;
- `headers`, `body`: what came.

It answers every POST with status $RECEIVER_STATUS (default 200).
"""

import json
import os
import sys
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import standardwebhooks.webhooks as library
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

STATUS = int(os.environ.get("RECEIVER_STATUS", "200"))


class SixMinutesLater(datetime):
    """The library's clock, six minutes on: a replay of a captured delivery."""

    @classmethod
    def now(cls, tz=None):
        return datetime.now(tz) + timedelta(minutes=6)


def why_not(secret, body, headers, clock=datetime):
    # The server handles one request at a time, so swapping the library's
    # clock for one call cannot race.
    library.datetime = clock
    try:
        Webhook(secret).verify(body, headers)
        return None
    except WebhookVerificationError as error:
        return str(error)
    finally:
        library.datetime = datetime


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {k.lower(): v for k, v in self.headers.items()}
        report = {
            "error": why_not(SECRET, body, headers),
            "replayError": why_not(SECRET, body, headers, SixMinutesLater),
            "tamperedError": why_not(SECRET, body + b" ", headers),
            "headers": headers,
            "body": json.loads(body),
        }
        self.send_response(STATUS)
        self.send_header("Content-Length", "0")
        self.end_headers()
        print(json.dumps(report), flush=True)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
SECRET = sys.stdin.readline().strip()
server.serve_forever()
