// A first use of the Microbench package (bindings/dotnet/README.md shows this file; tests/dotnet/test_nuget.py
// runs it from a fresh project against Kestrel): 2000 requests over 20 connections to URL, every body
// checked to be exactly n!. Exit 0 only if every response was right.
using Microbench;

string url = args.Length > 0 ? args[0] : "http://127.0.0.1:5000/factorial?n=20";
uint n = args.Length > 1 ? uint.Parse(args[1]) : 20;
using var plan = new Plan(url) { Requests = 2000, Concurrency = 20, CheckFactorial = n };
Result r = await plan.RunAsync();
Console.WriteLine($"libmicrobench {Library.Version}: {r.Completed} correct of {r.Ended}, {r.Failures[Failure.Check]} wrong, " +
                  $"p99 {r.Total.P99Ms:F3} ms");
return r.Completed == r.Ended && r.Ended == 2000 ? 0 : 1;
