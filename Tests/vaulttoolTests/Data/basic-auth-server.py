# vaulttool tests: a dumb-HTTP git server on 127.0.0.1 behind HTTP basic auth.
#
# Usage: python3 basic-auth-server.py ROOT USER PASSWORD_FILE
# Serves ROOT; the password is read from PASSWORD_FILE on every request (so a test can
# change it); prints the port it listens on, then serves until its standard input ends
# (the test closes it, or dies) or it gets SIGTERM.
import base64
import functools
import http.server
import os
import signal
import sys
import threading

root, user, password_file = sys.argv[1:4]


class Handler(http.server.SimpleHTTPRequestHandler):
    def authorized(self):
        with open(password_file) as f:
            password = f.read().strip()
        expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        return self.headers.get("Authorization") == expected

    def refuse(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="vault test"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.authorized():
            super().do_GET()
        else:
            self.refuse()

    def do_HEAD(self):
        if self.authorized():
            super().do_HEAD()
        else:
            self.refuse()

    def log_message(self, *args):
        pass


def exit_when_stdin_ends():
    sys.stdin.buffer.read()
    os._exit(0)


# The test runner blocks signals, and a child inherits the mask.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=root))
threading.Thread(target=exit_when_stdin_ends, daemon=True).start()
print(server.server_address[1], flush=True)
server.serve_forever()
