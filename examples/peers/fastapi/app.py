"""The FastAPI side of the classic comparison, as the article wrote it: GET /factorial/{n} answers
{"factorial": n!} computed by plain recursion — which fails (HTTP 500) once n passes Python's
recursion limit. Run with Debian's uvicorn:
    /usr/bin/python3 -m uvicorn app:app --app-dir examples/peers/fastapi --host 127.0.0.1 --port 8000
"""
from fastapi import FastAPI

app = FastAPI()


def factorial(n: int) -> int:
    return 1 if n <= 1 else n * factorial(n - 1)


@app.get("/factorial/{n}")
def get_factorial(n: int):
    return {"factorial": factorial(n)}
