"""The classic FastAPI endpoint of the .NET-vs-FastAPI comparisons, served by uvicorn in tests."""
import math

from fastapi import FastAPI

app = FastAPI()


@app.get("/factorial/{n}")
def factorial(n: int):
    return {"factorial": math.factorial(n)}
