"""A scripted HTTP/1.1 server for the Python-driven tests: every GET is answered by a function of
the request's number (0, 1, 2 … in arrival order), returning (status, body bytes)."""
import contextlib
import http.server
import threading


@contextlib.contextmanager
def scripted_http(answer, threaded=True, server_header=None):
    """Yields the server's base URL (http://127.0.0.1:PORT) while it serves; shuts it down after.
    server_header: the Server header's text (sent as Latin-1), instead of http.server's own."""
    served = [0]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        if server_header is not None:
            server_version, sys_version = server_header, ""

        def do_GET(self):
            with lock:
                number = served[0]
                served[0] += 1
            status, body = answer(number)
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = (http.server.ThreadingHTTPServer if threaded else http.server.HTTPServer)(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
