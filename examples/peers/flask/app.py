"""The sleeping endpoint of the classic threads-vs-processes-vs-coroutines client comparison:
Flask's threaded development server answers /sleep after 0.1 s (or ?seconds=S, at most 10).
Run: app.py PORT"""
import sys
import time

from flask import Flask, request

app = Flask(__name__)


@app.route("/sleep")
def sleep():
    time.sleep(min(float(request.args.get("seconds", 0.1)), 10.0))
    return "slept"


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(sys.argv[1]), threaded=True)
